// Fuzz target: the copy-through promise as an oracle (copy_oracle.hpp). The
// bytes choose a source of English words and spans (URLs with random %XX
// escapes, paths, e-mail addresses, numbers, placeholders, identifiers); it
// is translated with copy-through and placeholder repair on, and each span
// must come out exactly as often as the source holds it, whatever the model
// writes. The first byte picks the model (a tiny golden model, whose output is
// noise, or the shipped en→fr file) and greedy or beam 3; a broken promise
// aborts (a finding), as a crash would.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "copy_oracle.hpp"
#include "fuzz_models.hpp"
#include "softalign/softalign.hpp"

using namespace softalign;

namespace {

struct Loaded {
  std::shared_ptr<const Model> model;
  std::unique_ptr<Translator> tr;
};
std::vector<Loaded>* loaded = nullptr;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const std::vector<std::string> paths = fuzz_model_paths();
  loaded = new std::vector<Loaded>(paths.size());
  for (std::size_t i = 0; i < paths.size(); ++i) {
    Loaded& l = (*loaded)[i];
    Status st = Model::load(paths[i], &l.model);
    TranslatorOptions opt;
    opt.search.beam_size = 3;
    if (st.ok()) st = Translator::prepare(l.model, opt, &l.tr);
    if (!st.ok()) {
      std::fprintf(stderr, "fuzz_copy_through: %s: %s\n", paths[i].c_str(), st.to_string().c_str());
      std::abort();
    }
  }
  if (loaded->empty()) std::abort();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t sel = data[0];
  Loaded& l = (*loaded)[(sel & 7) % loaded->size()];
  copy_oracle::Choices choices(data + 1, size - 1);
  const copy_oracle::Source source = copy_oracle::generate(choices);
  SearchOptions so;
  so.beam_size = (sel & 8) ? 3 : 1;
  TranslationResult r;
  const Status st = l.tr->translate(source.text, so, &r);
  if (!st.ok()) {
    std::fprintf(stderr, "fuzz_copy_through: \"%s\": %s\n", source.text.c_str(), st.to_string().c_str());
    std::abort();
  }
  const std::string wrong = copy_oracle::check(source, r.hypotheses.at(0).text);
  if (!wrong.empty()) {
    std::fprintf(stderr, "fuzz_copy_through: the copy-through promise broke: %s\n", wrong.c_str());
    std::abort();
  }
  return 0;
}
