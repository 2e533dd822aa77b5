/* Tests of the C API, in C99: errors (NULL arguments, bad path, corrupted
 * bytes, bad options, bad input) and normal use against a golden model's
 * expected outputs (greedy ids, beam-4 n-best ids and scores, attention).
 *
 *   capi_test MODEL.softalign GOLDEN.txt
 *   capi_test --shortlist MODEL.softalign GOLDEN.txt
 *
 * GOLDEN.txt is written from tests/golden/<name>/golden.json at configure
 * time (see golden_data.cmake). With --shortlist, MODEL is that golden model
 * converted with a small vocabulary shortlist, and only the options'
 * use_shortlist is tested (check_shortlist_c.py makes the model). Prints every
 * failed check and a closing summary line "N passed, M failed"; exit status 0
 * only when M is 0. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep */
#include <softalign/softalign.h>

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int g_passed = 0;
static int g_failed = 0;

#define CHECK(cond)                                                   \
  do {                                                                \
    if (cond) {                                                       \
      ++g_passed;                                                     \
    } else {                                                          \
      ++g_failed;                                                     \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                 \
  } while (0)

/* ---- Golden expectations ---------------------------------------------------- */

#define MAX_IDS 256
#define MAX_HYPS 4
#define MAX_SENTENCES 8
#define MAX_SEARCHES 4
#define MAX_ATTN 8192

typedef struct {
  char name[32];
  int beam, nbest;
  float alpha, beta, max_len_a, max_len_b;
  char beam_rules[16]; /* "softalign", "opennmt" or "joeynmt" */
} search_params;

typedef struct {
  int eos;
  float score, log_prob;
  int n_ids;
  int32_t ids[MAX_IDS];
  int n_attn;
  float attn[MAX_ATTN];
} golden_hyp;

typedef struct {
  char src[1024];
  int n_src;
  int32_t src_ids[MAX_IDS];
  int n_hyps[MAX_SEARCHES];
  golden_hyp hyps[MAX_SEARCHES][MAX_HYPS];
} golden_sentence;

typedef struct {
  char variant[32], scope[32];
  int n_searches;
  search_params searches[MAX_SEARCHES];
  int n_sentences;
  golden_sentence sentences[MAX_SENTENCES];
} golden_data;

static int search_index(const golden_data* g, const char* name) {
  for (int i = 0; i < g->n_searches; ++i)
    if (strcmp(g->searches[i].name, name) == 0) return i;
  return -1;
}

/* Reads "<count> v1 v2 ..." as int32. */
static int read_ints(FILE* f, int32_t* out, int max, int* n) {
  if (fscanf(f, "%d", n) != 1 || *n < 0 || *n > max) return 0;
  for (int i = 0; i < *n; ++i)
    if (fscanf(f, "%d", &out[i]) != 1) return 0;
  return 1;
}

static int read_floats(FILE* f, float* out, int max, int* n) {
  if (fscanf(f, "%d", n) != 1 || *n < 0 || *n > max) return 0;
  for (int i = 0; i < *n; ++i)
    if (fscanf(f, "%f", &out[i]) != 1) return 0;
  return 1;
}

static int load_golden(const char* path, golden_data* g) {
  FILE* f = fopen(path, "r");
  if (f == NULL) return 0;
  memset(g, 0, sizeof *g);
  golden_sentence* s = NULL;
  golden_hyp* last = NULL;
  char tag[4];
  int ok = 1;
  while (ok && fscanf(f, "%3s", tag) == 1) {
    if (strcmp(tag, "V") == 0) {
      ok = fscanf(f, "%31s %31s", g->variant, g->scope) == 2;
    } else if (strcmp(tag, "P") == 0) {
      ok = g->n_searches < MAX_SEARCHES;
      if (!ok) break;
      search_params* p = &g->searches[g->n_searches++];
      ok = fscanf(f, "%31s %d %f %f %f %f %d %15s", p->name, &p->beam, &p->alpha, &p->beta, &p->max_len_a,
                  &p->max_len_b, &p->nbest, p->beam_rules) == 8;
    } else if (strcmp(tag, "S") == 0) {
      ok = g->n_sentences < MAX_SENTENCES;
      if (!ok) break;
      s = &g->sentences[g->n_sentences++];
      fgetc(f); /* the space after the tag */
      ok = fgets(s->src, sizeof s->src, f) != NULL;
      if (ok) s->src[strcspn(s->src, "\n")] = '\0';
    } else if (strcmp(tag, "I") == 0) {
      ok = s != NULL && read_ints(f, s->src_ids, MAX_IDS, &s->n_src);
    } else if (strcmp(tag, "H") == 0) {
      char name[32];
      ok = s != NULL && fscanf(f, "%31s", name) == 1;
      int k = ok ? search_index(g, name) : -1;
      ok = ok && k >= 0 && s->n_hyps[k] < MAX_HYPS;
      if (!ok) break;
      last = &s->hyps[k][s->n_hyps[k]++];
      ok = fscanf(f, "%d %f %f", &last->eos, &last->score, &last->log_prob) == 3 &&
           read_ints(f, last->ids, MAX_IDS, &last->n_ids);
    } else if (strcmp(tag, "R") == 0) {
      ok = last != NULL && read_floats(f, last->attn, MAX_ATTN, &last->n_attn);
    } else {
      ok = 0;
    }
  }
  fclose(f);
  return ok && g->n_sentences > 0 && g->n_searches > 0;
}

/* ---- Helpers ---------------------------------------------------------------- */

static unsigned char* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char* data = (unsigned char*)malloc(n > 0 ? (size_t)n : 1);
  if (data != NULL && fread(data, 1, (size_t)n, f) != (size_t)n) {
    free(data);
    data = NULL;
  }
  fclose(f);
  *size = (size_t)n;
  return data;
}

static int error_mentions(const char* what) {
  const char* e = softalign_last_error();
  return e != NULL && strstr(e, what) != NULL;
}

static int same_ids(const int32_t* a, size_t na, const int32_t* b, int nb) {
  if (na != (size_t)nb) return 0;
  for (size_t i = 0; i < na; ++i)
    if (a[i] != b[i]) return 0;
  return 1;
}

static softalign_translator_options options_for(const search_params* p, int alignment) {
  softalign_translator_options o;
  softalign_translator_options_default(&o);
  o.beam = p->beam;
  o.nbest = p->nbest;
  o.alpha = p->alpha;
  o.beta = p->beta;
  o.max_len_a = p->max_len_a;
  o.max_len_b = p->max_len_b;
  o.beam_rules = p->beam_rules;
  o.alignment = alignment;
  o.copy_through = 0; /* the golden texts are the model's own (test_copy_through tests it) */
  return o;
}

static softalign_translator* make_translator(const softalign_model* model, const search_params* p,
                                             int alignment) {
  const softalign_translator_options o = options_for(p, alignment);
  softalign_translator* t = NULL;
  if (softalign_translator_create(model, &o, &t) != SOFTALIGN_OK)
    fprintf(stderr, "translator_create: %s\n", softalign_last_error());
  return t;
}

/* The result's hypotheses equal the golden run k of sentence s (ids exactly,
 * scores within 1e-4; attention within 1e-5 when the result has it). */
static void check_hyps(const softalign_result* r, const golden_sentence* s, int k, int with_attention) {
  CHECK(softalign_result_count(r) == (size_t)s->n_hyps[k]);
  for (int h = 0; h < s->n_hyps[k] && (size_t)h < softalign_result_count(r); ++h) {
    const golden_hyp* e = &s->hyps[k][h];
    size_t n = 0;
    const int32_t* ids = softalign_result_ids(r, (size_t)h, &n);
    CHECK(same_ids(ids, n, e->ids, e->n_ids));
    CHECK(fabsf(softalign_result_score(r, (size_t)h) - e->score) <= 1e-4f);
    CHECK(fabsf(softalign_result_log_prob(r, (size_t)h) - e->log_prob) <= 1e-4f);
    CHECK(softalign_result_text(r, (size_t)h) != NULL);
    for (size_t p = 0; p < n; ++p) CHECK(softalign_result_piece(r, (size_t)h, p) != NULL);
    CHECK(softalign_result_piece(r, (size_t)h, n) == NULL);
    if (!with_attention) {
      CHECK(softalign_result_alignment(r, (size_t)h, NULL, NULL) == NULL);
      CHECK(softalign_result_pharaoh(r, (size_t)h) == NULL);
      continue;
    }
    size_t rows = 0, cols = 0;
    const float* a = softalign_result_alignment(r, (size_t)h, &rows, &cols);
    CHECK(a != NULL);
    CHECK(cols == (size_t)s->n_src);
    CHECK(rows == (size_t)(e->eos ? e->n_ids + 1 : e->n_ids));
    if (a != NULL && rows * cols == (size_t)e->n_attn) {
      float worst = 0.0f;
      for (int i = 0; i < e->n_attn; ++i) {
        const float d = fabsf(a[i] - e->attn[i]);
        if (d > worst) worst = d;
      }
      CHECK(worst <= 1e-5f);
    }
    /* One Pharaoh link per target piece. */
    const char* ph = softalign_result_pharaoh(r, (size_t)h);
    CHECK(ph != NULL);
    if (ph != NULL) {
      size_t links = 0;
      for (const char* c = ph; *c; ++c) links += *c == '-';
      CHECK(links == n);
    }
  }
}

/* ---- Tests ------------------------------------------------------------------ */

static void test_null_arguments(const char* model_path) {
  softalign_model* m = (softalign_model*)&m; /* not NULL: must be reset on failure */
  CHECK(softalign_model_load(NULL, &m) == SOFTALIGN_INVALID_ARGUMENT);
  CHECK(m == NULL);
  CHECK(error_mentions("path"));
  CHECK(softalign_model_load(model_path, NULL) == SOFTALIGN_INVALID_ARGUMENT);
  CHECK(softalign_model_load_bytes(NULL, 10, &m) == SOFTALIGN_INVALID_ARGUMENT);
  CHECK(softalign_model_get_info(NULL, NULL) == SOFTALIGN_INVALID_ARGUMENT);
  CHECK(softalign_model_metadata_count(NULL) == 0);
  CHECK(softalign_model_encode(NULL, "x", NULL, 0, NULL) == SOFTALIGN_INVALID_ARGUMENT);

  softalign_translator* t = (softalign_translator*)&t;
  CHECK(softalign_translator_create(NULL, NULL, &t) == SOFTALIGN_INVALID_ARGUMENT);
  CHECK(t == NULL);
  CHECK(error_mentions("model"));
  CHECK(softalign_translator_arena_bytes(NULL) == 0);

  softalign_result* r = (softalign_result*)&r;
  CHECK(softalign_translate(NULL, "x", &r) == SOFTALIGN_INVALID_ARGUMENT);
  CHECK(r == NULL);
  CHECK(softalign_translate_ids(NULL, NULL, 0, &r) == SOFTALIGN_INVALID_ARGUMENT);
  CHECK(softalign_translate_batch(NULL, NULL, 0, NULL) == SOFTALIGN_INVALID_ARGUMENT);

  CHECK(softalign_result_count(NULL) == 0);
  CHECK(softalign_result_text(NULL, 0) == NULL);
  CHECK(softalign_result_ids(NULL, 0, NULL) == NULL);
  CHECK(softalign_result_alignment(NULL, 0, NULL, NULL) == NULL);
  CHECK(softalign_result_pharaoh(NULL, 0) == NULL);
  CHECK(softalign_result_source_piece(NULL, 0) == NULL);

  /* Freeing NULL is allowed. */
  softalign_result_free(NULL);
  softalign_translator_free(NULL);
  softalign_model_free(NULL);
  ++g_passed;

  CHECK(strlen(softalign_version()) > 0);
  CHECK(strcmp(softalign_status_name(SOFTALIGN_INVALID_MODEL), "invalid_model") == 0);
  CHECK(strcmp(softalign_status_name(SOFTALIGN_RESOURCE_EXHAUSTED), "resource_exhausted") == 0);
  CHECK(SOFTALIGN_OUT_OF_MEMORY == SOFTALIGN_RESOURCE_EXHAUSTED);
  /* Any int a C caller passes gets a name, without undefined behaviour in the
     library (UBSan's enum check: these are outside the C++ enum's range). */
  CHECK(strcmp(softalign_status_name((softalign_status)77), "unknown") == 0);
  CHECK(strcmp(softalign_status_name((softalign_status)-5), "unknown") == 0);
  CHECK(strcmp(softalign_status_name((softalign_status)1000), "unknown") == 0);
  CHECK(strcmp(softalign_status_name((softalign_status)13), "unknown") == 0);
  CHECK(strcmp(softalign_status_name(SOFTALIGN_CANCELLED), "cancelled") == 0);
  CHECK(strcmp(softalign_status_name(SOFTALIGN_DEADLINE_EXCEEDED), "deadline_exceeded") == 0);
  softalign_translator_cancel(NULL); /* does nothing */
  CHECK(softalign_translate_stream(NULL, "x", NULL, NULL, &r) == SOFTALIGN_INVALID_ARGUMENT);
}

static void test_bad_files(const char* model_path) {
  softalign_model* m = NULL;
  CHECK(softalign_model_load("no/such/model.softalign", &m) == SOFTALIGN_NOT_FOUND);
  CHECK(m == NULL);
  CHECK(error_mentions("no/such/model.softalign"));

  size_t size = 0;
  unsigned char* bytes = read_file(model_path, &size);
  CHECK(bytes != NULL && size > 64);
  if (bytes == NULL) return;

  /* The good bytes load; the copy means they can be freed at once after. */
  CHECK(softalign_model_load_bytes(bytes, size, &m) == SOFTALIGN_OK);
  softalign_model_free(m);
  m = NULL;

  /* Read into memory: the file may change afterwards; max_line_bytes bounds the text. */
  CHECK(softalign_model_load_copy(NULL, &m) == SOFTALIGN_INVALID_ARGUMENT);
  CHECK(softalign_model_load_copy(model_path, &m) == SOFTALIGN_OK);
  if (m != NULL) {
    softalign_translator_options o;
    softalign_translator_options_default(&o);
    CHECK(o.max_line_bytes == 0);
    o.max_line_bytes = 8;
    softalign_translator* t = NULL;
    softalign_result* r = NULL;
    CHECK(softalign_translator_create(m, &o, &t) == SOFTALIGN_OK);
    CHECK(softalign_translate(t, "data", &r) == SOFTALIGN_OK);
    softalign_result_free(r);
    r = NULL;
    CHECK(softalign_translate(t, "more than eight bytes", &r) == SOFTALIGN_INPUT_TOO_LONG);
    CHECK(error_mentions("max_line_bytes"));
    softalign_translator_free(t);
  }
  softalign_model_free(m);
  m = NULL;

  /* In place: 32-byte aligned bytes are used without a copy; others are refused. */
  unsigned char* raw = (unsigned char*)malloc(size + 64);
  unsigned char* aligned = raw + (32u - (unsigned)((uintptr_t)raw % 32u));
  memcpy(aligned, bytes, size);
  CHECK(softalign_model_load_memory(aligned, size, &m) == SOFTALIGN_OK);
  if (m != NULL) {
    softalign_translator* t = NULL;
    softalign_result* r = NULL;
    CHECK(softalign_translator_create(m, NULL, &t) == SOFTALIGN_OK);
    CHECK(softalign_translate(t, "data", &r) == SOFTALIGN_OK);
    CHECK(softalign_result_count(r) >= 1);
    softalign_result_free(r);
    softalign_translator_free(t);
  }
  softalign_model_free(m);
  m = (softalign_model*)&m;
  memmove(aligned + 1, aligned, size);
  CHECK(softalign_model_load_memory(aligned + 1, size, &m) == SOFTALIGN_INVALID_ARGUMENT);
  CHECK(m == NULL);
  CHECK(error_mentions("aligned"));
  CHECK(softalign_model_load_memory(NULL, size, &m) == SOFTALIGN_INVALID_ARGUMENT);
  free(raw);

  CHECK(softalign_model_load_bytes(bytes, 0, &m) == SOFTALIGN_INVALID_MODEL);
  CHECK(m == NULL);
  CHECK(strlen(softalign_last_error()) > 0);

  /* Truncated. */
  CHECK(softalign_model_load_bytes(bytes, size / 2, &m) == SOFTALIGN_INVALID_MODEL);
  CHECK(m == NULL);

  /* Not a model: the same size of garbage. */
  unsigned char* junk = (unsigned char*)malloc(size);
  for (size_t i = 0; i < size; ++i) junk[i] = (unsigned char)(i * 131u + 7u);
  CHECK(softalign_model_load_bytes(junk, size, &m) == SOFTALIGN_INVALID_MODEL);
  CHECK(m == NULL);
  free(junk);

  /* The file identifier damaged. */
  unsigned char saved = bytes[5];
  bytes[5] ^= 0x55u;
  CHECK(softalign_model_load_bytes(bytes, size, &m) == SOFTALIGN_INVALID_MODEL);
  CHECK(m == NULL);
  CHECK(error_mentions("identifier"));
  bytes[5] = saved;

  /* Single damaged bytes all over the file: each load either fails with a
   * message or gives a model that translates (damaged weights are still numbers
   * to the loader); nothing crashes. A fixed LCG keeps the positions reproducible. */
  unsigned int seed = 12345u;
  int refused = 0, loaded = 0;
  for (int trial = 0; trial < 300; ++trial) {
    seed = seed * 1103515245u + 12345u;
    const size_t pos = (size_t)(seed >> 8) % size;
    const unsigned char before = bytes[pos];
    bytes[pos] ^= (unsigned char)(1u + (seed & 0x7Fu));
    softalign_model* d = NULL;
    if (softalign_model_load_bytes(bytes, size, &d) == SOFTALIGN_OK) {
      softalign_translator* t = NULL;
      softalign_result* r = NULL;
      if (softalign_translator_create(d, NULL, &t) == SOFTALIGN_OK &&
          softalign_translate(t, "data with tests", &r) == SOFTALIGN_OK)
        ++loaded;
      else
        ++refused;
      softalign_result_free(r);
      softalign_translator_free(t);
      softalign_model_free(d);
    } else {
      CHECK(d == NULL && strlen(softalign_last_error()) > 0);
      ++refused;
    }
    bytes[pos] = before;
  }
  CHECK(refused + loaded == 300);
  printf("damaged bytes: %d refused, %d loaded and translated\n", refused, loaded);

  /* Every status returned a message and nothing crashed: damage the root offset. */
  bytes[0] ^= 0xFFu;
  bytes[1] ^= 0xFFu;
  softalign_status st = softalign_model_load_bytes(bytes, size, &m);
  CHECK(st != SOFTALIGN_OK);
  CHECK(m == NULL);
  free(bytes);
}

static void test_info(const softalign_model* m, const golden_data* g) {
  softalign_model_info info;
  memset(&info, 0, sizeof info);
  CHECK(softalign_model_get_info(m, &info) == SOFTALIGN_INVALID_ARGUMENT); /* struct_size unset */
  info.struct_size = sizeof info;
  CHECK(softalign_model_get_info(m, &info) == SOFTALIGN_OK);
  CHECK(strcmp(info.variant, g->variant) == 0);
  CHECK(strcmp(info.scope, g->scope) == 0);
  CHECK(strcmp(info.weight_type, "f32") == 0);
  CHECK(info.name != NULL && info.src_lang != NULL && info.tgt_lang != NULL);
  CHECK(info.src_vocab > 0 && info.tgt_vocab > 0);
  CHECK(info.eos_id == 3 && info.bos_id == 2);
  CHECK(info.max_src_len > 0);
  CHECK(info.schema_version >= 1);
  CHECK(info.file_bytes > 1000);

  /* A caller built with an older, shorter struct: nothing written past it. */
  unsigned char buf[sizeof(softalign_model_info) + 16];
  memset(buf, 0xAB, sizeof buf);
  softalign_model_info* old = (softalign_model_info*)(void*)buf;
  const size_t old_size = offsetof(softalign_model_info, tgt_lang);
  old->struct_size = old_size;
  CHECK(softalign_model_get_info(m, old) == SOFTALIGN_OK);
  CHECK(old->src_lang != NULL);
  int untouched = 1;
  for (size_t i = old_size; i < sizeof buf; ++i) untouched &= buf[i] == 0xAB;
  CHECK(untouched);

  const size_t n = softalign_model_metadata_count(m);
  CHECK(n > 0);
  const char* key = NULL;
  const char* value = NULL;
  CHECK(softalign_model_metadata_at(m, 0, &key, &value) == SOFTALIGN_OK);
  CHECK(key != NULL && value != NULL);
  CHECK(softalign_model_metadata_at(m, n, &key, &value) == SOFTALIGN_INVALID_ARGUMENT);
}

static void test_encode(const softalign_model* m, const golden_data* g) {
  for (int i = 0; i < g->n_sentences; ++i) {
    const golden_sentence* s = &g->sentences[i];
    size_t need = 0;
    CHECK(softalign_model_encode(m, s->src, NULL, 0, &need) == SOFTALIGN_INVALID_ARGUMENT);
    CHECK(need == (size_t)s->n_src);
    int32_t ids[MAX_IDS];
    size_t count = 0;
    CHECK(softalign_model_encode(m, s->src, ids, MAX_IDS, &count) == SOFTALIGN_OK);
    CHECK(same_ids(ids, count, s->src_ids, s->n_src));
  }
}

static void test_options(const softalign_model* m) {
  softalign_translator_options o;
  softalign_translator_options_default(&o);
  CHECK(o.struct_size == sizeof o);
  CHECK(o.beam == 0 && o.nbest == 0 && o.threads == 1 && o.alignment == 0);
  CHECK(o.alpha < 0.0f && o.max_len_a < 0.0f);
  CHECK(o.kernels == NULL);

  /* NULL options: the model's defaults. */
  softalign_translator* t = NULL;
  CHECK(softalign_translator_create(m, NULL, &t) == SOFTALIGN_OK);
  CHECK(softalign_translator_arena_bytes(t) > 0);
  softalign_translator_free(t);

  /* An older caller's shorter struct: the rest takes the defaults. */
  softalign_translator_options_init(&o, offsetof(softalign_translator_options, nbest));
  CHECK(o.struct_size == offsetof(softalign_translator_options, nbest));
  o.beam = 2;
  t = NULL;
  CHECK(softalign_translator_create(m, &o, &t) == SOFTALIGN_OK);
  softalign_translator_free(t);

  /* Uninitialised options and bad values are errors, not crashes. */
  memset(&o, 0, sizeof o);
  t = (softalign_translator*)&t;
  CHECK(softalign_translator_create(m, &o, &t) == SOFTALIGN_INVALID_ARGUMENT);
  CHECK(t == NULL);
  softalign_translator_options_default(&o);
  o.beam = 2;
  o.nbest = 3; /* more than the beam */
  CHECK(softalign_translator_create(m, &o, &t) != SOFTALIGN_OK);
  CHECK(t == NULL);
  softalign_translator_options_default(&o);
  o.threads = 0;
  CHECK(softalign_translator_create(m, &o, &t) == SOFTALIGN_INVALID_ARGUMENT);
  softalign_translator_options_default(&o);
  o.beam = -1;
  CHECK(softalign_translator_create(m, &o, &t) == SOFTALIGN_INVALID_ARGUMENT);
  softalign_translator_options_default(&o);
  o.max_source_tokens = 100000; /* beyond the model's S_max */
  CHECK(softalign_translator_create(m, &o, &t) != SOFTALIGN_OK);
  CHECK(strlen(softalign_last_error()) > 0);
}

/* The options as JSON (one table in the library) and the result as JSON. */
static void test_json(const softalign_model* m) {
  const char* defaults = softalign_option_defaults_json();
  CHECK(defaults != NULL && defaults[0] == '{');
  CHECK(defaults != NULL && strstr(defaults, "\"beam\":null") != NULL);
  CHECK(defaults != NULL && strstr(defaults, "\"threads\":1") != NULL);
  CHECK(defaults != NULL && strstr(defaults, "\"device\":\"cpu\"") != NULL);

  /* The same translator as the struct's, and the same translation. */
  softalign_translator_options o;
  softalign_translator_options_default(&o);
  o.beam = 2;
  o.alignment = 1;
  softalign_translator *a = NULL, *b = NULL;
  CHECK(softalign_translator_create(m, &o, &a) == SOFTALIGN_OK);
  CHECK(softalign_translator_create_json(&m, 1, "{\"beam\": 2, \"alignment\": true}", &b) == SOFTALIGN_OK);
  const char* prepared = softalign_translator_options_json(b);
  CHECK(prepared != NULL && strstr(prepared, "\"beam\":2") != NULL);
  softalign_result *ra = NULL, *rb = NULL;
  CHECK(softalign_translate(a, "hello world", &ra) == SOFTALIGN_OK);
  CHECK(softalign_translate(b, "hello world", &rb) == SOFTALIGN_OK);
  const char* ja = softalign_result_json(ra);
  const char* jb = softalign_result_json(rb);
  CHECK(ja != NULL && jb != NULL && strcmp(ja, jb) == 0);
  CHECK(ja != NULL && strncmp(ja, "{\"glossary_matches\":", 20) == 0);
  CHECK(ja != NULL && strstr(ja, "\"attention\":[[") != NULL);
  CHECK(ja == softalign_result_json(ra)); /* written once, kept by the result */
  CHECK(softalign_result_pharaoh(rb, 0) != NULL);
  softalign_result_free(ra);
  softalign_result_free(rb);
  softalign_translator_free(a);
  softalign_translator_free(b);
  CHECK(softalign_result_json(NULL) == NULL);
  CHECK(softalign_translator_options_json(NULL) == NULL);

  /* NULL or {}: the defaults. Bad JSON, an unknown name, a wrong type: invalid_argument. */
  CHECK(softalign_translator_create_json(&m, 1, NULL, &a) == SOFTALIGN_OK);
  softalign_translator_free(a);
  CHECK(softalign_translator_create_json(&m, 1, "{}", &a) == SOFTALIGN_OK);
  softalign_translator_free(a);
  a = (softalign_translator*)&a;
  CHECK(softalign_translator_create_json(&m, 1, "{\"beam\": ", &a) == SOFTALIGN_INVALID_ARGUMENT);
  CHECK(a == NULL);
  CHECK(softalign_translator_create_json(&m, 1, "{\"bogus\": 1}", &a) == SOFTALIGN_INVALID_ARGUMENT);
  CHECK(error_mentions("bogus"));
  CHECK(softalign_translator_create_json(&m, 1, "{\"beam\": \"4\"}", &a) == SOFTALIGN_INVALID_ARGUMENT);
  CHECK(error_mentions("beam"));
  CHECK(softalign_translator_create_json(&m, 1, "{\"beam\": 0}", &a) == SOFTALIGN_INVALID_ARGUMENT);
  CHECK(softalign_translator_create_json(&m, 1, "{\"alpha\": \"NaN\"}", &a) == SOFTALIGN_INVALID_ARGUMENT);
  CHECK(softalign_translator_create_json(&m, 1, "[1]", &a) == SOFTALIGN_INVALID_ARGUMENT);
  CHECK(softalign_translator_create_json(NULL, 1, "{}", &a) == SOFTALIGN_INVALID_ARGUMENT);
  CHECK(softalign_translator_create_json(&m, 1, "{}", NULL) == SOFTALIGN_INVALID_ARGUMENT);
}

/* Every golden search: translate, translate_ids and translate_batch agree with golden.json. */
static void test_searches(const softalign_model* m, const golden_data* g) {
  for (int k = 0; k < g->n_searches; ++k) {
    const int alignment = strcmp(g->searches[k].name, "greedy") != 0; /* exercise both */
    softalign_translator* t = make_translator(m, &g->searches[k], alignment);
    CHECK(t != NULL);
    if (t == NULL) continue;
    const char* texts[MAX_SENTENCES];
    int used[MAX_SENTENCES];
    int n = 0;
    for (int i = 0; i < g->n_sentences; ++i) {
      const golden_sentence* s = &g->sentences[i];
      if (s->n_hyps[k] == 0) continue; /* this search was not run on this sentence */
      texts[n] = s->src;
      used[n++] = i;

      softalign_result* r = NULL;
      CHECK(softalign_translate(t, s->src, &r) == SOFTALIGN_OK);
      check_hyps(r, s, k, alignment);
      CHECK(softalign_result_source_count(r) + 1 == (size_t)s->n_src);
      CHECK(softalign_result_source_piece(r, 0) != NULL);
      if (alignment) CHECK(softalign_result_pharaoh_words(r, 0) != NULL);

      softalign_result* r2 = NULL;
      CHECK(softalign_translate_ids(t, s->src_ids, (size_t)s->n_src, &r2) == SOFTALIGN_OK);
      check_hyps(r2, s, k, alignment);
      /* The same text, and the same piece alignment, as from text. */
      CHECK(r != NULL && r2 != NULL && strcmp(softalign_result_text(r, 0), softalign_result_text(r2, 0)) == 0);
      if (alignment && r != NULL && r2 != NULL)
        CHECK(strcmp(softalign_result_pharaoh(r, 0), softalign_result_pharaoh(r2, 0)) == 0);
      CHECK(softalign_result_pharaoh_words(r2, 0) == NULL);
      softalign_result_free(r);
      softalign_result_free(r2);
    }

    /* The batch, with an empty line in the middle: results in input order. */
    const char* batch[MAX_SENTENCES + 1];
    softalign_result* out[MAX_SENTENCES + 1];
    int b = 0;
    for (int i = 0; i < n; ++i) {
      if (i == 1) batch[b++] = "";
      batch[b++] = texts[i];
    }
    CHECK(softalign_translate_batch(t, batch, (size_t)b, out) == SOFTALIGN_OK);
    int j = 0;
    for (int i = 0; i < b; ++i) {
      if (batch[i][0] == '\0') {
        CHECK(softalign_result_count(out[i]) == 1);
        CHECK(strcmp(softalign_result_text(out[i], 0), "") == 0);
      } else {
        check_hyps(out[i], &g->sentences[used[j++]], k, alignment);
      }
      softalign_result_free(out[i]);
    }
    softalign_translator_free(t);
  }
}

/* An ensemble of the model with a second load of its file is the model (the
 * mean of equal rows is exact): every golden search again. A target prefix
 * that is the greedy translation's own beginning changes nothing; an empty
 * one is none; one as long as the max target length is refused. */
static void test_ensemble_and_prefix(const char* model_path, const softalign_model* m, const golden_data* g) {
  softalign_model* m2 = NULL;
  CHECK(softalign_model_load(model_path, &m2) == SOFTALIGN_OK);
  const softalign_model* pair[2] = {m, m2};
  const softalign_model* with_null[2] = {m, NULL};
  softalign_translator* t = (softalign_translator*)&t;
  CHECK(softalign_translator_create_ensemble(NULL, 2, NULL, &t) == SOFTALIGN_INVALID_ARGUMENT);
  CHECK(t == NULL);
  CHECK(softalign_translator_create_ensemble(pair, 0, NULL, &t) == SOFTALIGN_INVALID_ARGUMENT);
  CHECK(softalign_translator_create_ensemble(with_null, 2, NULL, &t) == SOFTALIGN_INVALID_ARGUMENT);
  CHECK(error_mentions("models[1]"));
  CHECK(softalign_translator_create_ensemble(pair, 2, NULL, NULL) == SOFTALIGN_INVALID_ARGUMENT);
  for (int k = 0; k < g->n_searches; ++k) {
    const search_params* p = &g->searches[k];
    const softalign_translator_options o = options_for(p, 1);
    t = NULL;
    CHECK(softalign_translator_create_ensemble(pair, 2, &o, &t) == SOFTALIGN_OK);
    if (t == NULL) continue;
    for (int i = 0; i < g->n_sentences; ++i) {
      const golden_sentence* s = &g->sentences[i];
      if (s->n_hyps[k] == 0) continue;
      softalign_result* r = NULL;
      CHECK(softalign_translate(t, s->src, &r) == SOFTALIGN_OK);
      check_hyps(r, s, k, 1);
      softalign_result_free(r);
      r = NULL;
      CHECK(softalign_translate_prefix(t, s->src, "", &r) == SOFTALIGN_OK);
      check_hyps(r, s, k, 1);
      softalign_result_free(r);
      /* A prefix is softalign's search's (the toolkits' rules refuse it). */
      if (p->beam == 1 && s->hyps[k][0].n_ids > 0 && strcmp(p->beam_rules, "softalign") == 0) {
        r = NULL;
        CHECK(softalign_translate_ids_prefix(t, s->src_ids, (size_t)s->n_src, s->hyps[k][0].ids, 1, &r) ==
              SOFTALIGN_OK);
        check_hyps(r, s, k, 1);
        softalign_result_free(r);
      }
      /* T = floor(a * S + b) pieces, EOS included: a prefix of T is refused. */
      const size_t T = (size_t)floor((double)p->max_len_a * s->n_src + (double)p->max_len_b);
      int32_t long_prefix[MAX_IDS];
      for (size_t j = 0; j < T && j < MAX_IDS; ++j) long_prefix[j] = 4;
      r = (softalign_result*)&r;
      CHECK(softalign_translate_ids_prefix(t, s->src_ids, (size_t)s->n_src, long_prefix, T, &r) ==
            SOFTALIGN_INVALID_ARGUMENT);
      CHECK(r == NULL);
      CHECK(error_mentions("prefix"));
    }
    {
      softalign_result* r = NULL;
      CHECK(softalign_translate_prefix(t, "x", NULL, &r) == SOFTALIGN_INVALID_ARGUMENT);
      CHECK(softalign_translate_ids_prefix(t, g->sentences[0].src_ids, (size_t)g->sentences[0].n_src, NULL, 2, &r) ==
            SOFTALIGN_INVALID_ARGUMENT);
    }
    softalign_translator_free(t);
  }
  softalign_model_free(m2);
}

static void test_bad_input(const softalign_model* m, const golden_data* g) {
  softalign_translator_options o;
  softalign_translator_options_default(&o);
  o.beam = 1;
  o.nbest = 1;
  o.max_source_tokens = 4;
  o.split_long_input = 0; /* the default splits: here too long is an error */
  softalign_translator* t = NULL;
  CHECK(softalign_translator_create(m, &o, &t) == SOFTALIGN_OK);
  if (t == NULL) return;
  softalign_result* r = (softalign_result*)&r;

  /* Longer than max_source_tokens. */
  const golden_sentence* longest = &g->sentences[0];
  for (int i = 1; i < g->n_sentences; ++i)
    if (g->sentences[i].n_src > longest->n_src) longest = &g->sentences[i];
  CHECK(longest->n_src > 4);
  CHECK(softalign_translate(t, longest->src, &r) == SOFTALIGN_INPUT_TOO_LONG);
  CHECK(r == NULL);
  CHECK(softalign_translate_ids(t, longest->src_ids, (size_t)longest->n_src, &r) != SOFTALIGN_OK);

  /* Not UTF-8. */
  CHECK(softalign_translate(t, "caf\xC3 \xFF", &r) == SOFTALIGN_INVALID_UTF8);
  CHECK(r == NULL);

  /* Bad ids: out of the vocabulary, no EOS, none at all. */
  const int32_t bad[2] = {100000, 3};
  CHECK(softalign_translate_ids(t, bad, 2, &r) == SOFTALIGN_INVALID_ARGUMENT);
  const int32_t negative[2] = {-5, 3};
  CHECK(softalign_translate_ids(t, negative, 2, &r) == SOFTALIGN_INVALID_ARGUMENT);
  CHECK(softalign_translate_ids(t, bad, 0, &r) != SOFTALIGN_OK);
  CHECK(r == NULL);

  /* A batch with one bad sentence fails as a whole and returns nothing. */
  const char* batch[3] = {"with", "\xFF", NULL};
  softalign_result* out[3] = {(softalign_result*)&r, (softalign_result*)&r, (softalign_result*)&r};
  CHECK(softalign_translate_batch(t, batch, 2, out) != SOFTALIGN_OK);
  CHECK(out[0] == NULL && out[1] == NULL);
  CHECK(softalign_translate_batch(t, batch, 3, out) == SOFTALIGN_INVALID_ARGUMENT); /* texts[2] NULL */
  softalign_translator_free(t);

  /* With replacement, bad bytes are translated instead. */
  o.replace_invalid_utf8 = 1;
  o.max_source_tokens = 0;
  CHECK(softalign_translator_create(m, &o, &t) == SOFTALIGN_OK);
  r = NULL;
  CHECK(softalign_translate(t, "caf\xC3 \xFF", &r) == SOFTALIGN_OK);
  CHECK(softalign_result_count(r) == 1);
  softalign_result_free(r);
  softalign_translator_free(t);
}

/* A translator keeps its model alive: the model handle may go first. */
static void test_lifetime(const char* model_path, const golden_data* g) {
  softalign_model* m = NULL;
  CHECK(softalign_model_load(model_path, &m) == SOFTALIGN_OK);
  softalign_translator* t = make_translator(m, &g->searches[0], 0);
  softalign_model_free(m);
  softalign_result* r = NULL;
  CHECK(softalign_translate(t, g->sentences[0].src, &r) == SOFTALIGN_OK);
  CHECK(softalign_result_count(r) >= 1);
  softalign_translator_free(t);
  /* The result outlives both. */
  CHECK(softalign_result_text(r, 0) != NULL);
  softalign_result_free(r);
}

/* One model, one translator per thread: every thread gets the golden beam-4 n-best. */
typedef struct {
  const softalign_model* model;
  const golden_data* g;
  int failures;
} thread_job;

static void* thread_main(void* arg) {
  thread_job* job = (thread_job*)arg;
  const int k = search_index(job->g, "beam4");
  softalign_translator* t = make_translator(job->model, &job->g->searches[k], 0);
  if (t == NULL) {
    job->failures = 1;
    return NULL;
  }
  for (int round = 0; round < 20; ++round) {
    for (int i = 0; i < job->g->n_sentences; ++i) {
      const golden_sentence* s = &job->g->sentences[i];
      softalign_result* r = NULL;
      if (softalign_translate(t, s->src, &r) != SOFTALIGN_OK || softalign_result_count(r) != (size_t)s->n_hyps[k]) {
        ++job->failures;
      } else {
        for (int h = 0; h < s->n_hyps[k]; ++h) {
          size_t n = 0;
          const int32_t* ids = softalign_result_ids(r, (size_t)h, &n);
          if (!same_ids(ids, n, s->hyps[k][h].ids, s->hyps[k][h].n_ids)) ++job->failures;
        }
      }
      softalign_result_free(r);
    }
  }
  softalign_translator_free(t);
  return NULL;
}

static void test_threads(const softalign_model* m, const golden_data* g) {
  enum { kThreads = 4 };
  pthread_t threads[kThreads];
  thread_job jobs[kThreads];
  for (int i = 0; i < kThreads; ++i) {
    jobs[i].model = m;
    jobs[i].g = g;
    jobs[i].failures = 0;
    CHECK(pthread_create(&threads[i], NULL, thread_main, &jobs[i]) == 0);
  }
  for (int i = 0; i < kThreads; ++i) {
    CHECK(pthread_join(threads[i], NULL) == 0);
    CHECK(jobs[i].failures == 0);
  }
}

/* A model with a shortlist: use_shortlist = 0 gives the golden results (those
 * of the whole vocabulary, as the C++ API gives them with the shortlist off)
 * for every golden search; the default (on) changes some; a caller's struct
 * from before the field existed gets the default. */
static void test_use_shortlist(const softalign_model* m, const golden_data* g) {
  softalign_translator_options o;
  softalign_translator_options_default(&o);
  CHECK(o.use_shortlist == 1);
  int some_differ = 0;
  for (int k = 0; k < g->n_searches; ++k) {
    softalign_translator* on = make_translator(m, &g->searches[k], 0);
    softalign_translator* off = NULL;
    softalign_translator_options_default(&o);
    o.beam = g->searches[k].beam;
    o.nbest = g->searches[k].nbest;
    o.alpha = g->searches[k].alpha;
    o.beta = g->searches[k].beta;
    o.max_len_a = g->searches[k].max_len_a;
    o.max_len_b = g->searches[k].max_len_b;
    o.beam_rules = g->searches[k].beam_rules;
    o.use_shortlist = 0;
    CHECK(softalign_translator_create(m, &o, &off) == SOFTALIGN_OK);
    /* The shortlist's buffers (its ids per sentence) are not reserved when it
       is off; the arena is whole pages, which can hide them on a tiny model. */
    CHECK(softalign_translator_arena_bytes(off) <= softalign_translator_arena_bytes(on));
    /* The same options as an older caller's struct, which ends before use_shortlist. */
    softalign_translator* old = NULL;
    o.struct_size = offsetof(softalign_translator_options, use_shortlist);
    CHECK(softalign_translator_create(m, &o, &old) == SOFTALIGN_OK);
    CHECK(softalign_translator_arena_bytes(old) == softalign_translator_arena_bytes(on));
    for (int i = 0; i < g->n_sentences && on != NULL && off != NULL && old != NULL; ++i) {
      const golden_sentence* s = &g->sentences[i];
      if (s->n_hyps[k] == 0) continue;
      softalign_result* r_off = NULL;
      CHECK(softalign_translate(off, s->src, &r_off) == SOFTALIGN_OK);
      check_hyps(r_off, s, k, 0);
      softalign_result* r_ids = NULL;
      CHECK(softalign_translate_ids(off, s->src_ids, (size_t)s->n_src, &r_ids) == SOFTALIGN_OK);
      check_hyps(r_ids, s, k, 0);
      softalign_result* r_on = NULL;
      softalign_result* r_old = NULL;
      CHECK(softalign_translate(on, s->src, &r_on) == SOFTALIGN_OK);
      CHECK(softalign_translate(old, s->src, &r_old) == SOFTALIGN_OK);
      if (r_on != NULL && r_old != NULL && r_off != NULL) {
        size_t n_on = 0, n_old = 0, n_off = 0;
        const int32_t* ids_on = softalign_result_ids(r_on, 0, &n_on);
        const int32_t* ids_old = softalign_result_ids(r_old, 0, &n_old);
        const int32_t* ids_off = softalign_result_ids(r_off, 0, &n_off);
        CHECK(n_on == n_old && (n_on == 0 || memcmp(ids_on, ids_old, n_on * sizeof *ids_on) == 0));
        if (n_on != n_off || (n_on > 0 && memcmp(ids_on, ids_off, n_on * sizeof *ids_on) != 0)) some_differ = 1;
      }
      softalign_result_free(r_off);
      softalign_result_free(r_ids);
      softalign_result_free(r_on);
      softalign_result_free(r_old);
    }
    softalign_translator_free(on);
    softalign_translator_free(off);
    softalign_translator_free(old);
  }
  CHECK(some_differ); /* the shortlist was in use by default */
}

/* copy_through: on by default, also for a caller's struct from before the
 * field; the same ids either way; each <unk> the model emits (U+2047 in the
 * text without copy-through) is replaced by the source word it aligns to. */
/* A glossary (TSV text): each term's target is in the text, whatever the
 * (random-weight) model writes; a bad line is refused, naming it; a caller
 * whose struct predates the field gets no glossary. */
static void test_glossary(const softalign_model* m) {
  softalign_translator_options o;
  softalign_translator_options_default(&o);
  CHECK(o.glossary_tsv == NULL);
  o.glossary_tsv = "# terms\ntests\tessais\nfile\tdossier\n";
  softalign_translator *t = NULL, *old = NULL, *bad = NULL;
  CHECK(softalign_translator_create(m, &o, &t) == SOFTALIGN_OK);
  o.struct_size = offsetof(softalign_translator_options, glossary_tsv);
  CHECK(softalign_translator_create(m, &o, &old) == SOFTALIGN_OK);
  o.struct_size = sizeof o;
  o.glossary_tsv = "tests\tessais\nno tab\n";
  CHECK(softalign_translator_create(m, &o, &bad) == SOFTALIGN_INVALID_ARGUMENT);
  CHECK(bad == NULL);
  CHECK(error_mentions("glossary line 2"));
  softalign_result* r = NULL;
  CHECK(t != NULL && softalign_translate(t, "run the tests on the file", &r) == SOFTALIGN_OK);
  if (r != NULL) {
    /* first letter in either case: a capital where a sentence starts */
    CHECK(strstr(softalign_result_text(r, 0), "ssais") != NULL);
    CHECK(strstr(softalign_result_text(r, 0), "ossier") != NULL);
    softalign_result_free(r);
  }
  r = NULL;
  CHECK(old != NULL && softalign_translate(old, "run the tests on the file", &r) == SOFTALIGN_OK);
  if (r != NULL) {
    CHECK(strstr(softalign_result_text(r, 0), "ssais") == NULL);
    softalign_result_free(r);
  }
  softalign_translator_free(t);
  softalign_translator_free(old);
}

/* Every hypothesis has a confidence in [0, 1]; the golden files carry no
 * calibration (softalign-convert --confidence), so it is the pieces' geometric
 * mean probability: exp(log_prob / pieces), EOS included. */
static void test_confidence(const softalign_model* m) {
  softalign_model_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  CHECK(softalign_model_get_info(m, &info) == SOFTALIGN_OK);
  CHECK(info.confidence_calibrated == 0);
  CHECK(info.pretokenized == 0);
  softalign_translator_options o;
  softalign_translator_options_default(&o);
  o.beam = 3;
  o.nbest = 3;
  o.copy_through = 0;
  softalign_translator* t = NULL;
  CHECK(softalign_translator_create(m, &o, &t) == SOFTALIGN_OK);
  softalign_result* r = NULL;
  CHECK(t != NULL && softalign_translate(t, "the cat sat", &r) == SOFTALIGN_OK);
  if (r != NULL) {
    for (size_t h = 0; h < softalign_result_count(r); ++h) {
      const float c = softalign_result_confidence(r, h);
      size_t n = 0;
      softalign_result_ids(r, h, &n);
      const double lp = softalign_result_log_prob(r, h);
      CHECK(c >= 0.0f && c <= 1.0f);
      /* n + 1 pieces with the EOS; n for a hypothesis cut at the maximum length */
      CHECK(fabs(c - exp(lp / (double)(n + 1))) < 1e-4 || (n > 0 && fabs(c - exp(lp / (double)n)) < 1e-4));
    }
    CHECK(softalign_result_confidence(r, softalign_result_count(r)) == 0.0f);
    softalign_result_free(r);
  }
  CHECK(softalign_result_confidence(NULL, 0) == 0.0f);
  softalign_translator_free(t);
}

static void test_copy_through(const softalign_model* m, const golden_data* g) {
  softalign_translator_options o;
  softalign_translator_options_default(&o);
  CHECK(o.copy_through == 1);
  const search_params* p = &g->searches[search_index(g, "greedy")];
  o.beam = 1;
  o.max_len_a = p->max_len_a;
  o.max_len_b = p->max_len_b;
  softalign_translator *on = NULL, *off = NULL, *old = NULL;
  CHECK(softalign_translator_create(m, &o, &on) == SOFTALIGN_OK);
  o.struct_size = offsetof(softalign_translator_options, copy_through);
  CHECK(softalign_translator_create(m, &o, &old) == SOFTALIGN_OK);
  o.struct_size = sizeof o;
  o.copy_through = 0;
  CHECK(softalign_translator_create(m, &o, &off) == SOFTALIGN_OK);
  const char* unk = "\xE2\x81\x87";
  for (int i = 0; i < g->n_sentences && on != NULL && off != NULL && old != NULL; ++i) {
    softalign_result *r_on = NULL, *r_off = NULL, *r_old = NULL;
    CHECK(softalign_translate(on, g->sentences[i].src, &r_on) == SOFTALIGN_OK);
    CHECK(softalign_translate(off, g->sentences[i].src, &r_off) == SOFTALIGN_OK);
    CHECK(softalign_translate(old, g->sentences[i].src, &r_old) == SOFTALIGN_OK);
    if (r_on == NULL || r_off == NULL || r_old == NULL) continue;
    size_t n_on = 0, n_off = 0;
    const int32_t* ids_on = softalign_result_ids(r_on, 0, &n_on);
    const int32_t* ids_off = softalign_result_ids(r_off, 0, &n_off);
    CHECK(n_on == n_off && (n_on == 0 || memcmp(ids_on, ids_off, n_on * sizeof *ids_on) == 0));
    CHECK(strcmp(softalign_result_text(r_on, 0), softalign_result_text(r_old, 0)) == 0);
    CHECK(strstr(softalign_result_text(r_on, 0), unk) == NULL);
    int has_unk = 0;
    for (size_t k = 0; k < n_off; ++k) has_unk |= ids_off[k] == 1; /* unk_id of the golden models */
    CHECK((strstr(softalign_result_text(r_off, 0), unk) != NULL) == has_unk);
    softalign_result_free(r_on);
    softalign_result_free(r_off);
    softalign_result_free(r_old);
  }
  /* The protected spans, as byte ranges of the source. */
  const char* src = "see libfoo-dev and http://example.org/a_b for v2.6";
  const char* want[] = {"libfoo-dev", "http://example.org/a_b", "v2.6"};
  softalign_result *r_on = NULL, *r_off = NULL;
  CHECK(on != NULL && softalign_translate(on, src, &r_on) == SOFTALIGN_OK);
  CHECK(off != NULL && softalign_translate(off, src, &r_off) == SOFTALIGN_OK);
  CHECK(softalign_result_protected_count(r_on) == 3);
  for (size_t k = 0; k < 3 && softalign_result_protected_count(r_on) == 3; ++k) {
    size_t b = 99, e = 99;
    CHECK(softalign_result_protected_span(r_on, k, &b, &e) == 1);
    CHECK(e - b == strlen(want[k]) && strncmp(src + b, want[k], e - b) == 0);
  }
  size_t b = 7, e = 7;
  CHECK(softalign_result_protected_span(r_on, 3, &b, &e) == 0 && b == 7 && e == 7);
  CHECK(softalign_result_protected_count(r_off) == 0);
  CHECK(softalign_result_protected_count(NULL) == 0 && softalign_result_protected_span(NULL, 0, &b, &e) == 0);
  softalign_result_free(r_on);
  softalign_result_free(r_off);
  softalign_translator_free(on);
  softalign_translator_free(off);
  softalign_translator_free(old);
}

static void test_kernels_option(const softalign_model* m) {
  softalign_translator_options o;
  softalign_translator_options_default(&o);
  o.kernels = "ref";
  softalign_translator* t = NULL;
  CHECK(softalign_translator_create(m, &o, &t) == SOFTALIGN_OK);
  softalign_translator_free(t);
  o.kernels = "no-such-kernels";
  t = (softalign_translator*)&t;
  CHECK(softalign_translator_create(m, &o, &t) != SOFTALIGN_OK);
  CHECK(t == NULL);
  CHECK(error_mentions("no-such-kernels"));
}

/* ---- Issue 49: struct sizes, per-item batch statuses, the text rule, NaN -------- */

/* A field of a versioned struct: its name, offset and size. */
typedef struct {
  const char* name;
  size_t offset, size;
} field_span;

#define FIELD(T, f) {#f, offsetof(T, f), sizeof(((T*)0)->f)}

static const field_span k_option_fields[] = {
    FIELD(softalign_translator_options, struct_size),
    FIELD(softalign_translator_options, max_source_tokens),
    FIELD(softalign_translator_options, beam),
    FIELD(softalign_translator_options, nbest),
    FIELD(softalign_translator_options, alpha),
    FIELD(softalign_translator_options, beta),
    FIELD(softalign_translator_options, max_len_a),
    FIELD(softalign_translator_options, max_len_b),
    FIELD(softalign_translator_options, alignment),
    FIELD(softalign_translator_options, threads),
    FIELD(softalign_translator_options, split_long_input),
    FIELD(softalign_translator_options, replace_invalid_utf8),
    FIELD(softalign_translator_options, kernels),
    FIELD(softalign_translator_options, use_shortlist),
    FIELD(softalign_translator_options, max_arena_bytes),
    FIELD(softalign_translator_options, device),
    FIELD(softalign_translator_options, copy_through),
    FIELD(softalign_translator_options, max_line_bytes),
    FIELD(softalign_translator_options, block_repeats),
    FIELD(softalign_translator_options, repair_placeholders),
    FIELD(softalign_translator_options, glossary_tsv),
    FIELD(softalign_translator_options, timeout_ms),
    FIELD(softalign_translator_options, beam_rules),
};

static const field_span k_info_fields[] = {
    FIELD(softalign_model_info, struct_size),      FIELD(softalign_model_info, name),
    FIELD(softalign_model_info, src_lang),         FIELD(softalign_model_info, tgt_lang),
    FIELD(softalign_model_info, variant),          FIELD(softalign_model_info, score),
    FIELD(softalign_model_info, scope),            FIELD(softalign_model_info, weight_type),
    FIELD(softalign_model_info, window_d),         FIELD(softalign_model_info, input_feeding),
    FIELD(softalign_model_info, enc_layers),       FIELD(softalign_model_info, dec_layers),
    FIELD(softalign_model_info, emb_size),         FIELD(softalign_model_info, enc_hidden),
    FIELD(softalign_model_info, dec_hidden),       FIELD(softalign_model_info, att_hidden),
    FIELD(softalign_model_info, maxout_size),      FIELD(softalign_model_info, src_vocab),
    FIELD(softalign_model_info, tgt_vocab),        FIELD(softalign_model_info, shared_vocab),
    FIELD(softalign_model_info, pad_id),           FIELD(softalign_model_info, unk_id),
    FIELD(softalign_model_info, bos_id),           FIELD(softalign_model_info, eos_id),
    FIELD(softalign_model_info, max_src_len),      FIELD(softalign_model_info, default_beam),
    FIELD(softalign_model_info, default_nbest),    FIELD(softalign_model_info, default_alpha),
    FIELD(softalign_model_info, default_beta),     FIELD(softalign_model_info, default_max_len_a),
    FIELD(softalign_model_info, default_max_len_b), FIELD(softalign_model_info, schema_version),
    FIELD(softalign_model_info, file_bytes),       FIELD(softalign_model_info, confidence_calibrated),
    FIELD(softalign_model_info, pretokenized),
};

#undef FIELD

/* The table lists every field of a struct of `size` bytes, in order: a field
 * added to the header without a row here fails this check. */
static void check_field_table(const field_span* f, size_t n, size_t size) {
  CHECK(f[0].offset == 0);
  for (size_t i = 1; i < n; ++i) CHECK(f[i].offset >= f[i - 1].offset + f[i - 1].size);
  const size_t end = f[n - 1].offset + f[n - 1].size;
  CHECK(end <= size && size - end < 8); /* only the tail padding after the last field */
}

/* A struct_size that ends inside a field is refused (SOFTALIGN_INVALID_ARGUMENT, naming the
 * field), for every field and every byte inside it; one that ends at a field's end (an older
 * header's struct, its padding included) is taken. The pointer fields hold valid strings: a
 * size ending inside one used to read half a pointer (SIGSEGV in strlen). */
static void test_struct_size_boundaries(const softalign_model* m) {
  const size_t n_opt = sizeof k_option_fields / sizeof k_option_fields[0];
  check_field_table(k_option_fields, n_opt, sizeof(softalign_translator_options));
  for (size_t i = 0; i < n_opt; ++i) {
    const field_span* f = &k_option_fields[i];
    for (size_t size = f->offset + 1; size <= f->offset + f->size; ++size) {
      softalign_translator_options o;
      softalign_translator_options_default(&o);
      o.kernels = "ref";
      o.device = "cpu";
      o.glossary_tsv = "# no terms\n";
      o.struct_size = size;
      softalign_translator* t = (softalign_translator*)&t;
      const softalign_status st = softalign_translator_create(m, &o, &t);
      if (size < f->offset + f->size) {
        if (st != SOFTALIGN_INVALID_ARGUMENT || !error_mentions(f->name) || !error_mentions("struct_size"))
          fprintf(stderr, "options struct_size %zu (inside %s): %s\n", size, f->name, softalign_last_error());
        CHECK(st == SOFTALIGN_INVALID_ARGUMENT);
        CHECK(error_mentions(f->name) && error_mentions("struct_size"));
        CHECK(t == NULL);
      } else {
        if (st != SOFTALIGN_OK) fprintf(stderr, "options struct_size %zu (%s's end): %s\n", size, f->name,
                                        softalign_last_error());
        CHECK(st == SOFTALIGN_OK);
        softalign_translator_free(t);
      }
    }
  }
  /* The issue's cases, and options_init with such a size: create refuses what it made. */
  {
    softalign_translator_options o;
    softalign_translator_options_default(&o);
    o.kernels = "ref";
    o.struct_size = offsetof(softalign_translator_options, kernels) + 4;
    softalign_translator* t = NULL;
    CHECK(softalign_translator_create(m, &o, &t) == SOFTALIGN_INVALID_ARGUMENT);
    softalign_translator_options_default(&o);
    o.device = "cpu";
    o.struct_size = offsetof(softalign_translator_options, device) + 3;
    CHECK(softalign_translator_create(m, &o, &t) == SOFTALIGN_INVALID_ARGUMENT);
    softalign_translator_options_init(&o, offsetof(softalign_translator_options, max_arena_bytes) + 2);
    CHECK(softalign_translator_create(m, &o, &t) == SOFTALIGN_INVALID_ARGUMENT);
    /* Larger than this header's struct (a newer caller): the fields known are read. */
    unsigned char big[sizeof(softalign_translator_options) + 24];
    memset(big, 0, sizeof big);
    softalign_translator_options_default((softalign_translator_options*)(void*)big);
    ((softalign_translator_options*)(void*)big)->struct_size = sizeof big;
    CHECK(softalign_translator_create(m, (softalign_translator_options*)(void*)big, &t) == SOFTALIGN_OK);
    softalign_translator_free(t);
  }

  /* softalign_model_info: the same rule; nothing is written for a refused size. */
  const size_t n_info = sizeof k_info_fields / sizeof k_info_fields[0];
  check_field_table(k_info_fields, n_info, sizeof(softalign_model_info));
  for (size_t i = 0; i < n_info; ++i) {
    const field_span* f = &k_info_fields[i];
    for (size_t size = f->offset + 1; size <= f->offset + f->size; ++size) {
      unsigned char buf[sizeof(softalign_model_info) + 16];
      memset(buf, 0xAB, sizeof buf);
      softalign_model_info* info = (softalign_model_info*)(void*)buf;
      info->struct_size = size;
      const softalign_status st = softalign_model_get_info(m, info);
      const int inside = size < f->offset + f->size;
      CHECK(st == (inside ? SOFTALIGN_INVALID_ARGUMENT : SOFTALIGN_OK));
      if (inside) CHECK(error_mentions(f->name) && error_mentions("struct_size"));
      int untouched = 1;
      for (size_t k = inside ? sizeof(size_t) : size; k < sizeof buf; ++k) untouched &= buf[k] == 0xAB;
      CHECK(untouched);
    }
  }
}

/* A translator's float options refuse NaN (SOFTALIGN_INVALID_ARGUMENT), as C++ and Python do;
 * negative values still mean the model's default. */
static void test_nan_options(const softalign_model* m) {
  for (int which = 0; which < 4; ++which) {
    softalign_translator_options o;
    softalign_translator_options_default(&o);
    float* field = which == 0 ? &o.alpha : which == 1 ? &o.beta : which == 2 ? &o.max_len_a : &o.max_len_b;
    *field = NAN;
    softalign_translator* t = (softalign_translator*)&t;
    CHECK(softalign_translator_create(m, &o, &t) == SOFTALIGN_INVALID_ARGUMENT);
    CHECK(t == NULL);
    *field = INFINITY;
    CHECK(softalign_translator_create(m, &o, &t) == SOFTALIGN_INVALID_ARGUMENT);
    *field = -1.0f;
    CHECK(softalign_translator_create(m, &o, &t) == SOFTALIGN_OK);
    softalign_translator_free(t);
  }
}

/* Whether two results have the same source pieces and best text. */
static int same_translation(const softalign_result* a, const softalign_result* b) {
  if (a == NULL || b == NULL) return 0;
  if (softalign_result_source_count(a) != softalign_result_source_count(b)) return 0;
  for (size_t k = 0; k < softalign_result_source_count(a); ++k)
    if (strcmp(softalign_result_source_piece(a, k), softalign_result_source_piece(b, k)) != 0) return 0;
  return strcmp(softalign_result_text(a, 0), softalign_result_text(b, 0)) == 0;
}

/* The text rule: an encoded surrogate (a lone surrogate of a UTF-16 string), C0 80 (NUL as
 * Java's modified UTF-8 writes it) and any other invalid byte are SOFTALIGN_INVALID_UTF8, or
 * with replace_invalid_utf8 one U+FFFD each. (A C string cannot hold a NUL byte.) */
static void test_text_rule(const softalign_model* m) {
  softalign_translator_options o;
  softalign_translator_options_default(&o);
  o.beam = 1;
  o.nbest = 1;
  softalign_translator* strict = NULL;
  CHECK(softalign_translator_create(m, &o, &strict) == SOFTALIGN_OK);
  o.replace_invalid_utf8 = 1;
  softalign_translator* lenient = NULL;
  CHECK(softalign_translator_create(m, &o, &lenient) == SOFTALIGN_OK);
  if (strict == NULL || lenient == NULL) return;
  softalign_result* want = NULL;
  CHECK(softalign_translate(lenient, "with \xEF\xBF\xBD the", &want) == SOFTALIGN_OK);
  const char* bad[] = {"with \xED\xB2\x80 the", "with \xC0\x80 the", "with \xFF the"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    softalign_result* r = (softalign_result*)&r;
    CHECK(softalign_translate(strict, bad[i], &r) == SOFTALIGN_INVALID_UTF8);
    CHECK(r == NULL);
    CHECK(error_mentions("at byte 5"));
    size_t count = 0;
    CHECK(softalign_model_encode(m, bad[i], NULL, 0, &count) == SOFTALIGN_INVALID_UTF8);
    CHECK(softalign_translate(lenient, bad[i], &r) == SOFTALIGN_OK);
    CHECK(same_translation(r, want));
    softalign_result_free(r);
  }
  softalign_result_free(want);
  softalign_translator_free(strict);
  softalign_translator_free(lenient);
}

/* softalign_translate_batch_status: each text its own status. 30 texts, 10 of them bad: the
 * 20 others are translated as alone, the 10 fail alone; softalign_translate_batch keeps its
 * meaning (one bad text fails the call, every out[i] NULL). */
static void test_batch_status(const softalign_model* m, const golden_data* g) {
  softalign_translator* t = make_translator(m, &g->searches[0], 0);
  if (t == NULL) return;
  enum { N = 30 };
  const char* texts[N];
  const char* bad[] = {"ab\xFF" "cd", "x\xC0\x80y", "\xED\xB2\x80", "caf\xC3", "\xF4\x90\x80\x80"};
  int n_bad = 0;
  for (int i = 0; i < N; ++i) {
    if (i % 3 == 1) {
      texts[i] = bad[n_bad++ % 5];
    } else {
      texts[i] = g->sentences[i % g->n_sentences].src;
    }
  }
  CHECK(n_bad == 10);
  softalign_result* out[N];
  int32_t status[N];
  for (int i = 0; i < N; ++i) {
    out[i] = (softalign_result*)&out[i];
    status[i] = -1;
  }
  CHECK(softalign_translate_batch_status(t, texts, N, out, status) == SOFTALIGN_INVALID_UTF8);
  CHECK(error_mentions("texts[1]") && error_mentions("10 of 30"));
  int failed = 0;
  for (int i = 0; i < N; ++i) {
    if (i % 3 == 1) {
      CHECK(status[i] == SOFTALIGN_INVALID_UTF8);
      CHECK(out[i] == NULL);
      ++failed;
      continue;
    }
    CHECK(status[i] == SOFTALIGN_OK);
    softalign_result* alone = NULL;
    CHECK(softalign_translate(t, texts[i], &alone) == SOFTALIGN_OK);
    CHECK(same_translation(out[i], alone));
    softalign_result_free(alone);
    softalign_result_free(out[i]);
  }
  CHECK(failed == 10);

  /* A NULL text fails alone too; all good: SOFTALIGN_OK. */
  const char* with_null[3] = {g->sentences[0].src, NULL, ""};
  CHECK(softalign_translate_batch_status(t, with_null, 3, out, status) == SOFTALIGN_INVALID_ARGUMENT);
  CHECK(status[0] == SOFTALIGN_OK && status[1] == SOFTALIGN_INVALID_ARGUMENT && status[2] == SOFTALIGN_OK);
  CHECK(out[0] != NULL && out[1] == NULL && out[2] != NULL);
  CHECK(error_mentions("texts[1]"));
  softalign_result_free(out[0]);
  softalign_result_free(out[2]);
  CHECK(softalign_translate_batch_status(t, with_null, 1, out, status) == SOFTALIGN_OK);
  CHECK(status[0] == SOFTALIGN_OK);
  softalign_result_free(out[0]);
  CHECK(softalign_translate_batch_status(t, NULL, 0, NULL, NULL) == SOFTALIGN_OK);

  /* Errors of the call itself: every status that code, every out[i] NULL. */
  out[0] = (softalign_result*)&out[0];
  CHECK(softalign_translate_batch_status(NULL, texts, 1, out, status) == SOFTALIGN_INVALID_ARGUMENT);
  CHECK(out[0] == NULL && status[0] == SOFTALIGN_INVALID_ARGUMENT);
  CHECK(softalign_translate_batch_status(t, texts, 1, out, NULL) == SOFTALIGN_INVALID_ARGUMENT);
  CHECK(error_mentions("status"));
  CHECK(softalign_translate_batch_status(t, texts, 1, NULL, status) == SOFTALIGN_INVALID_ARGUMENT);
  CHECK(softalign_translate_batch_status(t, NULL, 1, out, status) == SOFTALIGN_INVALID_ARGUMENT);

  /* The old call: one bad text fails it whole. */
  for (int i = 0; i < N; ++i) out[i] = (softalign_result*)&out[i];
  CHECK(softalign_translate_batch(t, texts, N, out) == SOFTALIGN_INVALID_UTF8);
  int all_null = 1;
  for (int i = 0; i < N; ++i) all_null &= out[i] == NULL;
  CHECK(all_null);
  softalign_translator_free(t);
}

/* ---- Stop and stream (capi_test --stop SHIPPED_MODEL) ------------------------ */

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000.0 + t.tv_nsec / 1e6;
}

/* About 900 kB of sentences on one line (malloc'ed). */
static char* huge_line(void) {
  static const char s[] = "This package contains the documentation. A simple text editor with many plugins. ";
  const size_t n = 900 * 1024 / (sizeof s - 1);
  char* line = malloc(n * (sizeof s - 1) + 1);
  for (size_t i = 0; i < n; ++i) memcpy(line + i * (sizeof s - 1), s, sizeof s - 1);
  line[n * (sizeof s - 1) - 1] = '\0';
  return line;
}

typedef struct {
  softalign_translator* tr;
  const char* text;
  softalign_status st;
  softalign_result* r;
  double returned_ms;
  atomic_int done;
} stop_call;

static void* run_call(void* arg) {
  stop_call* c = arg;
  c->st = softalign_translate(c->tr, c->text, &c->r);
  c->returned_ms = now_ms();
  atomic_store(&c->done, 1);
  return NULL;
}

/* A cancel stops the calls running when it is made; on a loaded machine
   the call's thread may start it after the first one (a new thread can wait
   past 100 ms for a core). So the first cancel is the one timed, and it is
   repeated until the call has returned. */
static void cancel_until_done(stop_call* c) {
  struct timespec tick = {0, 10 * 1000 * 1000};
  softalign_translator_cancel(c->tr);
  while (!atomic_load(&c->done)) {
    nanosleep(&tick, NULL);
    softalign_translator_cancel(c->tr);
  }
}

typedef struct {
  char text[4096];   /* the pieces, then the sentences, each followed by '|' */
  char joined[4096]; /* the sentences joined by a space */
  int events, stop_after;
} streamed;

static int on_event(const softalign_stream_event* e, void* user) {
  streamed* s = user;
  char* out = e->kind == SOFTALIGN_STREAM_PIECE ? s->text : s->joined;
  if (e->kind == SOFTALIGN_STREAM_SENTENCE && out[0] != '\0' && e->text[0] != '\0') strcat(out, " ");
  if (strlen(out) + strlen(e->text) + 2 < sizeof s->text) strcat(out, e->text);
  if (e->kind == SOFTALIGN_STREAM_PIECE) strcat(out, "|");
  return ++s->events >= s->stop_after;
}

static void test_stop(const char* model_path) {
  softalign_model* m = NULL;
  CHECK(softalign_model_load(model_path, &m) == SOFTALIGN_OK);
  softalign_translator* tr = NULL;
  CHECK(softalign_translator_create_json((const softalign_model* const*)&m, 1, "{\"beam\": 1}", &tr) == SOFTALIGN_OK);
  if (tr == NULL) return;
  const char* short_text = "A simple text editor.";
  softalign_result* r = NULL;
  CHECK(softalign_translate(tr, short_text, &r) == SOFTALIGN_OK);
  char expected[512];
  snprintf(expected, sizeof expected, "%s", softalign_result_text(r, 0));
  softalign_result_free(r);

  /* Cancelled from another thread after 100 ms. */
  char* line = huge_line();
  stop_call c = {tr, line, SOFTALIGN_OK, NULL, 0, 0};
  pthread_t th;
  const double t0 = now_ms();
  pthread_create(&th, NULL, run_call, &c);
  struct timespec wait = {0, 100 * 1000 * 1000};
  nanosleep(&wait, NULL);
  const double cancelled = now_ms();
  cancel_until_done(&c);
  pthread_join(th, NULL);
  printf("stop: C cancel: cancelled at %.1f ms, returned at %.1f ms (%.1f ms after)\n", cancelled - t0,
         c.returned_ms - t0, c.returned_ms - cancelled);
  CHECK(c.st == SOFTALIGN_CANCELLED);
  CHECK(c.r == NULL);
  CHECK(strstr(softalign_last_error(), "cancelled") == NULL); /* the message is per thread: not this one's */
  CHECK(c.returned_ms - cancelled < 2000.0);
  CHECK(softalign_translate(tr, short_text, &r) == SOFTALIGN_OK);
  CHECK(r != NULL && strcmp(softalign_result_text(r, 0), expected) == 0);
  softalign_result_free(r);

  /* The timeout_ms option: every call's deadline. */
  softalign_translator* timed = NULL;
  softalign_translator_options o;
  softalign_translator_options_default(&o);
  CHECK(o.timeout_ms == 0);
  o.beam = 1;
  o.timeout_ms = 100;
  CHECK(softalign_translator_create(m, &o, &timed) == SOFTALIGN_OK);
  double t1 = now_ms();
  CHECK(softalign_translate(timed, line, &r) == SOFTALIGN_DEADLINE_EXCEEDED);
  printf("stop: C deadline 100 ms: returned at %.1f ms\n", now_ms() - t1);
  CHECK(strcmp(softalign_last_error(), "deadline_exceeded: past timeout_ms") == 0);
  CHECK(now_ms() - t1 < 2000.0);
  CHECK(softalign_translate(timed, short_text, &r) == SOFTALIGN_OK);
  CHECK(r != NULL && strcmp(softalign_result_text(r, 0), expected) == 0);
  softalign_result_free(r);
  softalign_translator_free(timed);
  /* A per-call deadline: softalign_translator_set_timeout_ms before the call. */
  CHECK(softalign_translator_set_timeout_ms(tr, 100) == SOFTALIGN_OK);
  t1 = now_ms();
  CHECK(softalign_translate(tr, line, &r) == SOFTALIGN_DEADLINE_EXCEEDED);
  printf("stop: C set_timeout_ms 100: returned at %.1f ms\n", now_ms() - t1);
  CHECK(now_ms() - t1 < 2000.0);
  const char* batch[2] = {short_text, line};
  softalign_result* rs[2] = {NULL, NULL};
  int32_t codes[2] = {0, 0};
  CHECK(softalign_translate_batch_status(tr, batch, 2, rs, codes) == SOFTALIGN_DEADLINE_EXCEEDED);
  CHECK(codes[1] == SOFTALIGN_DEADLINE_EXCEEDED && rs[1] == NULL);
  softalign_result_free(rs[0]);
  CHECK(softalign_translator_set_timeout_ms(tr, -1) == SOFTALIGN_OK); /* back to the options' (none) */
  CHECK(softalign_translate(tr, short_text, &r) == SOFTALIGN_OK);
  CHECK(r != NULL && strcmp(softalign_result_text(r, 0), expected) == 0);
  softalign_result_free(r);
  CHECK(softalign_translator_set_timeout_ms(tr, -2) == SOFTALIGN_INVALID_ARGUMENT);
  CHECK(strstr(softalign_last_error(), "timeout_ms") != NULL);
  CHECK(softalign_translator_set_timeout_ms(NULL, 5) == SOFTALIGN_INVALID_ARGUMENT);
  CHECK(softalign_translator_create(m, &o, &timed) == SOFTALIGN_OK); /* timeout_ms 100 */
  CHECK(softalign_translator_set_timeout_ms(timed, 0) == SOFTALIGN_OK); /* none, over the option */
  CHECK(softalign_translate(timed, short_text, &r) == SOFTALIGN_OK);
  softalign_result_free(r);
  CHECK(softalign_translator_set_timeout_ms(timed, -1) == SOFTALIGN_OK); /* the option's 100 ms again */
  CHECK(softalign_translate(timed, line, &r) == SOFTALIGN_DEADLINE_EXCEEDED);
  softalign_translator_free(timed);
  o.timeout_ms = -1;
  CHECK(softalign_translator_create(m, &o, &timed) == SOFTALIGN_INVALID_ARGUMENT);
  CHECK(softalign_translator_create_json((const softalign_model* const*)&m, 1, "{\"timeout_ms\": \"1\"}", &timed) ==
        SOFTALIGN_INVALID_ARGUMENT);

  /* Streaming: the pieces are the result's, the sentences its text. */
  static streamed got;
  memset(&got, 0, sizeof got);
  got.stop_after = 1 << 30;
  CHECK(softalign_translate_stream(tr, short_text, on_event, &got, &r) == SOFTALIGN_OK);
  char pieces[4096] = "";
  for (size_t k = 0; r != NULL && softalign_result_piece(r, 0, k) != NULL; ++k) {
    strcat(pieces, softalign_result_piece(r, 0, k));
    strcat(pieces, "|");
  }
  CHECK(strcmp(got.text, pieces) == 0);
  CHECK(r != NULL && strcmp(got.joined, softalign_result_text(r, 0)) == 0);
  softalign_result_free(r);
  /* Nonzero from the callback stops the call: cancelled, and the translator goes on. */
  memset(&got, 0, sizeof got);
  got.stop_after = 2;
  t1 = now_ms();
  CHECK(softalign_translate_stream(tr, line, on_event, &got, &r) == SOFTALIGN_CANCELLED);
  printf("stop: C stream callback stop after 2 pieces: returned at %.1f ms\n", now_ms() - t1);
  CHECK(r == NULL);
  CHECK(got.events == 2);
  CHECK(strcmp(softalign_last_error(), "cancelled: stream callback") == 0);
  CHECK(softalign_translate_stream(tr, short_text, NULL, NULL, &r) == SOFTALIGN_OK);
  CHECK(r != NULL && strcmp(softalign_result_text(r, 0), expected) == 0);
  softalign_result_free(r);
  free(line);
  softalign_translator_free(tr);
  softalign_model_free(m);
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "--stop") == 0) {
    test_stop(argv[2]);
    printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed == 0 ? 0 : 1;
  }
  const int shortlist = argc == 4 && strcmp(argv[1], "--shortlist") == 0;
  if (argc != 3 && !shortlist) {
    fprintf(stderr, "usage: %s [--shortlist] MODEL.softalign GOLDEN.txt\n", argv[0]);
    return 2;
  }
  argv += shortlist;
  static golden_data g; /* large: not on the stack */
  if (!load_golden(argv[2], &g)) {
    fprintf(stderr, "cannot read the golden expectations in %s\n", argv[2]);
    return 2;
  }
  CHECK(search_index(&g, "greedy") == 0);

  if (!shortlist) {
    test_null_arguments(argv[1]);
    test_bad_files(argv[1]);
  }

  softalign_model* m = NULL;
  if (softalign_model_load(argv[1], &m) != SOFTALIGN_OK) {
    fprintf(stderr, "cannot load %s: %s\n", argv[1], softalign_last_error());
    return 1;
  }
  if (shortlist) {
    test_use_shortlist(m, &g);
    softalign_model_free(m);
    printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed == 0 ? 0 : 1;
  }
  test_info(m, &g);
  test_encode(m, &g);
  test_options(m);
  test_json(m);
  test_searches(m, &g);
  test_ensemble_and_prefix(argv[1], m, &g);
  test_bad_input(m, &g);
  test_kernels_option(m);
  test_copy_through(m, &g);
  test_glossary(m);
  test_confidence(m);
  test_threads(m, &g);
  test_struct_size_boundaries(m);
  test_nan_options(m);
  test_text_rule(m);
  test_batch_status(m, &g);
  softalign_model_free(m);
  test_lifetime(argv[1], &g);

  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
