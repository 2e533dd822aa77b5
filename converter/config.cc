#include "config.h"

#include <cmath>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include "bounded_json.h"
#include "softalign/config.hpp"
#include "softalign_names.h"
#include "error.h"

namespace softalign::convert {

namespace {

using json = nlohmann::json;

[[noreturn]] void bad(const std::string& msg) { throw Error("invalid model config: " + msg); }

void need(bool ok, const std::string& msg) {
  if (!ok) bad(msg);
}

const json& key(const json& obj, const std::string& k, const std::string& prefix = "") {
  auto it = obj.find(k);
  if (it == obj.end()) bad("key \"" + prefix + k + "\" is missing");
  return *it;
}

int get_int(const json& obj, const std::string& k, const std::string& prefix = "") {
  const json& v = key(obj, k, prefix);
  if (!v.is_number_integer() || v.get<int64_t>() < std::numeric_limits<int>::min() ||
      v.get<int64_t>() > std::numeric_limits<int>::max())
    bad("\"" + prefix + k + "\" must be an integer, got " + v.dump());
  return v.get<int>();
}

float get_float(const json& obj, const std::string& k, const std::string& prefix = "") {
  const json& v = key(obj, k, prefix);
  if (!v.is_number() || !std::isfinite(v.get<double>()))
    bad("\"" + prefix + k + "\" must be a number, got " + v.dump());
  return v.get<float>();
}

bool get_bool(const json& obj, const std::string& k) {
  const json& v = key(obj, k);
  if (!v.is_boolean()) bad("\"" + k + "\" must be true or false, got " + v.dump());
  return v.get<bool>();
}

std::string get_string(const json& obj, const std::string& k) {
  const json& v = key(obj, k);
  if (!v.is_string()) bad("\"" + k + "\" must be a string, got " + v.dump());
  return v.get<std::string>();
}

std::string as_text(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// A variant, score or scope by its name in the one table (softalign_names.h).
template <class E>
E get_name(const json& obj, const std::string& k, const std::string& kind = "") {
  const std::string s = get_string(obj, k);
  E v{};
  if (!names::parse(s, &v)) bad("unknown " + kind + k + " \"" + s + "\" (expected " + names::choices<E>() + ")");
  return v;
}

// The rules are the runtime's (softalign::validate_config), so the converter
// never writes a file the runtime refuses.
void check(const ModelConfig& c) {
  const softalign::Status st = softalign::validate_config(c);
  if (!st.ok()) bad(st.message());
}

}  // namespace

ModelConfig parse_config(const std::string& json_text) {
  const json j = parse_bounded_json(json_text.data(), json_text.data() + json_text.size(), "the config metadata");
  if (!j.is_object()) bad("the config is not a JSON object");

  const std::string format = get_string(j, "format");
  need(format == "softalign-weights", "format must be \"softalign-weights\", got \"" + format + "\"");
  const int version = get_int(j, "format_version");
  need(version <= 2, "format_version " + std::to_string(version) +
                         " is newer than this converter reads (2); update softalign-convert");
  need(version >= 1, "format_version must be 1 or 2, got " + std::to_string(version));

  ModelConfig c;
  c.variant = get_name<Variant>(j, "variant");
  const std::string kind = std::string(names::name(c.variant)) + " ";  // "unknown luong score ..."
  c.score = get_name<Score>(j, "score", kind);
  c.scope = get_name<Scope>(j, "scope", kind);
  c.window_d = get_int(j, "window_d");
  c.input_feeding = get_bool(j, "input_feeding");
  c.enc_layers = get_int(j, "enc_layers");
  c.dec_layers = get_int(j, "dec_layers");
  c.emb_size = get_int(j, "emb_size");
  c.enc_hidden = get_int(j, "enc_hidden");
  c.dec_hidden = get_int(j, "dec_hidden");
  c.att_hidden = get_int(j, "att_hidden");
  c.maxout_size = get_int(j, "maxout_size");
  c.src_vocab = get_int(j, "src_vocab");
  c.tgt_vocab = get_int(j, "tgt_vocab");
  c.shared_vocab = get_bool(j, "shared_vocab");
  c.pad_id = get_int(j, "pad_id");
  c.unk_id = get_int(j, "unk_id");
  c.bos_id = get_int(j, "bos_id");
  c.eos_id = get_int(j, "eos_id");
  c.max_src_len = get_int(j, "max_src_len");
  const json& dec = key(j, "decoding");
  if (!dec.is_object()) bad("\"decoding\" must be an object, got " + dec.dump());
  c.decoding.beam = get_int(dec, "beam", "decoding.");
  c.decoding.alpha = get_float(dec, "alpha", "decoding.");
  c.decoding.beta = get_float(dec, "beta", "decoding.");
  c.decoding.max_len_a = get_float(dec, "max_len_a", "decoding.");
  c.decoding.max_len_b = get_float(dec, "max_len_b", "decoding.");
  c.decoding.nbest = get_int(dec, "nbest", "decoding.");
  if (dec.contains("block_repeats")) c.decoding.block_repeats = get_int(dec, "block_repeats", "decoding.");
  c.src_lang = get_string(j, "src_lang");
  c.tgt_lang = get_string(j, "tgt_lang");
  c.name = get_string(j, "name");
  // Version 2's keys, each optional (absent: version 1's value); a version-1
  // config may not use them.
  c.decoder_init = softalign::version1_decoder_init(c.variant);
  static const char* const kVersion2[] = {"cell", "enc_directions", "reverse_source", "source_eos", "decoder_init",
                                          "query_bias", "combine_bias", "combine_tanh", "pretokenized"};
  for (const char* k : kVersion2)
    need(version >= 2 || !j.contains(k), std::string("\"") + k + "\" needs format_version 2");
  need(version >= 2 || !dec.contains("beam_rules"), "\"decoding.beam_rules\" needs format_version 2");
  if (j.contains("cell")) c.cell = get_name<softalign::Cell>(j, "cell");
  if (j.contains("enc_directions")) c.enc_directions = get_int(j, "enc_directions");
  if (j.contains("reverse_source")) c.reverse_source = get_bool(j, "reverse_source");
  if (j.contains("source_eos")) c.source_eos = get_bool(j, "source_eos");
  if (j.contains("decoder_init")) c.decoder_init = get_name<softalign::DecoderInit>(j, "decoder_init");
  if (j.contains("query_bias")) c.query_bias = get_bool(j, "query_bias");
  if (j.contains("combine_bias")) c.combine_bias = get_bool(j, "combine_bias");
  if (j.contains("combine_tanh")) c.combine_tanh = get_bool(j, "combine_tanh");
  if (j.contains("pretokenized")) c.pretokenized = get_bool(j, "pretokenized");
  if (dec.contains("beam_rules")) c.decoding.beam_rules = get_name<softalign::BeamRules>(dec, "beam_rules", "decoding.");
  check(c);

  static const std::set<std::string> known = {
      "format", "format_version", "variant", "score", "scope", "window_d", "input_feeding",
      "enc_layers", "dec_layers", "emb_size", "enc_hidden", "dec_hidden", "att_hidden",
      "maxout_size", "src_vocab", "tgt_vocab", "shared_vocab", "pad_id", "unk_id", "bos_id",
      "eos_id", "max_src_len", "decoding", "src_lang", "tgt_lang", "name", "corpus", "metrics",
      "cell", "enc_directions", "reverse_source", "source_eos", "decoder_init", "query_bias", "combine_bias",
      "combine_tanh", "pretokenized"};
  if (auto it = j.find("corpus"); it != j.end()) c.corpus = as_text(*it);
  if (auto it = j.find("metrics"); it != j.end()) {
    if (it->is_object()) {
      for (auto m = it->begin(); m != it->end(); ++m) c.metrics[m.key()] = as_text(*m);
    } else {
      c.extra["metrics"] = as_text(*it);
    }
  }
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!known.count(it.key())) c.extra[it.key()] = as_text(*it);
  return c;
}

}  // namespace softalign::convert
