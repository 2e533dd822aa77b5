// Fuzz target: arbitrary text into loaded tiny golden models and the shipped
// en→fr file (whose normaliser rewrites non-ASCII text; the golden models'
// is the identity). The first input byte picks the model (bits 0-1 and 7), the beam (bit 2: 1 or 3), attention and
// alignments (bit 3), translate vs translate_batch split at '\n' (bit 4), the
// invalid-UTF-8 policy (bit 5) and the long-input policy (bit 6); the rest is
// the text. Any Status is fine; a crash, sanitizer report or timeout is not.
// Models: $SOFTALIGN_FUZZ_MODELS (paths separated by ':') or four golden
// files covering local-p, location, concat and bahdanau in f32, f16 and int8,
// then the shipped en→fr file (model 4: bit 7 set, bits 0-1 clear).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_models.hpp"
#include "softalign/softalign.hpp"

using namespace softalign;

namespace {

struct Loaded {
  std::shared_ptr<const Model> model;
  std::unique_ptr<Translator> tr[2][2];  // [utf8 policy][long-input policy]
};
std::vector<Loaded>* loaded = nullptr;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const std::vector<std::string> paths = fuzz_model_paths();
  loaded = new std::vector<Loaded>(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    Loaded& l = (*loaded)[i];
    Status st = Model::load(paths[i], &l.model);
    for (int u = 0; st.ok() && u < 2; ++u)
      for (int s = 0; st.ok() && s < 2; ++s) {
        TranslatorOptions opt;
        opt.search.beam_size = 3;
        opt.search.nbest = 3;
        opt.invalid_utf8 = u ? InvalidUtf8Policy::kReplace : InvalidUtf8Policy::kError;
        opt.long_input = s ? LongInputPolicy::kSplit : LongInputPolicy::kError;
        st = Translator::prepare(l.model, opt, &l.tr[u][s]);
      }
    if (!st.ok()) {
      std::fprintf(stderr, "fuzz_translate: %s: %s\n", paths[i].c_str(), st.to_string().c_str());
      std::abort();
    }
  }
  if (loaded->empty()) std::abort();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t sel = data[0];
  Loaded& l = (*loaded)[((sel & 3) | (sel >> 7) << 2) % loaded->size()];
  Translator& tr = *l.tr[(sel >> 5) & 1][(sel >> 6) & 1];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  SearchOptions so;
  so.beam_size = (sel & 4) ? 3 : 1;
  so.nbest = so.beam_size;
  so.return_attention = (sel & 8) != 0;
  so.return_alignment = (sel & 8) != 0;
  if (sel & 16) {
    std::vector<std::string> texts;
    std::string cur;
    for (char ch : text) {
      if (ch == '\n') {
        texts.push_back(cur);
        cur.clear();
      } else {
        cur += ch;
      }
    }
    texts.push_back(cur);
    std::vector<TranslationResult> out;
    (void)tr.translate_batch(texts, so, &out);
  } else {
    TranslationResult r;
    (void)tr.translate(text, so, &r);
    std::vector<int32_t> ids;
    (void)l.model->encode_source(text, &ids);
  }
  return 0;
}
