package org.softalign;

/**
 * The JNI glue (platforms/java/jni/softalign_jni.cpp). Text crosses it as UTF-8 {@code byte[]}
 * (never JNI's modified UTF-8); handles are the C API's pointers as longs.
 *
 * <p>The library, {@code libsoftalign_jni.so}, is found and loaded by {@link NativeLoader}: a path
 * in {@code softalign.library.path}, the jar's own copy for this platform, or {@link
 * System#loadLibrary}.
 */
final class Native {
  static {
    NativeLoader.load();
  }

  private Native() {}

  /** Loads the library (the class's static initialiser); for callers that want it early. */
  static void ensureLoaded() {}

  static native byte[] version();

  static native long modelLoad(byte[] pathUtf8, boolean copy);

  static native long modelLoadBytes(byte[] data);

  static native void modelFree(long model);

  /** name, src_lang, tgt_lang, variant, weight_type as UTF-8. */
  static native byte[][] modelInfo(long model);

  /** A translator over a model with the options as JSON (softalign_translator_create_json). */
  static native long translatorCreateJson(long model, byte[] json);

  static native void translatorFree(long translator);

  static native byte[] translatorBackend(long translator);

  static native long translatorArenaBytes(long translator);

  // A result crosses as its JSON in UTF-8 (softalign_result_json: the library's one result
  // writer), read by ResultJson; no result handle reaches Java.

  /** The result's JSON. */
  static native byte[] translate(long translator, byte[] text);

  /** The result's JSON for a forced target prefix. */
  static native byte[] translatePrefix(long translator, byte[] text, byte[] prefix);

  /** One result's JSON per text, in order; all or nothing. */
  static native byte[][] translateBatch(long translator, byte[][] texts);

  /**
   * softalign_translate_batch_status: status[i] receives text i's status code and the array its
   * result's JSON, null where status[i] is not OK. An error of the call itself (no text's) throws
   * instead.
   */
  static native byte[][] translateBatchStatus(long translator, byte[][] texts, int[] status);

  /** softalign_translator_cancel: any thread, while the translator lives. */
  static native void translatorCancel(long translator);

  /** softalign_translator_set_timeout_ms: the following calls' deadline (-1: the options'). */
  static native void translatorSetTimeout(long translator, int timeoutMs);

  /**
   * softalign_translate_stream: the result's JSON; each event goes to {@code
   * Translator.streamEvent(listener, ...)} on this thread before it returns.
   */
  static native byte[] translateStream(long translator, byte[] text, StreamListener listener);
}
