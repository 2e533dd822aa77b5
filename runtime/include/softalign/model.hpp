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
#include "softalign/status.hpp"

namespace softalign {

namespace internal {
struct ModelImpl;
}

class Model {
 public:
  // Maps the file at `path` (read-only, zero copy).
  static Status load(const std::string& path, std::shared_ptr<const Model>* out);
  // Copies `size` bytes into an aligned buffer owned by the model.
  static Status load_from_bytes(const void* data, std::size_t size, std::shared_ptr<const Model>* out);
  // Uses `size` bytes in place: the caller keeps them alive and unchanged for
  // the model's whole life. `data` must be aligned to 32 bytes.
  static Status load_from_memory(const void* data, std::size_t size, std::shared_ptr<const Model>* out);

  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  const ModelConfig& config() const;
  const Metadata& metadata() const;
  // The value of metadata `key`, or an empty view when absent.
  std::string_view metadata_value(std::string_view key) const;
  // The storage type of the weight matrices (f32, f16 or i8; biases stay f32).
  WeightType weight_type() const;
  // Size of the model file, in bytes.
  std::size_t file_bytes() const;
  // The file's schema version.
  int schema_version() const;
  // Whether the file carries a vocabulary shortlist (softalign-convert
  // --shortlist-corpus); translators use it unless told otherwise
  // (TranslatorOptions::use_shortlist).
  bool has_shortlist() const;

  // Tokenisation with the embedded SentencePiece models. These allocate (they
  // build std::strings and vectors); the numeric core (Translator::translate_ids)
  // does not. Source ids include the final EOS.
  Status encode_source(std::string_view text, std::vector<int32_t>* ids,
                       std::vector<std::string>* pieces = nullptr) const;
  // Target ids (without BOS/EOS) to text and pieces.
  Status decode_target(const int32_t* ids, std::size_t n, std::string* text,
                       std::vector<std::string>* pieces = nullptr) const;

  // Internal: the implementation (weights, tokenizers). Not part of the stable API.
  const internal::ModelImpl& impl() const { return *impl_; }

 private:
  explicit Model(std::unique_ptr<internal::ModelImpl> impl);
  std::unique_ptr<internal::ModelImpl> impl_;
};

}  // namespace softalign
