// The inside of a Model: the mapped file, the config, views of every weight
// tensor (in place, any storage type), the plan and the SentencePiece processors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "backends/ops.hpp"
#include "backends/shortlist.hpp"
#include "backends/weights.hpp"
#include "kernels/kernels.hpp"
#include "model/confidence_table.hpp"
#include "softalign/config.hpp"
#include "softalign/model.hpp"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace softalign::internal {

// Owns the model's bytes: a read-only mapping or an aligned heap copy.
class Storage {
 public:
  ~Storage();
  const uint8_t* data = nullptr;
  std::size_t size = 0;
  void* map = nullptr;        // munmap on destruction
  void* owned = nullptr;      // free on destruction
};

struct ModelImpl {
  ~ModelImpl();
  std::unique_ptr<Storage> storage;
  ModelConfig config;
  Metadata metadata;
  WeightType weight_type = WeightType::kF32;
  int schema_version = 0;
  Weights w;
  Plan plan;  // the model as operations over w (model/step_plan.hpp), made at load
  ShortlistTable shortlist;  // the file's vocabulary shortlist, if any
  ConfidenceCalibration confidence;  // the file's confidence calibration, if any
  // f32 copies of vectors stored as f16/i8 (biases, v_a, v_p): made once at load.
  std::deque<std::vector<float>> widened;
  std::unique_ptr<sentencepiece::SentencePieceProcessor> src_spm, tgt_spm;  // tgt may alias src (shared)
  // The embedded SentencePiece models' bytes, in the file (target = source when shared).
  std::string_view src_spm_bytes, tgt_spm_bytes;
  // The target processor for encoding text (a target prefix): tgt_spm is a
  // decoder only (load_decoder_spm), so the full one is built on first use.
  Status target_encoder(const sentencepiece::SentencePieceProcessor** out) const;
  mutable std::once_flag tgt_encoder_once;
  mutable Status tgt_encoder_status;
  mutable std::unique_ptr<sentencepiece::SentencePieceProcessor> tgt_encoder;
  const sentencepiece::SentencePieceProcessor* tgt() const { return tgt_spm ? tgt_spm.get() : src_spm.get(); }
};

// The runtime's (and the benchmark's) way to a Model's implementation: a
// friend of Model, declared only here, so no public header exposes ModelImpl.
struct ModelAccess {
  static const ModelImpl& impl(const Model& model) { return *model.impl_; }
};

}  // namespace softalign::internal
