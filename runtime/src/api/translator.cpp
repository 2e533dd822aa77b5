// The public Translator: text in and out around the allocation-free core.
#include "softalign/translator.hpp"

#include <algorithm>
#include <array>
#include <set>

#include <sentencepiece_processor.h>

#include "api/batch.hpp"
#include "api/translator_impl.hpp"
#include "core/call_stop.hpp"
#include "core/guard.hpp"
#include "core/utf8.hpp"
#include "text/alignment.hpp"
#include "text/confidence.hpp"
#include "text/copy_through.hpp"
#include "text/protect.hpp"
#include "text/repair_placeholders.hpp"
#include "text/split.hpp"

namespace softalign {

Translator::Translator(std::unique_ptr<internal::TranslatorImpl> impl) : impl_(std::move(impl)) {}
Translator::~Translator() = default;

Status Translator::prepare(std::shared_ptr<const Model> model, const TranslatorOptions& options,
                           std::unique_ptr<Translator>* out) {
  return internal::guarded([&]() -> Status {
    if (model == nullptr || out == nullptr) return Status(StatusCode::kInvalidArgument, "model or out is null");
    return prepare(std::vector<std::shared_ptr<const Model>>{std::move(model)}, options, out);
  });
}

Status Translator::prepare(const std::vector<std::shared_ptr<const Model>>& models, const TranslatorOptions& options,
                           std::unique_ptr<Translator>* out) {
  return internal::guarded([&]() -> Status {
    if (out == nullptr) return Status(StatusCode::kInvalidArgument, "out is null");
    auto impl = std::make_unique<internal::TranslatorImpl>();
    Status st = impl->prepare(models, options);
    if (!st.ok()) return st;
    // translate_batch spreads its sentences over a pool of `threads`
    // replicas, one thread each (this translator's threads serve a sentence alone).
    if (options.threads > 1) {
      st = TranslatorPool::prepare(models, impl->options, options.threads, &impl->batch_pool);
      if (!st.ok()) return st;
    }
    out->reset(new Translator(std::move(impl)));
    return st;
  });
}

std::size_t Translator::arena_bytes() const { return impl_->arena.capacity(); }
const TranslatorOptions& Translator::options() const { return impl_->options; }
const Model& Translator::model() const { return *impl_->model; }
std::size_t Translator::model_count() const { return impl_->models.size(); }
int Translator::max_source_tokens() const { return impl_->S; }
int Translator::max_target_tokens() const { return impl_->T; }
const char* Translator::kernels_name() const { return impl_->k->name; }
const BackendInfo& Translator::backend_info() const { return impl_->backend; }

void Translator::cancel() {
  impl_->cancels.fetch_add(1, std::memory_order_release);
  // translate_batch's replicas (threads > 1) run under the pool's own count.
  if (impl_->batch_pool != nullptr) impl_->batch_pool->cancel();
}

namespace internal {
const DeviceCostReport& TranslatorAccess::device_costs(const Translator& translator) {
  return translator.impl_->device_costs;
}
}  // namespace internal

namespace {
// The unset fields of `call` take the prepared options.
SearchOptions merge(const SearchOptions& call, const SearchOptions& prepared) {
  SearchOptions s = call;
  if (!s.beam_size) s.beam_size = prepared.beam_size;
  if (!s.nbest) s.nbest = std::min(*prepared.nbest, *s.beam_size);
  if (!s.alpha) s.alpha = prepared.alpha;
  if (!s.beta) s.beta = prepared.beta;
  if (!s.max_len_a) s.max_len_a = prepared.max_len_a;
  if (!s.max_len_b) s.max_len_b = prepared.max_len_b;
  if (!s.block_repeats) s.block_repeats = prepared.block_repeats;
  if (!s.beam_rules) s.beam_rules = prepared.beam_rules;
  if (!s.timeout_ms) s.timeout_ms = prepared.timeout_ms;
  return s;
}

// A call's deadline (SearchOptions::timeout_ms, merged): 0 for none.
int timeout_of(const SearchOptions& merged) { return merged.timeout_ms.value_or(0); }

// Greedy search's pieces as stream events (StreamEvent::kPiece) for the
// sentences from `first` on.
class StreamPieces final : public internal::PieceSink {
 public:
  StreamPieces(const Model& model, const StreamCallback* callback, std::size_t first)
      : spm_(*internal::ModelAccess::impl(model).tgt()), callback_(callback), first_(first) {}
  // Where the search sends its pieces: here, or nowhere without a callback.
  internal::PieceSink* sink() { return callback_ != nullptr && *callback_ ? this : nullptr; }
  bool piece(int sentence, int32_t id) override {
    StreamEvent e;
    e.kind = StreamEvent::Kind::kPiece;
    e.index = first_ + static_cast<std::size_t>(sentence);
    e.id = id;
    e.piece = spm_.IdToPiece(id);  // a reference into the processor: nothing allocated
    return (*callback_)(e) == StreamAction::kContinue;
  }

 private:
  const sentencepiece::SentencePieceProcessor& spm_;
  const StreamCallback* callback_;
  std::size_t first_;
};

// An ids call under a call's stop, its pieces streamed to `pieces` (null: not
// streamed). `search` is the call's, merged with the translator's already.
Status run_ids(internal::TranslatorImpl& impl, Span<const int32_t> source, const SearchOptions& search,
               const internal::CallStop& stop, internal::PieceSink* pieces, NBestView* out) {
  internal::Search s;
  Status st = impl.resolve(search, &s);
  if (!st.ok()) return st;
  s.stop = &stop;
  s.pieces = pieces;
  return impl.translate_ids(source.data(), source.size(), s, out);
}

// The most pieces a protected span may enter the model as (more would not fit
// in one source with its EOS, so a split would cut the span): a longer span
// enters as one <unk> piece that copy-through puts back whole.
std::size_t max_span_pieces(const internal::TranslatorImpl& impl) { return static_cast<std::size_t>(impl.S) - 1; }

// A text target prefix becomes ids (in `ids`, which the options then view).
// One with a character the target vocabulary lacks is refused: that would be
// <unk>, which copy-through replaces with a source word, so the translation
// would not begin with the prefix as typed.
Status tokenise_prefix(const Model& model, SearchOptions* search, std::vector<int32_t>* ids) {
  if (search->target_prefix.empty()) return Status::Ok();
  if (!search->target_prefix_ids.empty())
    return Status(StatusCode::kInvalidArgument, "both target_prefix and target_prefix_ids are set: give one");
  const std::string& prefix = search->target_prefix;
  Status st = model.encode_target(prefix, ids);
  if (!st.ok()) return Status(st.code(), "target prefix: " + st.message());
  const int32_t unk = model.config().unk_id;
  if (std::find(ids->begin(), ids->end(), unk) != ids->end()) {
    // Name the characters (the prefix is valid UTF-8 here) that alone encode
    // to <unk>: each distinct one encoded once, the first kNamed named.
    constexpr std::size_t kNamed = 8;
    std::set<std::string> seen;
    std::string names;
    std::size_t named = 0, i = 0;
    std::vector<int32_t> one;
    while (i < prefix.size() && named < kNamed) {
      std::size_t len = 1;
      while (i + len < prefix.size() && (static_cast<unsigned char>(prefix[i + len]) & 0xc0) == 0x80) ++len;
      const std::string ch = prefix.substr(i, len);
      i += len;
      if (!seen.insert(ch).second) continue;
      if (model.encode_target(ch, &one).ok() && std::find(one.begin(), one.end(), unk) != one.end())
        names += (named++ == 0 ? "\"" : ", \"") + escape_controls(ch) + "\"";
    }
    if (named == 0) names = "some of its characters";
    else if (i < prefix.size()) names += ", ...";
    return Status(StatusCode::kInvalidArgument, "target prefix: the target vocabulary lacks " + names);
  }
  search->target_prefix.clear();
  search->target_prefix_ids = Span<const int32_t>(ids->data(), ids->size());
  return Status::Ok();
}

}  // namespace

Status Translator::translate_ids(Span<const int32_t> source, NBestView* out) {
  return translate_ids(source, impl_->options.search, out);
}

Status Translator::translate_ids(Span<const int32_t> source, const SearchOptions& search, NBestView* out) {
  return translate_ids(source, search, StreamCallback(), out);
}

Status Translator::translate_ids(Span<const int32_t> source, const SearchOptions& search,
                                 const StreamCallback& callback, NBestView* out) {
  return internal::guarded([&]() -> Status {
    const SearchOptions merged = merge(search, impl_->options.search);
    const internal::CallStop stop(&impl_->cancels, timeout_of(merged));
    StreamPieces pieces(*impl_->model, &callback, 0);
    return run_ids(*impl_, source, merged, stop, pieces.sink(), out);
  });
}

Status Translator::translate_ids_batch(const Span<const int32_t>* sources, std::size_t n, const SearchOptions& search,
                                       NBestView* out) {
  return internal::guarded([&]() -> Status {
    if (sources == nullptr || out == nullptr) return Status(StatusCode::kInvalidArgument, "null argument");
    if (n == 0 || n > static_cast<std::size_t>(impl_->B))
      return Status(StatusCode::kInvalidArgument, "the batch must hold 1 to max_batch (" +
                                                      std::to_string(impl_->B) + ") sources, got " + std::to_string(n));
    internal::Search s;
    const SearchOptions merged = merge(search, impl_->options.search);
    Status st = impl_->resolve(merged, &s);
    if (!st.ok()) return st;
    const internal::CallStop stop(&impl_->cancels, timeout_of(merged));
    s.stop = &stop;
    // Pointers and lengths in the arena's batch scratch: nothing allocated.
    return impl_->translate_ids_batch(sources, static_cast<int>(n), s, out);
  });
}

Status Translator::force_decode(Span<const int32_t> source, Span<const int32_t> target_in, float* logits,
                                float* attention) {
  return internal::guarded([&]() -> Status {
    return impl_->force_decode(source.data(), source.size(), target_in.data(), target_in.size(), logits, attention);
  });
}

namespace {

// Fills `out` from the core's views of one source's n-best list (and copies
// names and identifiers through, as `plan` says).
Status fill_result(const Model& model, std::string_view text, bool repair_placeholders,
                   const std::vector<int32_t>& ids, const std::vector<std::string>& pieces, const NBestView& nb,
                   const SearchOptions& search, const internal::CopyPlan& plan, TranslationResult* out) {
  out->source_ids = ids;
  out->source_pieces = pieces;
  out->protected_spans = plan.protected_spans();
  out->glossary_matches = plan.glossary_matches();
  out->hypotheses.clear();
  const internal::ConfidenceCalibration& calibration = internal::ModelAccess::impl(model).confidence;
  Status st;
  const bool want_att = search.return_attention || search.return_alignment;
  const std::vector<int> src_words = search.return_alignment ? internal::word_index(pieces) : std::vector<int>();
  // What the caller gave, which the placeholder repair keeps: the glossary
  // targets (not split, their placeholders allowed besides the source's) and
  // the target prefix (its bytes fixed: a placeholder there is the source's
  // when it has one of that text, else one of the prefix's own).
  internal::RepairGiven given;
  for (std::size_t k = 0; k < plan.spans.size(); ++k)
    if (plan.span_term[k]) {
      given.keep_whole.emplace_back(plan.span_out[k]);
      given.keep_whole.push_back(internal::capitalise_first_letter(plan.span_out[k]));
      given.given.emplace_back(plan.span_out[k]);
    }
  const std::size_t prefix_pieces = search.target_prefix_ids.size();
  std::string prefix_text;
  if (prefix_pieces > 0) {
    st = model.decode_target(search.target_prefix_ids.data(), prefix_pieces, &prefix_text, nullptr);
    if (!st.ok()) return st;
  }
  for (std::size_t r = 0; r < nb.count; ++r) {
    const HypothesisView& v = nb.hypotheses[r];
    Hypothesis h;
    h.ids.assign(v.ids, v.ids + v.length);
    h.score = v.score;
    h.log_prob = v.log_prob;
    st = model.decode_target(v.ids, v.length, &h.text, &h.pieces);
    if (!st.ok()) return st;
    // The prefix as the output holds it: the repair changes nothing before its end.
    given.fixed_prefix = 0;
    while (given.fixed_prefix < prefix_text.size() && given.fixed_prefix < h.text.size() &&
           h.text[given.fixed_prefix] == prefix_text[given.fixed_prefix])
      ++given.fixed_prefix;
    h.placeholders_repaired = !internal::placeholders_intact(text, h.text, given);
    st = internal::copy_through(model, plan, v, prefix_pieces, &h);
    if (!st.ok()) return st;
    if (repair_placeholders) {
      std::string repaired;
      if (internal::repair_placeholders(text, h.text, &repaired, given)) h.text = std::move(repaired);
    }
    internal::ConfidenceInputs in;
    in.source = text;
    in.source_pieces = pieces.size();
    in.copied = &out->protected_spans;
    in.text = h.text;
    in.target_pieces = h.pieces.size();
    in.repaired = h.placeholders_repaired;
    h.confidence_features = internal::confidence_features(v, in);
    h.confidence = internal::confidence_of(calibration, h.confidence_features);
    h.source_length = v.source_length;
    if (want_att) {
      h.attention.assign(v.attention, v.attention + v.attention_rows * v.source_length);
      h.attention_rows = v.attention_rows;
    }
    if (search.return_alignment) {
      h.alignment_pieces = internal::hard_alignment(v.attention, v.length, v.source_length, v.source_length - 1);
      h.alignment_words = internal::word_alignment(h.alignment_pieces, src_words, internal::word_index(h.pieces));
    }
    if (!search.return_attention) {
      h.attention.clear();
      h.attention_rows = 0;
    }
    out->hypotheses.push_back(std::move(h));
  }
  return Status::Ok();
}

// One text call: its stop, its stream callback (null: none) and the
// sentences it has told the callback so far.
struct TextCall {
  const internal::CallStop& stop;
  const StreamCallback* callback;
  std::size_t sentences = 0;
};

// Translates one source already tokenised: one sentence of the call.
Status translate_tokens(internal::TranslatorImpl& impl, std::string_view text, const std::vector<int32_t>& ids,
                        const std::vector<std::string>& pieces, const SearchOptions& search,
                        const internal::CopyPlan& plan, TextCall& call, TranslationResult* out) {
  NBestView nb;
  StreamPieces stream(*impl.model, call.callback, call.sentences);
  Status st = run_ids(impl, Span<const int32_t>(ids.data(), ids.size()), search, call.stop, stream.sink(), &nb);
  if (!st.ok()) return st;
  st = fill_result(*impl.model, text, impl.options.repair_placeholders, ids, pieces, nb, search, plan, out);
  if (!st.ok() || call.callback == nullptr || !*call.callback) return st;
  StreamEvent e;
  e.kind = StreamEvent::Kind::kSentence;
  e.index = call.sentences++;
  e.text = out->hypotheses.at(0).text;
  if ((*call.callback)(e) == StreamAction::kContinue) return Status::Ok();
  call.stop.stop_by_callback();
  return call.stop.status();
}

Status empty_result(TranslationResult* out) {
  out->hypotheses.assign(1, Hypothesis());
  out->hypotheses[0].confidence = 1.0f;  // nothing to translate, nothing wrong
  out->source_ids.clear();
  out->source_pieces.clear();
  out->protected_spans.clear();
  out->glossary_matches.clear();
  return Status::Ok();
}

}  // namespace

Status Translator::translate(std::string_view text, TranslationResult* out) {
  return translate(text, impl_->options.search, out);
}

Status Translator::translate(std::string_view text, const SearchOptions& search, TranslationResult* out) {
  return translate(text, search, StreamCallback(), out);
}

namespace {

// translate()'s text, `search` merged and its prefix as ids: in one piece,
// or split (LongInputPolicy) with each part translated by this again.
Status translate_text(internal::TranslatorImpl& impl, std::string_view text, const SearchOptions& search,
                      TextCall& call, TranslationResult* out) {
  if (text.size() > impl.options.max_line_bytes)
    return Status(StatusCode::kInputTooLong, "the input has " + std::to_string(text.size()) +
                                                 " bytes, more than max_line_bytes " +
                                                 std::to_string(impl.options.max_line_bytes));
  if (call.stop.stopped()) return call.stop.status();
  std::string fixed;
  if (internal::find_invalid_utf8(text) != std::string_view::npos) {
    if (impl.options.invalid_utf8 == InvalidUtf8Policy::kError)
      return Status(StatusCode::kInvalidUtf8, "the input is not valid UTF-8 (at byte " +
                                                  std::to_string(internal::find_invalid_utf8(text)) + ")");
    fixed = internal::replace_invalid_utf8(text);
    text = fixed;
  }
  if (internal::is_blank(text)) return empty_result(out);
  std::vector<int32_t> ids;
  std::vector<std::string> pieces;
  internal::CopyPlan plan;
  Status st = internal::encode_for_copy(*impl.model, text, impl.options.copy_through, &impl.glossary, &ids, &pieces,
                                        &plan, max_span_pieces(impl));
  if (!st.ok()) return st;
  if (ids.size() <= static_cast<std::size_t>(impl.S) || impl.options.long_input == LongInputPolicy::kError)
    return translate_tokens(impl, text, ids, pieces, search, plan, call, out);
  if (!search.target_prefix_ids.empty())
    return Status(StatusCode::kInputTooLong, "the input has " + std::to_string(ids.size()) +
                                                 " tokens, more than max_source_tokens " + std::to_string(impl.S) +
                                                 ", and a target prefix needs it translated in one piece");
  if (call.stop.stopped()) return call.stop.status();

  // Too long: split (LongInputPolicy), translate each part (splitting it
  // again when it is still too long) and join the best translations (one
  // hypothesis; no attention or alignment across the parts).
  // Never inside a protected span (code in backquotes, a URL), copied through or not.
  const std::vector<TextRange> keep = internal::find_protected_spans(text);
  std::vector<std::string> parts = internal::split_sentences(text, keep);
  if (parts.size() < 2) parts = internal::split_clauses(text, keep);
  if (parts.size() < 2) parts = internal::split_halves(text, keep);
  if (parts.size() < 2)
    return Status(StatusCode::kInputTooLong, "the input has " + std::to_string(ids.size()) +
                                                 " tokens, more than max_source_tokens " + std::to_string(impl.S) +
                                                 ", and cannot be split further");
  SearchOptions one = search;
  one.nbest = 1;
  one.return_attention = false;
  one.return_alignment = false;
  // The whole's confidence and features: the parts', weighted by their pieces (EOS included).
  Hypothesis joined;
  double weight_sum = 0.0, confidence_sum = 0.0;
  std::array<double, kConfidenceFeatureCount> feature_sums{};
  for (const std::string& part : parts) {
    TranslationResult r;
    st = translate_text(impl, part, one, call, &r);
    if (!st.ok()) return st;
    const Hypothesis& h = r.hypotheses.at(0);
    if (!joined.text.empty() && !h.text.empty()) joined.text += ' ';
    joined.text += h.text;
    joined.pieces.insert(joined.pieces.end(), h.pieces.begin(), h.pieces.end());
    joined.ids.insert(joined.ids.end(), h.ids.begin(), h.ids.end());
    joined.score += h.score;
    joined.log_prob += h.log_prob;
    joined.placeholders_repaired = joined.placeholders_repaired || h.placeholders_repaired;
    const double weight = static_cast<double>(h.ids.size() + 1);
    weight_sum += weight;
    confidence_sum += weight * h.confidence;
    for (std::size_t f = 0; f < kConfidenceFeatureCount; ++f) feature_sums[f] += weight * h.confidence_features.values[f];
  }
  joined.confidence = static_cast<float>(confidence_sum / weight_sum);
  for (std::size_t f = 0; f < kConfidenceFeatureCount; ++f)
    joined.confidence_features.values[f] = static_cast<float>(feature_sums[f] / weight_sum);
  out->source_ids = ids;
  out->source_pieces = pieces;
  out->protected_spans = plan.protected_spans();
  out->glossary_matches = plan.glossary_matches();
  out->hypotheses.assign(1, std::move(joined));
  return Status::Ok();
}

}  // namespace

Status Translator::translate(std::string_view text, const SearchOptions& search_in, const StreamCallback& callback,
                             TranslationResult* out) {
  return internal::guarded([&]() -> Status {
    if (out == nullptr) return Status(StatusCode::kInvalidArgument, "out is null");
    SearchOptions search = merge(search_in, impl_->options.search);
    const internal::CallStop stop(&impl_->cancels, timeout_of(search));
    std::vector<int32_t> prefix;
    Status st = tokenise_prefix(*impl_->model, &search, &prefix);
    if (!st.ok()) return st;
    TextCall call{stop, &callback};
    return translate_text(*impl_, text, search, call, out);
  });
}

Status Translator::translate_batch(const std::vector<std::string>& texts, std::vector<TranslationResult>* out) {
  return translate_batch(texts, impl_->options.search, out);
}

Status Translator::translate_batch(const std::vector<std::string>& texts, const SearchOptions& search,
                                   std::vector<TranslationResult>* out) {
  return internal::guarded([&]() -> Status {
    if (out == nullptr) return Status(StatusCode::kInvalidArgument, "out is null");
    std::vector<TranslationResult> results;
    std::vector<Status> status;
    Status st = translate_batch(texts, search, &results, &status);
    if (!st.ok()) return st;
    for (std::size_t i = 0; i < texts.size(); ++i)
      if (!status[i].ok()) return Status(status[i].code(), "sentence " + std::to_string(i) + ": " + status[i].message());
    *out = std::move(results);
    return Status::Ok();
  });
}

Status Translator::translate_batch(const std::vector<std::string>& texts, const SearchOptions& search,
                                   std::vector<TranslationResult>* out, std::vector<Status>* status) {
  return translate_batch(texts, search, out, status, 0);
}

Status Translator::translate_batch(const std::vector<std::string>& texts, const SearchOptions& search,
                                   std::vector<TranslationResult>* out, std::vector<Status>* status, int max_batch) {
  // With threads > 1 the batch goes to this translator's pool of one-thread
  // replicas (this one's threads stay for sentences alone); else to itself.
  if (impl_->batch_pool != nullptr && texts.size() > 1)
    return impl_->batch_pool->translate_batch(texts, search, out, status, max_batch);
  Translator* self = this;
  return internal::translate_batch_on(&self, 1, nullptr, &impl_->cancels, texts, search, max_batch, out, status);
}

namespace internal {

Status TranslatorAccess::begin_batch(Translator& tr, const std::vector<std::string>& texts,
                                     const SearchOptions& search_in, const std::atomic<uint64_t>* cancels,
                                     BatchCall* call) {
  TranslatorImpl& impl = *tr.impl_;
  call->search = merge(search_in, impl.options.search);
  call->stop.emplace(cancels, timeout_of(call->search));
  Status st = tokenise_prefix(*impl.model, &call->search, &call->prefix);
  if (!st.ok()) return st;
  st = impl.resolve(call->search, &call->resolved);
  if (!st.ok()) return st;
  call->resolved.stop = &*call->stop;
  call->together = call->resolved.beam == 1 || impl.batches_beams();
  call->max_batch = impl.B;
  call->items.assign(texts.size(), BatchCall::Item());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    // Stopped: the texts left go through translate()'s path, which says so.
    if (call->stop->stopped()) break;
    const std::string& text = texts[i];
    BatchCall::Item& item = call->items[i];
    // Those go one by one through translate()'s path (its error, replacement or split).
    if (text.size() > impl.options.max_line_bytes || find_invalid_utf8(text) != std::string_view::npos ||
        is_blank(text))
      continue;
    st = encode_for_copy(*impl.model, text, impl.options.copy_through, &impl.glossary, &item.ids, &item.pieces,
                         &item.plan, max_span_pieces(impl));
    if (!st.ok()) {
      item = BatchCall::Item();  // through translate()'s path, which reports the error
      continue;
    }
    item.direct = item.ids.size() <= static_cast<std::size_t>(impl.S);
  }
  return Status::Ok();
}

void TranslatorAccess::translate_run(Translator& tr, const BatchCall& call, const std::vector<std::string>& texts,
                                     const std::size_t* sentences, std::size_t n,
                                     std::vector<TranslationResult>* results, std::vector<Status>* status) {
  if (call.stop->stopped()) {
    for (std::size_t k = 0; k < n; ++k) (*status)[sentences[k]] = call.stop->status();
    return;
  }
  if (!call.items[sentences[0]].direct) {
    TextCall text_call{*call.stop, nullptr};
    (*status)[sentences[0]] =
        guarded([&] { return translate_text(*tr.impl_, texts[sentences[0]], call.search, text_call, &(*results)[sentences[0]]); });
    return;
  }
  std::vector<const int32_t*> srcs(n);
  std::vector<std::size_t> lens(n);
  std::vector<NBestView> views(n);
  for (std::size_t k = 0; k < n; ++k) {
    srcs[k] = call.items[sentences[k]].ids.data();
    lens[k] = call.items[sentences[k]].ids.size();
  }
  Status st = guarded([&] {
    return tr.impl_->translate_ids_batch(srcs.data(), lens.data(), static_cast<int>(n), call.resolved, views.data());
  });
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = sentences[k];
    const BatchCall::Item& item = call.items[i];
    (*status)[i] = st.ok() ? fill_result(tr.model(), texts[i], tr.options().repair_placeholders, item.ids,
                                         item.pieces, views[k], call.search, item.plan, &(*results)[i])
                           : st;
  }
}

}  // namespace internal

}  // namespace softalign
