/* softalign C API: translate offline with an attention RNN model file.
 *
 * Compiles as C99 and as C++. Handles are opaque. No C++ exception ever
 * crosses this interface: every fallible call returns a softalign_status and,
 * on failure, leaves a one-line message in softalign_last_error(). NULL
 * arguments are errors, never crashes: fallible calls return
 * SOFTALIGN_INVALID_ARGUMENT, accessors return NULL or 0, *_free does nothing.
 *
 * Ownership, in one place:
 *   - Handles (softalign_model, softalign_translator, softalign_result) are
 *     made by the library and freed by the caller with the matching *_free
 *     function. Every *_free accepts NULL.
 *   - A translator holds a reference to its model: the model handle may be
 *     freed before the translator (the model's memory then lives on until the
 *     last translator made from it is freed). A result needs neither the
 *     model nor the translator: it owns its data.
 *   - Strings and arrays returned by accessors (const char*, const int32_t*,
 *     const float*) belong to the handle they came from and stay valid until
 *     that handle is freed. Never free or modify them.
 *   - Input buffers (paths, texts, ids, model bytes, option strings) are only
 *     read during the call; the library copies what it keeps. The one
 *     exception is softalign_model_load_memory, which uses the caller's bytes
 *     in place.
 *   - Arrays the caller passes to receive output (the results of
 *     softalign_translate_batch and softalign_translate_batch_status, its
 *     statuses, the ids of softalign_model_encode) are caller-owned.
 *   - softalign_last_error() returns a per-thread buffer owned by the library,
 *     valid until the next failing call on the same thread.
 *
 * Threads: a model is immutable and may be shared by any number of threads;
 * a translator is used by one thread at a time (make one per thread), except
 * for softalign_translator_cancel, which any thread may call.
 *
 * Allocation: translation allocates for tokenisation (SentencePiece) and for
 * the result it returns; the numeric core does not (see softalign.hpp).
 *
 * Minimal use (error checks shortened):
 *   softalign_model* m = NULL;
 *   if (softalign_model_load("en-fr.int8.softalign", &m) != SOFTALIGN_OK)
 *     fprintf(stderr, "%s\n", softalign_last_error());
 *   softalign_translator_options o;
 *   softalign_translator_options_default(&o);
 *   o.beam = 4;
 *   softalign_translator* t = NULL;
 *   softalign_translator_create(m, &o, &t);
 *   softalign_result* r = NULL;
 *   if (softalign_translate(t, "Hello world.", &r) == SOFTALIGN_OK)
 *     puts(softalign_result_text(r, 0));
 *   softalign_result_free(r);
 *   softalign_translator_free(t);
 *   softalign_model_free(m);
 */
#ifndef SOFTALIGN_H
#define SOFTALIGN_H

#include <stddef.h>
#include <stdint.h>

#include "softalign/export.h" /* SOFTALIGN_API */

#ifdef __cplusplus
extern "C" {
#endif

/* Result of every fallible call. The values equal softalign::StatusCode's.
   In C++ the type is fixed at int32_t: then every int a C caller may pass
   (softalign_status_name((softalign_status)-5)) is a value of the type, and
   the library reading it is not undefined behaviour. */
typedef enum softalign_status
#ifdef __cplusplus
    : int32_t
#endif
{
  SOFTALIGN_OK = 0,
  SOFTALIGN_INVALID_ARGUMENT = 1,    /* NULL pointer, bad option value, id out of range */
  SOFTALIGN_NOT_FOUND = 2,           /* a file that does not exist */
  SOFTALIGN_IO_ERROR = 3,            /* a file that cannot be opened, read or mapped */
  SOFTALIGN_INVALID_MODEL = 4,       /* not a valid softalign model (corrupt, truncated, ...) */
  SOFTALIGN_UNSUPPORTED_VERSION = 5, /* a model made by a newer converter */
  SOFTALIGN_INPUT_TOO_LONG = 6,      /* a source longer than the translator's max_source_tokens */
  SOFTALIGN_INVALID_UTF8 = 7,        /* text that is not valid UTF-8 */
  SOFTALIGN_UNSUPPORTED = 8,         /* a feature this build or machine does not have */
  SOFTALIGN_INTERNAL = 9,            /* a bug: please report it */
  SOFTALIGN_RESOURCE_EXHAUSTED = 10, /* out of memory, or a translator larger than max_arena_bytes */
  SOFTALIGN_OUT_OF_MEMORY = SOFTALIGN_RESOURCE_EXHAUSTED, /* the older name of the same code */
  SOFTALIGN_CANCELLED = 11,          /* stopped by softalign_translator_cancel or a stream callback */
  SOFTALIGN_DEADLINE_EXCEEDED = 12   /* the call ran past its deadline (the timeout_ms option) */
} softalign_status;

typedef struct softalign_model softalign_model;
typedef struct softalign_translator softalign_translator;
typedef struct softalign_result softalign_result;

/* Library version, e.g. "0.1.0". Static storage. */
SOFTALIGN_API const char* softalign_version(void);

/* Message of the last failed call on this thread ("" if none yet). */
SOFTALIGN_API const char* softalign_last_error(void);

/* Name of a status code, e.g. "invalid_model"; "unknown" for any other value. Static storage. */
SOFTALIGN_API const char* softalign_status_name(softalign_status status);

/* ---- Model ---------------------------------------------------------------- */

/* Loads a .softalign file (memory-mapped, verified). On success *out is a new
 * model to free with softalign_model_free; on failure *out is NULL. */
SOFTALIGN_API softalign_status softalign_model_load(const char* path, softalign_model** out);

/* Loads a .softalign file by reading it whole into memory the model owns
 * (verified): the file may then be rewritten or removed at any time, for the
 * file's size in memory. softalign_model_load maps the file instead, which
 * needs it unchanged while the model lives: replace a file by writing a new
 * one and renaming it over the old, never by rewriting it in place. */
SOFTALIGN_API softalign_status softalign_model_load_copy(const char* path, softalign_model** out);

/* Loads a model from bytes in memory. The bytes are copied: the caller may
 * free them as soon as this returns. */
SOFTALIGN_API softalign_status softalign_model_load_bytes(const void* data, size_t size,
                                                          softalign_model** out);

/* Loads a model from bytes used in place (zero copy), e.g. a model linked
 * into the program or mapped by the app. The caller keeps the bytes alive and
 * unchanged until the model and every translator made from it are freed;
 * data must be aligned to 32 bytes. */
SOFTALIGN_API softalign_status softalign_model_load_memory(const void* data, size_t size,
                                                           softalign_model** out);

SOFTALIGN_API void softalign_model_free(softalign_model* model);

/* What a model file says about itself. The strings belong to the model. */
typedef struct softalign_model_info {
  size_t struct_size; /* the caller sets sizeof(softalign_model_info) */
  const char* name;
  const char* src_lang;
  const char* tgt_lang;
  const char* variant;     /* "encdec", "bahdanau", "luong" */
  const char* score;       /* "none", "dot", "general", "concat", "location" */
  const char* scope;       /* "global", "local-m", "local-p" */
  const char* weight_type; /* storage of the weight matrices: "f32", "f16", "i8" */
  int32_t window_d;
  int32_t input_feeding; /* 0 or 1 */
  int32_t enc_layers;
  int32_t dec_layers;
  int32_t emb_size;
  int32_t enc_hidden;
  int32_t dec_hidden;
  int32_t att_hidden;
  int32_t maxout_size;
  int32_t src_vocab;
  int32_t tgt_vocab;
  int32_t shared_vocab; /* 0 or 1 */
  int32_t pad_id, unk_id, bos_id, eos_id;
  int32_t max_src_len; /* S_max, in pieces, EOS included */
  /* Decoding defaults stored in the file. */
  int32_t default_beam;
  int32_t default_nbest;
  float default_alpha;
  float default_beta;
  float default_max_len_a;
  float default_max_len_b;
  int32_t schema_version;
  uint64_t file_bytes;
  /* 1 when the file carries a confidence calibration (softalign-convert
   * --confidence; softalign_result_confidence), else 0. */
  int32_t confidence_calibrated;
  /* 1 when text in and out is tokens separated by spaces (a model imported with
   * softalign-import --pretokenized: models/WEIGHTS_FORMAT.md `pretokenized`),
   * else 0. */
  int32_t pretokenized;
} softalign_model_info;

/* Fills *info. The caller sets info->struct_size first; fields beyond it are
 * not written, so a program built with an older header keeps working. A size
 * that ends inside a field is SOFTALIGN_INVALID_ARGUMENT (nothing written). */
SOFTALIGN_API softalign_status softalign_model_get_info(const softalign_model* model,
                                                        softalign_model_info* info);

/* Free-form metadata (corpus, metrics, converter version, ...): the number of
 * entries, and entry i's key and value (NUL-terminated, owned by the model). */
SOFTALIGN_API size_t softalign_model_metadata_count(const softalign_model* model);
SOFTALIGN_API softalign_status softalign_model_metadata_at(const softalign_model* model, size_t i,
                                                           const char** key, const char** value);

/* Tokenises text with the model's source SentencePiece model: writes up to
 * capacity ids (the pieces, then EOS) to the caller's ids array and their
 * total number to *count. If capacity is too small, nothing is written beyond
 * it, *count still tells the size needed and SOFTALIGN_INVALID_ARGUMENT is
 * returned (call with ids = NULL, capacity = 0 to ask for the size). */
SOFTALIGN_API softalign_status softalign_model_encode(const softalign_model* model, const char* text,
                                                      int32_t* ids, size_t capacity, size_t* count);

/* ---- Translator ----------------------------------------------------------- */

/* Options of a translator, fixed when it is created. Initialise them with
 * softalign_translator_options_default() and change what you need; fields
 * left at their default take the model's decoding defaults. struct_size lets
 * the struct grow: a library newer than the caller's header uses defaults for
 * the fields the caller does not know. New fields are only ever added at the
 * end. The rule of every struct with a struct_size (this one and
 * softalign_model_info): the size covers whole fields; one that ends inside a
 * field is SOFTALIGN_INVALID_ARGUMENT. */
typedef struct softalign_translator_options {
  size_t struct_size;        /* set by softalign_translator_options_init */
  int32_t max_source_tokens; /* longest source in pieces, EOS included; 0: the model's S_max */
  int32_t beam;              /* beam size >= 1 (1 is greedy); 0: the model's default */
  int32_t nbest;             /* hypotheses returned, 1..beam; 0: the model's default */
  float alpha;               /* length penalty exponent >= 0; negative: the model's default
                                (NaN, like any value out of range: SOFTALIGN_INVALID_ARGUMENT) */
  float beta;                /* coverage penalty weight >= 0; negative: the model's default */
  float max_len_a;           /* max target length floor(a * S + b); negative: the model's default */
  float max_len_b;           /* negative: the model's default */
  int32_t alignment;         /* nonzero: results carry soft and hard alignments */
  int32_t threads;           /* threads for one translation, >= 1 */
  int32_t split_long_input;  /* nonzero (the default): split sources longer than
                                max_source_tokens (at sentence ends, else clause punctuation,
                                else in halves) and join the parts' translations;
                                0: fail with SOFTALIGN_INPUT_TOO_LONG */
  int32_t replace_invalid_utf8; /* nonzero: replace invalid text by U+FFFD instead of failing with
                                SOFTALIGN_INVALID_UTF8: one U+FFFD for each invalid byte, each
                                encoded surrogate (ED A0..BF 80..BF) and each C0 80 (docs/guarantees.md) */
  const char* kernels;       /* NULL: the best for this CPU; "ref": the reference kernels */
  int32_t use_shortlist;     /* nonzero (the default): for a model converted with a vocabulary
                                shortlist, compute the output layer over each sentence's likely
                                target pieces only (faster; results may differ slightly);
                                0: the whole vocabulary (nothing is reserved for the shortlist).
                                No effect on a model without a shortlist. */
  uint64_t max_arena_bytes;  /* the most memory the translator's working buffers may take
                                (times threads); a larger plan fails with
                                SOFTALIGN_RESOURCE_EXHAUSTED. 0: the default, 256 MiB */
  const char* device;        /* where to compute: NULL or "cpu" (the default), "auto" (a Vulkan
                                GPU if there is one that runs the model, else the CPU; a C
                                translator decodes one sentence at a time, for which auto's
                                rule takes the CPU: docs/vulkan.md), or
                                "vulkan" (any Vulkan device, a CPU one such as lavapipe too; an
                                error without one). softalign_translator_backend says which. */
  int32_t copy_through;      /* nonzero (the default): names and identifiers (URLs, e-mail addresses,
                                paths, versions, identifiers such as dh_foo or wasy10, code in
                                backquotes) come out unchanged, placed by the attention, and each
                                <unk> the model emits becomes the source word it aligns to
                                (the text only; pieces, ids and alignments stay the model's);
                                0: the text as the model gives it */
  uint64_t max_line_bytes;   /* the longest text one translation takes, in bytes; a longer one fails
                                with SOFTALIGN_INPUT_TOO_LONG before it is tokenised (this bounds the
                                working memory for text). 0: the default, 1 MiB */
  int32_t block_repeats;     /* refuse a word or words of up to this many target pieces repeated back
                                to back ("gratuit gratuit"), 0..8, 0: off; negative (the default):
                                the model's. Every backend */
  int32_t repair_placeholders; /* nonzero (the default): every placeholder of the source (printf,
                                Python and Qt formats such as %s, %1$d, %(name)s, %1; braces such as
                                {0}, {count}; markup tags and entities) comes out exactly once, no
                                other, with the source's tag pairs nested as there;
                                softalign_result_placeholders_repaired says when the model's own text
                                had to change for it. 0: the text is left as it is (the flag is
                                still set) */
  const char* glossary_tsv;  /* NULL (the default): no glossary; else terms that must come out as
                                given, as TSV text: "source<TAB>target" lines, '#' lines and blank
                                ones skipped (softalign/glossary.hpp: how terms match and where the
                                target goes). A bad line fails softalign_translator_create with
                                SOFTALIGN_INVALID_ARGUMENT naming it. Read during the call only. */
  int32_t timeout_ms;        /* each call's deadline, in milliseconds from its start: a call still
                                running then fails with SOFTALIGN_DEADLINE_EXCEEDED (a batch: the texts
                                not finished by then). 0 (the default): none */
  const char* beam_rules;    /* whose beam search: NULL (the default): the model's (an imported
                                model's is its toolkit's); "softalign", "opennmt" or "joeynmt"
                                (models/WEIGHTS_FORMAT.md "Beam rules": the toolkits' return one
                                hypothesis and take no coverage penalty or repetition blocking) */
} softalign_translator_options;

/* Sets every field to its default; struct_size is the size the caller's
 * struct has (use softalign_translator_options_default, which passes it). */
SOFTALIGN_API void softalign_translator_options_init(softalign_translator_options* options,
                                                     size_t struct_size);

static inline void softalign_translator_options_default(softalign_translator_options* options) {
  softalign_translator_options_init(options, sizeof(*options));
}

/* Makes a translator (plans and reserves its working memory). options may be
 * NULL (all defaults). On success *out is a new translator to free with
 * softalign_translator_free; on failure *out is NULL. */
SOFTALIGN_API softalign_status softalign_translator_create(const softalign_model* model,
                                                           const softalign_translator_options* options,
                                                           softalign_translator** out);

/* An ensemble of count >= 1 models: each step scores the mean of the
 * members' log-probabilities (their attention: the mean of their rows). The
 * models must share both vocabularies (the same sizes, special ids and
 * SentencePiece models; else SOFTALIGN_INVALID_ARGUMENT); their variants and
 * weight types may differ. The first model gives the decoding defaults, the
 * tokenizers and the vocabulary shortlist. models is read during the call
 * only; the translator holds a reference to each model. */
SOFTALIGN_API softalign_status softalign_translator_create_ensemble(const softalign_model* const* models,
                                                                    size_t count,
                                                                    const softalign_translator_options* options,
                                                                    softalign_translator** out);

SOFTALIGN_API void softalign_translator_free(softalign_translator* translator);

/* Bytes of working memory the translator reserved when it was made. */
SOFTALIGN_API size_t softalign_translator_arena_bytes(const softalign_translator* translator);

/* The backend the translator computes on: "cpu" or "vulkan" (NULL for a NULL
 * translator). Static storage. */
SOFTALIGN_API const char* softalign_translator_backend(const softalign_translator* translator);
/* Why that backend, e.g. "backend=auto: no Vulkan driver (...)"; with Vulkan,
 * the device too. Belongs to the translator. */
SOFTALIGN_API const char* softalign_translator_backend_reason(const softalign_translator* translator);

/* Stops the calls of this translator running when it is called: they return
 * SOFTALIGN_CANCELLED (a batch: each text not finished by then), within about
 * one decoder step. A call that starts afterwards runs as usual: the
 * translator stays usable. Any thread may call it, at any time (while the
 * translator is alive); it allocates nothing. NULL does nothing. */
SOFTALIGN_API void softalign_translator_cancel(softalign_translator* translator);

/* The deadline of the calls that follow on this translator, in milliseconds
 * from each call's start (as the timeout_ms option, which it overrides): 0
 * for none, -1 to go back to the timeout_ms the translator was made with. A
 * per-call deadline is this before the call (as JDBC's setQueryTimeout). Call
 * it from the thread that uses the translator, between calls; it allocates
 * nothing. Below -1: SOFTALIGN_INVALID_ARGUMENT, nothing changed. */
SOFTALIGN_API softalign_status softalign_translator_set_timeout_ms(softalign_translator* translator,
                                                                   int32_t timeout_ms);

/* Translates one sentence (UTF-8, NUL-terminated). An empty text gives one
 * empty hypothesis. Text that is not UTF-8 (invalid bytes, an encoded
 * surrogate, C0 80) is SOFTALIGN_INVALID_UTF8, or replaced with
 * options.replace_invalid_utf8. On success *out is a new result to free with
 * softalign_result_free; on failure *out is NULL. */
SOFTALIGN_API softalign_status softalign_translate(softalign_translator* translator, const char* text,
                                                   softalign_result** out);

/* Interactive completion: translates text with every hypothesis forced to
 * begin with prefix (target text, tokenised with the model's target
 * SentencePiece model; "" is no prefix). The prefix's pieces are part of each
 * hypothesis (ids, text, alignment) and its log-probability counts in the
 * scores; the n-best hypotheses are its best continuations. A prefix as long
 * as the max target length (EOS included) or longer: SOFTALIGN_INVALID_ARGUMENT.
 * The whole vocabulary is used (no shortlist). */
SOFTALIGN_API softalign_status softalign_translate_prefix(softalign_translator* translator, const char* text,
                                                          const char* prefix, softalign_result** out);

/* Streaming: what softalign_translate_stream tells its callback. */
typedef enum softalign_stream_kind {
  /* Greedy search (beam 1) only: the piece a decoder step kept for sentence
     `index` (EOS excepted): id and text (the SentencePiece piece, "\u2581fichier").
     A sentence's pieces, in order, are its best hypothesis's pieces. */
  SOFTALIGN_STREAM_PIECE = 0,
  /* Sentence `index` is done: text is its translation. A text within
     max_source_tokens is one sentence; a longer one, split, gives one event
     per part, and the result's text is their texts joined by a space (empty
     ones skipped). */
  SOFTALIGN_STREAM_SENTENCE = 1
} softalign_stream_kind;

typedef struct softalign_stream_event {
  int32_t kind;     /* a softalign_stream_kind */
  int32_t id;       /* SOFTALIGN_STREAM_PIECE: the target id; else -1 */
  size_t index;     /* the sentence, from 0 */
  const char* text; /* the piece or the sentence's translation, NUL-terminated; valid during the callback */
} softalign_stream_event;

/* Called on the calling thread as the call goes on; returns 0 to go on,
 * nonzero to stop the call (it then returns SOFTALIGN_CANCELLED, "cancelled:
 * stream callback", with no result). */
typedef int (*softalign_stream_callback)(const softalign_stream_event* event, void* user_data);

/* softalign_translate, streaming: callback (NULL: none) is called with each
 * finished sentence and, with beam 1, each step's piece, before this
 * returns. user_data is passed to it as given. */
SOFTALIGN_API softalign_status softalign_translate_stream(softalign_translator* translator, const char* text,
                                                          softalign_stream_callback callback, void* user_data,
                                                          softalign_result** out);

/* Translates count sentences together. out is a caller-owned array of count
 * pointers that receives one new result per sentence, in input order (free
 * each). All or nothing: one sentence that fails (invalid text, too long, a
 * NULL text) fails the call, and on failure every out[i] is NULL. To have
 * each sentence fail alone, use softalign_translate_batch_status. */
SOFTALIGN_API softalign_status softalign_translate_batch(softalign_translator* translator,
                                                         const char* const* texts, size_t count,
                                                         softalign_result** out);

/* Translates count sentences together, each with its own status: a sentence
 * that fails (invalid text, too long, a NULL texts[i]) fails alone.
 * out and status are caller-owned arrays of count elements: status[i]
 * receives sentence i's softalign_status (as int32_t, a fixed size in every
 * compiler) and out[i] its new result (free each), or NULL when status[i] is
 * not SOFTALIGN_OK. Returns SOFTALIGN_OK when every sentence was translated,
 * else the status of the first that failed, with softalign_last_error()
 * naming it ("texts[I]: CODE: MESSAGE (F of N texts failed; ...)"); translate
 * one sentence alone (softalign_translate) for another's message. An error of
 * the call itself (a NULL translator, texts, out or status with count > 0)
 * gives every out[i] NULL and every status[i] that error. */
SOFTALIGN_API softalign_status softalign_translate_batch_status(softalign_translator* translator,
                                                                const char* const* texts, size_t count,
                                                                softalign_result** out, int32_t* status);

/* Translates source ids: the pieces followed by the model's eos_id (as
 * softalign_model_encode gives them). The result has text, pieces, ids,
 * scores and the soft and piece alignments; it has no source pieces and no
 * word alignment. */
SOFTALIGN_API softalign_status softalign_translate_ids(softalign_translator* translator,
                                                       const int32_t* ids, size_t count,
                                                       softalign_result** out);

/* softalign_translate_ids with a forced target prefix: prefix_count target
 * ids (no BOS/EOS; NULL when 0), as softalign_translate_prefix describes. */
SOFTALIGN_API softalign_status softalign_translate_ids_prefix(softalign_translator* translator,
                                                              const int32_t* ids, size_t count,
                                                              const int32_t* prefix, size_t prefix_count,
                                                              softalign_result** out);

/* ---- Options and results as JSON ------------------------------------------ */
/* The options are described once, in the library (runtime/src/api/option_table.cpp):
 * a JSON object whose keys are option names, the fields' names above ("beam",
 * "nbest", "alpha", "beta", "max_len_a", "max_len_b", "block_repeats",
 * "timeout_ms", "alignment", "max_source_tokens", "split_long_input", "replace_invalid_utf8",
 * "copy_through", "repair_placeholders", "glossary", "max_batch", "threads",
 * "device", "use_shortlist", "kernels", "max_arena_bytes", "max_line_bytes"),
 * each value of its type: an integer, a number, true/false, a string; null for
 * a search option (beam ... block_repeats) leaves it to the model (timeout_ms:
 * no deadline); "glossary"
 * is a list of [source, target] pairs or TSV text. An option left out takes
 * its default. The bindings (Python, Java, JavaScript) pass only what their
 * caller set. docs/api.md lists them. */

/* Every option and its default, as one JSON object (search options null: the
 * model's). Static storage; NULL only without memory. */
SOFTALIGN_API const char* softalign_option_defaults_json(void);

/* softalign_translator_create_ensemble with the options as JSON (NULL or "{}":
 * all defaults). An unknown name, a value of the wrong type or text that is
 * not JSON: SOFTALIGN_INVALID_ARGUMENT naming it. */
SOFTALIGN_API softalign_status softalign_translator_create_json(const softalign_model* const* models, size_t count,
                                                                const char* options_json,
                                                                softalign_translator** out);

/* The translator's options as prepared (the model's defaults filled in), as
 * the same JSON object. Belongs to the translator; NULL for NULL. */
SOFTALIGN_API const char* softalign_translator_options_json(const softalign_translator* translator);

/* ---- Result --------------------------------------------------------------- */
/* A result holds the n-best hypotheses of one sentence, best first: index 0
 * is the translation. Accessors return NULL or 0 for a NULL result or an
 * index out of range. */

SOFTALIGN_API void softalign_result_free(softalign_result* result);

/* Number of hypotheses (1..nbest). */
SOFTALIGN_API size_t softalign_result_count(const softalign_result* result);

/* The hypothesis's text (UTF-8, NUL-terminated). */
SOFTALIGN_API const char* softalign_result_text(const softalign_result* result, size_t hypothesis);

/* Target ids (no BOS, no EOS); *count (if not NULL) receives their number.
 * May return NULL when the count is 0. */
SOFTALIGN_API const int32_t* softalign_result_ids(const softalign_result* result, size_t hypothesis,
                                                  size_t* count);

/* Target piece k of a hypothesis, k < the number of ids. */
SOFTALIGN_API const char* softalign_result_piece(const softalign_result* result, size_t hypothesis,
                                                 size_t k);

/* The ranking score: log-probability / length penalty + coverage penalty. */
SOFTALIGN_API float softalign_result_score(const softalign_result* result, size_t hypothesis);

/* The summed log-probability of the hypothesis, EOS included. */
SOFTALIGN_API float softalign_result_log_prob(const softalign_result* result, size_t hypothesis);

/* 1 when the model's own text for the hypothesis lacked a placeholder of the
 * source, held one twice or another one, or nested the source's tags
 * otherwise (with repair_placeholders on, the text was repaired); else 0
 * (also for an out-of-range hypothesis). Text calls only. */
SOFTALIGN_API int softalign_result_placeholders_repaired(const softalign_result* result, size_t hypothesis);

/* How far to trust the hypothesis's text, in [0, 1]: with a calibrated model
 * file (softalign_model_info.confidence_calibrated) an estimate of its chrF /
 * 100 fitted on dev, else the geometric mean of its pieces' probabilities
 * (softalign/confidence.hpp). 0 for an out-of-range hypothesis. Text calls only. */
SOFTALIGN_API float softalign_result_confidence(const softalign_result* result, size_t hypothesis);

/* Source pieces (without EOS): their number, and piece k. */
SOFTALIGN_API size_t softalign_result_source_count(const softalign_result* result);
SOFTALIGN_API const char* softalign_result_source_piece(const softalign_result* result, size_t k);

/* With copy_through on, the source's protected spans (URLs, paths,
 * versions, identifiers, code in backquotes: copied through untranslated):
 * their number, and span k as byte offsets into the text translated (after
 * any invalid UTF-8 was replaced), [*begin, *end). The span accessor returns
 * 1, or 0 when k is out of range (*begin and *end are then left alone).
 * Text calls only (softalign_translate); none with copy_through off. */
SOFTALIGN_API size_t softalign_result_protected_count(const softalign_result* result);
SOFTALIGN_API int softalign_result_protected_span(const softalign_result* result, size_t k, size_t* begin,
                                                  size_t* end);

/* Soft alignment, present when the translator was made with alignment on:
 * a row-major *rows x *cols matrix of attention weights, one row per target
 * piece then the EOS row (no EOS row when the hypothesis was cut at the
 * maximum length), one column per source piece then the source EOS.
 * NULL (and 0, 0) when absent. */
SOFTALIGN_API const float* softalign_result_alignment(const softalign_result* result,
                                                      size_t hypothesis, size_t* rows, size_t* cols);

/* Hard alignment in Pharaoh format ("0-0 1-2 ...", source-target, 0-based):
 * over pieces (each target piece linked to its most attended source piece)
 * or over whitespace-separated words. NULL when absent. */
SOFTALIGN_API const char* softalign_result_pharaoh(const softalign_result* result, size_t hypothesis);
SOFTALIGN_API const char* softalign_result_pharaoh_words(const softalign_result* result,
                                                         size_t hypothesis);

/* The whole result as one line of JSON, the form of the CLI's --json lines
 * (keys in alphabetical order): {"glossary_matches": [[begin, end], ...],
 * "hypotheses": [{"confidence", "ids", "log_prob", "pieces",
 * "placeholders_repaired", "score", "text", and with alignment on
 * "alignment" (Pharaoh, pieces), "attention" (rows of weights) and
 * "word_alignment"}], "protected_spans": [...], "source_pieces": [...]}.
 * Written on the first call; belongs to the result. NULL for NULL (or
 * without memory). */
SOFTALIGN_API const char* softalign_result_json(const softalign_result* result);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SOFTALIGN_H */
