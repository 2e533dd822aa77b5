package org.softalign;

/**
 * One hypothesis of a translation: its text, its ranking score, summed log-probability and
 * confidence and,
 * when the translator was made with {@link TranslatorOptions.Builder#alignment(boolean)}, its
 * alignments.
 */
public final class Hypothesis {
  private final String text;
  private final float score;
  private final float logProb;
  private final float confidence;
  private final String alignment;
  private final String wordAlignment;
  private final float[][] attention;

  Hypothesis(String text, float score, float logProb, float confidence, String alignment,
      String wordAlignment, float[][] attention) {
    this.text = text;
    this.score = score;
    this.logProb = logProb;
    this.confidence = confidence;
    this.alignment = alignment;
    this.wordAlignment = wordAlignment;
    this.attention = attention;
  }

  /** The translation. */
  public String text() {
    return text;
  }

  /** The ranking score: log-probability / length penalty + coverage penalty. */
  public float score() {
    return score;
  }

  /** The summed log-probability of the hypothesis, EOS included. */
  public float logProb() {
    return logProb;
  }

  /**
   * How far to trust the text, in [0, 1]: with a calibrated model file an estimate of its chrF /
   * 100 fitted on dev, else the geometric mean of its pieces' probabilities (docs/api.md,
   * "Confidence").
   */
  public float confidence() {
    return confidence;
  }

  /**
   * Hard alignment over pieces in Pharaoh format ("0-0 1-2 ...", source-target, 0-based), as the
   * CLI's {@code --alignment} prints it; null without alignment.
   */
  public String alignment() {
    return alignment;
  }

  /** The same over whitespace-separated words ({@code --word-alignment}); null without alignment. */
  public String wordAlignment() {
    return wordAlignment;
  }

  /**
   * Soft alignment: one row per target piece then the EOS row (none when the hypothesis was cut
   * at the maximum length), one column per source piece then the source EOS; null without
   * alignment. The array is this object's: a copy is not made.
   */
  public float[][] attention() {
    return attention;
  }

  @Override
  public String toString() {
    return text;
  }
}
