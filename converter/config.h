// The model config carried in the safetensors metadata (key "config"), as
// models/WEIGHTS_FORMAT.md defines it, parsed and checked.
#pragma once

#include <map>
#include <string>

#include "softalign/config.hpp"

namespace softalign::convert {

struct Decoding {
  int beam = 0;
  float alpha = 0, beta = 0, max_len_a = 0, max_len_b = 0;
  int block_repeats = 0;  // optional in the JSON (older exports lack it)
  int nbest = 0;
};

struct ModelConfig {
  // Read by their names in the one table (softalign_names.h).
  Variant variant = Variant::kBahdanau;
  Score score = Score::kNone;
  Scope scope = Scope::kGlobal;
  int window_d = 0;
  bool input_feeding = false;
  int enc_layers = 0, dec_layers = 0;
  int emb_size = 0, enc_hidden = 0, dec_hidden = 0, att_hidden = 0, maxout_size = 0;
  int src_vocab = 0, tgt_vocab = 0;
  bool shared_vocab = false;
  int pad_id = 0, unk_id = 0, bos_id = 0, eos_id = 0;
  int max_src_len = 0;
  Decoding decoding;
  std::string src_lang, tgt_lang, name;
  std::string corpus;                           // optional key "corpus"
  std::map<std::string, std::string> metrics;   // optional object "metrics", values as text
  std::map<std::string, std::string> extra;     // every other key, values as text
};

// Parses the config JSON text and checks it (types, ranges, the rules of
// WEIGHTS_FORMAT.md, e.g. `dot` needs dec_hidden == 2 * enc_hidden). Throws
// Error with one line naming the key and the problem.
ModelConfig parse_config(const std::string& json_text);

}  // namespace softalign::convert
