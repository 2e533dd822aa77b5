package org.softalign.tests;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.softalign.Hypothesis;
import org.softalign.Model;
import org.softalign.Outcome;
import org.softalign.SoftalignException;
import org.softalign.Status;
import org.softalign.StreamListener;
import org.softalign.Translator;
import org.softalign.TranslatorOptions;

/**
 * Tests of the Java binding (ctest java_binding, java_binding_aarch64 under qemu), a plain main
 * (no JUnit): every check prints PASS or FAIL and the exit status is 1 when any failed.
 *
 * <pre>
 * java -Dsoftalign.library.path=LIBSOFTALIGN_JNI -cp softalign.jar:softalign-tests.jar \
 *   org.softalign.tests.TranslatorTest --root REPO --cli SOFTALIGN [--emulator "qemu-aarch64 -L SYSROOT"] \
 *   --scratch DIR [--sentences N]
 * </pre>
 *
 * The shipped model models/en-fr/en-fr.int8.softalign must translate its test sentences
 * (tests/models/en-fr.sources.txt) to the outputs of tests/models/en-fr.int8.expected.tsv (the
 * CLI's, checked by models_exact_*) and to what this build's CLI prints for the same sentences,
 * hostile ones too (emoji and other supplementary-plane characters, combining marks, RTL, control
 * characters: text crosses JNI as UTF-8 bytes, not modified UTF-8), greedy, beam 4, n-best and
 * alignments. Then the errors: a damaged file, bad options, a closed translator, wrong arguments.
 */
public final class TranslatorTest {
  // The search of tests/models/model_outputs.py (SEARCH), given in full.
  static final String[] GREEDY_ARGS = {"--beam", "1", "--max-len-a", "1.5", "--max-len-b", "10"};
  static final String[] BEAM4_ARGS = {
    "--beam", "4", "--alpha", "0.6", "--beta", "0", "--max-len-a", "1.5", "--max-len-b", "10"
  };

  static TranslatorOptions greedy() {
    return TranslatorOptions.builder().beam(1).maxLenA(1.5f).maxLenB(10f).build();
  }

  static TranslatorOptions.Builder beam4() {
    return TranslatorOptions.builder().beam(4).alpha(0.6f).beta(0f).maxLenA(1.5f).maxLenB(10f);
  }

  // Hostile text, one per line for the CLI (no '\n', '\r' or NUL inside).
  static final List<String> HOSTILE = Arrays.asList(
      "I love \uD83D\uDE00 and \uD83C\uDDEB\uD83C\uDDF7 flags.",        // emoji, regional indicators
      "Music \uD834\uDD1E and math \uD835\uDD38\uD835\uDD39 symbols.",  // U+1D11E, U+1D538 (4-byte UTF-8)
      "The family \uD83D\uDC69\u200D\uD83D\uDC69\u200D\uD83D\uDC67 emoji with joiners.",
      "Caf\u00e9 na\u00efve co\u00f6perate \u2014 \u201cquotes\u201d \u2018single\u2019 \u2026",
      "Z\u0337\u0327\u031ba\u0338l\u0335g\u0336o text with combining marks.",
      "\u0645\u0631\u062d\u0628\u0627 \u0628\u0627\u0644\u0639\u0627\u0644\u0645 right to left.",
      "\u8fd9\u662f\u4e00\u4e2a\u6d4b\u8bd5 with CJK.",
      "Control\tcharacters \u0001\u0007\u001b[31m and DEL \u007f here.",
      "\uFEFFA line that starts with a byte order mark.",
      "Private use \uDB80\uDC00 and noncharacter \uFFFF end.",
      "Open the file \uD83D\uDCC1 /usr/share/doc/\uD83D\uDE00.txt now.",
      "",
      "   ",
      repeat("\uD83D\uDE00 ", 70) + "end.");  // over max_src_len (128 pieces): split in two

  int passed = 0;
  final List<String> failures = new ArrayList<>();

  String root;
  String cli;
  List<String> emulator = new ArrayList<>();
  File scratch;
  int maxSentences = Integer.MAX_VALUE;
  String modelPath;

  public static void main(String[] args) throws Exception {
    TranslatorTest t = new TranslatorTest();
    for (int i = 0; i < args.length; ++i) {
      String a = args[i];
      String v = i + 1 < args.length ? args[i + 1] : null;
      if (a.equals("--root")) t.root = v;
      else if (a.equals("--cli")) t.cli = v;
      else if (a.equals("--emulator")) t.emulator = Arrays.asList(v.trim().split("\\s+"));
      else if (a.equals("--scratch")) t.scratch = new File(v);
      else if (a.equals("--sentences")) t.maxSentences = Integer.parseInt(v);
      else {
        System.err.println("unknown argument " + a);
        System.exit(2);
      }
      ++i;
    }
    if (t.root == null || t.scratch == null) {
      System.err.println("usage: TranslatorTest --root REPO --scratch DIR [--cli SOFTALIGN] [--emulator CMD]");
      System.exit(2);
    }
    t.scratch.mkdirs();
    t.modelPath = new File(t.root, "models/en-fr/en-fr.int8.softalign").getPath();
    long t0 = System.nanoTime();
    t.run();
    System.out.printf("java_binding: %d checks passed, %d failed (%s, %s, softalign %s), %.1f s%n",
        t.passed, t.failures.size(), System.getProperty("os.arch"), System.getProperty("java.version"),
        Translator.version(), (System.nanoTime() - t0) / 1e9);
    for (String f : t.failures) System.out.println("FAILED: " + f);
    System.exit(t.failures.isEmpty() ? 0 : 1);
  }

  void run() throws Exception {
    step("expected outputs (tests/models/en-fr.int8.expected.tsv)", this::expectedOutputs);
    step("the native CLI's outputs, hostile text included", this::cliOutputs);
    step("n-best and alignments against the CLI", this::nbestAndAlignment);
    step("prefix against the CLI", this::prefix);
    step("load from bytes and copy", this::fromBytes);
    step("UTF-8 both ways (a path of emoji in the error message)", this::utf8RoundTrip);
    step("damaged and missing model files", this::damagedFiles);
    step("options the library refuses", this::badOptions);
    step("input errors carry their status", this::inputErrors);
    step("one rule for bad text: lone surrogates and NUL are invalid_utf8, or U+FFFD", this::textRule);
    step("a batch where a failing text fails alone (translateEach): 30 texts, 10 bad", this::batchEach);
    step("closed translator and model", this::closed);
    step("wrong arguments", this::wrongArguments);
    step("threads: one translator each over a shared model; close during use", this::threads);
    step("a 900 kB line: cancel(), Thread.interrupt() and a deadline stop it; the translator goes on", this::stop);
    step("streaming: the pieces and sentences equal the result; a listener stops it", this::stream);
  }

  static String hugeLine() {
    String s = "This package contains the documentation. A simple text editor with many plugins. ";
    return repeat(s, 900 * 1024 / s.length()).trim();
  }

  /**
   * How soon a stopped call must return: generous, so that a loaded machine does not fail it (the figure
   * is printed); under an emulator far more, since a whole text is tokenised before the first check and
   * qemu runs that 10-50x slower.
   */
  double boundMs() {
    return !emulator.isEmpty() ? 120000 : 5000;
  }

  /**
   * Runs translate(text) on a thread, then `stop` after 100 ms: the exception and the ms after the stop.
   * A stop reaches the calls running when it is made; on a loaded machine the call's thread may start it
   * later (a new thread can wait past 100 ms for a core), so the first stop is the one timed, and it is
   * repeated every 10 ms until the call has returned.
   */
  Object[] stopAfter100ms(Translator tr, String text, Runnable stop, Thread[] caller) throws Exception {
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    long[] returned = new long[1];
    Thread t = new Thread(() -> {
      try {
        tr.translate(text);
      } catch (Throwable e) {
        thrown.set(e);
      }
      returned[0] = System.nanoTime();
    });
    caller[0] = t;
    t.start();
    Thread.sleep(100);
    long stopped = System.nanoTime();
    do {
      stop.run();
      t.join(10);
    } while (t.isAlive());
    return new Object[] {thrown.get(), (returned[0] - stopped) / 1e6};
  }

  void stop() throws Exception {
    String line = hugeLine();
    String shortText = "A simple text editor.";
    try (Translator tr = Translator.load(modelPath, TranslatorOptions.builder().beam(4).build())) {
      String expected = tr.translate(shortText);
      Thread[] caller = new Thread[1];
      Object[] got = stopAfter100ms(tr, line, tr::cancel, caller);
      System.out.printf("stop: Java cancel() at 100 ms: returned %.1f ms later%n", (Double) got[1]);
      check(got[0] instanceof SoftalignException && ((SoftalignException) got[0]).status() == Status.CANCELLED,
          "cancel(): CANCELLED, got " + got[0]);
      check((Double) got[1] < boundMs(), "cancel(): returned promptly");
      equal(expected, tr.translate(shortText), "after cancel(): the same translation");

      got = stopAfter100ms(tr, line, () -> caller[0].interrupt(), caller);
      System.out.printf("stop: Java Thread.interrupt() at 100 ms: returned %.1f ms later%n", (Double) got[1]);
      check(got[0] instanceof SoftalignException && ((SoftalignException) got[0]).status() == Status.CANCELLED
          && ((Throwable) got[0]).getMessage().contains("interrupt"), "interrupt(): CANCELLED naming it, got " + got[0]);
      check((Double) got[1] < boundMs(), "interrupt(): returned promptly");
      equal(expected, tr.translate(shortText), "after interrupt(): the same translation");

      // A translateEach whose texts are not done: each gets CANCELLED, with no second translation.
      AtomicReference<List<Outcome<String>>> each = new AtomicReference<>();
      Thread t = new Thread(() -> each.set(tr.translateEach(Arrays.asList(shortText, line))));
      t.start();
      Thread.sleep(100);
      for (int i = 0; i < 6000 && t.isAlive(); ++i) {  // as stopAfter100ms: until it has returned
        tr.cancel();
        t.join(10);
      }
      check(!t.isAlive() && each.get() != null && !each.get().get(1).isOk()
          && each.get().get(1).error().status() == Status.CANCELLED, "translateEach: the long text CANCELLED");
      tr.cancel();  // nothing running: the next call is whole
      equal(expected, tr.translate(shortText), "a cancel with nothing running changes nothing");
    }
    // The deadline: every call's, through the options' one table. 100 ms, or under an emulator 3 s: a
    // short line at beam 4 must fit in it, and qemu runs one in a few hundred ms.
    int deadline = !emulator.isEmpty() ? 3000 : 100;
    try (Translator tr = Translator.load(modelPath,
             TranslatorOptions.builder().beam(4).set("timeout_ms", deadline).build())) {
      checkDeadline(tr, line, "timeout_ms " + deadline);
      equal("Un \u00e9diteur de texte simple.", tr.translate(shortText), "a short line within the deadline");
      tr.setTimeoutMillis(0);  // none, over the option
      equal("Un \u00e9diteur de texte simple.", tr.translate(shortText), "setTimeoutMillis(0): no deadline");
    }
    // A per-call deadline: setTimeoutMillis before the call, on a translator made without one.
    try (Translator tr = Translator.load(modelPath, TranslatorOptions.builder().beam(4).build())) {
      tr.setTimeoutMillis(deadline);
      checkDeadline(tr, line, "setTimeoutMillis(" + deadline + ")");
      tr.setTimeoutMillis(-1);  // back to the options' (none)
      equal("Un \u00e9diteur de texte simple.", tr.translate(shortText), "setTimeoutMillis(-1): the options' again");
      SoftalignException bad = null;
      try {
        tr.setTimeoutMillis(-2);
      } catch (SoftalignException x) {
        bad = x;
      }
      check(bad != null && bad.status() == Status.INVALID_ARGUMENT, "setTimeoutMillis(-2): INVALID_ARGUMENT, got " + bad);
    }
  }

  /** Translating {@code line} (too long for the deadline) throws DEADLINE_EXCEEDED promptly. */
  void checkDeadline(Translator tr, String line, String what) {
    long t0 = System.nanoTime();
    SoftalignException e = null;
    try {
      tr.translate(line);
    } catch (SoftalignException x) {
      e = x;
    }
    double ms = (System.nanoTime() - t0) / 1e6;
    System.out.printf("stop: Java %s: returned at %.1f ms%n", what, ms);
    check(e != null && e.status() == Status.DEADLINE_EXCEEDED, what + ": DEADLINE_EXCEEDED, got " + e);
    check(ms < boundMs(), what + ": returned promptly");
  }

  void stream() throws Exception {
    try (Translator tr = Translator.load(modelPath,
             TranslatorOptions.builder().beam(1).set("max_source_tokens", 16).build())) {
      String text = "This package contains the documentation. A simple text editor. Tools to manage the files.";
      StringBuilder pieces = new StringBuilder();
      List<String> sentences = new ArrayList<>();
      List<Hypothesis> h = tr.translateStream(text, new StreamListener() {
        @Override
        public boolean onPiece(long sentence, int id, String piece) {
          pieces.append(piece);
          return true;
        }

        @Override
        public boolean onSentence(long sentence, String t) {
          check(sentence == sentences.size(), "sentences in order");
          sentences.add(t);
          return true;
        }
      });
      equal(3, sentences.size(), "three sentences");
      equal(String.join(" ", sentences), h.get(0).text(), "the sentences joined are the result");
      equal(tr.translate(text), h.get(0).text(), "the result is translate()'s");
      // This text's pieces spell its translation (nothing copied through or repaired).
      equal(pieces.toString().replace('\u2581', ' ').trim(), h.get(0).text(), "the pieces spell the result");

      // A listener that returns false stops it: CANCELLED; the translator goes on.
      int[] seen = new int[1];
      SoftalignException e = null;
      try {
        tr.translateStream(hugeLine(), new StreamListener() {
          @Override
          public boolean onPiece(long sentence, int id, String piece) {
            return ++seen[0] < 3;
          }
        });
      } catch (SoftalignException x) {
        e = x;
      }
      check(e != null && e.status() == Status.CANCELLED, "a listener's false: CANCELLED, got " + e);
      equal(3, seen[0], "stopped at the third piece");
      // A listener's exception stops it and reaches the caller.
      RuntimeException mine = new IllegalStateException("mine");
      Throwable got = null;
      try {
        tr.translateStream(text, new StreamListener() {
          @Override
          public boolean onSentence(long sentence, String t) {
            throw mine;
          }
        });
      } catch (Throwable x) {
        got = x;
      }
      check(got == mine, "the listener's exception, got " + got);
      equal(tr.translate(text), h.get(0).text(), "usable afterwards");
    }
  }

  interface Check {
    void run() throws Exception;
  }

  void step(String name, Check c) {
    int before = failures.size();
    long t0 = System.nanoTime();
    try {
      c.run();
    } catch (Throwable e) {
      fail(name + ": unexpected " + e);
      e.printStackTrace(System.out);
    }
    System.out.printf("%s %s (%.1f s)%n", failures.size() == before ? "PASS" : "FAIL", name,
        (System.nanoTime() - t0) / 1e9);
  }

  void check(boolean ok, String what) {
    if (ok) ++passed;
    else fail(what);
  }

  void equal(Object expected, Object got, String what) {
    if (expected == null ? got == null : expected.equals(got)) ++passed;
    else fail(what + ": expected [" + expected + "], got [" + got + "]");
  }

  void fail(String what) {
    failures.add(what);
    System.out.println("  FAIL " + what);
  }

  interface Call {
    void run() throws Exception;
  }

  /** Expects call to throw a SoftalignException with this status. */
  void expectStatus(Status status, String what, Call call) {
    try {
      call.run();
      fail(what + ": no exception, expected " + status.statusName());
    } catch (SoftalignException e) {
      if (e.status() == status && e.code() == status.code() && e.statusName().equals(status.statusName())
          && e.getMessage() != null && e.getMessage().startsWith(status.statusName() + ":")) {
        ++passed;
      } else {
        fail(what + ": expected " + status.statusName() + " (" + status.code() + "), got " + e.statusName()
            + " (" + e.code() + "): " + e.getMessage());
      }
    } catch (Throwable e) {
      fail(what + ": expected SoftalignException " + status.statusName() + ", got " + e);
    }
  }

  /** Expects call to throw an exception of this class (and not crash the JVM). */
  void expectThrows(Class<? extends Throwable> type, String what, Call call) {
    try {
      call.run();
      fail(what + ": no exception, expected " + type.getSimpleName());
    } catch (Throwable e) {
      if (type.isInstance(e)) ++passed;
      else fail(what + ": expected " + type.getSimpleName() + ", got " + e);
    }
  }

  // ---- outputs -------------------------------------------------------------------------------

  List<String[]> expectedRows() throws IOException {
    List<String[]> rows = new ArrayList<>();
    for (String line : Files.readAllLines(new File(root, "tests/models/en-fr.int8.expected.tsv").toPath(),
        StandardCharsets.UTF_8)) {
      if (line.startsWith("#") || line.isEmpty()) continue;
      String[] f = line.split("\t", -1);
      if (f.length != 3) throw new IOException("bad expected line: " + line);
      rows.add(f);
      if (rows.size() >= maxSentences) break;
    }
    return rows;
  }

  void expectedOutputs() throws Exception {
    List<String[]> rows = expectedRows();
    check(!rows.isEmpty(), "the expected file has sentences");
    List<String> sources = new ArrayList<>();
    for (String[] r : rows) sources.add(r[0]);
    try (Translator tr = Translator.load(modelPath, greedy())) {
      for (String[] r : rows) equal(r[1], tr.translate(r[0]), "greedy: " + r[0]);
      equal("cpu", tr.backend(), "backend");
      check(tr.arenaBytes() > 0, "arena bytes reported");
    }
    try (Translator tr = Translator.load(modelPath, beam4().build())) {
      List<String> out = tr.translate(sources);  // one batch
      equal(sources.size(), out.size(), "batch size");
      for (int i = 0; i < rows.size(); ++i) equal(rows.get(i)[2], out.get(i), "beam4 batch: " + rows.get(i)[0]);
      equal(Collections.emptyList(), tr.translate(Collections.<String>emptyList()), "empty batch");
    }
  }

  /** Runs the CLI (under the emulator in a cross build) with these lines on stdin. */
  /**
   * Every number that is, or is inside, a value of key in one line of JSON, in order (a float's
   * text read as Java reads it). A key inside a string value has its quotes escaped: not matched.
   */
  static List<Float> jsonFloats(String json, String key) {
    List<Float> out = new ArrayList<>();
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("\"" + key + "\":([-+0-9.eE\\[\\],]+)").matcher(json);
    while (m.find())
      for (String v : m.group(1).split("[\\[\\],]+"))
        if (!v.isEmpty()) out.add(Float.parseFloat(v));
    return out;
  }

  List<String> runCli(List<String> lines, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(emulator);
    cmd.add(cli);
    cmd.add("translate");
    cmd.add("-m");
    cmd.add(modelPath);
    cmd.addAll(Arrays.asList(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.redirectError(ProcessBuilder.Redirect.INHERIT);
    final Process p = pb.start();
    final StringBuilder in = new StringBuilder();
    for (String l : lines) in.append(l).append('\n');
    final byte[] input = in.toString().getBytes(StandardCharsets.UTF_8);
    final AtomicReference<IOException> writeError = new AtomicReference<>();
    Thread writer = new Thread(() -> {
      try (OutputStream os = p.getOutputStream()) {
        os.write(input);
      } catch (IOException e) {
        writeError.set(e);
      }
    });
    writer.start();
    byte[] out = readAll(p.getInputStream());
    writer.join();
    int rc = p.waitFor();
    if (writeError.get() != null) throw writeError.get();
    if (rc != 0) throw new IOException("the CLI exited with " + rc + ": " + cmd);
    String s = new String(out, StandardCharsets.UTF_8);
    List<String> result = new ArrayList<>(Arrays.asList(s.split("\n", -1)));
    if (!result.isEmpty() && result.get(result.size() - 1).isEmpty()) result.remove(result.size() - 1);
    return result;
  }

  static byte[] readAll(InputStream is) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    byte[] buf = new byte[8192];
    for (int n; (n = is.read(buf)) > 0; ) b.write(buf, 0, n);
    return b.toByteArray();
  }

  List<String> allSentences() throws IOException {
    List<String> s = new ArrayList<>();
    for (String[] r : expectedRows()) s.add(r[0]);
    s.addAll(HOSTILE);
    return s;
  }

  void cliOutputs() throws Exception {
    if (cli == null) {
      fail("no --cli given: the outputs are not compared with the native CLI's");
      return;
    }
    List<String> sentences = allSentences();
    long t0 = System.nanoTime();
    List<String> cliGreedy = runCli(sentences, GREEDY_ARGS);
    List<String> cliBeam = runCli(sentences, BEAM4_ARGS);
    System.out.printf("  the CLI, greedy and beam 4: %.1f s%n", (System.nanoTime() - t0) / 1e9);
    equal(sentences.size(), cliGreedy.size(), "CLI greedy lines");
    equal(sentences.size(), cliBeam.size(), "CLI beam4 lines");
    try (Translator g = Translator.load(modelPath, greedy());
        Translator b = Translator.load(modelPath, beam4().build())) {
      List<String> batch = b.translate(sentences);
      for (int i = 0; i < sentences.size() && i < cliGreedy.size() && i < cliBeam.size(); ++i) {
        String s = sentences.get(i);
        String out = g.translate(s);
        equal(cliGreedy.get(i), out, "greedy vs CLI: " + s);
        equal(cliBeam.get(i), b.translate(s), "beam4 vs CLI: " + s);
        equal(cliBeam.get(i), batch.get(i), "beam4 batch vs CLI: " + s);
        // What came back is well-formed UTF-16 (no unpaired surrogates from a bad decoding).
        equal(out, new String(out.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8), "round trip: " + s);
      }
      System.out.printf("  Java, greedy, beam 4 and beam 4 batch: %.1f s%n", (System.nanoTime() - t0) / 1e9);
      // An unpaired surrogate is not text: invalid_utf8 (it was translated as '?'; textRule below).
      expectStatus(Status.INVALID_UTF8, "unpaired surrogate", () -> b.translate("A lone \uD83D surrogate."));
      // Newlines and carriage returns are just characters here (the CLI cannot take them).
      check(b.translate("One line.\nAnother line.\r\n") != null, "text with newlines");
    }
  }

  void nbestAndAlignment() throws Exception {
    if (cli == null) {
      fail("no --cli given");
      return;
    }
    List<String> sentences = new ArrayList<>();
    List<String[]> rows = expectedRows();
    for (int i = 0; i < rows.size() && i < 4; ++i) sentences.add(rows.get(i)[0]);
    sentences.add(HOSTILE.get(0));
    sentences.add(HOSTILE.get(1));
    List<String> nb = new ArrayList<>(Arrays.asList(BEAM4_ARGS));
    nb.addAll(Arrays.asList("--nbest", "3", "--alignment"));
    List<String> cliOut = runCli(sentences, nb.toArray(new String[0]));
    // CLI: "I ||| TEXT ||| SCORE ||| ALIGNMENT", three lines per sentence.
    try (Translator tr = Translator.load(modelPath, beam4().nbest(3).alignment(true).build())) {
      List<List<Hypothesis>> batch = tr.translateNBest(sentences);
      int line = 0;
      for (int i = 0; i < sentences.size(); ++i) {
        List<Hypothesis> hyps = tr.translateNBest(sentences.get(i));
        equal(3, hyps.size(), "3 hypotheses: " + sentences.get(i));
        for (int k = 0; k < hyps.size(); ++k, ++line) {
          Hypothesis h = hyps.get(k);
          if (line >= cliOut.size()) {
            fail("CLI n-best output too short");
            return;
          }
          String[] f = cliOut.get(line).split(" \\|\\|\\| ", -1);
          equal(4, f.length, "CLI n-best fields");
          if (f.length != 4) continue;
          equal(Integer.toString(i), f[0], "CLI n-best index");
          equal(f[1], h.text(), "n-best text " + k + ": " + sentences.get(i));
          check(Math.abs(Float.parseFloat(f[2]) - h.score()) <= 1e-3f * Math.max(1f, Math.abs(h.score())),
              "n-best score " + k + ": CLI " + f[2] + ", Java " + h.score());
          equal(f[3], h.alignment(), "alignment " + k + ": " + sentences.get(i));
          check(h.wordAlignment() != null, "word alignment present");
          if (k > 0) check(hyps.get(k - 1).score() >= h.score(), "n-best sorted by score");
          float[][] att = h.attention();
          check(att != null && att.length >= 1, "attention present");
          if (att != null) {
            for (float[] row : att) {
              float sum = 0;
              for (float v : row) sum += v;
              check(Math.abs(sum - 1f) < 1e-3f, "attention row sums to 1 (" + sum + ")");
            }
          }
          equal(h.text(), batch.get(i).get(k).text(), "n-best batch text");
          check(h.logProb() <= 0f, "log-probability <= 0");
          check(h.confidence() >= 0f && h.confidence() <= 1f, "confidence in [0, 1]");
        }
      }
    }
    // The numbers arrive exact: the binding reads the library's result JSON, the writer of the
    // CLI's --json, so each float equals the CLI's bit for bit.
    nb.add("--json");
    List<String> cliJson = runCli(sentences, nb.toArray(new String[0]));
    equal(sentences.size(), cliJson.size(), "CLI --json lines");
    try (Translator tr = Translator.load(modelPath, beam4().nbest(3).alignment(true).build())) {
      for (int i = 0; i < sentences.size() && i < cliJson.size(); ++i) {
        List<Float> score = new ArrayList<>(), logProb = new ArrayList<>(), confidence = new ArrayList<>();
        List<Float> attention = new ArrayList<>();
        for (Hypothesis h : tr.translateNBest(sentences.get(i))) {
          score.add(h.score());
          logProb.add(h.logProb());
          confidence.add(h.confidence());
          for (float[] row : h.attention()) for (float v : row) attention.add(v);
        }
        String line = cliJson.get(i);
        equal(jsonFloats(line, "score"), score, "scores as the CLI's --json: " + sentences.get(i));
        equal(jsonFloats(line, "log_prob"), logProb, "log-probabilities as the CLI's --json");
        equal(jsonFloats(line, "confidence"), confidence, "confidences as the CLI's --json");
        equal(jsonFloats(line, "attention"), attention, "attention as the CLI's --json");
        check(attention.size() > score.size(), "attention read");
      }
    }
    // Without alignment on, hypotheses carry none.
    try (Translator tr = Translator.load(modelPath, beam4().nbest(2).build())) {
      Hypothesis h = tr.translateNBest(sentences.get(0)).get(0);
      check(h.alignment() == null && h.attention() == null, "no alignment unless asked");
    }
  }

  void prefix() throws Exception {
    if (cli == null) {
      fail("no --cli given");
      return;
    }
    String src = expectedRows().get(0)[0];
    String pre = "les fichiers";
    List<String> args = new ArrayList<>(Arrays.asList(BEAM4_ARGS));
    args.add("--prefix");
    args.add(pre);
    List<String> cliOut = runCli(Collections.singletonList(src), args.toArray(new String[0]));
    try (Translator tr = Translator.load(modelPath, beam4().build())) {
      List<Hypothesis> h = tr.translateWithPrefix(src, pre);
      equal(cliOut.get(0), h.get(0).text(), "prefix vs CLI");
      check(h.get(0).text().startsWith(pre), "the translation begins with the prefix");
      equal(tr.translate(src), tr.translateWithPrefix(src, "").get(0).text(), "empty prefix");
    }
  }

  void fromBytes() throws Exception {
    byte[] bytes = Files.readAllBytes(new File(modelPath).toPath());
    List<String[]> rows = expectedRows();
    try (Translator tr = Translator.fromBytes(bytes, greedy());
        Translator copied = Translator.load(modelPath, greedy().toBuilder().copyModel(true).build())) {
      Arrays.fill(bytes, (byte) 0);  // the library copied them
      for (String[] r : rows) {
        equal(r[1], tr.translate(r[0]), "from bytes: " + r[0]);
        equal(r[1], copied.translate(r[0]), "copied load: " + r[0]);
      }
    }
    try (Model m = Model.load(modelPath)) {
      equal("en", m.sourceLanguage(), "source language");
      equal("fr", m.targetLanguage(), "target language");
      equal("i8", m.weightType(), "weight type");
      equal(false, m.pretokenized(), "pretokenized");
    }
  }

  void utf8RoundTrip() throws Exception {
    String name = "no-such-\uD83D\uDE00\uD834\uDD1E-caf\u00e9.softalign";
    File missing = new File(scratch, name);
    try {
      Translator.load(missing.getPath()).close();
      fail("a missing file loaded");
    } catch (SoftalignException e) {
      equal(Status.NOT_FOUND, e.status(), "missing file status");
      check(e.getMessage().contains(name), "the message names the file whole: " + e.getMessage());
    }
  }

  void damagedFiles() throws Exception {
    byte[] good = Files.readAllBytes(new File(modelPath).toPath());
    File truncated = new File(scratch, "truncated.softalign");
    Files.write(truncated.toPath(), Arrays.copyOf(good, good.length / 2));
    expectStatus(Status.INVALID_MODEL, "truncated file", () -> Translator.load(truncated.getPath()).close());
    byte[] header = good.clone();
    for (int i = 0; i < 64; ++i) header[i] = (byte) (0xA5 ^ i);
    File damaged = new File(scratch, "damaged-header.softalign");
    Files.write(damaged.toPath(), header);
    expectStatus(Status.INVALID_MODEL, "damaged header", () -> Translator.load(damaged.getPath()).close());
    expectStatus(Status.INVALID_MODEL, "damaged header, copied load",
        () -> Translator.load(damaged.getPath(), TranslatorOptions.builder().copyModel(true).build()).close());
    byte[] garbage = new byte[4096];
    new java.util.Random(7).nextBytes(garbage);
    expectStatus(Status.INVALID_MODEL, "random bytes", () -> Translator.fromBytes(garbage).close());
    expectStatus(Status.INVALID_MODEL, "half the bytes", () -> Translator.fromBytes(Arrays.copyOf(good, good.length / 2)).close());
    File empty = new File(scratch, "empty.softalign");
    Files.write(empty.toPath(), new byte[0]);
    try {
      Translator.load(empty.getPath()).close();
      fail("an empty file loaded");
    } catch (SoftalignException e) {
      check(e.status() == Status.INVALID_MODEL || e.status() == Status.IO_ERROR,
          "empty file: invalid_model or io_error, got " + e.getMessage());
    }
    expectStatus(Status.NOT_FOUND, "missing file", () -> Translator.load(new File(scratch, "nope.softalign").getPath()));
    try {
      Translator.load(scratch.getPath()).close();
      fail("a directory loaded");
    } catch (SoftalignException e) {
      check(e.status() != Status.OK, "a directory: " + e.getMessage());
    }
  }

  void badOptions() {
    expectStatus(Status.INVALID_ARGUMENT, "beam -1", () -> Translator.load(modelPath, TranslatorOptions.builder().beam(-1).build()));
    expectStatus(Status.INVALID_ARGUMENT, "threads 0", () -> Translator.load(modelPath, TranslatorOptions.builder().threads(0).build()));
    expectStatus(Status.INVALID_ARGUMENT, "nbest > beam",
        () -> Translator.load(modelPath, TranslatorOptions.builder().beam(2).nbest(5).build()));
    expectStatus(Status.INVALID_ARGUMENT, "block repeats 99",
        () -> Translator.load(modelPath, TranslatorOptions.builder().blockRepeats(99).build()));
    expectStatus(Status.INVALID_ARGUMENT, "negative max line bytes",
        () -> Translator.load(modelPath, TranslatorOptions.builder().maxLineBytes(-1).build()));
    expectStatus(Status.INVALID_ARGUMENT, "kernels with a NUL",
        () -> Translator.load(modelPath, TranslatorOptions.builder().kernels("ref\0x").build()));
    try {
      Translator.load(modelPath, TranslatorOptions.builder().kernels("no_such_set").build()).close();
      fail("an unknown kernel set was accepted");
    } catch (SoftalignException e) {
      check(e.status() != Status.OK, "unknown kernel set: " + e.getMessage());
    }
    try {
      Translator.load(modelPath, TranslatorOptions.builder().device("quantum").build()).close();
      fail("an unknown device was accepted");
    } catch (SoftalignException e) {
      check(e.status() != Status.OK, "unknown device: " + e.getMessage());
    }
    expectStatus(Status.RESOURCE_EXHAUSTED, "an arena limit too small",
        () -> Translator.load(modelPath, TranslatorOptions.builder().maxArenaBytes(1024).build()));
  }

  void inputErrors() throws Exception {
    try (Translator tr = Translator.load(modelPath, greedy().toBuilder().maxLineBytes(16).build())) {
      expectStatus(Status.INPUT_TOO_LONG, "a line over maxLineBytes", () -> tr.translate("This line is longer than sixteen bytes."));
      expectStatus(Status.INPUT_TOO_LONG, "emoji over maxLineBytes (bytes, not chars)",
          () -> tr.translate(repeat("\uD83D\uDE00", 5)));  // 5 chars of 4 bytes = 20 bytes
      equal(tr.translate("Short."), tr.translate("Short."), "the translator still works after a failure");
      expectStatus(Status.INPUT_TOO_LONG, "a batch with one line too long",
          () -> tr.translate(Arrays.asList("Short.", "This line is longer than sixteen bytes.")));
    }
    try (Translator tr = Translator.load(modelPath,
        greedy().toBuilder().maxSourceTokens(8).splitLongInput(false).build())) {
      expectStatus(Status.INPUT_TOO_LONG, "a source over maxSourceTokens, no splitting",
          () -> tr.translate("This source sentence has many more than eight pieces in it, surely."));
    }
    try (Translator tr = Translator.load(modelPath, greedy())) {
      // A path is not text: a NUL in it is a wrong argument (text: textRule below).
      expectStatus(Status.INVALID_ARGUMENT, "path with a NUL", () -> Translator.load(modelPath + "\0.bak"));
      check(tr.translate("still fine") != null, "usable after refused arguments");
    }
  }

  /**
   * Issue 49: a lone surrogate and U+0000 are invalid text, as invalid UTF-8 is (docs/guarantees.md):
   * INVALID_UTF8 (Java's encoder used to write a lone surrogate as '?' and translate it; a NUL was
   * INVALID_ARGUMENT), or with replaceInvalidUtf8 one U+FFFD each.
   */
  void textRule() throws Exception {
    String[] bad = {"a\uDC80b", "x\uD800y", "Open\0 file", "\uDFFF", "\uDE00\uD83D"};
    try (Translator tr = Translator.load(modelPath, greedy())) {
      for (String text : bad) {
        String name = "text " + escape(text);
        expectStatus(Status.INVALID_UTF8, name, () -> tr.translate(text));
        expectStatus(Status.INVALID_UTF8, name + " (n-best)", () -> tr.translateNBest(text));
        expectStatus(Status.INVALID_UTF8, name + " in a batch", () -> tr.translate(Arrays.asList("ok", text)));
        expectStatus(Status.INVALID_UTF8, name + " in a prefix", () -> tr.translateWithPrefix("Open file", "Ouvrir" + text));
      }
      // A pair is one character: translated, the same as the emoji's UTF-8.
      equal(tr.translate("Smile \uD83D\uDE00"), tr.translate(new String(
          new byte[] {'S', 'm', 'i', 'l', 'e', ' ', (byte) 0xF0, (byte) 0x9F, (byte) 0x98, (byte) 0x80},
          StandardCharsets.UTF_8)), "a surrogate pair is one character");
      try {
        tr.translate("caf\u00e9\uDC80");
        fail("a lone surrogate after an accent: no exception");
      } catch (SoftalignException e) {
        check(e.getMessage().contains("at byte 5"), "the offset counts UTF-8 bytes: " + e.getMessage());
      }
    }
    try (Translator tr = Translator.load(modelPath, greedy().toBuilder().replaceInvalidUtf8(true).build())) {
      for (String text : bad) {
        StringBuilder fixed = new StringBuilder();
        for (char c : text.toCharArray()) fixed.append(Character.isSurrogate(c) || c == 0 ? '\uFFFD' : c);
        equal(tr.translate(fixed.toString()), tr.translate(text), "replaced " + escape(text));
        List<Hypothesis> a = tr.translateNBest(text);
        List<Hypothesis> b = tr.translateNBest(fixed.toString());
        equal(b.get(0).text(), a.get(0).text(), "replaced n-best " + escape(text));
        equal(tr.translate(Arrays.asList("ok", fixed.toString())), tr.translate(Arrays.asList("ok", text)),
            "replaced in a batch " + escape(text));
      }
    }
    // Float options refuse NaN, as the C API does (negative still means the model's default).
    expectStatus(Status.INVALID_ARGUMENT, "alpha NaN",
        () -> Translator.load(modelPath, TranslatorOptions.builder().alpha(Float.NaN).build()).close());
    expectStatus(Status.INVALID_ARGUMENT, "maxLenB NaN",
        () -> Translator.load(modelPath, TranslatorOptions.builder().maxLenB(Float.NaN).build()).close());
  }

  /**
   * Issue 49, a failing line fails alone: translateEach and translateNBestEach over 30 texts of
   * which 10 are bad (lone surrogates, NUL, a line over maxLineBytes) give the good ones their
   * translations in place and the bad ones their error; translate(List) stays all or nothing.
   */
  void batchEach() throws Exception {
    List<String[]> rows = expectedRows();
    String tooLong = repeat("A line longer than the limit. ", 10);  // 300 bytes
    String[] bad = {"a\uDC80b", "x\uD800y", "Open\0 file", "\uDFFF", "\uDE00\uD83D", "caf\u00e9\uDC80", tooLong};
    int[] badAt = {1, 1, 4, 0, 0, 5, -1};  // the byte offset of each one's bad character (UTF-8)
    List<String> texts = new ArrayList<>();
    List<String> expected = new ArrayList<>();  // null: a bad text
    List<Integer> at = new ArrayList<>();
    int nBad = 0;
    for (int i = 0; i < 30; ++i) {
      at.add(i % 3 == 1 ? badAt[nBad % bad.length] : -1);
      if (i % 3 == 1) {
        texts.add(bad[nBad++ % bad.length]);
        expected.add(null);
      } else {
        String[] r = rows.get(i % rows.size());
        texts.add(r[0]);
        expected.add(r[1]);
      }
    }
    equal(10, nBad, "10 bad texts of 30");
    try (Translator tr = Translator.load(modelPath, greedy().toBuilder().maxLineBytes(256).build())) {
      List<Outcome<String>> out = tr.translateEach(texts);
      List<Outcome<List<Hypothesis>>> nbest = tr.translateNBestEach(texts);
      equal(30, out.size(), "one outcome per text");
      equal(30, nbest.size(), "one n-best outcome per text");
      for (int i = 0; i < texts.size(); ++i) {
        String name = "texts[" + i + "] " + escape(texts.get(i).length() > 40 ? "(the long line)" : texts.get(i));
        Outcome<String> o = out.get(i);
        if (expected.get(i) != null) {
          check(o.isOk() && o.error() == null, name + " translated: " + o);
          equal(expected.get(i), o.orElse(null), name);
          check(nbest.get(i).isOk(), name + " n-best translated: " + nbest.get(i));
          if (nbest.get(i).isOk()) equal(expected.get(i), nbest.get(i).get().get(0).text(), name + " n-best");
          continue;
        }
        Status want = texts.get(i).equals(tooLong) ? Status.INPUT_TOO_LONG : Status.INVALID_UTF8;
        check(!o.isOk() && o.orElse("none").equals("none"), name + " failed: " + o);
        expectStatus(want, name + ": get() throws its error", o::get);
        final int k = i;
        expectStatus(want, name + ": n-best get() throws its error", () -> nbest.get(k).get());
        SoftalignException e = o.error();
        if (e == null) continue;
        check(e.getMessage().startsWith(want.statusName() + ": texts[" + i + "]: "), name + ": the message names it: " + e.getMessage());
        if (want == Status.INVALID_UTF8) {
          // Its own message, the one it gets alone: the offset of its bad character.
          check(e.getMessage().endsWith("(at byte " + at.get(i) + ")"), name + ": its own offset: " + e.getMessage());
        }
      }
      // The old calls stay all or nothing.
      expectStatus(Status.INVALID_UTF8, "translate(List) with bad texts fails whole", () -> tr.translate(texts));
      expectStatus(Status.INVALID_UTF8, "translateNBest(List) with bad texts fails whole", () -> tr.translateNBest(texts));
      // Every text good: every outcome OK, as translate(List) gives them; none: an empty list.
      List<String> good = Arrays.asList(texts.get(0), texts.get(2), texts.get(3), texts.get(5));
      List<Outcome<String>> all = tr.translateEach(good);
      List<String> plain = tr.translate(good);
      boolean same = all.size() == plain.size();
      for (int i = 0; same && i < all.size(); ++i) same = all.get(i).isOk() && all.get(i).get().equals(plain.get(i));
      check(same, "all good: translateEach equals translate(List)");
      equal(Collections.emptyList(), tr.translateEach(Collections.<String>emptyList()), "empty batch");
      // Wrong calls throw, as translate(List) does.
      expectThrows(NullPointerException.class, "translateEach(null)", () -> tr.translateEach(null));
      expectThrows(NullPointerException.class, "translateEach(list with null)", () -> tr.translateEach(Arrays.asList("a", null)));
      equal(expected.get(0), tr.translate(texts.get(0)), "usable after a batch with failures");
    }
    // With replaceInvalidUtf8 the bad text is translated (U+FFFD in place); the long line still fails.
    try (Translator tr = Translator.load(modelPath, greedy().toBuilder().maxLineBytes(256).replaceInvalidUtf8(true).build())) {
      List<Outcome<String>> out = tr.translateEach(texts);
      for (int i = 0; i < texts.size(); ++i) {
        String text = texts.get(i);
        if (text.equals(tooLong)) {
          check(!out.get(i).isOk() && out.get(i).error().status() == Status.INPUT_TOO_LONG, "replace: the long line fails");
          continue;
        }
        StringBuilder fixed = new StringBuilder();
        for (char c : text.toCharArray()) fixed.append(Character.isSurrogate(c) || c == 0 ? '\uFFFD' : c);  // no pairs here
        check(out.get(i).isOk(), "replace: texts[" + i + "] translated: " + out.get(i));
        if (expected.get(i) != null) equal(expected.get(i), out.get(i).orElse(null), "replace: texts[" + i + "]");
        else equal(tr.translate(fixed.toString()), out.get(i).orElse(null), "replace: texts[" + i + "] as with U+FFFD");
      }
    }
    Translator closed = Translator.load(modelPath, greedy());
    closed.close();
    expectThrows(IllegalStateException.class, "translateEach after close", () -> closed.translateEach(texts));
  }

  static String escape(String s) {
    StringBuilder b = new StringBuilder();
    for (char c : s.toCharArray()) {
      if (c < 0x20 || Character.isSurrogate(c)) b.append(String.format("\\u%04x", (int) c));
      else b.append(c);
    }
    return b.toString();
  }

  void closed() throws Exception {
    Translator tr = Translator.load(modelPath, greedy());
    String before = tr.translate("A simple text editor.");
    tr.close();
    check(tr.isClosed(), "isClosed");
    expectThrows(IllegalStateException.class, "translate after close", () -> tr.translate("Hello."));
    expectThrows(IllegalStateException.class, "batch after close", () -> tr.translate(Arrays.asList("Hello.")));
    expectThrows(IllegalStateException.class, "n-best after close", () -> tr.translateNBest("Hello."));
    expectThrows(IllegalStateException.class, "prefix after close", () -> tr.translateWithPrefix("Hello.", ""));
    expectThrows(IllegalStateException.class, "backend after close", tr::backend);
    tr.close();  // a second close does nothing
    ++passed;

    Model m = Model.load(modelPath);
    Translator t2 = Translator.create(m, greedy());
    m.close();  // the translator keeps what it needs
    equal(before, t2.translate("A simple text editor."), "translator outlives its model");
    t2.close();
    expectThrows(IllegalStateException.class, "translator from a closed model", () -> Translator.create(m, greedy()));
    m.close();
    ++passed;
  }

  void wrongArguments() throws Exception {
    expectThrows(NullPointerException.class, "load(null)", () -> Translator.load((String) null));
    expectThrows(NullPointerException.class, "load(path, null options)", () -> Translator.load(modelPath, null));
    expectThrows(NullPointerException.class, "fromBytes(null)", () -> Translator.fromBytes(null));
    expectThrows(NullPointerException.class, "create(null model)", () -> Translator.create(null, greedy()));
    try (Translator tr = Translator.load(modelPath, greedy())) {
      expectThrows(NullPointerException.class, "translate(null)", () -> tr.translate((String) null));
      expectThrows(NullPointerException.class, "translate(null list)", () -> tr.translate((List<String>) null));
      expectThrows(NullPointerException.class, "translate(list with null)", () -> tr.translate(Arrays.asList("a", null)));
      expectThrows(NullPointerException.class, "prefix null", () -> tr.translateWithPrefix("a", null));
      equal("", tr.translate(""), "empty text gives an empty translation");
      check(tr.translate("A simple text editor.") != null, "usable after wrong calls");
    }
  }

  void threads() throws Exception {
    final List<String[]> rows = expectedRows();
    final List<String> errors = Collections.synchronizedList(new ArrayList<String>());
    try (Model model = Model.load(modelPath)) {
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 3; ++t) {
        final Translator tr = Translator.create(model, greedy());
        final int offset = t;
        Thread th = new Thread(() -> {
          try (Translator own = tr) {
            for (int i = 0; i < rows.size(); ++i) {
              String[] r = rows.get((i + offset) % rows.size());
              String out = own.translate(r[0]);
              if (!out.equals(r[1])) errors.add("thread " + offset + ": " + r[0] + " -> " + out);
            }
          } catch (Throwable e) {
            errors.add("thread " + offset + ": " + e);
          }
        });
        threads.add(th);
        th.start();
      }
      for (Thread th : threads) th.join();
    }
    equal(Collections.emptyList(), errors, "threads translate as one thread does");

    // close() from another thread while translating: the translation in progress finishes, the
    // next call is an IllegalStateException, never a crash.
    final Translator tr = Translator.load(modelPath, greedy());
    final AtomicReference<Throwable> seen = new AtomicReference<>();
    Thread worker = new Thread(() -> {
      try {
        for (int i = 0; i < 1000; ++i) tr.translate(rows.get(i % rows.size())[0]);
      } catch (Throwable e) {
        seen.set(e);
      }
    });
    worker.start();
    Thread.sleep(50);
    tr.close();
    worker.join();
    check(seen.get() == null || seen.get() instanceof IllegalStateException,
        "close during use: " + seen.get());
  }

  static String repeat(String s, int n) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < n; ++i) b.append(s);
    return b.toString();
  }
}
