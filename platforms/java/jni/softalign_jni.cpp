// JNI glue of the Java binding (platforms/java/src/main/java/org/softalign/Native.java) over the
// C API (runtime/include/softalign/softalign.h).
//
// Text crosses as UTF-8 byte[] both ways: never GetStringUTFChars/NewStringUTF, which speak
// JNI's "modified UTF-8" (a supplementary-plane character such as an emoji is two 3-byte
// surrogates there, and U+0000 two bytes). Java decodes with StandardCharsets.UTF_8 and encodes
// with Translator.text, which writes a lone surrogate as its 3 bytes and U+0000 as C0 80, so that
// the library's rule for text decides (invalid_utf8, or U+FFFD). A byte[] is copied into a
// NUL-terminated buffer; one that holds a NUL byte (which Translator never sends) is refused
// (invalid_argument), since the C API would read only up to it.
//
// A result crosses as its JSON (softalign_result_json, the library's one result writer; the Java
// side reads it in ResultJson.java): the result is freed here, no result handle reaches Java.
//
// A failing C call throws org.softalign.SoftalignException(code, name bytes, message bytes); the
// native method then returns 0/null and Java sees the exception (translateBatchStatus gives each
// text its status instead; only an error of the call throws). No C++ exception leaves this file
// (the C API throws none; our own allocations are guarded).
#include <jni.h>

#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "softalign/softalign.h"

namespace {

jclass g_exception = nullptr;      // org.softalign.SoftalignException (global ref)
jmethodID g_exception_ctor = nullptr;  // (int, byte[], byte[])

jbyteArray to_bytes(JNIEnv* env, const char* s) {
  if (s == nullptr) return nullptr;
  const jsize n = static_cast<jsize>(std::strlen(s));
  jbyteArray a = env->NewByteArray(n);
  if (a != nullptr && n > 0) env->SetByteArrayRegion(a, 0, n, reinterpret_cast<const jbyte*>(s));
  return a;  // null with OutOfMemoryError pending when allocation failed
}

void throw_softalign(JNIEnv* env, int code, const char* name, const std::string& message) {
  if (env->ExceptionCheck()) return;  // one already pending (e.g. OutOfMemoryError)
  jbyteArray n = to_bytes(env, name);
  jbyteArray m = to_bytes(env, message.c_str());
  if (env->ExceptionCheck()) return;
  jobject e = env->NewObject(g_exception, g_exception_ctor, static_cast<jint>(code), n, m);
  if (e != nullptr) env->Throw(static_cast<jthrowable>(e));
}

// Throws for a failed status; returns true when st is OK.
bool check(JNIEnv* env, softalign_status st) {
  if (st == SOFTALIGN_OK) return true;
  throw_softalign(env, static_cast<int>(st), softalign_status_name(st), softalign_last_error());
  return false;
}

void throw_invalid_argument(JNIEnv* env, const std::string& message) {
  throw_softalign(env, SOFTALIGN_INVALID_ARGUMENT, softalign_status_name(SOFTALIGN_INVALID_ARGUMENT),
                  message);
}

void throw_null(JNIEnv* env, const char* what) {
  jclass npe = env->FindClass("java/lang/NullPointerException");
  if (npe != nullptr) env->ThrowNew(npe, what);
}

void throw_closed(JNIEnv* env, const char* what) {
  jclass ise = env->FindClass("java/lang/IllegalStateException");
  if (ise != nullptr) env->ThrowNew(ise, what);
}

// A Java byte[] as a NUL-terminated C string. False (with an exception pending) for null, a
// NUL inside, or no memory.
bool c_string(JNIEnv* env, jbyteArray a, const char* what, std::string* out) {
  if (a == nullptr) {
    throw_null(env, what);
    return false;
  }
  const jsize n = env->GetArrayLength(a);
  try {
    out->assign(static_cast<size_t>(n), '\0');
  } catch (const std::bad_alloc&) {
    jclass oom = env->FindClass("java/lang/OutOfMemoryError");
    if (oom != nullptr) env->ThrowNew(oom, "softalign: text copy");
    return false;
  }
  if (n > 0) env->GetByteArrayRegion(a, 0, n, reinterpret_cast<jbyte*>(&(*out)[0]));
  if (std::memchr(out->data(), '\0', out->size()) != nullptr) {
    throw_invalid_argument(env, std::string("invalid_argument: ") + what +
                                    " holds a NUL byte (the C API reads text up to a NUL)");
    return false;
  }
  return true;
}

template <typename T>
T* handle(JNIEnv* env, jlong h, const char* what) {
  if (h == 0) throw_closed(env, what);
  return reinterpret_cast<T*>(static_cast<intptr_t>(h));
}

jlong to_jlong(const void* p) { return static_cast<jlong>(reinterpret_cast<intptr_t>(p)); }

template <typename F>
bool alloc_or_throw(JNIEnv* env, F&& f) {
  try {
    f();
    return true;
  } catch (const std::bad_alloc&) {
    jclass oom = env->FindClass("java/lang/OutOfMemoryError");
    if (oom != nullptr) env->ThrowNew(oom, "softalign: batch");
    return false;
  }
}

// A batch's texts as C strings (ptrs point into strings).
struct BatchTexts {
  std::vector<std::string> strings;
  std::vector<const char*> ptrs;
};

bool batch_texts(JNIEnv* env, jobjectArray texts, BatchTexts* in) {
  if (texts == nullptr) {
    throw_null(env, "texts");
    return false;
  }
  const jsize n = env->GetArrayLength(texts);
  if (!alloc_or_throw(env, [&] {
        in->strings.resize(static_cast<size_t>(n));
        in->ptrs.resize(static_cast<size_t>(n));
      }))
    return false;
  for (jsize i = 0; i < n; ++i) {
    auto a = static_cast<jbyteArray>(env->GetObjectArrayElement(texts, i));
    const std::string what = "texts[" + std::to_string(i) + "]";
    const bool ok = c_string(env, a, what.c_str(), &in->strings[static_cast<size_t>(i)]);
    env->DeleteLocalRef(a);
    if (!ok) return false;
    in->ptrs[static_cast<size_t>(i)] = in->strings[static_cast<size_t>(i)].c_str();
  }
  return true;
}

// A result's JSON as UTF-8 bytes; the result is freed. Null for a null result (a failed text of
// a batch); null with OutOfMemoryError pending when there is no memory for it.
jbyteArray json_of(JNIEnv* env, softalign_result* r) {
  if (r == nullptr) return nullptr;
  const char* json = softalign_result_json(r);
  jbyteArray out = json != nullptr ? to_bytes(env, json) : nullptr;
  softalign_result_free(r);
  if (json == nullptr) {
    jclass oom = env->FindClass("java/lang/OutOfMemoryError");
    if (oom != nullptr) env->ThrowNew(oom, "softalign: result JSON");
  }
  return out;
}

// The results' JSON as a byte[][] (null for a failed text), every result freed; null with an
// exception pending when a JSON could not be made.
jobjectArray jsons_of(JNIEnv* env, const std::vector<softalign_result*>& out) {
  jclass byte_array = env->FindClass("[B");
  jobjectArray all =
      byte_array == nullptr ? nullptr : env->NewObjectArray(static_cast<jsize>(out.size()), byte_array, nullptr);
  for (size_t i = 0; i < out.size(); ++i) {
    if (all == nullptr || env->ExceptionCheck()) {  // free what nobody will see
      softalign_result_free(out[i]);
      continue;
    }
    jbyteArray json = json_of(env, out[i]);
    if (json == nullptr) continue;
    env->SetObjectArrayElement(all, static_cast<jsize>(i), json);
    env->DeleteLocalRef(json);
  }
  return env->ExceptionCheck() ? nullptr : all;
}

// Whether softalign_translate_batch_status failed as a call (every status that error, no result)
// rather than item by item: an item's failure is reported as "texts[I]: CODE: MESSAGE (F of N
// texts failed; ...)" (softalign.h), a call's error names no text. The glue never passes a NULL
// text (whose message is "invalid_argument: texts[I] is NULL").
bool is_call_error(const char* message) {
  return message == nullptr || std::strncmp(message, "texts[", 6) != 0;
}

}  // namespace

extern "C" {

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM* vm, void*) {
  JNIEnv* env = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_6) != JNI_OK) return JNI_ERR;
  jclass c = env->FindClass("org/softalign/SoftalignException");
  if (c == nullptr) return JNI_ERR;
  g_exception = static_cast<jclass>(env->NewGlobalRef(c));
  env->DeleteLocalRef(c);
  g_exception_ctor = env->GetMethodID(g_exception, "<init>", "(I[B[B)V");
  if (g_exception == nullptr || g_exception_ctor == nullptr) return JNI_ERR;
  return JNI_VERSION_1_6;
}

JNIEXPORT jbyteArray JNICALL Java_org_softalign_Native_version(JNIEnv* env, jclass) {
  return to_bytes(env, softalign_version());
}

JNIEXPORT jlong JNICALL Java_org_softalign_Native_modelLoad(JNIEnv* env, jclass, jbyteArray path,
                                                           jboolean copy) {
  std::string p;
  if (!c_string(env, path, "path", &p)) return 0;
  softalign_model* m = nullptr;
  if (!check(env, copy ? softalign_model_load_copy(p.c_str(), &m) : softalign_model_load(p.c_str(), &m)))
    return 0;
  return to_jlong(m);
}

JNIEXPORT jlong JNICALL Java_org_softalign_Native_modelLoadBytes(JNIEnv* env, jclass, jbyteArray data) {
  if (data == nullptr) {
    throw_null(env, "data");
    return 0;
  }
  const jsize n = env->GetArrayLength(data);
  // softalign_model_load_bytes copies the bytes: the pinned (or copied) array is released at once.
  jbyte* bytes = env->GetByteArrayElements(data, nullptr);
  if (bytes == nullptr) return 0;  // OutOfMemoryError pending
  softalign_model* m = nullptr;
  const softalign_status st = softalign_model_load_bytes(bytes, static_cast<size_t>(n), &m);
  env->ReleaseByteArrayElements(data, bytes, JNI_ABORT);
  if (!check(env, st)) return 0;
  return to_jlong(m);
}

JNIEXPORT void JNICALL Java_org_softalign_Native_modelFree(JNIEnv*, jclass, jlong model) {
  softalign_model_free(reinterpret_cast<softalign_model*>(static_cast<intptr_t>(model)));
}

JNIEXPORT jobjectArray JNICALL Java_org_softalign_Native_modelInfo(JNIEnv* env, jclass, jlong model) {
  const auto* m = handle<const softalign_model>(env, model, "softalign: the model is closed");
  if (m == nullptr) return nullptr;
  softalign_model_info info;
  std::memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  if (!check(env, softalign_model_get_info(m, &info))) return nullptr;
  const char* fields[] = {info.name,    info.src_lang,    info.tgt_lang,
                          info.variant, info.weight_type, info.pretokenized ? "true" : "false"};
  constexpr jsize kFields = sizeof fields / sizeof fields[0];
  jclass byte_array = env->FindClass("[B");
  if (byte_array == nullptr) return nullptr;
  jobjectArray out = env->NewObjectArray(kFields, byte_array, nullptr);
  if (out == nullptr) return nullptr;
  for (jsize i = 0; i < kFields; ++i) {
    jbyteArray b = to_bytes(env, fields[i] == nullptr ? "" : fields[i]);
    if (b == nullptr) return nullptr;
    env->SetObjectArrayElement(out, i, b);
    env->DeleteLocalRef(b);
  }
  return out;
}

// The options as the JSON object TranslatorOptions wrote (only those set): the library's one
// table reads them (softalign_translator_create_json).
JNIEXPORT jlong JNICALL Java_org_softalign_Native_translatorCreateJson(JNIEnv* env, jclass, jlong model,
                                                                      jbyteArray json) {
  const auto* m = handle<const softalign_model>(env, model, "softalign: the model is closed");
  if (m == nullptr) return 0;
  std::string options;
  if (!c_string(env, json, "options", &options)) return 0;
  softalign_translator* t = nullptr;
  if (!check(env, softalign_translator_create_json(&m, 1, options.c_str(), &t))) return 0;
  return to_jlong(t);
}

JNIEXPORT void JNICALL Java_org_softalign_Native_translatorFree(JNIEnv*, jclass, jlong translator) {
  softalign_translator_free(reinterpret_cast<softalign_translator*>(static_cast<intptr_t>(translator)));
}

JNIEXPORT jbyteArray JNICALL Java_org_softalign_Native_translatorBackend(JNIEnv* env, jclass, jlong translator) {
  const auto* t = handle<const softalign_translator>(env, translator, "softalign: the translator is closed");
  if (t == nullptr) return nullptr;
  return to_bytes(env, softalign_translator_backend(t));
}

JNIEXPORT void JNICALL Java_org_softalign_Native_translatorSetTimeout(JNIEnv* env, jclass, jlong translator,
                                                                      jint timeout_ms) {
  auto* t = handle<softalign_translator>(env, translator, "softalign: the translator is closed");
  if (t == nullptr) return;
  check(env, softalign_translator_set_timeout_ms(t, static_cast<int32_t>(timeout_ms)));
}

JNIEXPORT jlong JNICALL Java_org_softalign_Native_translatorArenaBytes(JNIEnv* env, jclass, jlong translator) {
  const auto* t = handle<const softalign_translator>(env, translator, "softalign: the translator is closed");
  if (t == nullptr) return 0;
  return static_cast<jlong>(softalign_translator_arena_bytes(t));
}

JNIEXPORT jbyteArray JNICALL Java_org_softalign_Native_translate(JNIEnv* env, jclass, jlong translator,
                                                                jbyteArray text) {
  auto* t = handle<softalign_translator>(env, translator, "softalign: the translator is closed");
  if (t == nullptr) return nullptr;
  std::string s;
  if (!c_string(env, text, "text", &s)) return nullptr;
  softalign_result* r = nullptr;
  if (!check(env, softalign_translate(t, s.c_str(), &r))) return nullptr;
  return json_of(env, r);
}

JNIEXPORT jbyteArray JNICALL Java_org_softalign_Native_translatePrefix(JNIEnv* env, jclass, jlong translator,
                                                                      jbyteArray text, jbyteArray prefix) {
  auto* t = handle<softalign_translator>(env, translator, "softalign: the translator is closed");
  if (t == nullptr) return nullptr;
  std::string s, p;
  if (!c_string(env, text, "text", &s) || !c_string(env, prefix, "prefix", &p)) return nullptr;
  softalign_result* r = nullptr;
  if (!check(env, softalign_translate_prefix(t, s.c_str(), p.c_str(), &r))) return nullptr;
  return json_of(env, r);
}

JNIEXPORT jobjectArray JNICALL Java_org_softalign_Native_translateBatch(JNIEnv* env, jclass, jlong translator,
                                                                       jobjectArray texts) {
  auto* t = handle<softalign_translator>(env, translator, "softalign: the translator is closed");
  if (t == nullptr) return nullptr;
  BatchTexts in;
  std::vector<softalign_result*> out;
  if (!batch_texts(env, texts, &in) || !alloc_or_throw(env, [&] { out.assign(in.ptrs.size(), nullptr); }))
    return nullptr;
  if (!check(env, softalign_translate_batch(t, in.ptrs.data(), in.ptrs.size(), out.data()))) return nullptr;
  return jsons_of(env, out);
}

JNIEXPORT jobjectArray JNICALL Java_org_softalign_Native_translateBatchStatus(JNIEnv* env, jclass, jlong translator,
                                                                             jobjectArray texts, jintArray status) {
  auto* t = handle<softalign_translator>(env, translator, "softalign: the translator is closed");
  if (t == nullptr) return nullptr;
  BatchTexts in;
  if (!batch_texts(env, texts, &in)) return nullptr;
  const size_t n = in.ptrs.size();
  if (status == nullptr || env->GetArrayLength(status) != static_cast<jsize>(n)) {
    throw_invalid_argument(env, "invalid_argument: status array of the wrong length (binding mismatch)");
    return nullptr;
  }
  std::vector<softalign_result*> out;
  std::vector<int32_t> codes;
  std::vector<jint> js;
  if (!alloc_or_throw(env, [&] {
        out.assign(n, nullptr);
        codes.assign(n, SOFTALIGN_OK);
        js.assign(n, 0);
      }))
    return nullptr;
  const softalign_status st = softalign_translate_batch_status(t, in.ptrs.data(), n, out.data(), codes.data());
  if (st != SOFTALIGN_OK && is_call_error(softalign_last_error())) {
    for (softalign_result* r : out) softalign_result_free(r);  // all NULL; to be sure
    check(env, st);
    return nullptr;
  }
  for (size_t i = 0; i < n; ++i) js[i] = static_cast<jint>(codes[i]);
  if (n > 0) env->SetIntArrayRegion(status, 0, static_cast<jsize>(n), js.data());
  return jsons_of(env, out);
}

// ---- Stop and stream -------------------------------------------------------------------------

// Any thread, while the translator lives (Translator.cancel serialises it with close).
JNIEXPORT void JNICALL Java_org_softalign_Native_translatorCancel(JNIEnv*, jclass, jlong translator) {
  softalign_translator_cancel(reinterpret_cast<softalign_translator*>(static_cast<intptr_t>(translator)));
}

namespace {

// softalign_translate_stream's callback: the event to Translator.streamEvent (static, on the
// calling thread, so the same JNIEnv), which calls the listener. A Java exception (the
// listener's) stops the call and stays pending for the caller.
struct StreamTarget {
  JNIEnv* env;
  jclass translator_class;
  jmethodID stream_event;
  jobject listener;
};

int stream_event(const softalign_stream_event* e, void* user) {
  auto* t = static_cast<StreamTarget*>(user);
  JNIEnv* env = t->env;
  jbyteArray text = to_bytes(env, e->text);
  if (text == nullptr) return 1;  // OutOfMemoryError pending
  const jboolean go_on = env->CallStaticBooleanMethod(t->translator_class, t->stream_event, t->listener,
                                                      static_cast<jint>(e->kind), static_cast<jlong>(e->index),
                                                      static_cast<jint>(e->id), text);
  env->DeleteLocalRef(text);
  return env->ExceptionCheck() || !go_on ? 1 : 0;
}

}  // namespace

JNIEXPORT jbyteArray JNICALL Java_org_softalign_Native_translateStream(JNIEnv* env, jclass, jlong translator,
                                                                      jbyteArray text, jobject listener) {
  auto* t = handle<softalign_translator>(env, translator, "softalign: the translator is closed");
  if (t == nullptr) return nullptr;
  std::string s;
  if (!c_string(env, text, "text", &s)) return nullptr;
  if (listener == nullptr) {
    throw_null(env, "listener");
    return nullptr;
  }
  jclass c = env->FindClass("org/softalign/Translator");
  if (c == nullptr) return nullptr;
  jmethodID m = env->GetStaticMethodID(c, "streamEvent", "(Lorg/softalign/StreamListener;IJI[B)Z");
  if (m == nullptr) return nullptr;
  StreamTarget target{env, c, m, listener};
  softalign_result* r = nullptr;
  const softalign_status st = softalign_translate_stream(t, s.c_str(), stream_event, &target, &r);
  env->DeleteLocalRef(c);
  if (env->ExceptionCheck()) {  // the listener threw: that exception, not the status
    softalign_result_free(r);
    return nullptr;
  }
  if (!check(env, st)) return nullptr;
  return json_of(env, r);
}

}  // extern "C"
