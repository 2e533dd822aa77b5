package org.softalign;

/** The status codes of the C API ({@code softalign_status}); the values are the C API's. */
public enum Status {
  OK(0, "ok"),
  INVALID_ARGUMENT(1, "invalid_argument"),
  NOT_FOUND(2, "not_found"),
  IO_ERROR(3, "io_error"),
  INVALID_MODEL(4, "invalid_model"),
  UNSUPPORTED_VERSION(5, "unsupported_version"),
  INPUT_TOO_LONG(6, "input_too_long"),
  INVALID_UTF8(7, "invalid_utf8"),
  UNSUPPORTED(8, "unsupported"),
  INTERNAL(9, "internal"),
  RESOURCE_EXHAUSTED(10, "resource_exhausted"),
  /** Stopped by {@link Translator#cancel()}, {@link Thread#interrupt()} or a {@link StreamListener}. */
  CANCELLED(11, "cancelled"),
  /** The call ran past its deadline ({@code TranslatorOptions.Builder.set("timeout_ms", ...)}). */
  DEADLINE_EXCEEDED(12, "deadline_exceeded"),
  /** A code this version of the binding does not know. */
  UNKNOWN(-1, "unknown");

  private final int code;
  private final String statusName;

  Status(int code, String statusName) {
    this.code = code;
    this.statusName = statusName;
  }

  /** The C API's numeric code, e.g. 4 for {@link #INVALID_MODEL}. */
  public int code() {
    return code;
  }

  /** The C API's name, e.g. {@code "invalid_model"} ({@code softalign_status_name}). */
  public String statusName() {
    return statusName;
  }

  /** The status with this code, {@link #UNKNOWN} for any other value. */
  public static Status fromCode(int code) {
    for (Status s : values()) {
      if (s.code == code) return s;
    }
    return UNKNOWN;
  }
}
