// The one description of a translator's options: their names (as JSON, C,
// Python and the CLI's --json spell them), types, how each is read and
// written. The bindings pass only what their caller set, as JSON
// (parse_options_json, softalign_translator_create_json); the defaults are
// TranslatorOptions' (softalign/options.hpp) and the model's. A new option is
// a field of TranslatorOptions and a row of the table (option_table.cpp).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "softalign/options.hpp"
#include "softalign/span.hpp"
#include "softalign/status.hpp"

namespace softalign::internal {

struct OptionSpec {
  const char* name;  // "beam", "max_len_a", ...
  const char* type;  // "integer or null", "boolean", ...
  const char* help;  // one line
  // Sets the option from a JSON value, checking its type (and what does not
  // depend on the model: ranges that do are prepare's).
  Status (*read)(const std::string& name, const nlohmann::json& value, TranslatorOptions* options);
  nlohmann::json (*write)(const TranslatorOptions& options);
};

Span<const OptionSpec> option_table();
const OptionSpec* find_option(std::string_view name);  // null for an unknown name

}  // namespace softalign::internal
