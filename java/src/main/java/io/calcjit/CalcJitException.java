package io.calcjit;

/**
 * An error reported by calcjit: a feature set that does not parse or check, an
 * evaluation whose inputs do not fit the schema, an unknown input name, a
 * failed reload. Carries the C API's kind, message and location (a
 * "line:column" in text, a field path in JSON and protobuf, "byte 17", or an
 * input or output name at evaluation) and every diagnostic ({@link
 * #details()}, one per line: a set check reports every problem it finds).
 *
 * <p>Misuse that Java itself can see (a heap buffer where a direct one is
 * needed, a wrong byte order, a closed engine) is an {@link
 * IllegalArgumentException} or {@link IllegalStateException} instead.
 */
public final class CalcJitException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Who has to act on the error (the C API's calcjit_status). */
  public enum Kind {
    /** The set, the data or the call is wrong. */
    USER,
    /** The environment failed: I/O, memory, a concurrent reload. */
    RUNTIME,
    /** A bug in calcjit. */
    INTERNAL
  }

  private final Kind kind;
  private final String reason;
  private final String location;
  private final String details;

  /** Called by the native layer with the C API's status code. */
  CalcJitException(int status, String reason, String location, String details) {
    super(location.isEmpty() ? reason : location + ": " + reason);
    this.kind = status == 1 ? Kind.USER : status == 2 ? Kind.RUNTIME : Kind.INTERNAL;
    this.reason = reason;
    this.location = location;
    this.details = details;
  }

  public Kind kind() {
    return kind;
  }

  /** The first diagnostic's message, without its location. */
  public String reason() {
    return reason;
  }

  /** Where the error is; "" when nowhere in particular. */
  public String location() {
    return location;
  }

  /** Every diagnostic, one per line, each as "location: message". */
  public String details() {
    return details;
  }
}
