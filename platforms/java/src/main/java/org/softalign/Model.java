package org.softalign;

import java.io.File;
import java.nio.charset.StandardCharsets;

/**
 * A loaded model file: immutable, shared by any number of {@link Translator}s and threads (one
 * translator per thread). A translator keeps what it needs of the model: the model may be closed
 * as soon as its translators are made. Close it (try-with-resources) to release the file.
 */
public final class Model implements AutoCloseable {
  private long handle;
  private final String name;
  private final String sourceLanguage;
  private final String targetLanguage;
  private final String variant;
  private final String weightType;
  private final boolean pretokenized;

  private Model(long handle) {
    this.handle = handle;
    byte[][] info;
    try {
      info = Native.modelInfo(handle);
    } catch (RuntimeException | Error e) {
      Native.modelFree(handle);  // nobody else holds it yet
      throw e;
    }
    name = Translator.utf8(info[0]);
    sourceLanguage = Translator.utf8(info[1]);
    targetLanguage = Translator.utf8(info[2]);
    variant = Translator.utf8(info[3]);
    weightType = Translator.utf8(info[4]);
    pretokenized = Translator.utf8(info[5]).equals("true");
  }

  /** Loads a .softalign file (memory-mapped: the file must stay unchanged while it is in use). */
  public static Model load(String path) {
    return load(path, false);
  }

  /**
   * Loads a .softalign file; copy: read it whole into memory the model owns (the file may then be
   * rewritten or removed), else map it.
   */
  public static Model load(String path, boolean copy) {
    if (path == null) throw new NullPointerException("path");
    int nul = path.indexOf('\0');
    if (nul >= 0) {
      throw new SoftalignException(Status.INVALID_ARGUMENT,
          "the model path holds a NUL character at index " + nul);
    }
    return new Model(Native.modelLoad(path.getBytes(StandardCharsets.UTF_8), copy));
  }

  public static Model load(File file) {
    if (file == null) throw new NullPointerException("file");
    return load(file.getPath(), false);
  }

  /** Loads a model from bytes (copied: the array may be reused as soon as this returns). */
  public static Model fromBytes(byte[] data) {
    if (data == null) throw new NullPointerException("data");
    return new Model(Native.modelLoadBytes(data));
  }

  /** The native handle; IllegalStateException once closed. Callers hold this object's lock. */
  long handle() {
    if (handle == 0) throw new IllegalStateException("softalign: the model is closed");
    return handle;
  }

  public String name() {
    return name;
  }

  public String sourceLanguage() {
    return sourceLanguage;
  }

  public String targetLanguage() {
    return targetLanguage;
  }

  /** "encdec", "bahdanau" or "luong". */
  public String variant() {
    return variant;
  }

  /** Storage of the weight matrices: "f32", "f16" or "i8". */
  public String weightType() {
    return weightType;
  }

  /**
   * True when text in and out is tokens separated by spaces (a model imported with
   * softalign-import --pretokenized): the texts given are cut at whitespace, and the
   * translations are the output tokens joined by single spaces.
   */
  public boolean pretokenized() {
    return pretokenized;
  }

  public synchronized boolean isClosed() {
    return handle == 0;
  }

  /** Releases the model (its translators keep what they need); a second close does nothing. */
  @Override
  public synchronized void close() {
    if (handle != 0) {
      Native.modelFree(handle);
      handle = 0;
    }
  }
}
