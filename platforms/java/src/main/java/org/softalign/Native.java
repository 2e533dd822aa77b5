package org.softalign;

/**
 * The JNI glue (platforms/java/jni/softalign_jni.cpp). Text crosses it as UTF-8 {@code byte[]}
 * (never JNI's modified UTF-8); handles are the C API's pointers as longs.
 *
 * <p>The library is {@code libsoftalign_jni.so}, found by {@link System#loadLibrary} (on Android:
 * the app's {@code jniLibs/<abi>/}; elsewhere {@code -Djava.library.path}), or at the absolute
 * path in the system property {@code softalign.library.path}.
 */
final class Native {
  static {
    String path = System.getProperty("softalign.library.path");
    if (path != null && !path.isEmpty()) {
      System.load(path);
    } else {
      System.loadLibrary("softalign_jni");
    }
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

  /** A new result handle (free it with resultFree). */
  static native long translate(long translator, byte[] text);

  /** A new result handle for a forced target prefix. */
  static native long translatePrefix(long translator, byte[] text, byte[] prefix);

  /** One new result handle per text, in order (free each with resultFree); all or nothing. */
  static native long[] translateBatch(long translator, byte[][] texts);

  /**
   * softalign_translate_batch_status: status[i] receives text i's status code and the result its
   * handle (free each non-zero one with resultFree), 0 where status[i] is not OK. An error of the
   * call itself (no text's) throws instead.
   */
  static native long[] translateBatchStatus(long translator, byte[][] texts, int[] status);

  static native void resultFree(long result);

  static native int resultCount(long result);

  static native byte[] resultText(long result, int hypothesis);

  static native float resultScore(long result, int hypothesis);

  static native float resultLogProb(long result, int hypothesis);

  static native float resultConfidence(long result, int hypothesis);

  /** Pharaoh alignment over pieces (words: over words); null when absent. */
  static native byte[] resultPharaoh(long result, int hypothesis, boolean words);

  /** Soft alignment rows; null when absent. */
  static native float[][] resultAttention(long result, int hypothesis);
}
