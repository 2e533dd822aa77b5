package org.softalign;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * A result as the library writes it (softalign_result_json, the one result writer; its keys are
 * listed in runtime/include/softalign/softalign.h), read into {@link Hypothesis} objects. Any
 * JSON value and escape is read, so keys this binding does not show (ids, pieces, spans, ...)
 * are skipped, and a key the writer adds breaks nothing. Numbers are read by {@link
 * Float#parseFloat}: the writer prints each float as the shortest text that reads back as the
 * same float, so they arrive exact; a non-finite one, which JSON writes as null, is NaN here.
 * Java has no JSON reader of its own, and the shape is small and fixed: hence this one.
 */
final class ResultJson {
  private final String s;
  private int i;

  private ResultJson(byte[] json) {
    s = new String(json, StandardCharsets.UTF_8);
  }

  /** The hypotheses of one result, best first. */
  static List<Hypothesis> hypotheses(byte[] json) {
    ResultJson r = new ResultJson(json);
    List<Hypothesis> out = Collections.emptyList();
    r.expect('{');
    while (r.more('}')) {
      if (r.key().equals("hypotheses")) out = r.hypothesisList();
      else r.skip();
    }
    return out;
  }

  private List<Hypothesis> hypothesisList() {
    List<Hypothesis> out = new ArrayList<>();
    expect('[');
    while (more(']')) out.add(hypothesis());
    return Collections.unmodifiableList(out);
  }

  private Hypothesis hypothesis() {
    String text = "";
    String alignment = null;
    String wordAlignment = null;
    float score = 0;
    float logProb = 0;
    float confidence = 0;
    float[][] attention = null;
    expect('{');
    while (more('}')) {
      String k = key();
      if (k.equals("text")) text = string();
      else if (k.equals("score")) score = number();
      else if (k.equals("log_prob")) logProb = number();
      else if (k.equals("confidence")) confidence = number();
      else if (k.equals("alignment")) alignment = string();
      else if (k.equals("word_alignment")) wordAlignment = string();
      else if (k.equals("attention")) attention = matrix();
      else skip();
    }
    return new Hypothesis(text, score, logProb, confidence, alignment, wordAlignment, attention);
  }

  private float[][] matrix() {
    List<float[]> rows = new ArrayList<>();
    expect('[');
    while (more(']')) {
      float[] row = new float[8];
      int n = 0;
      expect('[');
      while (more(']')) {
        if (n == row.length) row = Arrays.copyOf(row, 2 * n);
        row[n++] = number();
      }
      rows.add(Arrays.copyOf(row, n));
    }
    return rows.toArray(new float[0][]);
  }

  // Inside an object or array: true before each member (after its comma), false (the closing
  // bracket read) after the last.
  private boolean more(char close) {
    char c = peek();
    if (c == close) {
      ++i;
      return false;
    }
    if (c == ',') {
      ++i;
      peek();
    }
    return true;
  }

  private String key() {
    String k = string();
    expect(':');
    return k;
  }

  private String string() {
    expect('"');
    StringBuilder out = new StringBuilder();
    while (true) {
      int end = i;
      while (end < s.length() && s.charAt(end) != '"' && s.charAt(end) != '\\') ++end;
      out.append(s, i, end);
      i = end;
      char c = next();
      if (c == '"') return out.toString();
      c = next();  // an escape
      switch (c) {
        case 'b': out.append('\b'); break;
        case 'f': out.append('\f'); break;
        case 'n': out.append('\n'); break;
        case 'r': out.append('\r'); break;
        case 't': out.append('\t'); break;
        case 'u':
          if (i + 4 > s.length()) throw bad("a short \\u escape");
          out.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
          i += 4;
          break;
        default: out.append(c);  // '"', '\\', '/'
      }
    }
  }

  // 10^k, exact as doubles.
  private static final double[] TENS = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12};

  /**
   * A number as a float, rounded as Float.parseFloat rounds it. Most of a result's numbers (an
   * attention row's are most of them) are "-d.ddd": digits m below 2^53 and k <= 12 decimals.
   * Then m and 10^k are exact doubles, their quotient is rounded once to a double and that once
   * to a float, which is the float nearest to m / 10^k: a float midpoint t * 2^e (t < 2^25) can
   * be no closer to m / 10^k than a relative 1 / (t * 5^k) > 2^-53, so the double cannot cross
   * one. That costs a fraction of Float.parseFloat, which reads every other text (an exponent).
   */
  private float number() {
    if (peek() == 'n') {
      literal("null");
      return Float.NaN;
    }
    int start = i;
    boolean negative = s.charAt(i) == '-';
    if (negative) ++i;
    long m = 0;
    int decimals = -1;  // digits after the point; -1 before the point
    boolean plain = true;
    for (; i < s.length(); ++i) {
      char c = s.charAt(i);
      if (c >= '0' && c <= '9') {
        if (m < (1L << 53) / 10) m = m * 10 + (c - '0');
        else plain = false;
        if (decimals >= 0) ++decimals;
      } else if (c == '.') {
        plain &= decimals < 0;
        decimals = 0;
      } else if (c == 'e' || c == 'E' || c == '+' || c == '-') {
        plain = false;
      } else {
        break;
      }
    }
    if (plain && i > start + (negative ? 1 : 0) && decimals <= 12) {
      double q = decimals > 0 ? m / TENS[decimals] : m;
      return (float) (negative ? -q : q);
    }
    try {
      return Float.parseFloat(s.substring(start, i));
    } catch (NumberFormatException e) {
      throw bad("not a number");
    }
  }

  private void skip() {
    char c = peek();
    if (c == '{') {
      expect('{');
      while (more('}')) {
        key();
        skip();
      }
    } else if (c == '[') {
      expect('[');
      while (more(']')) skip();
    } else if (c == '"') {
      string();
    } else if (c == 't') {
      literal("true");
    } else if (c == 'f') {
      literal("false");
    } else {
      number();  // null too
    }
  }

  private void literal(String word) {
    if (!s.startsWith(word, i)) throw bad("expected " + word);
    i += word.length();
  }

  private void expect(char c) {
    if (peek() != c) throw bad("expected '" + c + "'");
    ++i;
  }

  // The next character that is not white space, not consumed.
  private char peek() {
    while (i < s.length() && s.charAt(i) <= ' ') ++i;
    if (i == s.length()) throw bad("unexpected end");
    return s.charAt(i);
  }

  private char next() {
    if (i == s.length()) throw bad("unexpected end");
    return s.charAt(i++);
  }

  private SoftalignException bad(String what) {
    return new SoftalignException(Status.INTERNAL, "the result's JSON: " + what + " at character " + i);
  }
}
