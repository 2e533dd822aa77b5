package org.softalign;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Translates text with a softalign model, over the C API (runtime/include/softalign/softalign.h).
 *
 * <pre>{@code
 * try (Translator tr = Translator.load("en-fr.int8.softalign",
 *         TranslatorOptions.builder().beam(4).build())) {
 *   String fr = tr.translate("A simple text editor.");
 * }
 * }</pre>
 *
 * <p>Text crosses into the library as UTF-8 bytes (so emoji and every other supplementary-plane
 * character arrive whole) and comes back the same way. A failure in the library is a {@link
 * SoftalignException} carrying the status; a null argument is a {@link NullPointerException}; a
 * closed translator an {@link IllegalStateException}. A lone surrogate or U+0000 in a text is
 * not text: {@link Status#INVALID_UTF8}, as invalid UTF-8 is for a C caller, or one U+FFFD each
 * with {@link TranslatorOptions.Builder#replaceInvalidUtf8(boolean)} (docs/guarantees.md).
 *
 * <p>A list is translated as one batch: {@link #translate(List)} all or nothing, {@link
 * #translateEach(List)} each text alone (a text that fails gets its exception in an {@link
 * Outcome}, the others their translations).
 *
 * <p>A translator is used by one thread at a time: its methods are synchronized, so concurrent
 * calls wait for each other (and {@link #close()} waits for a translation in progress). Make one
 * translator per thread over a shared {@link Model} to translate in parallel. Close it
 * (try-with-resources): its working memory is native and the garbage collector does not see it.
 *
 * <p>Stopping a translation: {@link #cancel()} from another thread, {@link Thread#interrupt()} of
 * the translating thread (its interrupt status is kept), a deadline ({@code
 * TranslatorOptions.builder().set("timeout_ms", 100)}: every call's), or a {@link StreamListener}
 * returning false. The call then throws a {@link SoftalignException} with {@link
 * Status#CANCELLED} or {@link Status#DEADLINE_EXCEEDED} within a few milliseconds (a list
 * translated each alone: each text not done gets that status), and the translator goes on.
 */
public final class Translator implements AutoCloseable {
  private long handle;
  // cancel() takes this lock, not the translator's (a translation holds that one); close()
  // frees the native translator under both, so a cancel never touches a freed one.
  private final Object cancelLock = new Object();

  private Translator(long handle) {
    this.handle = handle;
  }

  /** Loads a .softalign file and makes a translator with default options. */
  public static Translator load(String path) {
    return load(path, TranslatorOptions.defaults());
  }

  /**
   * Loads a .softalign file and makes a translator with these options (the file is mapped, or
   * copied into memory with {@link TranslatorOptions.Builder#copyModel(boolean)}).
   */
  public static Translator load(String path, TranslatorOptions options) {
    if (options == null) throw new NullPointerException("options");
    try (Model model = Model.load(path, options.copyModel)) {
      return create(model, options);
    }
  }

  public static Translator load(File file, TranslatorOptions options) {
    if (file == null) throw new NullPointerException("file");
    return load(file.getPath(), options);
  }

  /** Loads a model from bytes (copied) and makes a translator with default options. */
  public static Translator fromBytes(byte[] model) {
    return fromBytes(model, TranslatorOptions.defaults());
  }

  /** Loads a model from bytes (copied) and makes a translator with these options. */
  public static Translator fromBytes(byte[] model, TranslatorOptions options) {
    if (options == null) throw new NullPointerException("options");
    try (Model m = Model.fromBytes(model)) {
      return create(m, options);
    }
  }

  /** A translator over a loaded model (shared: make one translator per thread). */
  public static Translator create(Model model, TranslatorOptions options) {
    if (model == null) throw new NullPointerException("model");
    if (options == null) throw new NullPointerException("options");
    byte[] json = options.json().getBytes(StandardCharsets.UTF_8);
    long h;
    synchronized (model) {
      h = Native.translatorCreateJson(model.handle(), json);
    }
    return new Translator(h);
  }

  /** The library's version, e.g. "0.1.0". */
  public static String version() {
    return utf8(Native.version());
  }

  /** Translates one text: the best hypothesis. An empty text gives "". */
  public synchronized String translate(String text) {
    byte[] t = text(text, "text");
    return best(ResultJson.hypotheses(interruptible(() -> Native.translate(handle(), t))));
  }

  /**
   * Translates texts together (softalign_translate_batch): the best hypotheses, in order. All or
   * nothing: a text that fails fails the call (a {@link SoftalignException} naming it); {@link
   * #translateEach(List)} keeps the others.
   */
  public synchronized List<String> translate(List<String> texts) {
    List<List<Hypothesis>> all = translateBatch(texts);
    List<String> out = new ArrayList<>(all.size());
    for (List<Hypothesis> h : all) out.add(best(h));
    return out;
  }

  /**
   * Translates one text: the n-best hypotheses, best first (as many as the options' nbest; with
   * alignment on, each carries its alignments).
   */
  public synchronized List<Hypothesis> translateNBest(String text) {
    byte[] t = text(text, "text");
    return ResultJson.hypotheses(interruptible(() -> Native.translate(handle(), t)));
  }

  /**
   * The n-best hypotheses of each text, translated together, in order. All or nothing, as {@link
   * #translate(List)}; {@link #translateNBestEach(List)} keeps the others.
   */
  public synchronized List<List<Hypothesis>> translateNBest(List<String> texts) {
    return translateBatch(texts);
  }

  /**
   * Translates texts together, each with its own outcome (softalign_translate_batch_status): in
   * order, one {@link Outcome} per text, its translation or, for a text that fails (invalid text,
   * a line over maxLineBytes, a source too long without splitting), the {@link
   * SoftalignException} it failed with, whose message is the one the text gets translated alone
   * and names its index ({@code "invalid_utf8: texts[3]: ... (at byte 1)"}). The other texts are
   * translated as in {@link #translate(List)}. Wrong calls still throw: a null list or a null
   * text ({@link NullPointerException}), a closed translator ({@link IllegalStateException}), an
   * error of the call itself, not of a text ({@link SoftalignException}).
   */
  public synchronized List<Outcome<String>> translateEach(List<String> texts) {
    List<Outcome<List<Hypothesis>>> all = translateBatchEach(texts);
    List<Outcome<String>> out = new ArrayList<>(all.size());
    for (Outcome<List<Hypothesis>> o : all)
      out.add(o.isOk() ? Outcome.of(best(o.get())) : Outcome.<String>failed(o.error()));
    return Collections.unmodifiableList(out);
  }

  /**
   * The n-best hypotheses of each text, translated together, each with its own outcome: as
   * {@link #translateEach(List)}, with {@link #translateNBest(String)}'s hypotheses.
   */
  public synchronized List<Outcome<List<Hypothesis>>> translateNBestEach(List<String> texts) {
    return translateBatchEach(texts);
  }

  /**
   * Interactive completion: the n-best translations of text that begin with prefix (target text;
   * "" is no prefix).
   */
  public synchronized List<Hypothesis> translateWithPrefix(String text, String prefix) {
    byte[] t = text(text, "text");
    byte[] p = text(prefix, "prefix");
    return ResultJson.hypotheses(interruptible(() -> Native.translatePrefix(handle(), t, p)));
  }

  /**
   * Streaming: translates one text as {@link #translateNBest(String)} does, telling {@code
   * listener} each finished sentence and, with beam 1, each decoder step's piece, on this thread,
   * before it returns. A listener that returns false stops the translation ({@link
   * Status#CANCELLED}); an exception it throws stops it too and reaches the caller.
   */
  public synchronized List<Hypothesis> translateStream(String text, StreamListener listener) {
    if (listener == null) throw new NullPointerException("listener");
    byte[] t = text(text, "text");
    return ResultJson.hypotheses(interruptible(() -> Native.translateStream(handle(), t, listener)));
  }

  /** Called by the JNI glue for each event of {@link #translateStream}; false stops it. */
  static boolean streamEvent(StreamListener listener, int kind, long sentence, int id, byte[] text) {
    return kind == 0 ? listener.onPiece(sentence, id, utf8(text)) : listener.onSentence(sentence, utf8(text));
  }

  /**
   * Stops the translation of this translator running now (called from another thread): it throws
   * a {@link SoftalignException} with {@link Status#CANCELLED} (a list translated each alone:
   * each text not done gets that status). A translation that starts afterwards runs as usual. It
   * does not wait for the translation (it is not synchronized); on a closed translator it does
   * nothing.
   */
  public void cancel() {
    synchronized (cancelLock) {
      if (handle != 0) Native.translatorCancel(handle);
    }
  }

  /**
   * The deadline of the calls that follow, in milliseconds from each call's start: a call still
   * running then throws {@link SoftalignException} with {@link Status#DEADLINE_EXCEEDED} and the
   * translator goes on. It overrides the option {@code timeout_ms}: 0 for none, -1 to go back to
   * the option's. A deadline for one call is this before the call (as JDBC's {@code
   * setQueryTimeout}); below -1 is {@code INVALID_ARGUMENT}.
   */
  public synchronized void setTimeoutMillis(int timeoutMs) {
    Native.translatorSetTimeout(handle(), timeoutMs);
  }

  /** The backend the translator computes on: "cpu" or "vulkan". */
  public synchronized String backend() {
    return utf8(Native.translatorBackend(handle()));
  }

  /** Bytes of working memory the translator reserved when it was made. */
  public synchronized long arenaBytes() {
    return Native.translatorArenaBytes(handle());
  }

  public synchronized boolean isClosed() {
    return handle == 0;
  }

  /** Frees the translator's native memory; a second close does nothing. */
  @Override
  public synchronized void close() {
    synchronized (cancelLock) {
      if (handle != 0) {
        Native.translatorFree(handle);
        handle = 0;
      }
    }
  }

  private interface NativeCall<T> {
    T run();
  }

  /**
   * A native call of this translator that {@link Thread#interrupt()} stops: the thread is watched
   * while it runs (InterruptWatch), and one interrupted already does not start it.
   */
  private <T> T interruptible(NativeCall<T> call) {
    if (Thread.currentThread().isInterrupted()) throw interrupted();
    InterruptWatch.enter(this);
    try {
      return call.run();
    } catch (SoftalignException e) {
      if (e.status() == Status.CANCELLED && Thread.currentThread().isInterrupted()) throw interrupted();
      throw e;
    } finally {
      InterruptWatch.exit();
    }
  }

  private static SoftalignException interrupted() {
    return new SoftalignException(Status.CANCELLED, "the thread was interrupted (Thread.interrupt())");
  }

  private long handle() {
    if (handle == 0) throw new IllegalStateException("softalign: the translator is closed");
    return handle;
  }

  private List<List<Hypothesis>> translateBatch(List<String> texts) {
    if (texts == null) throw new NullPointerException("texts");
    long h = handle();
    byte[][] in = texts(texts);
    if (in.length == 0) return Collections.emptyList();
    byte[][] results = interruptible(() -> Native.translateBatch(h, in));
    List<List<Hypothesis>> out = new ArrayList<>(results.length);
    for (byte[] r : results) out.add(ResultJson.hypotheses(r));
    return out;
  }

  private List<Outcome<List<Hypothesis>>> translateBatchEach(List<String> texts) {
    if (texts == null) throw new NullPointerException("texts");
    long h = handle();
    byte[][] in = texts(texts);
    if (in.length == 0) return Collections.emptyList();
    int[] status = new int[in.length];
    byte[][] results = interruptible(() -> Native.translateBatchStatus(h, in, status));
    List<Outcome<List<Hypothesis>>> out = new ArrayList<>(results.length);
    for (int i = 0; i < results.length; ++i) {
      out.add(status[i] == Status.OK.code() ? Outcome.of(ResultJson.hypotheses(results[i]))
                                            : Outcome.<List<Hypothesis>>failed(itemError(h, in[i], i, status[i])));
    }
    return Collections.unmodifiableList(out);
  }

  private static byte[][] texts(List<String> texts) {
    byte[][] in = new byte[texts.size()][];
    for (int i = 0; i < in.length; ++i) in[i] = text(texts.get(i), "texts[" + i + "]");
    return in;
  }

  /** The best hypothesis's text ("" if there were none). */
  private static String best(List<Hypothesis> hypotheses) {
    return hypotheses.isEmpty() ? "" : hypotheses.get(0).text();
  }

  /**
   * The exception of text i, which failed in a batch with this status code. The C API names only
   * the first failure (softalign_last_error), so the text is translated again alone for its own
   * message: a text fails for what it is (invalid text, length) before it is translated, so this
   * costs little.
   */
  private static SoftalignException itemError(long h, byte[] text, int i, int code) {
    String name = Status.fromCode(code).statusName();
    // Stopped (cancel, interrupt, deadline): the text failed for no fault of its own.
    if (code == Status.CANCELLED.code() || code == Status.DEADLINE_EXCEEDED.code())
      return new SoftalignException(code, name, name + ": texts[" + i + "]: not translated before the call stopped");
    String detail = "failed in a batch";
    try {
      Native.translate(h, text);
      detail += " (translated alone, it did not fail)";
    } catch (SoftalignException e) {
      String m = e.getMessage();
      if (e.code() == code) detail = m.startsWith(name + ": ") ? m.substring(name.length() + 2) : m;
      else detail += " (translated alone: " + m + ")";
    }
    return new SoftalignException(code, name, name + ": texts[" + i + "]: " + detail);
  }

  /**
   * Text as the C API takes it: the string's characters in UTF-8, written so that the library's
   * one rule for text decides what is not text (docs/guarantees.md). A surrogate pair is its
   * character's 4 bytes; a lone surrogate is its own 3 bytes (ED A0..BF 80..BF, which are not
   * UTF-8) and U+0000 the 2 bytes C0 80 (a NUL as modified UTF-8 writes it: a C string can carry
   * it, and it is not UTF-8). The library refuses both ({@link Status#INVALID_UTF8}) or, with
   * replaceInvalidUtf8, writes one U+FFFD for each. ({@code getBytes(UTF_8)} would write a lone
   * surrogate as '?' and translate it.)
   */
  static byte[] text(String s, String what) {
    if (s == null) throw new NullPointerException(what);
    final int n = s.length();
    long size = 0;
    for (int i = 0; i < n; ++i) {
      char c = s.charAt(i);
      if (c != 0 && c < 0x80) size += 1;
      else if (c < 0x800) size += 2;
      else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
        size += 4;
        ++i;
      } else size += 3;
    }
    if (size > Integer.MAX_VALUE - 8) throw new OutOfMemoryError("softalign: " + what + " is too long");
    byte[] out = new byte[(int) size];
    int k = 0;
    for (int i = 0; i < n; ++i) {
      char c = s.charAt(i);
      if (c != 0 && c < 0x80) {
        out[k++] = (byte) c;
      } else if (c < 0x800) {  // U+0000 included: C0 80
        out[k++] = (byte) (0xC0 | (c >> 6));
        out[k++] = (byte) (0x80 | (c & 0x3F));
      } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
        int cp = Character.toCodePoint(c, s.charAt(++i));
        out[k++] = (byte) (0xF0 | (cp >> 18));
        out[k++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
        out[k++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
        out[k++] = (byte) (0x80 | (cp & 0x3F));
      } else {  // a lone surrogate included: ED A0..BF 80..BF
        out[k++] = (byte) (0xE0 | (c >> 12));
        out[k++] = (byte) (0x80 | ((c >> 6) & 0x3F));
        out[k++] = (byte) (0x80 | (c & 0x3F));
      }
    }
    return out;
  }

  static String utf8(byte[] b) {
    return b == null ? "" : new String(b, StandardCharsets.UTF_8);
  }
}
