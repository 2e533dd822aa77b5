package org.softalign;

/**
 * Options of a {@link Translator}, fixed when it is made: the fields of the C API's
 * {@code softalign_translator_options} (runtime/include/softalign/softalign.h says what each
 * does). Options left alone take the C API's defaults, which take the model's decoding defaults.
 * The values are checked by the library when the translator is made: a wrong one is a {@link
 * SoftalignException} with {@link Status#INVALID_ARGUMENT}.
 *
 * <pre>{@code
 * TranslatorOptions o = TranslatorOptions.builder().beam(4).nbest(2).build();
 * }</pre>
 */
public final class TranslatorOptions {
  final int maxSourceTokens;
  final int beam;
  final int nbest;
  final float alpha;
  final float beta;
  final float maxLenA;
  final float maxLenB;
  final boolean alignment;
  final int threads;
  final boolean splitLongInput;
  final boolean replaceInvalidUtf8;
  final String kernels;
  final boolean useShortlist;
  final long maxArenaBytes;
  final String device;
  final boolean copyThrough;
  final long maxLineBytes;
  final int blockRepeats;
  final boolean copyModel;

  private TranslatorOptions(Builder b) {
    maxSourceTokens = b.maxSourceTokens;
    beam = b.beam;
    nbest = b.nbest;
    alpha = b.alpha;
    beta = b.beta;
    maxLenA = b.maxLenA;
    maxLenB = b.maxLenB;
    alignment = b.alignment;
    threads = b.threads;
    splitLongInput = b.splitLongInput;
    replaceInvalidUtf8 = b.replaceInvalidUtf8;
    kernels = b.kernels;
    useShortlist = b.useShortlist;
    maxArenaBytes = b.maxArenaBytes;
    device = b.device;
    copyThrough = b.copyThrough;
    maxLineBytes = b.maxLineBytes;
    blockRepeats = b.blockRepeats;
    copyModel = b.copyModel;
  }

  /** All defaults (the model's decoding defaults, one thread, the CPU). */
  public static TranslatorOptions defaults() {
    return new Builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from these options. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.maxSourceTokens = maxSourceTokens;
    b.beam = beam;
    b.nbest = nbest;
    b.alpha = alpha;
    b.beta = beta;
    b.maxLenA = maxLenA;
    b.maxLenB = maxLenB;
    b.alignment = alignment;
    b.threads = threads;
    b.splitLongInput = splitLongInput;
    b.replaceInvalidUtf8 = replaceInvalidUtf8;
    b.kernels = kernels;
    b.useShortlist = useShortlist;
    b.maxArenaBytes = maxArenaBytes;
    b.device = device;
    b.copyThrough = copyThrough;
    b.maxLineBytes = maxLineBytes;
    b.blockRepeats = blockRepeats;
    b.copyModel = copyModel;
    return b;
  }

  /** The beam size asked for (0: the model's default). */
  public int beam() {
    return beam;
  }

  /** The number of hypotheses asked for (0: the model's default). */
  public int nbest() {
    return nbest;
  }

  /** Whether results carry alignments. */
  public boolean alignment() {
    return alignment;
  }

  /** Builds {@link TranslatorOptions}; every setter returns the builder. */
  public static final class Builder {
    // The C API's defaults (softalign_translator_options_init).
    private int maxSourceTokens = 0;
    private int beam = 0;
    private int nbest = 0;
    private float alpha = -1f;
    private float beta = -1f;
    private float maxLenA = -1f;
    private float maxLenB = -1f;
    private boolean alignment = false;
    private int threads = 1;
    private boolean splitLongInput = true;
    private boolean replaceInvalidUtf8 = false;
    private String kernels = null;
    private boolean useShortlist = true;
    private long maxArenaBytes = 0;
    private String device = null;
    private boolean copyThrough = true;
    private long maxLineBytes = 0;
    private int blockRepeats = -1;
    private boolean copyModel = false;

    private Builder() {}

    /** Beam size, >= 1 (1 is greedy); 0: the model's default. */
    public Builder beam(int beam) {
      this.beam = beam;
      return this;
    }

    /** Hypotheses returned, 1..beam; 0: the model's default. */
    public Builder nbest(int nbest) {
      this.nbest = nbest;
      return this;
    }

    /** Length penalty exponent >= 0; negative: the model's default. */
    public Builder alpha(float alpha) {
      this.alpha = alpha;
      return this;
    }

    /** Coverage penalty weight >= 0; negative: the model's default. */
    public Builder beta(float beta) {
      this.beta = beta;
      return this;
    }

    /** Max target length floor(a * S + b): a; negative: the model's default. */
    public Builder maxLenA(float a) {
      this.maxLenA = a;
      return this;
    }

    /** Max target length floor(a * S + b): b; negative: the model's default. */
    public Builder maxLenB(float b) {
      this.maxLenB = b;
      return this;
    }

    /** Longest source in pieces, EOS included; 0: the model's S_max. */
    public Builder maxSourceTokens(int tokens) {
      this.maxSourceTokens = tokens;
      return this;
    }

    /** Results carry soft and hard alignments ({@link Hypothesis#attention()}, ...). */
    public Builder alignment(boolean on) {
      this.alignment = on;
      return this;
    }

    /** Threads for one translation, >= 1. */
    public Builder threads(int threads) {
      this.threads = threads;
      return this;
    }

    /**
     * Split sources longer than maxSourceTokens and join the parts' translations (the default);
     * false: fail with {@link Status#INPUT_TOO_LONG}.
     */
    public Builder splitLongInput(boolean on) {
      this.splitLongInput = on;
      return this;
    }

    /**
     * Replace what is not text (a lone surrogate, U+0000) by U+FFFD, one each, instead of failing
     * with {@link Status#INVALID_UTF8}.
     */
    public Builder replaceInvalidUtf8(boolean on) {
      this.replaceInvalidUtf8 = on;
      return this;
    }

    /** The kernel set: null (the best for this CPU) or a name such as "ref". */
    public Builder kernels(String kernels) {
      this.kernels = kernels;
      return this;
    }

    /** Use the model's vocabulary shortlist, if it has one (the default). */
    public Builder useShortlist(boolean on) {
      this.useShortlist = on;
      return this;
    }

    /** The most working memory the translator may reserve (times threads); 0: 256 MiB. */
    public Builder maxArenaBytes(long bytes) {
      this.maxArenaBytes = bytes;
      return this;
    }

    /** Where to compute: null or "cpu" (the default), "auto" or "vulkan". */
    public Builder device(String device) {
      this.device = device;
      return this;
    }

    /** Copy names, identifiers, URLs, code through unchanged (the default). */
    public Builder copyThrough(boolean on) {
      this.copyThrough = on;
      return this;
    }

    /**
     * The longest text one translation takes, in UTF-8 bytes; longer is {@link
     * Status#INPUT_TOO_LONG}. 0: 1 MiB.
     */
    public Builder maxLineBytes(long bytes) {
      this.maxLineBytes = bytes;
      return this;
    }

    /** Refuse words of up to this many pieces repeated back to back, 0..8; negative: the model's. */
    public Builder blockRepeats(int pieces) {
      this.blockRepeats = pieces;
      return this;
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
