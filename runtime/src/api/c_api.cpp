// The C API (softalign.h) over the C++ API. Every entry point catches every
// exception: nothing but a status code crosses into C.
#include "softalign/softalign.h"

#include <cstddef>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "core/guard.hpp"
#include "core/utf8.hpp"
#include "softalign/softalign.hpp"
#include "text/alignment.hpp"

struct softalign_model {
  std::shared_ptr<const softalign::Model> model;
};

struct softalign_translator {
  std::unique_ptr<softalign::Translator> translator;
  bool alignment = false;
  std::string backend_reason;  // backend_info's reason, with the device
  std::string options_json;    // the prepared options (softalign_translator_options_json)
  int32_t timeout_ms = -1;     // softalign_translator_set_timeout_ms; -1: the options' timeout_ms
};

struct softalign_result {
  softalign::TranslationResult result;
  std::vector<std::string> pharaoh;        // per hypothesis, when alignments were asked for
  std::vector<std::string> pharaoh_words;  // idem; empty for translate_ids results
  std::once_flag json_once;                // softalign_result_json, written on first request
  std::string json;
};

// The C codes are the C++ codes, so a Status converts by value.
#define SOFTALIGN_SAME_CODE(c, cpp) static_assert(static_cast<int>(c) == static_cast<int>(softalign::StatusCode::cpp), #c)
SOFTALIGN_SAME_CODE(SOFTALIGN_OK, kOk);
SOFTALIGN_SAME_CODE(SOFTALIGN_INVALID_ARGUMENT, kInvalidArgument);
SOFTALIGN_SAME_CODE(SOFTALIGN_NOT_FOUND, kNotFound);
SOFTALIGN_SAME_CODE(SOFTALIGN_IO_ERROR, kIoError);
SOFTALIGN_SAME_CODE(SOFTALIGN_INVALID_MODEL, kInvalidModel);
SOFTALIGN_SAME_CODE(SOFTALIGN_UNSUPPORTED_VERSION, kUnsupportedVersion);
SOFTALIGN_SAME_CODE(SOFTALIGN_INPUT_TOO_LONG, kInputTooLong);
SOFTALIGN_SAME_CODE(SOFTALIGN_INVALID_UTF8, kInvalidUtf8);
SOFTALIGN_SAME_CODE(SOFTALIGN_UNSUPPORTED, kUnsupported);
SOFTALIGN_SAME_CODE(SOFTALIGN_INTERNAL, kInternal);
SOFTALIGN_SAME_CODE(SOFTALIGN_RESOURCE_EXHAUSTED, kResourceExhausted);
SOFTALIGN_SAME_CODE(SOFTALIGN_CANCELLED, kCancelled);
SOFTALIGN_SAME_CODE(SOFTALIGN_DEADLINE_EXCEEDED, kDeadlineExceeded);
#undef SOFTALIGN_SAME_CODE

namespace {

using softalign::Status;
using softalign::StatusCode;

thread_local std::string g_last_error;

softalign_status fail(softalign_status code, const std::string& message) {
  try {
    g_last_error = message;
  } catch (...) {
    // No memory for the message: the code alone has to do.
  }
  return code;
}

softalign_status from(const Status& st) {
  if (st.ok()) return SOFTALIGN_OK;
  return fail(static_cast<softalign_status>(st.code()), st.to_string());
}

// Runs `body` (which returns a softalign_status) with every exception mapped to a code.
template <typename F>
softalign_status guarded(F&& body) {
  try {
    return body();
  } catch (...) {
    return from(softalign::internal::current_exception_status());
  }
}

softalign_status null_arg(const char* name) {
  return fail(SOFTALIGN_INVALID_ARGUMENT, std::string("invalid_argument: ") + name + " is NULL");
}

// ---- Versioned structs --------------------------------------------------------
// A struct that grows at its end carries its size (struct_size): the caller's
// header may be older (fewer fields) or newer (more). One rule for every such
// struct: the size must end at a field boundary (between fields, padding
// included) or at or past this header's struct; a size that ends inside a field
// (half a pointer, half an int) is SOFTALIGN_INVALID_ARGUMENT, never a partial
// read or write.

struct FieldSpan {
  const char* name;
  size_t begin, end;
};

#define SOFTALIGN_FIELD(T, f) FieldSpan{#f, offsetof(T, f), offsetof(T, f) + sizeof(T::f)}

constexpr FieldSpan kOptionFields[] = {
    SOFTALIGN_FIELD(softalign_translator_options, struct_size),
    SOFTALIGN_FIELD(softalign_translator_options, max_source_tokens),
    SOFTALIGN_FIELD(softalign_translator_options, beam),
    SOFTALIGN_FIELD(softalign_translator_options, nbest),
    SOFTALIGN_FIELD(softalign_translator_options, alpha),
    SOFTALIGN_FIELD(softalign_translator_options, beta),
    SOFTALIGN_FIELD(softalign_translator_options, max_len_a),
    SOFTALIGN_FIELD(softalign_translator_options, max_len_b),
    SOFTALIGN_FIELD(softalign_translator_options, alignment),
    SOFTALIGN_FIELD(softalign_translator_options, threads),
    SOFTALIGN_FIELD(softalign_translator_options, split_long_input),
    SOFTALIGN_FIELD(softalign_translator_options, replace_invalid_utf8),
    SOFTALIGN_FIELD(softalign_translator_options, kernels),
    SOFTALIGN_FIELD(softalign_translator_options, use_shortlist),
    SOFTALIGN_FIELD(softalign_translator_options, max_arena_bytes),
    SOFTALIGN_FIELD(softalign_translator_options, device),
    SOFTALIGN_FIELD(softalign_translator_options, copy_through),
    SOFTALIGN_FIELD(softalign_translator_options, max_line_bytes),
    SOFTALIGN_FIELD(softalign_translator_options, block_repeats),
    SOFTALIGN_FIELD(softalign_translator_options, repair_placeholders),
    SOFTALIGN_FIELD(softalign_translator_options, glossary_tsv),
    SOFTALIGN_FIELD(softalign_translator_options, timeout_ms),
    SOFTALIGN_FIELD(softalign_translator_options, beam_rules),
};

constexpr FieldSpan kInfoFields[] = {
    SOFTALIGN_FIELD(softalign_model_info, struct_size),
    SOFTALIGN_FIELD(softalign_model_info, name),
    SOFTALIGN_FIELD(softalign_model_info, src_lang),
    SOFTALIGN_FIELD(softalign_model_info, tgt_lang),
    SOFTALIGN_FIELD(softalign_model_info, variant),
    SOFTALIGN_FIELD(softalign_model_info, score),
    SOFTALIGN_FIELD(softalign_model_info, scope),
    SOFTALIGN_FIELD(softalign_model_info, weight_type),
    SOFTALIGN_FIELD(softalign_model_info, window_d),
    SOFTALIGN_FIELD(softalign_model_info, input_feeding),
    SOFTALIGN_FIELD(softalign_model_info, enc_layers),
    SOFTALIGN_FIELD(softalign_model_info, dec_layers),
    SOFTALIGN_FIELD(softalign_model_info, emb_size),
    SOFTALIGN_FIELD(softalign_model_info, enc_hidden),
    SOFTALIGN_FIELD(softalign_model_info, dec_hidden),
    SOFTALIGN_FIELD(softalign_model_info, att_hidden),
    SOFTALIGN_FIELD(softalign_model_info, maxout_size),
    SOFTALIGN_FIELD(softalign_model_info, src_vocab),
    SOFTALIGN_FIELD(softalign_model_info, tgt_vocab),
    SOFTALIGN_FIELD(softalign_model_info, shared_vocab),
    SOFTALIGN_FIELD(softalign_model_info, pad_id),
    SOFTALIGN_FIELD(softalign_model_info, unk_id),
    SOFTALIGN_FIELD(softalign_model_info, bos_id),
    SOFTALIGN_FIELD(softalign_model_info, eos_id),
    SOFTALIGN_FIELD(softalign_model_info, max_src_len),
    SOFTALIGN_FIELD(softalign_model_info, default_beam),
    SOFTALIGN_FIELD(softalign_model_info, default_nbest),
    SOFTALIGN_FIELD(softalign_model_info, default_alpha),
    SOFTALIGN_FIELD(softalign_model_info, default_beta),
    SOFTALIGN_FIELD(softalign_model_info, default_max_len_a),
    SOFTALIGN_FIELD(softalign_model_info, default_max_len_b),
    SOFTALIGN_FIELD(softalign_model_info, schema_version),
    SOFTALIGN_FIELD(softalign_model_info, file_bytes),
    SOFTALIGN_FIELD(softalign_model_info, confidence_calibrated),
    SOFTALIGN_FIELD(softalign_model_info, pretokenized),
};

#undef SOFTALIGN_FIELD

// Whether a table lists every field of a struct of `size` bytes, in order, up to
// its tail padding: a field added to the header without its row fails to compile.
template <size_t N>
constexpr bool covers(const FieldSpan (&fields)[N], size_t size) {
  if (fields[0].begin != 0) return false;
  for (size_t i = 1; i < N; ++i)
    if (fields[i].begin < fields[i - 1].end) return false;
  return fields[N - 1].end <= size && size - fields[N - 1].end < alignof(std::max_align_t);
}
static_assert(covers(kOptionFields, sizeof(softalign_translator_options)),
              "kOptionFields must list every field of softalign_translator_options");
static_assert(covers(kInfoFields, sizeof(softalign_model_info)),
              "kInfoFields must list every field of softalign_model_info");

// SOFTALIGN_OK when `size` (a struct's struct_size, for `what`) ends at a field
// boundary of `fields` or at or past the struct's end; else the error naming the
// field it cuts.
template <size_t N>
softalign_status check_struct_size(const char* what, size_t size, const FieldSpan (&fields)[N]) {
  if (size == 0)
    return fail(SOFTALIGN_INVALID_ARGUMENT, std::string("invalid_argument: ") + what +
                                                "->struct_size is not set (0): initialise the struct first");
  for (const FieldSpan& f : fields)
    if (size > f.begin && size < f.end)
      return fail(SOFTALIGN_INVALID_ARGUMENT,
                  std::string("invalid_argument: ") + what + "->struct_size " + std::to_string(size) +
                      " ends inside the field " + f.name + " (bytes " + std::to_string(f.begin) + " to " +
                      std::to_string(f.end) + "): a struct size covers whole fields");
  return SOFTALIGN_OK;
}

const softalign::Hypothesis* hyp(const softalign_result* r, size_t i) {
  if (r == nullptr || i >= r->result.hypotheses.size()) return nullptr;
  return &r->result.hypotheses[i];
}

// Fills the Pharaoh strings of a result whose hypotheses carry hard alignments.
void add_pharaoh(softalign_result* r, bool words) {
  for (const softalign::Hypothesis& h : r->result.hypotheses) {
    r->pharaoh.push_back(softalign::to_pharaoh(h.alignment_pieces));
    if (words) r->pharaoh_words.push_back(softalign::to_pharaoh(h.alignment_words));
  }
}

softalign::TranslatorOptions to_cpp(const softalign_translator_options& o) {
  softalign::TranslatorOptions t;
  t.max_source_tokens = o.max_source_tokens;
  if (o.beam != 0) t.search.beam_size = o.beam;
  if (o.nbest != 0) t.search.nbest = o.nbest;
  // Negative: the model's default. Anything else, NaN included, goes to the
  // C++ options' validation, which refuses what is out of range (NaN is).
  if (!(o.alpha < 0.0f)) t.search.alpha = o.alpha;
  if (!(o.beta < 0.0f)) t.search.beta = o.beta;
  if (!(o.max_len_a < 0.0f)) t.search.max_len_a = o.max_len_a;
  if (!(o.max_len_b < 0.0f)) t.search.max_len_b = o.max_len_b;
  t.search.return_attention = o.alignment != 0;
  t.search.return_alignment = o.alignment != 0;
  t.threads = o.threads;
  t.long_input = o.split_long_input ? softalign::LongInputPolicy::kSplit
                                    : softalign::LongInputPolicy::kError;
  t.invalid_utf8 = o.replace_invalid_utf8 ? softalign::InvalidUtf8Policy::kReplace
                                          : softalign::InvalidUtf8Policy::kError;
  if (o.kernels != nullptr) t.kernels = o.kernels;
  t.use_shortlist = o.use_shortlist != 0;
  if (o.max_arena_bytes != 0) t.max_arena_bytes = static_cast<std::size_t>(o.max_arena_bytes);
  t.copy_through = o.copy_through != 0;
  if (o.max_line_bytes != 0) t.max_line_bytes = static_cast<std::size_t>(o.max_line_bytes);
  if (o.block_repeats >= 0) t.search.block_repeats = o.block_repeats;
  t.repair_placeholders = o.repair_placeholders != 0;
  if (o.timeout_ms != 0) t.search.timeout_ms = o.timeout_ms;
  return t;
}

// The models of a create call as shared pointers; an error names a NULL one.
softalign_status model_list(const softalign_model* const* models, size_t count,
                            std::vector<std::shared_ptr<const softalign::Model>>* list) {
  if (models == nullptr || count == 0) return null_arg("model");
  for (size_t i = 0; i < count; ++i) {
    if (models[i] == nullptr)
      return fail(SOFTALIGN_INVALID_ARGUMENT, "invalid_argument: models[" + std::to_string(i) + "] is NULL");
    list->push_back(models[i]->model);
  }
  return SOFTALIGN_OK;
}

// Prepares the translator of every create call.
softalign_status make_translator(const std::vector<std::shared_ptr<const softalign::Model>>& models,
                                 const softalign::TranslatorOptions& options, softalign_translator** out) {
  std::unique_ptr<softalign::Translator> t;
  Status st = softalign::Translator::prepare(models, options, &t);
  if (!st.ok()) return from(st);
  const softalign::BackendInfo& b = t->backend_info();
  std::string reason = b.reason + (b.device.empty() ? "" : " (device: " + b.device + ")");
  const bool alignment = t->options().search.return_alignment;
  std::string json = softalign::options_json(t->options());
  *out = new softalign_translator{std::move(t), alignment, std::move(reason), std::move(json)};
  return SOFTALIGN_OK;
}

// softalign_translate, _prefix and _stream.
// The search options of a call: the translator's, with the deadline that
// softalign_translator_set_timeout_ms set for the calls that follow.
softalign::SearchOptions call_search(const softalign_translator& translator) {
  softalign::SearchOptions search = translator.translator->options().search;
  if (translator.timeout_ms >= 0) search.timeout_ms = translator.timeout_ms;
  return search;
}

softalign_status translate_text(softalign_translator* translator, const char* text, const char* prefix,
                                const softalign::StreamCallback& stream, softalign_result** out) {
  return guarded([&] {
    if (out == nullptr) return null_arg("out");
    *out = nullptr;
    if (translator == nullptr) return null_arg("translator");
    if (text == nullptr) return null_arg("text");
    if (prefix == nullptr) return null_arg("prefix");
    softalign::SearchOptions search = call_search(*translator);
    search.target_prefix = prefix;
    auto r = std::make_unique<softalign_result>();
    Status st = translator->translator->translate(text, search, stream, &r->result);
    if (!st.ok()) return from(st);
    if (translator->alignment) add_pharaoh(r.get(), true);
    *out = r.release();
    return SOFTALIGN_OK;
  });
}

softalign_status load_common(softalign::Status st, std::shared_ptr<const softalign::Model> m,
                             softalign_model** out) {
  if (!st.ok()) return from(st);
  *out = new softalign_model{std::move(m)};
  return SOFTALIGN_OK;
}

}  // namespace

extern "C" {

const char* softalign_version(void) { return softalign::version(); }

const char* softalign_last_error(void) { return g_last_error.c_str(); }

const char* softalign_status_name(softalign_status status) {
  const int32_t value = status;  // any int32_t: the header fixes the enum's type for C++
  if (value < SOFTALIGN_OK || value > SOFTALIGN_DEADLINE_EXCEEDED) return "unknown";
  return softalign::status_code_name(static_cast<StatusCode>(value));
}

// ---- Model ------------------------------------------------------------------

softalign_status softalign_model_load(const char* path, softalign_model** out) {
  return guarded([&] {
    if (out == nullptr) return null_arg("out");
    *out = nullptr;
    if (path == nullptr) return null_arg("path");
    std::shared_ptr<const softalign::Model> m;
    Status st = softalign::Model::load(path, &m);
    return load_common(st, std::move(m), out);
  });
}

softalign_status softalign_model_load_copy(const char* path, softalign_model** out) {
  return guarded([&] {
    if (out == nullptr) return null_arg("out");
    *out = nullptr;
    if (path == nullptr) return null_arg("path");
    std::shared_ptr<const softalign::Model> m;
    Status st = softalign::Model::load(path, softalign::LoadMode::kCopy, &m);
    return load_common(st, std::move(m), out);
  });
}

softalign_status softalign_model_load_bytes(const void* data, size_t size, softalign_model** out) {
  return guarded([&] {
    if (out == nullptr) return null_arg("out");
    *out = nullptr;
    if (data == nullptr) return null_arg("data");
    std::shared_ptr<const softalign::Model> m;
    Status st = softalign::Model::load_from_bytes(data, size, &m);
    return load_common(st, std::move(m), out);
  });
}

softalign_status softalign_model_load_memory(const void* data, size_t size, softalign_model** out) {
  return guarded([&] {
    if (out == nullptr) return null_arg("out");
    *out = nullptr;
    if (data == nullptr) return null_arg("data");
    std::shared_ptr<const softalign::Model> m;
    Status st = softalign::Model::load_from_memory(data, size, &m);
    return load_common(st, std::move(m), out);
  });
}

void softalign_model_free(softalign_model* model) { delete model; }

softalign_status softalign_model_get_info(const softalign_model* model, softalign_model_info* info) {
  return guarded([&] {
    if (model == nullptr) return null_arg("model");
    if (info == nullptr) return null_arg("info");
    const softalign_status size_st = check_struct_size("info", info->struct_size, kInfoFields);
    if (size_st != SOFTALIGN_OK) return size_st;
    const softalign::Model& m = *model->model;
    const softalign::ModelConfig& c = m.config();
    softalign_model_info full;
    std::memset(&full, 0, sizeof full);
    full.struct_size = info->struct_size;
    full.name = c.name.c_str();
    full.src_lang = c.src_lang.c_str();
    full.tgt_lang = c.tgt_lang.c_str();
    full.variant = softalign::variant_name(c.variant);
    full.score = softalign::score_name(c.score);
    full.scope = softalign::scope_name(c.scope);
    full.weight_type = softalign::weight_type_name(m.weight_type());
    full.window_d = c.window_d;
    full.input_feeding = c.input_feeding ? 1 : 0;
    full.enc_layers = c.enc_layers;
    full.dec_layers = c.dec_layers;
    full.emb_size = c.emb_size;
    full.enc_hidden = c.enc_hidden;
    full.dec_hidden = c.dec_hidden;
    full.att_hidden = c.att_hidden;
    full.maxout_size = c.maxout_size;
    full.src_vocab = c.src_vocab;
    full.tgt_vocab = c.tgt_vocab;
    full.shared_vocab = c.shared_vocab ? 1 : 0;
    full.pad_id = c.pad_id;
    full.unk_id = c.unk_id;
    full.bos_id = c.bos_id;
    full.eos_id = c.eos_id;
    full.max_src_len = c.max_src_len;
    full.default_beam = c.decoding.beam;
    full.default_nbest = c.decoding.nbest;
    full.default_alpha = c.decoding.alpha;
    full.default_beta = c.decoding.beta;
    full.default_max_len_a = c.decoding.max_len_a;
    full.default_max_len_b = c.decoding.max_len_b;
    full.schema_version = m.schema_version();
    full.file_bytes = m.file_bytes();
    full.confidence_calibrated = m.confidence_calibrated() ? 1 : 0;
    full.pretokenized = c.pretokenized ? 1 : 0;
    // Only the part of the struct the caller knows.
    std::memcpy(info, &full, info->struct_size < sizeof full ? info->struct_size : sizeof full);
    return SOFTALIGN_OK;
  });
}

size_t softalign_model_metadata_count(const softalign_model* model) {
  return model == nullptr ? 0 : model->model->metadata().size();
}

softalign_status softalign_model_metadata_at(const softalign_model* model, size_t i, const char** key,
                                             const char** value) {
  return guarded([&] {
    if (model == nullptr) return null_arg("model");
    if (key == nullptr) return null_arg("key");
    if (value == nullptr) return null_arg("value");
    const softalign::Metadata& md = model->model->metadata();
    if (i >= md.size())
      return fail(SOFTALIGN_INVALID_ARGUMENT, "invalid_argument: metadata index " + std::to_string(i) +
                                                  " out of range (" + std::to_string(md.size()) + " entries)");
    *key = md[i].first.c_str();
    *value = md[i].second.c_str();
    return SOFTALIGN_OK;
  });
}

softalign_status softalign_model_encode(const softalign_model* model, const char* text, int32_t* ids,
                                        size_t capacity, size_t* count) {
  return guarded([&] {
    if (model == nullptr) return null_arg("model");
    if (text == nullptr) return null_arg("text");
    if (count == nullptr) return null_arg("count");
    if (ids == nullptr && capacity > 0) return null_arg("ids");
    std::vector<int32_t> v;
    Status st = model->model->encode_source(text, &v);
    if (!st.ok()) return from(st);
    *count = v.size();
    if (v.size() > capacity)
      return fail(SOFTALIGN_INVALID_ARGUMENT, "invalid_argument: " + std::to_string(v.size()) +
                                                  " ids do not fit in capacity " + std::to_string(capacity));
    if (!v.empty()) std::memcpy(ids, v.data(), v.size() * sizeof(int32_t));
    return SOFTALIGN_OK;
  });
}

// ---- Translator -------------------------------------------------------------

void softalign_translator_options_init(softalign_translator_options* options, size_t struct_size) {
  if (options == nullptr || struct_size < sizeof(size_t)) return;
  softalign_translator_options d;
  std::memset(&d, 0, sizeof d);
  d.struct_size = struct_size < sizeof d ? struct_size : sizeof d;
  // Negative and 0 say "unset" (the model's, the library's); the rest are
  // TranslatorOptions' own defaults, written once in options.hpp.
  const softalign::TranslatorOptions defaults;
  d.alpha = -1.0f;
  d.beta = -1.0f;
  d.max_len_a = -1.0f;
  d.max_len_b = -1.0f;
  d.block_repeats = -1;
  d.max_source_tokens = defaults.max_source_tokens;
  d.threads = defaults.threads;
  d.use_shortlist = defaults.use_shortlist ? 1 : 0;
  d.split_long_input = defaults.long_input == softalign::LongInputPolicy::kSplit ? 1 : 0;
  d.replace_invalid_utf8 = defaults.invalid_utf8 == softalign::InvalidUtf8Policy::kReplace ? 1 : 0;
  d.copy_through = defaults.copy_through ? 1 : 0;
  d.repair_placeholders = defaults.repair_placeholders ? 1 : 0;
  std::memcpy(options, &d, d.struct_size);
}

softalign_status softalign_translator_create(const softalign_model* model,
                                             const softalign_translator_options* options,
                                             softalign_translator** out) {
  return softalign_translator_create_ensemble(model == nullptr ? nullptr : &model, model == nullptr ? 0 : 1,
                                              options, out);
}

softalign_status softalign_translator_create_ensemble(const softalign_model* const* models, size_t count,
                                                      const softalign_translator_options* options,
                                                      softalign_translator** out) {
  return guarded([&] {
    if (out == nullptr) return null_arg("out");
    *out = nullptr;
    std::vector<std::shared_ptr<const softalign::Model>> list;
    const softalign_status models_st = model_list(models, count, &list);
    if (models_st != SOFTALIGN_OK) return models_st;
    softalign_translator_options o;
    softalign_translator_options_init(&o, sizeof o);
    if (options != nullptr) {
      if (options->struct_size == 0)
        return fail(SOFTALIGN_INVALID_ARGUMENT,
                    "invalid_argument: options->struct_size is 0: the options were not initialised with "
                    "softalign_translator_options_default");
      const softalign_status size_st = check_struct_size("options", options->struct_size, kOptionFields);
      if (size_st != SOFTALIGN_OK) return size_st;
      // A caller built with an older header knows fewer fields: defaults for the rest.
      std::memcpy(&o, options, options->struct_size < sizeof o ? options->struct_size : sizeof o);
    }
    if (o.threads < 1)
      return fail(SOFTALIGN_INVALID_ARGUMENT,
                  "invalid_argument: threads must be >= 1, got " + std::to_string(o.threads));
    if (o.beam < 0 || o.nbest < 0 || o.max_source_tokens < 0)
      return fail(SOFTALIGN_INVALID_ARGUMENT, "invalid_argument: beam, nbest and max_source_tokens must be >= 0");
    softalign::TranslatorOptions cpp = to_cpp(o);
    if (o.device != nullptr && o.device[0] != '\0' && !softalign::backend_from_name(o.device, &cpp.backend))
      return fail(SOFTALIGN_INVALID_ARGUMENT,
                  std::string("invalid_argument: device must be \"auto\", \"cpu\" or \"vulkan\", got \"") + o.device +
                      "\"");
    if (o.beam_rules != nullptr) {
      softalign::BeamRules rules{};
      if (!softalign::beam_rules_from_name(o.beam_rules, &rules))
        return fail(SOFTALIGN_INVALID_ARGUMENT,
                    std::string("invalid_argument: beam_rules must be \"softalign\", \"opennmt\" or \"joeynmt\", got \"") +
                        o.beam_rules + "\"");
      cpp.search.beam_rules = rules;
    }
    if (o.glossary_tsv != nullptr) {
      const Status g = softalign::parse_glossary_tsv(o.glossary_tsv, &cpp.glossary);
      if (!g.ok()) return from(g);
    }
    return make_translator(list, cpp, out);
  });
}

softalign_status softalign_translator_create_json(const softalign_model* const* models, size_t count,
                                                  const char* options_json, softalign_translator** out) {
  return guarded([&] {
    if (out == nullptr) return null_arg("out");
    *out = nullptr;
    std::vector<std::shared_ptr<const softalign::Model>> list;
    const softalign_status models_st = model_list(models, count, &list);
    if (models_st != SOFTALIGN_OK) return models_st;
    softalign::TranslatorOptions cpp;
    if (options_json != nullptr) {
      const Status st = softalign::parse_options_json(options_json, &cpp);
      if (!st.ok()) return from(st);
    }
    return make_translator(list, cpp, out);
  });
}

const char* softalign_option_defaults_json(void) {
  try {
    static const std::string defaults = softalign::options_json(softalign::TranslatorOptions());
    return defaults.c_str();
  } catch (...) {
    return nullptr;
  }
}

const char* softalign_translator_options_json(const softalign_translator* translator) {
  return translator == nullptr ? nullptr : translator->options_json.c_str();
}

void softalign_translator_free(softalign_translator* translator) { delete translator; }

size_t softalign_translator_arena_bytes(const softalign_translator* translator) {
  return translator == nullptr ? 0 : translator->translator->arena_bytes();
}

const char* softalign_translator_backend(const softalign_translator* translator) {
  return translator == nullptr ? nullptr : softalign::backend_name(translator->translator->backend_info().backend);
}

const char* softalign_translator_backend_reason(const softalign_translator* translator) {
  return translator == nullptr ? nullptr : translator->backend_reason.c_str();
}

void softalign_translator_cancel(softalign_translator* translator) {
  if (translator != nullptr) translator->translator->cancel();
}

softalign_status softalign_translator_set_timeout_ms(softalign_translator* translator, int32_t timeout_ms) {
  return guarded([&] {
    if (translator == nullptr) return null_arg("translator");
    if (timeout_ms < -1)
      return fail(SOFTALIGN_INVALID_ARGUMENT, "invalid_argument: timeout_ms must be -1 (the option's), 0 (none) "
                                              "or a number of milliseconds, got " + std::to_string(timeout_ms));
    translator->timeout_ms = timeout_ms;
    return SOFTALIGN_OK;
  });
}

softalign_status softalign_translate(softalign_translator* translator, const char* text,
                                     softalign_result** out) {
  return softalign_translate_prefix(translator, text, "", out);
}

softalign_status softalign_translate_prefix(softalign_translator* translator, const char* text, const char* prefix,
                                            softalign_result** out) {
  return translate_text(translator, text, prefix, softalign::StreamCallback(), out);
}

softalign_status softalign_translate_stream(softalign_translator* translator, const char* text,
                                            softalign_stream_callback callback, void* user_data,
                                            softalign_result** out) {
  softalign::StreamCallback stream;
  if (callback != nullptr)
    stream = [callback, user_data](const softalign::StreamEvent& e) {
      // The views are NUL-terminated: a piece and a sentence's text are std::strings.
      softalign_stream_event c;
      const bool piece = e.kind == softalign::StreamEvent::Kind::kPiece;
      c.kind = piece ? SOFTALIGN_STREAM_PIECE : SOFTALIGN_STREAM_SENTENCE;
      c.id = piece ? e.id : -1;
      c.index = e.index;
      c.text = piece ? e.piece.data() : e.text.data();
      return callback(&c, user_data) == 0 ? softalign::StreamAction::kContinue : softalign::StreamAction::kStop;
    };
  return translate_text(translator, text, "", stream, out);
}

softalign_status softalign_translate_batch(softalign_translator* translator, const char* const* texts,
                                           size_t count, softalign_result** out) {
  return guarded([&] {
    if (out == nullptr && count > 0) return null_arg("out");
    for (size_t i = 0; i < count; ++i) out[i] = nullptr;
    if (translator == nullptr) return null_arg("translator");
    if (texts == nullptr && count > 0) return null_arg("texts");
    std::vector<std::string> in;
    in.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      if (texts[i] == nullptr)
        return fail(SOFTALIGN_INVALID_ARGUMENT, "invalid_argument: texts[" + std::to_string(i) + "] is NULL");
      in.emplace_back(texts[i]);
    }
    std::vector<softalign::TranslationResult> results;
    Status st = translator->translator->translate_batch(in, call_search(*translator), &results);
    if (!st.ok()) return from(st);
    if (results.size() != count)
      return fail(SOFTALIGN_INTERNAL, "internal: translate_batch returned " + std::to_string(results.size()) +
                                          " results for " + std::to_string(count) + " inputs");
    // Build every result before handing any out, so a failure leaks nothing.
    std::vector<std::unique_ptr<softalign_result>> made;
    made.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      made.push_back(std::make_unique<softalign_result>());
      made.back()->result = std::move(results[i]);
      if (translator->alignment) add_pharaoh(made.back().get(), true);
    }
    for (size_t i = 0; i < count; ++i) out[i] = made[i].release();
    return SOFTALIGN_OK;
  });
}

softalign_status softalign_translate_batch_status(softalign_translator* translator, const char* const* texts,
                                                  size_t count, softalign_result** out, int32_t* status) {
  bool handed_out = false;  // out[] and status[] hold the items' own outcomes
  const softalign_status call = guarded([&]() -> softalign_status {
    if (out == nullptr && count > 0) return null_arg("out");
    if (status == nullptr && count > 0) return null_arg("status");
    if (translator == nullptr) return null_arg("translator");
    if (texts == nullptr && count > 0) return null_arg("texts");
    // A NULL text fails alone; the others are translated.
    std::vector<std::string> in;
    in.reserve(count);
    for (size_t i = 0; i < count; ++i)
      if (texts[i] != nullptr) in.emplace_back(texts[i]);
    std::vector<softalign::TranslationResult> results;
    std::vector<Status> item;
    softalign::Translator& tr = *translator->translator;
    const Status st = tr.translate_batch(in, call_search(*translator), &results, &item);
    if (!st.ok()) return from(st);
    if (results.size() != in.size() || item.size() != in.size())
      return fail(SOFTALIGN_INTERNAL, "internal: translate_batch returned " + std::to_string(results.size()) +
                                          " results for " + std::to_string(in.size()) + " inputs");
    // Every result is made before any is handed out, so a failure leaks nothing.
    std::vector<std::unique_ptr<softalign_result>> made(count);
    std::vector<int32_t> codes(count, SOFTALIGN_INVALID_ARGUMENT);
    std::string first_error;
    size_t failed = 0;
    for (size_t i = 0, k = 0; i < count; ++i) {
      if (texts[i] == nullptr) {
        if (failed++ == 0) first_error = "invalid_argument: texts[" + std::to_string(i) + "] is NULL";
        continue;
      }
      if (item[k].ok()) {
        made[i] = std::make_unique<softalign_result>();
        made[i]->result = std::move(results[k]);
        if (translator->alignment) add_pharaoh(made[i].get(), true);
        codes[i] = SOFTALIGN_OK;
      } else {
        codes[i] = static_cast<int32_t>(item[k].code());
        if (failed++ == 0) first_error = "texts[" + std::to_string(i) + "]: " + item[k].to_string();
      }
      ++k;
    }
    softalign_status first = SOFTALIGN_OK;
    for (size_t i = 0; i < count && first == SOFTALIGN_OK; ++i) first = static_cast<softalign_status>(codes[i]);
    if (failed > 0)
      first = fail(first, first_error + " (" + std::to_string(failed) + " of " + std::to_string(count) +
                              " texts failed; each has its status, the others their results)");
    for (size_t i = 0; i < count; ++i) {
      out[i] = made[i].release();
      status[i] = codes[i];
    }
    handed_out = true;
    return first;
  });
  // An error of the call itself: no results, and each status is the call's.
  if (!handed_out)
    for (size_t i = 0; i < count; ++i) {
      if (out != nullptr) out[i] = nullptr;
      if (status != nullptr) status[i] = call;
    }
  return call;
}

softalign_status softalign_translate_ids(softalign_translator* translator, const int32_t* ids, size_t count,
                                         softalign_result** out) {
  return softalign_translate_ids_prefix(translator, ids, count, nullptr, 0, out);
}

softalign_status softalign_translate_ids_prefix(softalign_translator* translator, const int32_t* ids, size_t count,
                                                const int32_t* prefix, size_t prefix_count, softalign_result** out) {
  return guarded([&] {
    if (out == nullptr) return null_arg("out");
    *out = nullptr;
    if (translator == nullptr) return null_arg("translator");
    if (ids == nullptr && count > 0) return null_arg("ids");
    if (prefix == nullptr && prefix_count > 0) return null_arg("prefix");
    softalign::Translator& tr = *translator->translator;
    softalign::SearchOptions search = call_search(*translator);
    search.target_prefix_ids = softalign::Span<const int32_t>(prefix, prefix_count);
    softalign::NBestView nb;
    Status st = tr.translate_ids(softalign::Span<const int32_t>(ids, count), search, &nb);
    if (!st.ok()) return from(st);
    auto r = std::make_unique<softalign_result>();
    r->result.source_ids.assign(ids, ids + count);
    for (size_t k = 0; k < nb.count; ++k) {
      const softalign::HypothesisView& v = nb.hypotheses[k];
      softalign::Hypothesis h;
      h.ids.assign(v.ids, v.ids + v.length);
      h.score = v.score;
      h.log_prob = v.log_prob;
      st = tr.model().decode_target(v.ids, v.length, &h.text, &h.pieces);
      if (!st.ok()) return from(st);
      h.source_length = v.source_length;
      if (translator->alignment && v.attention != nullptr) {
        h.attention.assign(v.attention, v.attention + v.attention_rows * v.source_length);
        h.attention_rows = v.attention_rows;
        // Target pieces against source pieces: the EOS row and column are left out.
        h.alignment_pieces = softalign::internal::hard_alignment(v.attention, v.length, v.source_length,
                                                                 v.source_length - 1);
      }
      r->result.hypotheses.push_back(std::move(h));
    }
    if (translator->alignment) add_pharaoh(r.get(), false);
    *out = r.release();
    return SOFTALIGN_OK;
  });
}

// ---- Result -----------------------------------------------------------------

const char* softalign_result_json(const softalign_result* result) {
  if (result == nullptr) return nullptr;
  try {
    auto* r = const_cast<softalign_result*>(result);  // the cache: written once, read after
    std::call_once(r->json_once, [r] { r->json = softalign::result_json(r->result); });
    return r->json.c_str();
  } catch (...) {
    return nullptr;
  }
}

void softalign_result_free(softalign_result* result) { delete result; }

size_t softalign_result_count(const softalign_result* result) {
  return result == nullptr ? 0 : result->result.hypotheses.size();
}

const char* softalign_result_text(const softalign_result* result, size_t hypothesis) {
  const softalign::Hypothesis* h = hyp(result, hypothesis);
  return h == nullptr ? nullptr : h->text.c_str();
}

const int32_t* softalign_result_ids(const softalign_result* result, size_t hypothesis, size_t* count) {
  const softalign::Hypothesis* h = hyp(result, hypothesis);
  if (count != nullptr) *count = h == nullptr ? 0 : h->ids.size();
  return h == nullptr ? nullptr : h->ids.data();
}

const char* softalign_result_piece(const softalign_result* result, size_t hypothesis, size_t k) {
  const softalign::Hypothesis* h = hyp(result, hypothesis);
  if (h == nullptr || k >= h->pieces.size()) return nullptr;
  return h->pieces[k].c_str();
}

float softalign_result_score(const softalign_result* result, size_t hypothesis) {
  const softalign::Hypothesis* h = hyp(result, hypothesis);
  return h == nullptr ? 0.0f : h->score;
}

float softalign_result_log_prob(const softalign_result* result, size_t hypothesis) {
  const softalign::Hypothesis* h = hyp(result, hypothesis);
  return h == nullptr ? 0.0f : h->log_prob;
}

float softalign_result_confidence(const softalign_result* result, size_t hypothesis) {
  const softalign::Hypothesis* h = hyp(result, hypothesis);
  return h == nullptr ? 0.0f : h->confidence;
}

int softalign_result_placeholders_repaired(const softalign_result* result, size_t hypothesis) {
  const softalign::Hypothesis* h = hyp(result, hypothesis);
  return h != nullptr && h->placeholders_repaired ? 1 : 0;
}

size_t softalign_result_source_count(const softalign_result* result) {
  return result == nullptr ? 0 : result->result.source_pieces.size();
}

const char* softalign_result_source_piece(const softalign_result* result, size_t k) {
  if (result == nullptr || k >= result->result.source_pieces.size()) return nullptr;
  return result->result.source_pieces[k].c_str();
}

size_t softalign_result_protected_count(const softalign_result* result) {
  return result == nullptr ? 0 : result->result.protected_spans.size();
}

int softalign_result_protected_span(const softalign_result* result, size_t k, size_t* begin, size_t* end) {
  if (result == nullptr || k >= result->result.protected_spans.size()) return 0;
  if (begin != nullptr) *begin = result->result.protected_spans[k].begin;
  if (end != nullptr) *end = result->result.protected_spans[k].end;
  return 1;
}

const float* softalign_result_alignment(const softalign_result* result, size_t hypothesis, size_t* rows,
                                        size_t* cols) {
  const softalign::Hypothesis* h = hyp(result, hypothesis);
  const bool present = h != nullptr && !h->attention.empty();
  if (rows != nullptr) *rows = present ? h->attention_rows : 0;
  if (cols != nullptr) *cols = present ? h->source_length : 0;
  return present ? h->attention.data() : nullptr;
}

const char* softalign_result_pharaoh(const softalign_result* result, size_t hypothesis) {
  if (result == nullptr || hypothesis >= result->pharaoh.size()) return nullptr;
  return result->pharaoh[hypothesis].c_str();
}

const char* softalign_result_pharaoh_words(const softalign_result* result, size_t hypothesis) {
  if (result == nullptr || hypothesis >= result->pharaoh_words.size()) return nullptr;
  return result->pharaoh_words[hypothesis].c_str();
}

}  // extern "C"
