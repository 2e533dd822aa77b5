// The inside of a Model: the mapped file, the config, views of every weight
// tensor (in place, any storage type) and the SentencePiece processors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/kernels.hpp"
#include "model/confidence_table.hpp"
#include "model/shortlist.hpp"
#include "softalign/config.hpp"
#include "softalign/model.hpp"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace softalign::internal {

using kernels::Matrix;

// One GRU layer (one direction): W_ih [3h, in], W_hh [3h, h], biases [3h].
struct GruWeights {
  Matrix w_ih, w_hh;
  const float* b_ih = nullptr;
  const float* b_hh = nullptr;
  int input = 0;
  int hidden = 0;
};

// Every tensor of WEIGHTS_FORMAT.md; the ones a variant does not use stay empty.
struct Weights {
  Matrix src_emb, tgt_emb;
  std::vector<GruWeights> enc_fwd, enc_bwd, dec;
  Matrix bridge_w;
  const float* bridge_b = nullptr;
  // bahdanau: W_a [a, d], U_a [a, 2n] + b; luong general: W_a [d, 2n]
  Matrix att_W_a, att_U_a;
  const float* att_U_a_b = nullptr;
  const float* att_v_a = nullptr;  // [a] (bahdanau, luong concat)
  Matrix att_W_q, att_W_k, att_W_loc, att_W_p;
  const float* att_v_p = nullptr;  // [a]
  // bahdanau / encdec output
  Matrix out_U_o, out_V_o, out_C_o;
  const float* out_U_o_b = nullptr;
  // luong output
  Matrix dec_W_c;
  Matrix gen_w;
  const float* gen_b = nullptr;
};

// Owns the model's bytes: a read-only mapping or an aligned heap copy.
class Storage {
 public:
  ~Storage();
  const uint8_t* data = nullptr;
  std::size_t size = 0;
  void* map = nullptr;        // munmap on destruction
  void* owned = nullptr;      // free on destruction
};

// Shapes every engine derives from the config (one definition each).
// Floats of decoder state a row carries: each layer's hidden state, plus
// h~ (the attentional hidden state) with Luong's input feeding.
inline int decoder_state_size(const ModelConfig& c) {
  return c.dec_layers * c.dec_hidden + (c.variant == Variant::kLuong && c.input_feeding ? c.dec_hidden : 0);
}
// Columns of the attention keys computed once per sentence (bahdanau U_a h + b,
// general W_a h, concat W_k h); 0 where there are none (dot reads the annotations).
inline int attention_key_dim(const ModelConfig& c) {
  if (c.variant == Variant::kBahdanau || (c.variant == Variant::kLuong && c.score == Score::kConcat)) return c.att_hidden;
  if (c.variant == Variant::kLuong && c.score == Score::kGeneral) return c.dec_hidden;
  return 0;
}

struct ModelImpl {
  ~ModelImpl();
  std::unique_ptr<Storage> storage;
  ModelConfig config;
  Metadata metadata;
  WeightType weight_type = WeightType::kF32;
  int schema_version = 0;
  Weights w;
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
