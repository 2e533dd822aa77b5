// The WebAssembly module's glue: a few plain-C functions over the C API
// (softalign.h) that the JS API (softalign.js) calls. Options go in and
// results come back as JSON, the library's own (softalign_translator_create_json,
// softalign_result_json), so the JS side never reads the library's structs. No exception crosses here:
// everything below calls the C API, whose guard turns them into statuses.
#include <softalign/softalign.h>

#include <emscripten/emscripten.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

namespace {

void put_string(std::string& out, const char* s) {
  out += '"';
  for (const unsigned char* p = reinterpret_cast<const unsigned char*>(s ? s : ""); *p; ++p) {
    switch (*p) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (*p < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", *p);
          out += buf;
        } else {
          out += static_cast<char>(*p);
        }
    }
  }
  out += '"';
}

// A result's JSON (the library's writer), or a bad_alloc.
void put_result(std::string& out, const softalign_result* r) {
  const char* json = softalign_result_json(r);
  if (json == nullptr) throw std::bad_alloc();
  out += json;
}

char* to_heap(const std::string& s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (p != nullptr) std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}

// A stream event to the JS side (softalign.js sets Module.onStreamEvent for
// the call); nonzero from it stops the call.
EM_JS(int, sa_web_stream_event, (int kind, double index, int id, const char* text), {
  return Module.onStreamEvent(kind, index, id, UTF8ToString(text)) ? 1 : 0;
});

int stream_event(const softalign_stream_event* e, void*) {
  return sa_web_stream_event(e->kind, static_cast<double>(e->index), e->id, e->text);
}

}  // namespace

extern "C" {

// Memory for the JS side: model bytes (aligned to 32, as
// softalign_model_load_memory needs), texts, and the returned JSON.
EMSCRIPTEN_KEEPALIVE void* sa_web_alloc(size_t size) { return std::aligned_alloc(32, (size + 31) / 32 * 32); }
EMSCRIPTEN_KEEPALIVE void sa_web_free(void* p) { std::free(p); }

// The model over bytes the JS side copied into the module's memory (used in
// place: it frees them after the model and every translator are freed).
EMSCRIPTEN_KEEPALIVE int sa_web_model_load(const void* data, size_t size, softalign_model** out) {
  return softalign_model_load_memory(data, size, out);
}

EMSCRIPTEN_KEEPALIVE char* sa_web_model_info(const softalign_model* m) {
  softalign_model_info info;
  info.struct_size = sizeof info;
  if (softalign_model_get_info(m, &info) != SOFTALIGN_OK) return nullptr;
  std::string out = "{\"name\":";
  put_string(out, info.name);
  out += ",\"srcLang\":";
  put_string(out, info.src_lang);
  out += ",\"tgtLang\":";
  put_string(out, info.tgt_lang);
  out += ",\"variant\":";
  put_string(out, info.variant);
  out += ",\"weightType\":";
  put_string(out, info.weight_type);
  out += ",\"srcVocab\":" + std::to_string(info.src_vocab) + ",\"tgtVocab\":" + std::to_string(info.tgt_vocab) +
         ",\"maxSourceTokens\":" + std::to_string(info.max_src_len) + ",\"defaultBeam\":" +
         std::to_string(info.default_beam) + ",\"fileBytes\":" + std::to_string(info.file_bytes) +
         ",\"pretokenized\":" + (info.pretokenized ? "true" : "false") + "}";
  return to_heap(out);
}

// The options the JS side was given, as JSON (softalign_translator_create_json:
// the library's names, types, checks and defaults).
EMSCRIPTEN_KEEPALIVE int sa_web_translator_create(const softalign_model* m, const char* options_json,
                                                  softalign_translator** out) {
  return softalign_translator_create_json(&m, 1, options_json, out);
}

// Translates count texts (count == 1 with a prefix: softalign_translate_prefix).
// On success *json is a JSON array of count results for sa_web_free.
EMSCRIPTEN_KEEPALIVE int sa_web_translate(softalign_translator* tr, const char* const* texts, size_t count,
                                          const char* prefix, char** json) try {
  *json = nullptr;
  std::vector<softalign_result*> results(count, nullptr);
  softalign_status st;
  if (count == 1)
    st = (prefix != nullptr && prefix[0] != '\0') ? softalign_translate_prefix(tr, texts[0], prefix, &results[0])
                                                  : softalign_translate(tr, texts[0], &results[0]);
  else
    st = count == 0 ? SOFTALIGN_OK : softalign_translate_batch(tr, texts, count, results.data());
  if (st == SOFTALIGN_OK) {
    std::string out = "[";
    for (size_t i = 0; i < count; ++i) {
      if (i) out += ',';
      put_result(out, results[i]);
    }
    out += ']';
    *json = to_heap(out);
    if (*json == nullptr) st = SOFTALIGN_RESOURCE_EXHAUSTED;
  }
  for (softalign_result* r : results) softalign_result_free(r);
  return st;
} catch (const std::bad_alloc&) {  // the vector or the JSON string (-fexceptions)
  return SOFTALIGN_RESOURCE_EXHAUSTED;
}

// Translates one text, each of its events to Module.onStreamEvent as it comes
// (softalign_translate_stream). On success *json is a JSON array of its one
// result, as sa_web_translate gives it.
EMSCRIPTEN_KEEPALIVE int sa_web_translate_stream(softalign_translator* tr, const char* text, char** json) try {
  *json = nullptr;
  softalign_result* r = nullptr;
  softalign_status st = softalign_translate_stream(tr, text, stream_event, nullptr, &r);
  if (st == SOFTALIGN_OK) {
    std::string out = "[";
    put_result(out, r);
    out += ']';
    *json = to_heap(out);
    if (*json == nullptr) st = SOFTALIGN_RESOURCE_EXHAUSTED;
  }
  softalign_result_free(r);
  return st;
} catch (const std::bad_alloc&) {
  return SOFTALIGN_RESOURCE_EXHAUSTED;
}

// Translates count texts together, each with its own status
// (softalign_translate_batch_status): on SOFTALIGN_OK *json is a JSON array of
// count items, a text's result or {"failed":CODE} for a text that failed (the
// JS side translates it again alone for its message: the C API names only the
// first failure). An error of the call itself, not of a text, is returned as
// it (the message names no text), with *json NULL.
EMSCRIPTEN_KEEPALIVE int sa_web_translate_each(softalign_translator* tr, const char* const* texts, size_t count,
                                               char** json) try {
  *json = nullptr;
  std::vector<softalign_result*> results(count, nullptr);
  std::vector<int32_t> status(count, SOFTALIGN_OK);
  struct FreeAll {  // on every path, a bad_alloc below included
    std::vector<softalign_result*>& r;
    ~FreeAll() {
      for (softalign_result* x : r) softalign_result_free(x);
    }
  } free_all{results};
  softalign_status st =
      count == 0 ? SOFTALIGN_OK : softalign_translate_batch_status(tr, texts, count, results.data(), status.data());
  // A text's failure is reported as "texts[I]: CODE: MESSAGE (...)" (softalign.h).
  const char* message = softalign_last_error();
  if (st != SOFTALIGN_OK && (message == nullptr || std::strncmp(message, "texts[", 6) != 0)) return st;
  std::string out = "[";
  for (size_t i = 0; i < count; ++i) {
    if (i) out += ',';
    if (status[i] == SOFTALIGN_OK)
      put_result(out, results[i]);
    else
      out += "{\"failed\":" + std::to_string(status[i]) + "}";
  }
  out += ']';
  st = SOFTALIGN_OK;
  *json = to_heap(out);
  if (*json == nullptr) st = SOFTALIGN_RESOURCE_EXHAUSTED;
  return st;
} catch (const std::bad_alloc&) {  // the vectors or the JSON string (-fexceptions)
  return SOFTALIGN_RESOURCE_EXHAUSTED;
}

}  // extern "C"
