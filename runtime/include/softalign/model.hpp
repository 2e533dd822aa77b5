// softalign — an immutable, loaded model.
//
// Loading maps the file (zero copy), verifies it with the FlatBuffers
// Verifier, checks the schema version and checks every tensor's name, shape
// and type against the config. The weights are then used in place. A Model is
// read-only after load and may be shared by any number of threads and
// Translators (hold it by std::shared_ptr<const Model>).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "softalign/config.hpp"
#include "softalign/export.h"
#include "softalign/status.hpp"

namespace softalign {

namespace internal {
struct ModelImpl;
struct ModelAccess;
}

// How Model::load reads its file. kMap maps it (read-only, zero copy: pages
// are read on demand and shared by every process that maps the file); the
// file must then stay unchanged while the model lives — replace it by writing
// a new file and renaming it over the old one, never by rewriting it in place
// (a file truncated under a mapping raises SIGBUS on the next read). kCopy
// reads it whole into memory the model owns: the file may then change or go
// at any time, for the cost of its size in memory (20.6 MiB for a shipped
// file, private to the process) and of reading it all at load.
enum class LoadMode { kMap, kCopy };

class Model {
 public:
  // Maps the file at `path` (LoadMode::kMap).
  SOFTALIGN_API static Status load(const std::string& path, std::shared_ptr<const Model>* out);
  SOFTALIGN_API static Status load(const std::string& path, LoadMode mode, std::shared_ptr<const Model>* out);
  // Copies `size` bytes into an aligned buffer owned by the model.
  SOFTALIGN_API static Status load_from_bytes(const void* data, std::size_t size, std::shared_ptr<const Model>* out);
  // Uses `size` bytes in place: the caller keeps them alive and unchanged for
  // the model's whole life. `data` must be aligned to 32 bytes.
  SOFTALIGN_API static Status load_from_memory(const void* data, std::size_t size, std::shared_ptr<const Model>* out);

  SOFTALIGN_API ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  SOFTALIGN_API const ModelConfig& config() const;
  SOFTALIGN_API const Metadata& metadata() const;
  // The value of metadata `key`, or an empty view when absent.
  SOFTALIGN_API std::string_view metadata_value(std::string_view key) const;
  // The storage type of the weight matrices (f32, f16 or i8; biases stay f32).
  SOFTALIGN_API WeightType weight_type() const;
  // Size of the model file, in bytes.
  SOFTALIGN_API std::size_t file_bytes() const;
  // The file's schema version.
  SOFTALIGN_API int schema_version() const;
  // Whether the file carries a vocabulary shortlist (softalign-convert
  // --shortlist-corpus); translators use it unless told otherwise
  // (TranslatorOptions::use_shortlist).
  SOFTALIGN_API bool has_shortlist() const;
  // Whether the file carries a confidence calibration (softalign-convert
  // --confidence; softalign/confidence.hpp), and how it was fitted (empty
  // when it has none).
  SOFTALIGN_API bool confidence_calibrated() const;
  SOFTALIGN_API std::string_view confidence_fitted_on() const;

  // Tokenisation with the embedded SentencePiece models. These allocate (they
  // build std::strings and vectors); the numeric core (Translator::translate_ids)
  // does not. Source ids include the final EOS.
  SOFTALIGN_API Status encode_source(std::string_view text, std::vector<int32_t>* ids,
                                     std::vector<std::string>* pieces = nullptr) const;
  // Target text to ids (without BOS/EOS): what a target prefix is made of.
  // The first call builds the target tokenizer (translators only decode
  // with it otherwise).
  SOFTALIGN_API Status encode_target(std::string_view text, std::vector<int32_t>* ids,
                                     std::vector<std::string>* pieces = nullptr) const;
  // Target ids (without BOS/EOS) to text and pieces.
  SOFTALIGN_API Status decode_target(const int32_t* ids, std::size_t n, std::string* text,
                                     std::vector<std::string>* pieces = nullptr) const;

 private:
  // The runtime reaches the implementation (weights, tokenizers) through
  // internal::ModelAccess (runtime/src/model_impl.hpp); it is not public API.
  friend struct internal::ModelAccess;
  explicit Model(std::unique_ptr<internal::ModelImpl> impl);
  std::unique_ptr<internal::ModelImpl> impl_;
};

}  // namespace softalign
