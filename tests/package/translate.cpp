// An outside program that uses softalign's C++ API as an app would:
//
//   translate MODEL SENTENCE...
//
// translates each SENTENCE greedily, one line each; exit status 1 with one
// line on stderr on any error. Built by tests/package against the installed
// tree (find_package) and against the source tree (FetchContent).
#include <softalign/softalign.hpp>

#include <cstring>
#include <iostream>
#include <memory>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: " << argv[0] << " MODEL SENTENCE...\n";
    return 1;
  }
  if (std::strcmp(softalign::version(), SOFTALIGN_EXPECTED_VERSION) != 0) {
    std::cerr << "error: library version " << softalign::version() << ", expected " << SOFTALIGN_EXPECTED_VERSION
              << "\n";
    return 1;
  }
  std::shared_ptr<const softalign::Model> model;
  softalign::Status st = softalign::Model::load(argv[1], &model);
  softalign::TranslatorOptions options;
  options.search.beam_size = 1;  // greedy
  std::unique_ptr<softalign::Translator> translator;
  if (st.ok()) st = softalign::Translator::prepare(model, options, &translator);
  for (int i = 2; st.ok() && i < argc; ++i) {
    softalign::TranslationResult result;
    st = translator->translate(argv[i], &result);
    if (st.ok()) std::cout << (result.hypotheses.empty() ? "" : result.hypotheses[0].text) << "\n";
  }
  if (!st.ok()) {
    std::cerr << "error: " << st.to_string() << "\n";
    return 1;
  }
  return 0;
}
