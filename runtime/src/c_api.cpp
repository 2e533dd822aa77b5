// The C API (softalign.h) over the C++ API. Every entry point catches every
// exception: nothing but a status code crosses into C.
#include "softalign/softalign.h"

#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "softalign/softalign.hpp"
#include "guard.hpp"
#include "text.hpp"

struct softalign_model {
  std::shared_ptr<const softalign::Model> model;
};

struct softalign_translator {
  std::unique_ptr<softalign::Translator> translator;
  bool alignment = false;
  std::string backend_reason;  // backend_info's reason, with the device
};

struct softalign_result {
  softalign::TranslationResult result;
  std::vector<std::string> pharaoh;        // per hypothesis, when alignments were asked for
  std::vector<std::string> pharaoh_words;  // idem; empty for translate_ids results
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
  if (o.alpha >= 0.0f) t.search.alpha = o.alpha;
  if (o.beta >= 0.0f) t.search.beta = o.beta;
  if (o.max_len_a >= 0.0f) t.search.max_len_a = o.max_len_a;
  if (o.max_len_b >= 0.0f) t.search.max_len_b = o.max_len_b;
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
  return t;
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
  if (value < SOFTALIGN_OK || value > SOFTALIGN_RESOURCE_EXHAUSTED) return "unknown";
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
    if (info->struct_size < sizeof(size_t))
      return fail(SOFTALIGN_INVALID_ARGUMENT, "invalid_argument: info->struct_size is not set");
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
  d.alpha = -1.0f;
  d.beta = -1.0f;
  d.max_len_a = -1.0f;
  d.max_len_b = -1.0f;
  d.threads = 1;
  d.use_shortlist = 1;
  d.split_long_input = 1;
  d.copy_through = 1;
  d.block_repeats = -1;
  d.repair_placeholders = 1;
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
    if (models == nullptr || count == 0) return null_arg("model");
    std::vector<std::shared_ptr<const softalign::Model>> list;
    for (size_t i = 0; i < count; ++i) {
      if (models[i] == nullptr)
        return fail(SOFTALIGN_INVALID_ARGUMENT, "invalid_argument: models[" + std::to_string(i) + "] is NULL");
      list.push_back(models[i]->model);
    }
    softalign_translator_options o;
    softalign_translator_options_init(&o, sizeof o);
    if (options != nullptr) {
      if (options->struct_size < sizeof(size_t))
        return fail(SOFTALIGN_INVALID_ARGUMENT,
                    "invalid_argument: options were not initialised with softalign_translator_options_default");
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
    if (o.glossary_tsv != nullptr) {
      const Status g = softalign::parse_glossary_tsv(o.glossary_tsv, &cpp.glossary);
      if (!g.ok()) return from(g);
    }
    std::unique_ptr<softalign::Translator> t;
    Status st = softalign::Translator::prepare(list, cpp, &t);
    if (!st.ok()) return from(st);
    const softalign::BackendInfo& b = t->backend_info();
    std::string reason = b.reason + (b.device.empty() ? "" : " (device: " + b.device + ")");
    *out = new softalign_translator{std::move(t), o.alignment != 0, std::move(reason)};
    return SOFTALIGN_OK;
  });
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

softalign_status softalign_translate(softalign_translator* translator, const char* text,
                                     softalign_result** out) {
  return softalign_translate_prefix(translator, text, "", out);
}

softalign_status softalign_translate_prefix(softalign_translator* translator, const char* text, const char* prefix,
                                            softalign_result** out) {
  return guarded([&] {
    if (out == nullptr) return null_arg("out");
    *out = nullptr;
    if (translator == nullptr) return null_arg("translator");
    if (text == nullptr) return null_arg("text");
    if (prefix == nullptr) return null_arg("prefix");
    softalign::SearchOptions search = translator->translator->options().search;
    search.target_prefix = prefix;
    auto r = std::make_unique<softalign_result>();
    Status st = translator->translator->translate(text, search, &r->result);
    if (!st.ok()) return from(st);
    if (translator->alignment) add_pharaoh(r.get(), true);
    *out = r.release();
    return SOFTALIGN_OK;
  });
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
    Status st = translator->translator->translate_batch(in, &results);
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
    softalign::SearchOptions search = tr.options().search;
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
