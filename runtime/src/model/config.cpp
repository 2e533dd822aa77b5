#include "softalign/config.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "softalign_names.h"

namespace softalign {

// The names are the one table's (softalign_names.h).
const char* variant_name(Variant v) { return names::name(v); }
const char* score_name(Score s) { return names::name(s); }
const char* scope_name(Scope s) { return names::name(s); }
const char* cell_name(Cell c) { return names::name(c); }
const char* decoder_init_name(DecoderInit i) { return names::name(i); }
const char* beam_rules_name(BeamRules r) { return names::name(r); }
bool beam_rules_from_name(std::string_view name, BeamRules* out) { return names::parse(name, out); }

const char* weight_type_name(WeightType t) {
  switch (t) {
    case WeightType::kF32: return "f32";
    case WeightType::kF16: return "f16";
    case WeightType::kI8: return "i8";
  }
  return "?";
}

}  // namespace softalign

namespace softalign {

namespace {

std::string num(double v) {
  std::string s = std::to_string(v);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

}  // namespace

// The one definition of what a model config may hold (ConfigLimits in
// config.hpp). The messages name the WEIGHTS_FORMAT.md keys, because the
// converter prints them to the person who wrote the config.
Status validate_config(const ModelConfig& c) {
  using L = ConfigLimits;
  auto bad = [](const std::string& msg) { return Status(StatusCode::kInvalidModel, msg); };
  auto in_range = [](int v, int lo, int hi) { return v >= lo && v <= hi; };
  const std::pair<const char*, int> layers[] = {{"enc_layers", c.enc_layers}, {"dec_layers", c.dec_layers}};
  for (const auto& [k, v] : layers)
    if (!in_range(v, 1, L::kMaxLayers))
      return bad(std::string(k) + " must be in [1, " + std::to_string(L::kMaxLayers) + "], got " + std::to_string(v));
  const std::pair<const char*, int> dims[] = {
      {"emb_size", c.emb_size}, {"enc_hidden", c.enc_hidden}, {"dec_hidden", c.dec_hidden}};
  for (const auto& [k, v] : dims)
    if (!in_range(v, 1, L::kMaxDim))
      return bad(std::string(k) + " must be in [1, " + std::to_string(L::kMaxDim) + "], got " + std::to_string(v));
  const std::pair<const char*, int> optional_dims[] = {
      {"window_d", c.window_d}, {"att_hidden", c.att_hidden}, {"maxout_size", c.maxout_size}};
  for (const auto& [k, v] : optional_dims)
    if (!in_range(v, 0, L::kMaxDim))
      return bad(std::string(k) + " must be in [0, " + std::to_string(L::kMaxDim) + "], got " + std::to_string(v));
  const std::pair<const char*, int> vocabs[] = {{"src_vocab", c.src_vocab}, {"tgt_vocab", c.tgt_vocab}};
  for (const auto& [k, v] : vocabs)
    if (!in_range(v, 4, L::kMaxVocab))
      return bad(std::string(k) + " must be in [4, " + std::to_string(L::kMaxVocab) + "], got " + std::to_string(v));
  if (!in_range(c.max_src_len, 1, L::kMaxSourceLength))
    return bad("max_src_len must be in [1, " + std::to_string(L::kMaxSourceLength) + "], got " +
               std::to_string(c.max_src_len));
  const std::pair<const char*, int> ids[] = {
      {"pad_id", c.pad_id}, {"unk_id", c.unk_id}, {"bos_id", c.bos_id}, {"eos_id", c.eos_id}};
  for (const auto& [k, v] : ids)
    if (v < 0 || v >= std::min(c.src_vocab, c.tgt_vocab))
      return bad(std::string(k) + " = " + std::to_string(v) + " is outside the vocabularies");
  for (int i = 0; i < 4; ++i)
    for (int j = i + 1; j < 4; ++j)
      if (ids[i].second == ids[j].second) return bad("special ids must be distinct");
  if (c.shared_vocab && c.src_vocab != c.tgt_vocab) return bad("shared_vocab needs src_vocab == tgt_vocab");

  // Format version 2's keys.
  if (!names::find(c.cell) || !names::find(c.decoder_init) || !names::find(c.decoding.beam_rules))
    return bad("unknown cell, decoder_init or decoding.beam_rules value");
  if (c.enc_directions != 1 && c.enc_directions != 2)
    return bad("enc_directions must be 1 or 2, got " + std::to_string(c.enc_directions));
  const int64_t ann = int64_t{c.enc_directions} * c.enc_hidden;  // A, the annotations' width
  if (c.reverse_source && c.enc_directions != 1) return bad("reverse_source needs a one-way encoder (enc_directions 1)");
  const std::string init = std::string("decoder_init ") + decoder_init_name(c.decoder_init);
  switch (c.decoder_init) {
    case DecoderInit::kTanhBackward:
      if (c.enc_directions != 2) return bad(init + " reads the backward direction: it needs enc_directions 2");
      break;
    case DecoderInit::kFinal:
    case DecoderInit::kReluFinal:
      if (c.enc_layers != c.dec_layers || ann != c.dec_hidden)
        return bad(init + " needs enc_layers == dec_layers and enc_directions * enc_hidden == dec_hidden (got " +
                   std::to_string(c.enc_layers) + " and " + std::to_string(c.dec_layers) + " layers, " +
                   std::to_string(ann) + " and " + std::to_string(c.dec_hidden) + ")");
      break;
    case DecoderInit::kLastForward:
      if (c.enc_hidden != c.dec_hidden) return bad(init + " needs enc_hidden == dec_hidden");
      break;
    case DecoderInit::kTanhFinal:
    case DecoderInit::kZero:
      break;
  }
  const bool luong = c.variant == Variant::kLuong;
  if (c.query_bias && !(luong && c.score == Score::kConcat)) return bad("query_bias is a luong concat option");
  if ((c.combine_bias || !c.combine_tanh) && !luong) return bad("combine_bias and combine_tanh are luong options");

  const std::string variant = variant_name(c.variant);
  if (c.variant == Variant::kLuong) {
    if (c.score == Score::kNone)
      return bad("luong needs a score other than none (" + names::choices<Score>() + ")");
    if (c.maxout_size != 0) return bad("luong has no maxout layer: maxout_size must be 0");
    if (c.score == Score::kDot && c.dec_hidden != ann)
      return bad("score dot needs dec_hidden == enc_directions * enc_hidden (got dec_hidden " +
                 std::to_string(c.dec_hidden) + ", enc_hidden " + std::to_string(c.enc_hidden) + ", enc_directions " +
                 std::to_string(c.enc_directions) + ")");
    if (c.score == Score::kLocation && c.scope != Scope::kGlobal)
      return bad("the location score works with global scope only");
    if (c.scope == Scope::kGlobal && c.window_d != 0) return bad("window_d must be 0 with global scope");
    if (c.scope != Scope::kGlobal && c.window_d < 1)
      return bad(std::string(scope_name(c.scope)) + " scope needs window_d >= 1");
    const bool needs_att = c.score == Score::kConcat || c.scope == Scope::kLocalP;
    if (needs_att && c.att_hidden < 1) return bad("concat score and local-p scope need att_hidden >= 1");
    if (!needs_att && c.att_hidden != 0) return bad("att_hidden must be 0 when neither concat nor local-p is used");
  } else {
    if (c.score != Score::kNone)
      return bad(variant + " has no score: score must be \"none\", got \"" + score_name(c.score) + "\"");
    if (c.scope != Scope::kGlobal)
      return bad(variant + " has no local attention: scope must be \"global\", got \"" + scope_name(c.scope) + "\"");
    if (c.window_d != 0) return bad(variant + ": window_d must be 0");
    if (c.input_feeding) return bad("input_feeding is a luong option");
    if (c.maxout_size < 1) return bad(variant + " needs maxout_size >= 1");
    if (c.variant == Variant::kBahdanau && c.att_hidden < 1) return bad("bahdanau needs att_hidden >= 1");
    if (c.variant == Variant::kEncDec && c.att_hidden != 0)
      return bad("encdec has no attention: att_hidden must be 0");
  }
  // Every matrix index fits in 32 bits (the kernels index rows × columns in int).
  const int64_t out_in = c.variant == Variant::kLuong ? c.dec_hidden : c.maxout_size;
  const int64_t widest = std::max<int64_t>({c.emb_size, out_in, ann + c.dec_hidden});
  if (std::max(c.src_vocab, c.tgt_vocab) * widest > INT32_MAX)
    return bad("the vocabularies are too large for these sizes (vocabulary x width exceeds 2^31)");

  const DecodingDefaults& d = c.decoding;
  if (!in_range(d.beam, 1, L::kMaxBeam))
    return bad("decoding.beam must be in [1, " + std::to_string(L::kMaxBeam) + "], got " + std::to_string(d.beam));
  if (d.nbest < 1 || d.nbest > d.beam) return bad("decoding.nbest must be in [1, decoding.beam]");
  if (!(d.alpha >= 0 && d.alpha < L::kMaxPenalty) || !(d.beta >= 0 && d.beta < L::kMaxPenalty))
    return bad("decoding.alpha and decoding.beta must be in [0, " + num(L::kMaxPenalty) + ")");
  if (!(d.max_len_a >= 0 && d.max_len_a <= L::kMaxLenA) || !(d.max_len_b >= 0 && d.max_len_b <= L::kMaxLenB))
    return bad("decoding.max_len_a must be in [0, " + num(L::kMaxLenA) + "] and decoding.max_len_b in [0, " +
               num(L::kMaxLenB) + "]");
  if (!in_range(d.block_repeats, 0, L::kMaxBlockRepeats))
    return bad("decoding.block_repeats must be in [0, " + std::to_string(L::kMaxBlockRepeats) + "], got " +
               std::to_string(d.block_repeats));
  if (d.beam_rules != BeamRules::kSoftalign && (d.nbest != 1 || d.beta != 0 || d.block_repeats != 0))
    return bad(std::string("decoding.beam_rules ") + beam_rules_name(d.beam_rules) +
               " has no n-best, coverage penalty or repetition blocking: decoding.nbest must be 1, beta 0 and "
               "block_repeats 0");
  return Status::Ok();
}

}  // namespace softalign
