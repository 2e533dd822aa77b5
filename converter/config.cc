#include "config.h"

#include <cmath>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

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

void check(const ModelConfig& c) {
  need(c.variant == "encdec" || c.variant == "bahdanau" || c.variant == "luong",
       "unknown variant \"" + c.variant + "\" (expected encdec, bahdanau or luong)");
  const std::pair<const char*, int> positive[] = {
      {"enc_layers", c.enc_layers}, {"dec_layers", c.dec_layers}, {"emb_size", c.emb_size},
      {"enc_hidden", c.enc_hidden}, {"dec_hidden", c.dec_hidden}, {"src_vocab", c.src_vocab},
      {"tgt_vocab", c.tgt_vocab},   {"max_src_len", c.max_src_len}};
  for (const auto& [k, v] : positive) need(v >= 1, std::string(k) + " must be >= 1, got " + std::to_string(v));
  const std::pair<const char*, int> non_negative[] = {
      {"window_d", c.window_d}, {"att_hidden", c.att_hidden}, {"maxout_size", c.maxout_size}};
  for (const auto& [k, v] : non_negative) need(v >= 0, std::string(k) + " must be >= 0, got " + std::to_string(v));
  const std::pair<const char*, int> ids[] = {
      {"pad_id", c.pad_id}, {"unk_id", c.unk_id}, {"bos_id", c.bos_id}, {"eos_id", c.eos_id}};
  for (const auto& [k, v] : ids)
    need(v >= 0 && v < std::min(c.src_vocab, c.tgt_vocab),
         std::string(k) + " = " + std::to_string(v) + " is outside the vocabularies");
  need(std::set<int>{c.pad_id, c.unk_id, c.bos_id, c.eos_id}.size() == 4, "special ids must be distinct");
  need(!c.shared_vocab || c.src_vocab == c.tgt_vocab, "shared_vocab needs src_vocab == tgt_vocab");

  if (c.variant == "luong") {
    need(c.score == "dot" || c.score == "general" || c.score == "concat" || c.score == "location",
         "unknown luong score \"" + c.score + "\" (expected dot, general, concat or location)");
    need(c.scope == "global" || c.scope == "local-m" || c.scope == "local-p",
         "unknown luong scope \"" + c.scope + "\" (expected global, local-m or local-p)");
    need(c.maxout_size == 0, "luong has no maxout layer: maxout_size must be 0");
    if (c.score == "dot")
      need(c.dec_hidden == 2 * c.enc_hidden, "score dot needs dec_hidden == 2 * enc_hidden (got dec_hidden " +
                                                 std::to_string(c.dec_hidden) + ", enc_hidden " +
                                                 std::to_string(c.enc_hidden) + ")");
    if (c.score == "location") need(c.scope == "global", "the location score works with global scope only");
    if (c.scope == "global")
      need(c.window_d == 0, "window_d must be 0 with global scope");
    else
      need(c.window_d >= 1, c.scope + " scope needs window_d >= 1");
    if (c.score == "concat" || c.scope == "local-p")
      need(c.att_hidden >= 1, "concat score and local-p scope need att_hidden >= 1");
    else
      need(c.att_hidden == 0, "att_hidden must be 0 when neither concat nor local-p is used");
  } else {
    need(c.score == "none", c.variant + " has no score: score must be \"none\", got \"" + c.score + "\"");
    need(c.scope == "global", c.variant + " has no local attention: scope must be \"global\", got \"" + c.scope + "\"");
    need(c.window_d == 0, c.variant + ": window_d must be 0");
    need(!c.input_feeding, "input_feeding is a luong option");
    need(c.maxout_size >= 1, c.variant + " needs maxout_size >= 1");
    if (c.variant == "bahdanau")
      need(c.att_hidden >= 1, "bahdanau needs att_hidden >= 1");
    else
      need(c.att_hidden == 0, "encdec has no attention: att_hidden must be 0");
  }

  const Decoding& d = c.decoding;
  need(d.beam >= 1, "decoding.beam must be >= 1");
  need(d.nbest >= 1 && d.nbest <= d.beam, "decoding.nbest must be in [1, decoding.beam]");
  need(d.alpha >= 0 && d.beta >= 0 && d.max_len_a >= 0 && d.max_len_b >= 0,
       "decoding.alpha, beta, max_len_a and max_len_b must be >= 0");
}

}  // namespace

ModelConfig parse_config(const std::string& json_text) {
  json j;
  try {
    j = json::parse(json_text);
  } catch (const json::exception& e) {
    throw Error(std::string("bad JSON in the config metadata: ") + e.what());
  }
  if (!j.is_object()) bad("the config is not a JSON object");

  const std::string format = get_string(j, "format");
  need(format == "softalign-weights", "format must be \"softalign-weights\", got \"" + format + "\"");
  const int version = get_int(j, "format_version");
  need(version <= 1, "format_version " + std::to_string(version) +
                         " is newer than this converter reads (1); update softalign-convert");
  need(version == 1, "format_version must be 1, got " + std::to_string(version));

  ModelConfig c;
  c.variant = get_string(j, "variant");
  need(c.variant == "encdec" || c.variant == "bahdanau" || c.variant == "luong",
       "unknown variant \"" + c.variant + "\" (expected encdec, bahdanau or luong)");
  c.score = get_string(j, "score");
  c.scope = get_string(j, "scope");
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
  c.src_lang = get_string(j, "src_lang");
  c.tgt_lang = get_string(j, "tgt_lang");
  c.name = get_string(j, "name");
  check(c);

  static const std::set<std::string> known = {
      "format", "format_version", "variant", "score", "scope", "window_d", "input_feeding",
      "enc_layers", "dec_layers", "emb_size", "enc_hidden", "dec_hidden", "att_hidden",
      "maxout_size", "src_vocab", "tgt_vocab", "shared_vocab", "pad_id", "unk_id", "bos_id",
      "eos_id", "max_src_len", "decoding", "src_lang", "tgt_lang", "name", "corpus", "metrics"};
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
