// The translator's options, described once (option_table.hpp): each one's
// name, type, how a JSON value sets it and how its value is written back. The
// defaults are TranslatorOptions' own (softalign/options.hpp), written out by
// options_json(TranslatorOptions()); no binding restates them.
#include "api/option_table.hpp"

#include <cmath>
#include <iterator>
#include <cstdint>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "core/guard.hpp"

namespace softalign {
namespace internal {
namespace {

using Json = nlohmann::json;

Status bad(const std::string& name, const std::string& what) {
  return Status(StatusCode::kInvalidArgument, "option " + name + ": " + what);
}

// A JSON integer in [lo, hi].
Status read_int(const std::string& name, const Json& v, int64_t lo, int64_t hi, int64_t* out) {
  if (!v.is_number_integer()) return bad(name, "must be an integer, got " + v.dump());
  // nlohmann keeps a non-negative integer as unsigned: compare it as one (it may exceed int64).
  const bool in_range = v.is_number_unsigned()
                            ? v.get<uint64_t>() <= static_cast<uint64_t>(hi) &&
                                  (lo <= 0 || v.get<uint64_t>() >= static_cast<uint64_t>(lo))
                            : v.get<int64_t>() >= lo && v.get<int64_t>() <= hi;
  if (!in_range)
    return bad(name, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + v.dump());
  *out = v.get<int64_t>();
  return Status::Ok();
}

Status read_int32(const std::string& name, const Json& v, int* out) {
  int64_t x = 0;
  Status st = read_int(name, v, INT32_MIN, INT32_MAX, &x);
  if (st.ok()) *out = static_cast<int>(x);
  return st;
}

Status read_size(const std::string& name, const Json& v, std::size_t* out) {
  int64_t x = 0;
  Status st = read_int(name, v, 1, std::numeric_limits<int64_t>::max(), &x);
  if (st.ok()) *out = static_cast<std::size_t>(x);
  return st;
}

// A number finite as a float (its range is the search's to check: resolve()).
Status read_float(const std::string& name, const Json& v, float* out) {
  if (!v.is_number()) return bad(name, "must be a number, got " + v.dump());
  const double d = v.get<double>();
  if (!std::isfinite(d) || !std::isfinite(static_cast<float>(d))) return bad(name, "must be a finite number");
  *out = static_cast<float>(d);
  return Status::Ok();
}

Status read_bool(const std::string& name, const Json& v, bool* out) {
  if (!v.is_boolean()) return bad(name, "must be true or false, got " + v.dump());
  *out = v.get<bool>();
  return Status::Ok();
}

Status read_string(const std::string& name, const Json& v, std::string* out) {
  if (!v.is_string()) return bad(name, "must be a string, got " + v.dump());
  *out = v.get<std::string>();
  return Status::Ok();
}

// An optional search field: null leaves it unset (the model's default).
template <typename T, typename Read>
Status read_optional(const std::string& name, const Json& v, std::optional<T>* out, Read read) {
  if (v.is_null()) {
    out->reset();
    return Status::Ok();
  }
  T x{};
  Status st = read(name, v, &x);
  if (st.ok()) *out = x;
  return st;
}

template <typename T>
Json optional_json(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

// The glossary: [[source, target], ...], or TSV text (parse_glossary_tsv).
Status read_glossary(const std::string& name, const Json& v, std::vector<GlossaryTerm>* out) {
  out->clear();
  if (v.is_string()) return parse_glossary_tsv(v.get<std::string>(), out);
  if (!v.is_array()) return bad(name, "must be a list of [source, target] pairs or TSV text");
  for (const Json& pair : v) {
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string())
      return bad(name, "must be a list of [source, target] pairs of strings, got " + pair.dump());
    out->push_back(GlossaryTerm{pair[0].get<std::string>(), pair[1].get<std::string>()});
  }
  return Status::Ok();
}

#define SOFTALIGN_OPTION(name, type, help, read_body, write_body)                                      \
  OptionSpec {                                                                                         \
    name, type, help,                                                                                  \
        [](const std::string& n, const Json& v, TranslatorOptions* o) -> Status { read_body; },        \
        [](const TranslatorOptions& o) -> Json { write_body; }                                         \
  }

// The table. Ranges that depend on the model (beam, max_source_tokens, ...)
// are checked by prepare, as for a C++ caller.
const OptionSpec kOptions[] = {
    SOFTALIGN_OPTION("beam", "integer or null", "beam size >= 1 (1 is greedy); null: the model's",
                     return read_optional(n, v, &o->search.beam_size, read_int32),
                     return optional_json(o.search.beam_size)),
    SOFTALIGN_OPTION("nbest", "integer or null", "hypotheses returned, 1..beam; null: the model's",
                     return read_optional(n, v, &o->search.nbest, read_int32), return optional_json(o.search.nbest)),
    SOFTALIGN_OPTION("alpha", "number or null", "length penalty exponent >= 0; null: the model's",
                     return read_optional(n, v, &o->search.alpha, read_float), return optional_json(o.search.alpha)),
    SOFTALIGN_OPTION("beta", "number or null", "coverage penalty weight >= 0; null: the model's",
                     return read_optional(n, v, &o->search.beta, read_float), return optional_json(o.search.beta)),
    SOFTALIGN_OPTION("max_len_a", "number or null", "max target length floor(a * S + b): a; null: the model's",
                     return read_optional(n, v, &o->search.max_len_a, read_float),
                     return optional_json(o.search.max_len_a)),
    SOFTALIGN_OPTION("max_len_b", "number or null", "max target length floor(a * S + b): b; null: the model's",
                     return read_optional(n, v, &o->search.max_len_b, read_float),
                     return optional_json(o.search.max_len_b)),
    SOFTALIGN_OPTION("block_repeats", "integer or null",
                     "refuse words of up to this many pieces repeated back to back, 0 (off) to 8; null: the model's",
                     return read_optional(n, v, &o->search.block_repeats, read_int32),
                     return optional_json(o.search.block_repeats)),
    SOFTALIGN_OPTION("beam_rules", "string or null",
                     "whose beam search: \"softalign\", \"opennmt\" or \"joeynmt\"; null: the model's",
                     if (v.is_null()) { o->search.beam_rules.reset(); return Status::Ok(); }
                     std::string name; Status st = read_string(n, v, &name); if (!st.ok()) return st;
                     BeamRules r{}; if (!beam_rules_from_name(name, &r))
                         return Status(StatusCode::kInvalidArgument, "beam_rules must be \"softalign\", \"opennmt\" or "
                                                                     "\"joeynmt\", got \"" + name + "\"");
                     o->search.beam_rules = r; return st,
                     return o.search.beam_rules ? Json(beam_rules_name(*o.search.beam_rules)) : Json(nullptr)),
    SOFTALIGN_OPTION("timeout_ms", "integer or null",
                     "each call's deadline in milliseconds from its start (deadline_exceeded after it); 0 or null: none",
                     return read_optional(n, v, &o->search.timeout_ms, read_int32),
                     return optional_json(o.search.timeout_ms)),
    SOFTALIGN_OPTION("alignment", "boolean", "results carry the attention and the hard alignments",
                     bool on = false; Status st = read_bool(n, v, &on);
                     o->search.return_attention = o->search.return_alignment = on; return st,
                     return o.search.return_alignment),
    SOFTALIGN_OPTION("max_source_tokens", "integer", "longest source in pieces, EOS included; 0: the model's",
                     return read_int32(n, v, &o->max_source_tokens), return o.max_source_tokens),
    SOFTALIGN_OPTION("split_long_input", "boolean",
                     "split a longer source (sentence ends, clause punctuation, halves); false: input_too_long",
                     bool on = false; Status st = read_bool(n, v, &on);
                     o->long_input = on ? LongInputPolicy::kSplit : LongInputPolicy::kError; return st,
                     return o.long_input == LongInputPolicy::kSplit),
    SOFTALIGN_OPTION("replace_invalid_utf8", "boolean", "invalid UTF-8 becomes U+FFFD instead of invalid_utf8",
                     bool on = false; Status st = read_bool(n, v, &on);
                     o->invalid_utf8 = on ? InvalidUtf8Policy::kReplace : InvalidUtf8Policy::kError; return st,
                     return o.invalid_utf8 == InvalidUtf8Policy::kReplace),
    SOFTALIGN_OPTION("copy_through", "boolean", "names, identifiers and <unk> words copied from the source",
                     return read_bool(n, v, &o->copy_through), return o.copy_through),
    SOFTALIGN_OPTION("repair_placeholders", "boolean", "every placeholder of the source comes out exactly once",
                     return read_bool(n, v, &o->repair_placeholders), return o.repair_placeholders),
    SOFTALIGN_OPTION("glossary", "list of [source, target] pairs, or TSV text",
                     "terms that must come out as given (softalign/glossary.hpp)",
                     return read_glossary(n, v, &o->glossary), Json terms = Json::array();
                     for (const GlossaryTerm& t : o.glossary) terms.push_back({t.source, t.target}); return terms),
    SOFTALIGN_OPTION("max_batch", "integer", "sentences decoded together, 1 to 1024",
                     return read_int32(n, v, &o->max_batch), return o.max_batch),
    SOFTALIGN_OPTION("threads", "integer", "threads, 1 to 256", return read_int32(n, v, &o->threads),
                     return o.threads),
    SOFTALIGN_OPTION("device", "string", "where to compute: \"cpu\", \"auto\" or \"vulkan\"",
                     std::string name; Status st = read_string(n, v, &name); if (!st.ok()) return st;
                     if (!backend_from_name(name, &o->backend))
                         return Status(StatusCode::kInvalidArgument,
                                       "device must be \"auto\", \"cpu\" or \"vulkan\", got \"" + name + "\"");
                     return st,
                     return backend_name(o.backend)),
    SOFTALIGN_OPTION("use_shortlist", "boolean", "the output layer over the model's vocabulary shortlist",
                     return read_bool(n, v, &o->use_shortlist), return o.use_shortlist),
    SOFTALIGN_OPTION("kernels", "string", "kernel set: \"\" the best for this CPU, \"ref\" the reference",
                     return read_string(n, v, &o->kernels), return o.kernels),
    SOFTALIGN_OPTION("max_arena_bytes", "integer", "the most working memory (times threads), bytes",
                     return read_size(n, v, &o->max_arena_bytes), return o.max_arena_bytes),
    SOFTALIGN_OPTION("max_line_bytes", "integer", "the longest text one translation takes, bytes",
                     return read_size(n, v, &o->max_line_bytes), return o.max_line_bytes),
};

#undef SOFTALIGN_OPTION

}  // namespace

Span<const OptionSpec> option_table() { return Span<const OptionSpec>(kOptions, std::size(kOptions)); }

const OptionSpec* find_option(std::string_view name) {
  for (const OptionSpec& spec : kOptions)
    if (name == spec.name) return &spec;
  return nullptr;
}

}  // namespace internal

Status parse_options_json(std::string_view json, TranslatorOptions* out) {
  return internal::guarded([&]() -> Status {
    if (out == nullptr) return Status(StatusCode::kInvalidArgument, "out is null");
    const internal::Json j = internal::Json::parse(json.begin(), json.end(), nullptr, false);
    if (j.is_discarded()) return Status(StatusCode::kInvalidArgument, "the options are not valid JSON");
    if (!j.is_object()) return Status(StatusCode::kInvalidArgument, "the options must be a JSON object");
    TranslatorOptions o = *out;
    for (const auto& [name, value] : j.items()) {
      const internal::OptionSpec* spec = internal::find_option(name);
      if (spec == nullptr) return Status(StatusCode::kInvalidArgument, "unknown option \"" + name + "\"");
      Status st = spec->read(name, value, &o);
      if (!st.ok()) return st;
    }
    *out = std::move(o);
    return Status::Ok();
  });
}

std::string options_json(const TranslatorOptions& options) {
  internal::Json j = internal::Json::object();
  for (const internal::OptionSpec& spec : internal::option_table()) j[spec.name] = spec.write(options);
  return j.dump(-1, ' ', false, internal::Json::error_handler_t::replace);
}

}  // namespace softalign
