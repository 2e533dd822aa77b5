// Fuzz target: what copy-through, glossaries and target prefixes promise, as
// an oracle (copy_oracle.hpp). The bytes choose a source of English words and
// spans (URLs with random %XX escapes, paths, e-mail addresses, numbers,
// placeholders, identifiers); it is translated with copy-through and
// placeholder repair on, and whatever the model writes:
// - each span comes out exactly as often as the source holds it;
// - with a glossary (a target that may look like a placeholder: "%s",
//   "<b>fichier</b>"), its target is in the output when the source has the term;
// - with a target prefix (tags, formats, special pieces), the output starts
//   with it.
// The first byte picks the model (bits 0-1: two tiny golden models, whose
// output is noise, or the shipped en→fr file), greedy or beam 3 (bit 2), a
// glossary (bits 3-5) and a prefix (bits 6-7). A broken promise aborts (a
// finding), as a crash would.
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

// Glossary targets for the source term "file" (0: no glossary).
constexpr const char* kTargets[] = {nullptr, "%s", "<b>fichier</b>", "{file}", "dossier", "&amp;", "%1", "Datei"};
constexpr int kGlossaries = sizeof kTargets / sizeof *kTargets;
// Target prefixes (0: none).
constexpr const char* kPrefixes[] = {nullptr, "<b>Un", "Le %s", "<unk>"};

struct Loaded {
  std::shared_ptr<const Model> model;
  std::unique_ptr<Translator> tr[kGlossaries];
};
std::vector<Loaded>* loaded = nullptr;

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "fuzz_copy_through: a promise broke: %s\n", what.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const std::vector<std::string> paths = fuzz_model_paths();
  loaded = new std::vector<Loaded>(paths.size());
  for (std::size_t i = 0; i < paths.size(); ++i) {
    Loaded& l = (*loaded)[i];
    Status st = Model::load(paths[i], &l.model);
    for (int g = 0; st.ok() && g < kGlossaries; ++g) {
      TranslatorOptions opt;
      opt.search.beam_size = 3;
      if (kTargets[g] != nullptr) opt.glossary = {{"file", kTargets[g]}};
      st = Translator::prepare(l.model, opt, &l.tr[g]);
    }
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
  Loaded& l = (*loaded)[(sel & 3) % loaded->size()];
  const int glossary = (sel >> 3) & 7;
  const char* prefix = kPrefixes[sel >> 6];
  copy_oracle::Choices choices(data + 1, size - 1);
  const copy_oracle::Source source = copy_oracle::generate(choices);
  SearchOptions so;
  so.beam_size = (sel & 4) ? 3 : 1;
  if (prefix != nullptr) so.target_prefix = prefix;
  TranslationResult r;
  const Status st = l.tr[glossary]->translate(source.text, so, &r);
  // A prefix the model's vocabulary cannot write is refused, naming it (a golden model's tiny vocabulary).
  if (!st.ok() && !(prefix != nullptr && st.code() == StatusCode::kInvalidArgument))
    finding("\"" + source.text + "\": " + st.to_string());
  if (!st.ok()) return 0;
  // What the glossary adds: its target once for each time the source has the term.
  std::string added;
  const std::size_t terms = copy_oracle::count(source.text, "file") + copy_oracle::count(source.text, "File");
  for (std::size_t k = 0; kTargets[glossary] != nullptr && k < terms; ++k)
    added += std::string(" ") + kTargets[glossary];
  for (const Hypothesis& h : r.hypotheses) {
    const std::string wrong = copy_oracle::check(source, h.text, prefix != nullptr ? prefix : "", added);
    if (!wrong.empty()) finding(wrong);
    if (prefix != nullptr && h.text.rfind(prefix, 0) != 0)
      finding("\"" + h.text + "\" does not start with the prefix \"" + prefix + "\" (\"" + source.text + "\")");
    std::string capital = kTargets[glossary] != nullptr ? kTargets[glossary] : "";
    if (!capital.empty() && capital[0] >= 'a' && capital[0] <= 'z') capital[0] = static_cast<char>(capital[0] - 32);
    if (kTargets[glossary] != nullptr && terms > 0 &&  // as given, or capitalised
        h.text.find(kTargets[glossary]) == std::string::npos && h.text.find(capital) == std::string::npos)
      finding("\"" + h.text + "\" lacks the glossary target \"" + kTargets[glossary] + "\" (\"" + source.text + "\")");
  }
  return 0;
}
