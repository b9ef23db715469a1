package io.calcjit;

import java.util.List;

/**
 * How an engine compiles its sets.
 *
 * @param backend AUTO tiers from the VM to the JIT; a named backend is pinned
 * @param outputs the outputs to compute, in order; empty: every definition
 * @param isa null or "auto", "x86-64", "avx2", "avx512" (the VM's kernels)
 */
public record EngineOptions(Backend backend, List<String> outputs, String isa) {
  public EngineOptions {
    if (backend == null) throw new IllegalArgumentException("backend is null");
    outputs = List.copyOf(outputs);
  }

  /** AUTO, every output, the best instruction set of the CPU. */
  public static EngineOptions defaults() {
    return new EngineOptions(Backend.AUTO, List.of(), null);
  }

  public static EngineOptions of(Backend backend, String... outputs) {
    return new EngineOptions(backend, List.of(outputs), null);
  }

  public EngineOptions withIsa(String isa) {
    return new EngineOptions(backend, outputs, isa);
  }
}
