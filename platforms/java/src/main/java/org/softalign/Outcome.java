package org.softalign;

/**
 * What one text of a batch gave: its translation, or the {@link SoftalignException} it failed
 * with. {@link Translator#translateEach(java.util.List)} and {@link
 * Translator#translateNBestEach(java.util.List)} return one per text, in order, so that a text
 * that fails (invalid text, a line over maxLineBytes, ...) fails alone and the others keep their
 * translations.
 *
 * <pre>{@code
 * for (Outcome<String> o : tr.translateEach(lines)) {
 *   if (o.isOk()) show(o.get());
 *   else log(o.error().statusName() + ": " + o.error().getMessage());
 * }
 * }</pre>
 *
 * @param <T> the value of a text that was translated: a {@code String} or a {@code
 *     List<Hypothesis>}
 */
public final class Outcome<T> {
  private final T value;
  private final SoftalignException error;

  private Outcome(T value, SoftalignException error) {
    this.value = value;
    this.error = error;
  }

  static <T> Outcome<T> of(T value) {
    if (value == null) throw new NullPointerException("value");
    return new Outcome<>(value, null);
  }

  static <T> Outcome<T> failed(SoftalignException error) {
    if (error == null) throw new NullPointerException("error");
    return new Outcome<>(null, error);
  }

  /** Whether the text was translated. */
  public boolean isOk() {
    return error == null;
  }

  /** The translation; for a text that failed, throws its {@link SoftalignException}. */
  public T get() {
    if (error != null) throw error;
    return value;
  }

  /** The translation, or {@code other} for a text that failed. */
  public T orElse(T other) {
    return error == null ? value : other;
  }

  /** Why the text failed (its status and the library's message), or null when it was translated. */
  public SoftalignException error() {
    return error;
  }

  @Override
  public String toString() {
    return error == null ? "Outcome[" + value + "]" : "Outcome[failed: " + error.getMessage() + "]";
  }
}
