package org.softalign;

/**
 * Streaming ({@link Translator#translateStream(String, StreamListener)}): told, on the calling
 * thread, each finished sentence and, with greedy search (beam 1), each decoder step's piece.
 * Returning false stops the translation: it then throws a {@link SoftalignException} with {@link
 * Status#CANCELLED}. An exception the listener throws stops it too and reaches the caller.
 */
public interface StreamListener {
  /**
   * Beam 1 only: the piece a decoder step kept for sentence {@code sentence} (from 0): its target
   * id and its SentencePiece text ("\u2581fichier"). A sentence's pieces, in order, are its best
   * hypothesis's pieces.
   */
  default boolean onPiece(long sentence, int id, String piece) {
    return true;
  }

  /**
   * Sentence {@code sentence} (from 0) is done: its translation. A text within the translator's
   * maxSourceTokens is one sentence; a longer one is split, one call per part, and the result's
   * text is their texts joined by a space (empty ones skipped).
   */
  default boolean onSentence(long sentence, String text) {
    return true;
  }
}
