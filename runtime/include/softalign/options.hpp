// softalign — options of a Translator (fixed at prepare) and of a search
// (may change per call within the prepared limits).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <vector>

#include "softalign/config.hpp"
#include "softalign/export.h"
#include "softalign/glossary.hpp"

#include "softalign/span.hpp"
#include "softalign/status.hpp"

namespace softalign {

// Options of one search. Unset fields take the model's decoding defaults.
struct SearchOptions {
  std::optional<int> beam_size;    // K >= 1; 1 is greedy. Per call: <= the prepared beam size
  std::optional<int> nbest;        // 1 <= nbest <= beam_size
  std::optional<float> alpha;      // GNMT length penalty exponent (>= 0)
  std::optional<float> beta;       // coverage penalty weight (>= 0)
  std::optional<float> max_len_a;  // max target length T = floor(a * S + b), EOS included
  std::optional<float> max_len_b;  // per call: T may not exceed the prepared maximum
  // Repetition blocking (0 = off, up to ConfigLimits::kMaxBlockRepeats): a
  // candidate piece is refused when it would end a group of n <= block_repeats
  // pieces, starting a word, equal to the n pieces right before it — a word
  // or words repeated back to back ("gratuit gratuit", "de la de la"). The
  // search then takes the next best candidates. Every backend.
  std::optional<int> block_repeats;
  // Whose beam search (models/WEIGHTS_FORMAT.md "Beam rules"): softalign's,
  // or OpenNMT-py's or JoeyNMT's, which a model imported from them carries
  // as its default (so that it translates as it did there). The toolkits'
  // rules return one hypothesis and take no coverage penalty, repetition
  // blocking or target prefix (kInvalidArgument).
  std::optional<BeamRules> beam_rules;
  bool return_attention = false;   // fill Hypothesis::attention (soft alignment)
  bool return_alignment = false;   // fill the hard alignments (implies attention internally)
  // Compute the output layer over the model's vocabulary shortlist only (when
  // the model has one). Unset: TranslatorOptions::use_shortlist. true on a
  // translator prepared with use_shortlist = false is an error.
  std::optional<bool> use_shortlist;
  // A forced target prefix (interactive completion), for one call: every
  // hypothesis starts with these target pieces, forced through the decoder
  // one step each, and the search (greedy or beam, n-best) continues after
  // them. The prefix's log-probabilities count in log_prob and score like any
  // other piece's, its pieces are part of the result's ids, text and
  // attention rows, and the length penalty counts them. It must be shorter
  // than the source's max target length (max_len_a/b, EOS included), else
  // kInvalidArgument; so is a text prefix with a character the target
  // vocabulary lacks (it would be <unk>, which copy-through replaces; the
  // message names the characters). A call with a prefix decodes over the
  // whole vocabulary (no shortlist). Either field, not both; empty: no
  // prefix. translate() does not split a long source that has a prefix
  // (kInputTooLong), and an empty source still gives one empty hypothesis.
  std::string target_prefix;  // text, tokenised with the target SentencePiece model (translate, translate_batch)
  Span<const int32_t> target_prefix_ids;  // target ids, no BOS/EOS, read during the call (every call)
  // A deadline, in milliseconds from the call's start (0: none; unset: the
  // prepared one, none by default): a call still running then stops and
  // returns kDeadlineExceeded, with no result (translate_batch: the sentences
  // not finished by then get it as their status, the others their results).
  // Checked before every decoder step, between the parts of a long text and
  // between a batch's runs (and its texts while they are tokenised), so a
  // call returns within about one step (a few ms) of it. Every call.
  std::optional<int> timeout_ms;
};

// Streaming: what a stream callback (Translator::translate's, translate_ids')
// is told as a call goes on, on the calling thread. The views are valid
// during the callback only.
struct StreamEvent {
  enum class Kind {
    // Greedy search (beam 1) only: the piece a step kept for the sentence
    // `index` (EOS excepted; a forced prefix's pieces included). The pieces
    // of a sentence, in order, are its best hypothesis's `pieces`.
    kPiece,
    // A sentence is done: `text` is its best hypothesis's text. translate()
    // translates a text that fits max_source_tokens as one sentence, and a
    // longer one split (LongInputPolicy::kSplit) part by part, one event
    // each; the result's text is their texts joined by a space (empty ones
    // skipped). The ids calls give none.
    kSentence,
  };
  Kind kind = Kind::kPiece;
  std::size_t index = 0;   // the sentence, from 0
  int32_t id = -1;         // kPiece: the target id
  std::string_view piece;  // kPiece: its SentencePiece piece ("▁fichier")
  std::string_view text;   // kSentence: its translation
};
// What the callback answers: go on, or stop the call (it then returns
// kCancelled, "cancelled: stream callback", with no result).
enum class StreamAction { kContinue, kStop };
using StreamCallback = std::function<StreamAction(const StreamEvent&)>;

enum class Backend { kAuto, kCpu, kVulkan };
// "auto", "cpu", "vulkan" (the CLI's --device and the C API's device).
SOFTALIGN_API const char* backend_name(Backend b);
// The backend of that name; false for any other name.
SOFTALIGN_API bool backend_from_name(std::string_view name, Backend* out);
// What translate() does with a source longer than max_source_tokens: fail
// with kInputTooLong, or split it — at sentence ends, else at clause
// punctuation (; : ,), else in halves at the space nearest the middle (else
// between characters) — translate the parts and join their best
// translations (one hypothesis, no attention across the parts).
enum class LongInputPolicy { kError, kSplit };
// What translate() does with text that is not valid UTF-8.
enum class InvalidUtf8Policy { kError, kReplace /* each bad byte becomes U+FFFD */ };

struct TranslatorOptions {
  // Longest source translated in one piece, in pieces, EOS included. 0 = the
  // model's S_max. It is a planning limit: up to ConfigLimits::kMaxSourceLength
  // for every model but those with the location score (whose weights have
  // S_max rows); the arena grows with it (the search history holds an
  // attention row of this length per kept candidate and step), and a model
  // translates sources longer than it was trained on less well.
  int max_source_tokens = 0;
  // The search: beam_size and max_len_a/b here also fix the arena's size.
  SearchOptions search;
  LongInputPolicy long_input = LongInputPolicy::kSplit;
  InvalidUtf8Policy invalid_utf8 = InvalidUtf8Policy::kError;
  // Copy names and identifiers through: after the search, each protected span
  // of the source (a URL, an e-mail address, a path, a version, an
  // identifier such as dh_installcligac, wasy10 or GtkWidget, code in
  // backquotes) that the output lacks replaces the target words the attention
  // aligns to it that look like a copy of it (or, when none does, is inserted
  // after the translation of the source piece before it); each <unk> the
  // model emits becomes the source word it aligns to (Luong et al. 2015's
  // unknown-word replacement). Only Hypothesis::text changes (its pieces,
  // ids and alignments stay the model's); the spans are in
  // TranslationResult::protected_spans. On by default: on the DDTP dev sets
  // it raises BLEU and copies every span (models/*/MODEL_CARD.md).
  bool copy_through = true;
  // Keep placeholders: every printf, Python or Qt format (%s, %1$d,
  // %(name)s, %1), brace ({0}, {count}), markup tag (<b>, </a>, <br/>) and
  // entity (&amp;) of the source comes out exactly once in each hypothesis's
  // text, no other, and the tags the source pairs stay nested and ordered as
  // there. With copy_through, a missing one is first put where the attention
  // places it; what is still wrong is then repaired by the rule in
  // runtime/src/repair_placeholders.hpp. Hypothesis::placeholders_repaired
  // says whether the model's own text had to change for it (it is set with
  // this off too: then the text is left as it is).
  bool repair_placeholders = true;
  // Terms that must come out as given (softalign/glossary.hpp: how they
  // match, where the target term goes; check_glossary: what is taken): each
  // occurrence of a source term in a text gives its target term once in
  // every hypothesis's text. Text calls only; only the text changes (pieces,
  // ids and alignments stay the model's). TranslationResult::glossary_matches
  // lists the occurrences.
  std::vector<GlossaryTerm> glossary;
  // Sentences translate_batch decodes together (their rows in one product per
  // step, each weight read once for all of them); the arena grows with it.
  static constexpr int kMaxBatch = 1024;
  // Models of an ensemble (Translator::prepare with several models).
  static constexpr int kMaxEnsemble = 32;
  int max_batch = 1;
  // max_batch stays 1 unless set: its arena grows with it (batch 32: 14-25
  // MB more peak RSS, docs/measurements.md) and an app that translates one
  // text at a time gains nothing. A caller made to translate lists and given
  // no batch by its user (the CLI's --batch, the Python Translator) hands
  // translate_batch kListBatch texts at a time, and prepares each of its
  // `threads` replicas for its share of them: list_max_batch.
  static constexpr int kListBatch = 16;
  static constexpr int list_max_batch(std::size_t texts, int threads) {
    const std::size_t n = threads > 1 ? static_cast<std::size_t>(threads) : 1;
    const std::size_t share = (texts + n - 1) / n;
    return static_cast<int>(share < 1 ? 1 : share > static_cast<std::size_t>(kMaxBatch) ? kMaxBatch : share);
  }
  // Threads for the intra-sentence work (XNNPACK's thread pool); 1 = the calling thread only.
  static constexpr int kMaxThreads = 256;
  int threads = 1;
  // Where the numbers are computed. kAuto: a Vulkan GPU (integrated or
  // discrete) for a translator of batches (max_batch >= 8) when this build
  // has the Vulkan backend, one is present, its initialisation succeeds and
  // it runs the model; else the CPU (docs/vulkan.md: the rule and why).
  // Translator::backend_info() says which and why. kVulkan: any Vulkan device
  // (a CPU one such as lavapipe too), else prepare fails (kUnsupported, or
  // kResourceExhausted without enough device memory). kCpu: the CPU.
  // The default is the CPU: at batch 1 a GPU gains little. kAuto loads the
  // system's Vulkan drivers only where a GPU device node exists.
  Backend backend = Backend::kCpu;
  // Use the model's vocabulary shortlist (if the file has one) unless a call
  // says otherwise: the output layer, log-softmax and top-k then cover only
  // the sentence's likely target pieces (faster; results may differ slightly).
  // The arena then holds room for the output layer's rows (its size in the
  // file); false reserves nothing for it.
  bool use_shortlist = true;
  // The most memory prepare may reserve for this translator's working
  // buffers (its arena, times `threads` for translate_batch's workers). A
  // larger plan (long sources x wide beams x long targets) fails with
  // kResourceExhausted instead of reserving memory the device may not have.
  std::size_t max_arena_bytes = std::size_t{256} << 20;
  // The longest text one translate() call (or one sentence of
  // translate_batch) takes, in bytes; a longer one fails with kInputTooLong
  // before it is tokenised. Working memory for text grows with the line
  // (its pieces and their offsets: about 60 bytes per byte of English), so
  // this bounds it; the default, 1 MiB, is a few hundred pages of prose.
  // Time is linear in the line's length whatever its script.
  std::size_t max_line_bytes = std::size_t{1} << 20;
  // Kernel set: "" = the best for this CPU (or $SOFTALIGN_KERNELS), "ref" = reference kernels.
  std::string kernels;
};

// The options as JSON, one object: each key an option's name ("beam",
// "max_len_a", "threads", "device", "timeout_ms", ...: the names of the C API's
// softalign_translator_options and of Python's Translator), each value of its
// type; null for a search option leaves it to the model. Sets what `json`
// names in *out and leaves the rest; an unknown name, a value of the wrong
// type or not valid JSON is kInvalidArgument naming it (ranges that depend on
// the model are Translator::prepare's to check). docs/api.md lists the names.
SOFTALIGN_API Status parse_options_json(std::string_view json, TranslatorOptions* out);
// Every option of `options` as one JSON object (the same names);
// options_json(TranslatorOptions()) gives the defaults.
SOFTALIGN_API std::string options_json(const TranslatorOptions& options);

}  // namespace softalign
