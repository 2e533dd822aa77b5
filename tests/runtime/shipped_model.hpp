// The shipped en→fr file and source sentences for it, for doctest cases
// (the helpers REQUIRE: golden_util.hpp stays usable outside doctest).
#pragma once

#include <doctest/doctest.h>

#include <memory>
#include <vector>

#include "golden_util.hpp"

namespace golden {

// The shipped en→fr file (int8, with its vocabulary shortlist), loaded.
inline std::shared_ptr<const softalign::Model> shipped_en_fr() {
  std::shared_ptr<const softalign::Model> model;
  const auto path = source_dir() / ".." / ".." / "models" / "en-fr" / "en-fr.int8.softalign";
  REQUIRE(softalign::Model::load(path.string(), &model).ok());
  REQUIRE(model->has_shortlist());
  return model;
}

// Twelve package descriptions of the kind the shipped models translate, as
// the model's source ids (the first `n`).
inline std::vector<std::vector<int32_t>> package_sentences(const softalign::Model& model, std::size_t n = 12) {
  static const char* const texts[] = {"This package contains the documentation.", "A simple text editor.",
                                      "Free software for your computer", "Tools to manage the files of a project.",
                                      "The library is used by many programs.", "Open file",
                                      "Development files for the XML parser library.",
                                      "A daemon that watches the network.", "Fonts for the desktop",
                                      "Command line tools to convert images between formats.", "Python bindings",
                                      "Transitional dummy package."};
  std::vector<std::vector<int32_t>> out;
  for (std::size_t i = 0; i < n && i < 12; ++i) {
    std::vector<int32_t> ids;
    REQUIRE(model.encode_source(texts[i], &ids).ok());
    out.push_back(ids);
  }
  return out;
}

}  // namespace golden
