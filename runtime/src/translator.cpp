// The public Translator: text in and out around the allocation-free core.
#include "softalign/translator.hpp"

#include <algorithm>
#include <numeric>

#include "text.hpp"
#include "translator_impl.hpp"

namespace softalign {

Translator::Translator(std::unique_ptr<internal::TranslatorImpl> impl) : impl_(std::move(impl)) {}
Translator::~Translator() = default;

Status Translator::prepare(std::shared_ptr<const Model> model, const TranslatorOptions& options,
                           std::unique_ptr<Translator>* out) {
  if (model == nullptr || out == nullptr) return Status(StatusCode::kInvalidArgument, "model or out is null");
  auto impl = std::make_unique<internal::TranslatorImpl>();
  Status st = impl->prepare(std::move(model), options);
  if (!st.ok()) return st;
  out->reset(new Translator(std::move(impl)));
  return st;
}

std::size_t Translator::arena_bytes() const { return impl_->arena.capacity(); }
const TranslatorOptions& Translator::options() const { return impl_->options; }
const Model& Translator::model() const { return *impl_->model; }
int Translator::max_source_tokens() const { return impl_->S; }
int Translator::max_target_tokens() const { return impl_->T; }
const char* Translator::kernels_name() const { return impl_->k->name; }

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
  return s;
}

}  // namespace

Status Translator::translate_ids(Span<const int32_t> source, NBestView* out) {
  return translate_ids(source, impl_->options.search, out);
}

Status Translator::translate_ids(Span<const int32_t> source, const SearchOptions& search, NBestView* out) {
  internal::Search s;
  Status st = impl_->resolve(merge(search, impl_->options.search), &s);
  if (!st.ok()) return st;
  return impl_->translate_ids(source.data(), source.size(), s, out);
}

Status Translator::force_decode(Span<const int32_t> source, Span<const int32_t> target_in, float* logits,
                                float* attention) {
  return impl_->force_decode(source.data(), source.size(), target_in.data(), target_in.size(), logits, attention);
}

namespace {

// Translates one source already tokenised; fills `out` from the core's views.
Status translate_tokens(Translator& tr, const std::vector<int32_t>& ids, const std::vector<std::string>& pieces,
                        const SearchOptions& search, TranslationResult* out) {
  out->source_ids = ids;
  out->source_pieces = pieces;
  out->hypotheses.clear();
  NBestView nb;
  Status st = tr.translate_ids(Span<const int32_t>(ids.data(), ids.size()), search, &nb);
  if (!st.ok()) return st;
  const Model& model = tr.model();
  const bool want_att = search.return_attention || search.return_alignment;
  const std::vector<int> src_words = search.return_alignment ? internal::word_index(pieces) : std::vector<int>();
  for (std::size_t r = 0; r < nb.count; ++r) {
    const HypothesisView& v = nb.hypotheses[r];
    Hypothesis h;
    h.ids.assign(v.ids, v.ids + v.length);
    h.score = v.score;
    h.log_prob = v.log_prob;
    st = model.decode_target(v.ids, v.length, &h.text, &h.pieces);
    if (!st.ok()) return st;
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

Status empty_result(TranslationResult* out) {
  out->hypotheses.assign(1, Hypothesis());
  out->source_ids.clear();
  out->source_pieces.clear();
  return Status::Ok();
}

}  // namespace

Status Translator::translate(std::string_view text, TranslationResult* out) {
  return translate(text, impl_->options.search, out);
}

Status Translator::translate(std::string_view text, const SearchOptions& search_in, TranslationResult* out) {
  if (out == nullptr) return Status(StatusCode::kInvalidArgument, "out is null");
  const SearchOptions search = merge(search_in, impl_->options.search);
  std::string fixed;
  if (internal::find_invalid_utf8(text) != std::string_view::npos) {
    if (impl_->options.invalid_utf8 == InvalidUtf8Policy::kError)
      return Status(StatusCode::kInvalidUtf8, "the input is not valid UTF-8 (at byte " +
                                                  std::to_string(internal::find_invalid_utf8(text)) + ")");
    fixed = internal::replace_invalid_utf8(text);
    text = fixed;
  }
  if (internal::is_blank(text)) return empty_result(out);
  std::vector<int32_t> ids;
  std::vector<std::string> pieces;
  Status st = impl_->model->encode_source(text, &ids, &pieces);
  if (!st.ok()) return st;
  if (ids.size() <= static_cast<std::size_t>(impl_->S) ||
      impl_->options.long_input == LongInputPolicy::kError)
    return translate_tokens(*this, ids, pieces, search, out);

  // Too long: translate sentence by sentence and join the best translations
  // (one hypothesis; no attention or alignment across the parts).
  const std::vector<std::string> parts = internal::split_sentences(text);
  if (parts.size() < 2)
    return Status(StatusCode::kInputTooLong, "the input has " + std::to_string(ids.size()) +
                                                 " tokens, more than max_source_tokens " + std::to_string(impl_->S) +
                                                 ", and no sentence boundary to split at");
  SearchOptions one = search;
  one.nbest = 1;
  one.return_attention = false;
  one.return_alignment = false;
  Hypothesis joined;
  for (const std::string& part : parts) {
    TranslationResult r;
    st = translate(part, one, &r);
    if (!st.ok()) return st;
    const Hypothesis& h = r.hypotheses.at(0);
    if (!joined.text.empty() && !h.text.empty()) joined.text += ' ';
    joined.text += h.text;
    joined.pieces.insert(joined.pieces.end(), h.pieces.begin(), h.pieces.end());
    joined.ids.insert(joined.ids.end(), h.ids.begin(), h.ids.end());
    joined.score += h.score;
    joined.log_prob += h.log_prob;
  }
  out->source_ids = ids;
  out->source_pieces = pieces;
  out->hypotheses.assign(1, std::move(joined));
  return Status::Ok();
}

Status Translator::translate_batch(const std::vector<std::string>& texts, std::vector<TranslationResult>* out) {
  return translate_batch(texts, impl_->options.search, out);
}

Status Translator::translate_batch(const std::vector<std::string>& texts, const SearchOptions& search_in,
                                   std::vector<TranslationResult>* out) {
  if (out == nullptr) return Status(StatusCode::kInvalidArgument, "out is null");
  const SearchOptions search = merge(search_in, impl_->options.search);
  // Tokenise everything, then translate in order of source length. Each
  // sentence is translated on its own, so its result never depends on the
  // batch; the order is where batched kernels will gain.
  struct Item {
    std::vector<int32_t> ids;
    std::vector<std::string> pieces;
    bool direct = false;  // tokenised and within the limit
  };
  std::vector<Item> items(texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const std::string& text = texts[i];
    if (internal::find_invalid_utf8(text) != std::string_view::npos || internal::is_blank(text)) continue;
    Status st = impl_->model->encode_source(text, &items[i].ids, &items[i].pieces);
    if (!st.ok()) return Status(st.code(), "sentence " + std::to_string(i) + ": " + st.message());
    items[i].direct = items[i].ids.size() <= static_cast<std::size_t>(impl_->S);
  }
  std::vector<std::size_t> order(texts.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return items[a].ids.size() < items[b].ids.size(); });
  std::vector<TranslationResult> results(texts.size());
  for (std::size_t i : order) {
    // Invalid UTF-8, blank and over-long inputs take translate()'s path (error, replacement, split).
    Status st = items[i].direct ? translate_tokens(*this, items[i].ids, items[i].pieces, search, &results[i])
                                : translate(texts[i], search, &results[i]);
    if (!st.ok()) return Status(st.code(), "sentence " + std::to_string(i) + ": " + st.message());
  }
  *out = std::move(results);
  return Status::Ok();
}

}  // namespace softalign
