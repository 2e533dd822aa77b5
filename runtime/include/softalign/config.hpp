// softalign — a model's configuration, as stored in the model file
// (the keys of the weights format contract, models/WEIGHTS_FORMAT.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "softalign/status.hpp"
#include <utility>
#include <vector>

#include "softalign/export.h"

namespace softalign {

enum class Variant { kEncDec, kBahdanau, kLuong };
enum class Score { kNone, kDot, kGeneral, kConcat, kLocation };
enum class Scope { kGlobal, kLocalM, kLocalP };
enum class WeightType { kF32, kF16, kI8 };
// Format version 2 (models/WEIGHTS_FORMAT.md, "Keys of format version 2").
enum class Cell { kGru, kLstm };
enum class DecoderInit { kTanhBackward, kTanhFinal, kFinal, kReluFinal, kLastForward, kZero };
enum class BeamRules { kSoftalign, kOpenNmt, kJoeyNmt };

SOFTALIGN_API const char* variant_name(Variant v);        // "encdec", "bahdanau", "luong"
SOFTALIGN_API const char* score_name(Score s);            // "none", "dot", ...
SOFTALIGN_API const char* scope_name(Scope s);            // "global", "local-m", "local-p"
SOFTALIGN_API const char* weight_type_name(WeightType t); // "f32", "f16", "i8"
SOFTALIGN_API const char* cell_name(Cell c);                // "gru", "lstm"
SOFTALIGN_API const char* decoder_init_name(DecoderInit i); // "tanh-backward", ...
SOFTALIGN_API const char* beam_rules_name(BeamRules r);     // "softalign", "opennmt", "joeynmt"
// The beam rules of a name (beam_rules_name's); false (and *out unchanged) for another.
SOFTALIGN_API bool beam_rules_from_name(std::string_view name, BeamRules* out);

// The decoder's first state in format version 1, where the variant fixed it.
constexpr DecoderInit version1_decoder_init(Variant v) {
  return v == Variant::kEncDec ? DecoderInit::kTanhFinal : DecoderInit::kTanhBackward;
}

// The decoding defaults the model was shipped with.
struct DecodingDefaults {
  int beam = 4;
  float alpha = 0.0f;      // GNMT length penalty exponent
  float beta = 0.0f;       // coverage penalty weight
  float max_len_a = 1.5f;  // T = floor(a * S + b)
  float max_len_b = 10.0f;
  int nbest = 1;
  // Repetition blocking: no hypothesis may repeat, right after itself, a
  // word or a group of words of up to this many target pieces ("gratuit
  // gratuit"); 0 = off (SearchOptions::block_repeats).
  int block_repeats = 0;
  // Whose beam search: softalign's, or OpenNMT-py's or JoeyNMT's rules for
  // models imported from them (WEIGHTS_FORMAT.md, "Beam rules").
  BeamRules beam_rules = BeamRules::kSoftalign;
};

struct ModelConfig {
  Variant variant = Variant::kBahdanau;
  Score score = Score::kNone;
  Scope scope = Scope::kGlobal;
  int window_d = 0;            // D, local window half-width
  bool input_feeding = false;  // luong only
  int enc_layers = 1;
  int dec_layers = 1;
  int emb_size = 0;     // m
  int enc_hidden = 0;   // n (per direction; annotations have enc_directions * n)
  int dec_hidden = 0;   // d
  int att_hidden = 0;   // a
  int maxout_size = 0;  // l
  int src_vocab = 0;
  int tgt_vocab = 0;
  bool shared_vocab = false;
  int pad_id = 0, unk_id = 1, bos_id = 2, eos_id = 3;
  int max_src_len = 0;  // S_max, EOS included
  // Format version 2; the defaults are what version 1 computes.
  Cell cell = Cell::kGru;       // encoder and decoder
  int enc_directions = 2;       // 2: bidirectional; 1: one-way (annotations have enc_directions * n)
  bool reverse_source = false;  // one-way: the encoder reads right to left
  bool source_eos = true;       // false: the encoder does not read the source's EOS
  DecoderInit decoder_init = DecoderInit::kTanhBackward;  // version1_decoder_init(variant) for version-1 files
  bool query_bias = false;      // luong concat: attention.W_q.bias
  bool combine_bias = false;    // luong: decoder.W_c.bias
  bool combine_tanh = true;     // luong: tanh on the attentional layer
  // Text in and out is tokens separated by spaces (a model whose toolkit did
  // not use SentencePiece, softalign-import --pretokenized): the runtime cuts
  // at whitespace and looks each token up; the embedded SentencePiece models
  // only list the tokens by id.
  bool pretokenized = false;
  DecodingDefaults decoding;
  std::string src_lang, tgt_lang, name;
};

// The limits every model file's config must respect. The runtime refuses a
// file beyond them, and softalign-convert refuses to write one: both apply
// validate_config, the one definition of these rules.
struct ConfigLimits {
  static constexpr int kMaxLayers = 16;          // enc_layers, dec_layers
  static constexpr int kMaxDim = 1 << 14;        // emb_size, hidden sizes, maxout_size, window_d
  static constexpr int kMaxVocab = 1 << 20;      // src_vocab, tgt_vocab
  static constexpr int kMaxSourceLength = 1024;  // max_src_len (S_max), EOS included
  static constexpr int kMaxBeam = 1024;          // decoding.beam
  static constexpr float kMaxLenA = 100.0f;      // decoding.max_len_a
  static constexpr float kMaxLenB = 10000.0f;    // decoding.max_len_b
  static constexpr float kMaxPenalty = 100.0f;   // decoding.alpha, decoding.beta (exclusive)
  static constexpr int kMaxBlockRepeats = 8;     // decoding.block_repeats
};

// Checks a config against the rules of models/WEIGHTS_FORMAT.md and the
// limits above: ok, or kInvalidModel with one line naming the key and the
// problem (e.g. "score dot needs dec_hidden == 2 * enc_hidden ...").
SOFTALIGN_API Status validate_config(const ModelConfig& c);

// Free-form metadata carried by the file (corpus, metrics, converter version, ...).
using Metadata = std::vector<std::pair<std::string, std::string>>;

}  // namespace softalign
