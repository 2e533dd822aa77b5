package org.softalign;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Options of a {@link Translator}, fixed when it is made. Only the options set here are passed
 * to the library, as JSON (softalign_translator_create_json): the others take the library's
 * defaults, which are written once there (softalign_option_defaults_json; the search options:
 * the model's decoding defaults). runtime/include/softalign/softalign.h says what each does. The
 * values are checked by the library when the translator is made: a wrong one is a {@link
 * SoftalignException} with {@link Status#INVALID_ARGUMENT}.
 *
 * <pre>{@code
 * TranslatorOptions o = TranslatorOptions.builder().beam(4).nbest(2).build();
 * }</pre>
 */
public final class TranslatorOptions {
  // The options set, by their library names ("beam", "max_len_a", ...), in the order set.
  private final Map<String, Object> given;
  final boolean copyModel;

  private TranslatorOptions(Builder b) {
    given = new LinkedHashMap<>(b.given);
    copyModel = b.copyModel;
  }

  /** All defaults (the library's and the model's). */
  public static TranslatorOptions defaults() {
    return new Builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from these options. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.given.putAll(given);
    b.copyModel = copyModel;
    return b;
  }

  /** The beam size asked for (0: not set, the model's default). */
  public int beam() {
    Object v = given.get("beam");
    return v == null ? 0 : ((Number) v).intValue();
  }

  /** The number of hypotheses asked for (0: not set, the model's default). */
  public int nbest() {
    Object v = given.get("nbest");
    return v == null ? 0 : ((Number) v).intValue();
  }

  /**
   * Whether alignment was set to true here (false when not set: the library's default then
   * decides, and the results say whether they carry alignments).
   */
  public boolean alignment() {
    return Boolean.TRUE.equals(given.get("alignment"));
  }

  /** The options set, as the JSON object the library reads. */
  String json() {
    StringBuilder out = new StringBuilder("{");
    for (Map.Entry<String, Object> e : given.entrySet()) {
      if (out.length() > 1) out.append(',');
      string(out, e.getKey());
      out.append(':');
      Object v = e.getValue();
      if (v instanceof String) {
        string(out, (String) v);
      } else if (v instanceof Float && !Float.isFinite((Float) v)) {
        string(out, v.toString());  // not a number: the library refuses it (a string, not a number)
      } else {
        out.append(v);  // Integer, Long, Float ("1.5", "1.0E10"), Boolean
      }
    }
    return out.append('}').toString();
  }

  // A JSON string; every character outside printable ASCII as a JSON escape (UTF-16, as JSON's escapes
  // are: a lone surrogate stays one, which the library refuses as it refuses invalid text).
  private static void string(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); ++i) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') out.append('\\').append(c);
      else if (c >= 0x20 && c < 0x7f) out.append(c);
      else out.append(String.format("\\u%04x", (int) c));
    }
    out.append('"');
  }

  /** Builds {@link TranslatorOptions}; every setter returns the builder. */
  public static final class Builder {
    private final Map<String, Object> given = new LinkedHashMap<>();
    private boolean copyModel = false;

    private Builder() {}

    /**
     * Any option by its library name ("beam", "max_len_a", "max_batch", ...; docs/api.md) and a
     * value of its type (Integer, Long, Float, Boolean, String): an option this class has no
     * setter for yet needs none.
     */
    public Builder set(String name, Object value) {
      if (name == null) throw new NullPointerException("name");
      if (value == null) given.remove(name);
      else given.put(name, value);
      return this;
    }

    /** Beam size, >= 1 (1 is greedy); not set: the model's default. */
    public Builder beam(int beam) {
      return set("beam", beam);
    }

    /** Hypotheses returned, 1..beam; not set: the model's default. */
    public Builder nbest(int nbest) {
      return set("nbest", nbest);
    }

    /** Length penalty exponent >= 0; not set: the model's default. */
    public Builder alpha(float alpha) {
      return set("alpha", alpha);
    }

    /** Coverage penalty weight >= 0; not set: the model's default. */
    public Builder beta(float beta) {
      return set("beta", beta);
    }

    /** Max target length floor(a * S + b): a; not set: the model's default. */
    public Builder maxLenA(float a) {
      return set("max_len_a", a);
    }

    /** Max target length floor(a * S + b): b; not set: the model's default. */
    public Builder maxLenB(float b) {
      return set("max_len_b", b);
    }

    /** Longest source in pieces, EOS included; 0: the model's S_max. */
    public Builder maxSourceTokens(int tokens) {
      return set("max_source_tokens", tokens);
    }

    /** Results carry soft and hard alignments ({@link Hypothesis#attention()}, ...). */
    public Builder alignment(boolean on) {
      return set("alignment", on);
    }

    /** Threads, >= 1. */
    public Builder threads(int threads) {
      return set("threads", threads);
    }

    /**
     * Split sources longer than maxSourceTokens and join the parts' translations (the library's
     * default); false: fail with {@link Status#INPUT_TOO_LONG}.
     */
    public Builder splitLongInput(boolean on) {
      return set("split_long_input", on);
    }

    /**
     * Replace what is not text (a lone surrogate, U+0000) by U+FFFD, one each, instead of failing
     * with {@link Status#INVALID_UTF8}.
     */
    public Builder replaceInvalidUtf8(boolean on) {
      return set("replace_invalid_utf8", on);
    }

    /** The kernel set: null (the best for this CPU) or a name such as "ref". */
    public Builder kernels(String kernels) {
      return set("kernels", kernels);
    }

    /** Use the model's vocabulary shortlist, if it has one. */
    public Builder useShortlist(boolean on) {
      return set("use_shortlist", on);
    }

    /** The most working memory the translator may reserve (times threads), bytes. */
    public Builder maxArenaBytes(long bytes) {
      return set("max_arena_bytes", bytes);
    }

    /** Where to compute: "cpu", "auto" or "vulkan"; null: the library's default. */
    public Builder device(String device) {
      return set("device", device);
    }

    /** Copy names, identifiers, URLs, code through unchanged. */
    public Builder copyThrough(boolean on) {
      return set("copy_through", on);
    }

    /** The longest text one translation takes, in UTF-8 bytes; longer is {@link Status#INPUT_TOO_LONG}. */
    public Builder maxLineBytes(long bytes) {
      return set("max_line_bytes", bytes);
    }

    /** Refuse words of up to this many pieces repeated back to back, 0..8; not set: the model's. */
    public Builder blockRepeats(int pieces) {
      return set("block_repeats", pieces);
    }

    /**
     * {@link Translator#load(String, TranslatorOptions)} reads the file into memory the model owns
     * instead of mapping it (softalign_model_load_copy): use it when the file may be rewritten
     * while the translator lives.
     */
    public Builder copyModel(boolean on) {
      this.copyModel = on;
      return this;
    }

    public TranslatorOptions build() {
      return new TranslatorOptions(this);
    }
  }
}
