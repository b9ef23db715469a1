package io.calcjit;

/** The backends (same bits from each). The order is the C API's enum. */
public enum Backend {
  /** The reference interpreter: the oracle, slow. */
  REFERENCE,
  /** The block VM: compiles in milliseconds. */
  VM,
  /** The LLVM JIT: fused native loops; the version is ready once compiled. */
  JIT,
  /** The VM at once, the JIT when its background compilation is done. */
  AUTO;

  static Backend fromNative(long value) {
    return values()[(int) value];
  }
}
