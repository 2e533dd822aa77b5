// The model config carried in the safetensors metadata (key "config"), as
// models/WEIGHTS_FORMAT.md defines it, parsed and checked.
#pragma once

#include <map>
#include <string>

#include "softalign/config.hpp"

namespace softalign::convert {

// The runtime's config (softalign/config.hpp: what the model file holds; the
// variant, score and scope read by their names in softalign_names.h), and the
// keys the converter keeps as metadata. decoding.block_repeats is optional in
// the JSON (older exports lack it): 0 then.
struct ModelConfig : softalign::ModelConfig {
  std::string corpus;                           // optional key "corpus"
  std::map<std::string, std::string> metrics;   // optional object "metrics", values as text
  std::map<std::string, std::string> extra;     // every other key, values as text
};

// Parses the config JSON text and checks it (types, ranges, the rules of
// WEIGHTS_FORMAT.md, e.g. `dot` needs dec_hidden == 2 * enc_hidden). Throws
// Error with one line naming the key and the problem.
ModelConfig parse_config(const std::string& json_text);

}  // namespace softalign::convert
