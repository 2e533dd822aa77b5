/* softalign C API: translate offline with an attention RNN model file.
 *
 * Compiles as C99 and as C++. Every function is safe to call with NULL
 * handles (it returns SOFTALIGN_INVALID_ARGUMENT, or 0/NULL for accessors);
 * no C++ exception ever crosses this interface.
 *
 * Ownership, in one place:
 *   - Handles (softalign_model, softalign_translator, softalign_result) are
 *     made by the library and freed by the caller with the matching *_free
 *     function. *_free accepts NULL.
 *   - A translator keeps a pointer to its model: free every translator (and
 *     you may keep results) before freeing the model... results do not need
 *     the model or the translator: they own their data.
 *   - Strings and arrays returned by accessors (const char*, const int32_t*,
 *     const float*) belong to the handle they came from and stay valid until
 *     that handle is freed. Never free them.
 *   - Input buffers (paths, texts, ids, model bytes) are only read during the
 *     call; the library copies what it keeps.
 *   - The message returned by softalign_last_error() belongs to the library
 *     (one buffer per thread) and is valid until the next call into the
 *     library on the same thread.
 *
 * Threads: a model is immutable and may be shared by any number of threads;
 * a translator is used by one thread at a time (make one per thread).
 *
 * Minimal use:
 *   softalign_model* m = NULL; softalign_translator* t = NULL; softalign_result* r = NULL;
 *   if (softalign_model_load("en-fr.int8.softalign", &m) != SOFTALIGN_OK) { puts(softalign_last_error()); }
 *   softalign_translator_options o; softalign_translator_options_default(&o);
 *   softalign_translator_create(m, &o, &t);
 *   softalign_translate(t, "Hello world.", &r);
 *   puts(softalign_result_text(r, 0));
 *   softalign_result_free(r); softalign_translator_free(t); softalign_model_free(m);
 */
#ifndef SOFTALIGN_H
#define SOFTALIGN_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#  if defined(SOFTALIGN_BUILDING_LIBRARY)
#    define SOFTALIGN_API __declspec(dllexport)
#  else
#    define SOFTALIGN_API
#  endif
#else
#  define SOFTALIGN_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Version of this header's interface (major * 10000 + minor * 100 + patch). */
#define SOFTALIGN_C_API_VERSION 100

/* Result of every fallible call. The message of the last failure on the
 * calling thread is in softalign_last_error(). */
typedef enum softalign_status {
  SOFTALIGN_OK = 0,
  SOFTALIGN_INVALID_ARGUMENT = 1, /* NULL pointer, bad option value, bad id */
  SOFTALIGN_IO_ERROR = 2,         /* file missing or unreadable */
  SOFTALIGN_INVALID_MODEL = 3,    /* not a softalign file, corrupt, inconsistent */
  SOFTALIGN_UNSUPPORTED = 4,      /* made by a newer converter, unknown variant */
  SOFTALIGN_OUT_OF_RANGE = 5,     /* input longer than the translator allows */
  SOFTALIGN_INVALID_INPUT = 6,    /* e.g. text that is not valid UTF-8 */
  SOFTALIGN_OUT_OF_MEMORY = 7,
  SOFTALIGN_INTERNAL = 8          /* a bug: please report it */
} softalign_status;

typedef struct softalign_model softalign_model;
typedef struct softalign_translator softalign_translator;
typedef struct softalign_result softalign_result;

/* Library version string, e.g. "0.1.0". Static storage. */
SOFTALIGN_API const char* softalign_version(void);

/* Message of the last failed call on this thread ("" if none). */
SOFTALIGN_API const char* softalign_last_error(void);

/* Short name of a status code, e.g. "invalid model". Static storage. */
SOFTALIGN_API const char* softalign_status_name(softalign_status status);

/* ---- Model ---------------------------------------------------------------- */

/* Loads (memory-maps) a .softalign file. On success *out is a new model to
 * free with softalign_model_free; on failure *out is set to NULL. */
SOFTALIGN_API softalign_status softalign_model_load(const char* path, softalign_model** out);

/* Loads a model from bytes in memory; the bytes are copied, the caller may
 * free them when this returns. */
SOFTALIGN_API softalign_status softalign_model_load_bytes(const void* data, size_t size,
                                                          softalign_model** out);

SOFTALIGN_API void softalign_model_free(softalign_model* model);

/* What a model file says about itself. Strings belong to the model. */
typedef struct softalign_model_info {
  size_t struct_size; /* set to sizeof(softalign_model_info) before the call */
  const char* name;
  const char* src_lang;
  const char* tgt_lang;
  const char* variant; /* "encdec", "bahdanau", "luong" */
  const char* score;   /* "dot", "general", "concat", "location", "none" */
  const char* scope;   /* "global", "local-m", "local-p" */
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
  int32_t max_src_len;
  /* Default decoding options stored in the file. */
  int32_t default_beam;
  int32_t default_nbest;
  float default_alpha;
  float default_beta;
  float default_max_len_a;
  float default_max_len_b;
  /* Sizes in bytes. */
  uint64_t file_bytes;   /* the whole model file */
  uint64_t weight_bytes; /* tensor data */
  uint64_t num_tensors;
} softalign_model_info;

/* Fills *info (whose struct_size the caller has set; fields beyond it are not
 * written, so older callers keep working when the struct grows). */
SOFTALIGN_API softalign_status softalign_model_get_info(const softalign_model* model,
                                                        softalign_model_info* info);

/* Free-form metadata (corpus, metrics, converter version, ...): number of
 * entries, and entry i's key and value (owned by the model). */
SOFTALIGN_API size_t softalign_model_metadata_count(const softalign_model* model);
SOFTALIGN_API softalign_status softalign_model_metadata_at(const softalign_model* model, size_t i,
                                                           const char** key, const char** value);

/* ---- Translator ----------------------------------------------------------- */

/* Options for a translator. Always initialise with
 * softalign_translator_options_default, then change fields: struct_size lets
 * the struct grow in later versions without breaking callers. A value of 0
 * (or negative for the floats) means "the model's default" where noted. */
typedef struct softalign_translator_options {
  size_t struct_size;    /* set by softalign_translator_options_default */
  int32_t max_src_len;   /* longest source in pieces (EOS included); 0: the model's S_max */
  int32_t beam;          /* beam size K >= 1; 0: the model's default */
  int32_t nbest;         /* hypotheses returned, 1..beam; 0: the model's default (clamped to beam) */
  float alpha;           /* length penalty; < 0: the model's default */
  float beta;            /* coverage penalty; < 0: the model's default */
  float max_len_a;       /* max target length = floor(a * S + b); < 0: the model's default */
  float max_len_b;       /* < 0: the model's default */
  int32_t alignment;     /* nonzero: results carry the soft and hard alignments */
  int32_t threads;       /* worker threads for one translation; 0: 1 */
  int32_t max_batch;     /* sentences translated together by translate_batch; 0: 1 */
} softalign_translator_options;

SOFTALIGN_API void softalign_translator_options_default(softalign_translator_options* options);

/* Makes a translator (plans and reserves its memory). The model must outlive
 * the translator. options may be NULL (all defaults). */
SOFTALIGN_API softalign_status softalign_translator_create(const softalign_model* model,
                                                           const softalign_translator_options* options,
                                                           softalign_translator** out);

SOFTALIGN_API void softalign_translator_free(softalign_translator* translator);

/* Bytes of working memory the translator reserved. */
SOFTALIGN_API size_t softalign_translator_arena_bytes(const softalign_translator* translator);

/* Translates one sentence (UTF-8). Empty text gives an empty translation.
 * On success *out is a new result to free with softalign_result_free. */
SOFTALIGN_API softalign_status softalign_translate(softalign_translator* translator, const char* text,
                                                   softalign_result** out);

/* Translates count sentences; out is a caller-owned array of count pointers
 * that receives one new result per sentence, in input order. On failure no
 * result is returned (every out[i] is NULL). */
SOFTALIGN_API softalign_status softalign_translate_batch(softalign_translator* translator,
                                                         const char* const* texts, size_t count,
                                                         softalign_result** out);

/* Translates source ids (pieces only, without the final EOS, which the
 * library appends). The result's text is the detokenised target. */
SOFTALIGN_API softalign_status softalign_translate_ids(softalign_translator* translator,
                                                       const int32_t* ids, size_t count,
                                                       softalign_result** out);

/* ---- Result --------------------------------------------------------------- */
/* A result holds the n-best hypotheses of one sentence, best first; index
 * hypothesis 0 for the best. Accessors return NULL/0 for a bad index. */

SOFTALIGN_API void softalign_result_free(softalign_result* result);

/* Number of hypotheses (>= 1 for a successful translation). */
SOFTALIGN_API size_t softalign_result_count(const softalign_result* result);

/* Hypothesis text (UTF-8, NUL-terminated). */
SOFTALIGN_API const char* softalign_result_text(const softalign_result* result, size_t hypothesis);

/* Target ids (no BOS, no EOS); *count receives their number. */
SOFTALIGN_API const int32_t* softalign_result_ids(const softalign_result* result, size_t hypothesis,
                                                  size_t* count);

/* Target piece k of a hypothesis (NUL-terminated), k < the ids' count. */
SOFTALIGN_API const char* softalign_result_piece(const softalign_result* result, size_t hypothesis,
                                                 size_t k);

/* Source pieces (EOS not included): number, and piece k. */
SOFTALIGN_API size_t softalign_result_source_count(const softalign_result* result);
SOFTALIGN_API const char* softalign_result_source_piece(const softalign_result* result, size_t k);

/* Final score (log-probability with length and coverage penalties). */
SOFTALIGN_API float softalign_result_score(const softalign_result* result, size_t hypothesis);

/* Soft alignment, only when the translator was made with alignment on:
 * a row-major matrix of *rows x *cols floats, one row per target piece plus
 * the EOS row, one column per source position (EOS included). NULL if absent. */
SOFTALIGN_API const float* softalign_result_alignment(const softalign_result* result, size_t hypothesis,
                                                      size_t* rows, size_t* cols);

/* Hard alignment as a Pharaoh string ("0-0 1-2 ..."; source-target, 0-based),
 * over pieces or over whitespace-separated words. NULL if absent. */
SOFTALIGN_API const char* softalign_result_pharaoh(const softalign_result* result, size_t hypothesis);
SOFTALIGN_API const char* softalign_result_pharaoh_words(const softalign_result* result,
                                                         size_t hypothesis);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SOFTALIGN_H */
