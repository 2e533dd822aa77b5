package org.softalign;

/**
 * A call into softalign failed: the C API returned a status other than OK. Carries the status
 * (its code and name, as {@code softalign_status} and {@code softalign_status_name} give them)
 * and the library's one-line message ({@code softalign_last_error}).
 *
 * <p>Unchecked, so that translations can be used from lambdas and streams. Wrong calls that
 * never reach the library are the usual Java exceptions: {@link NullPointerException} for a null
 * argument, {@link IllegalStateException} for a closed object.
 */
public class SoftalignException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int code;
  private final String statusName;

  public SoftalignException(int code, String statusName, String message) {
    super(message != null && message.startsWith(statusName + ":") ? message : statusName + ": " + message);
    this.code = code;
    this.statusName = statusName;
  }

  /** Made by the JNI glue: the name and the message as UTF-8 (never JNI's modified UTF-8). */
  SoftalignException(int code, byte[] statusName, byte[] message) {
    this(code, Translator.utf8(statusName), Translator.utf8(message));
  }

  SoftalignException(Status status, String message) {
    this(status.code(), status.statusName(), message);
  }

  /** The status, e.g. {@link Status#INVALID_MODEL}. */
  public Status status() {
    return Status.fromCode(code);
  }

  /** The numeric status code, e.g. 4. */
  public int code() {
    return code;
  }

  /** The status name, e.g. {@code "invalid_model"}. */
  public String statusName() {
    return statusName;
  }
}
