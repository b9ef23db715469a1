package io.calcjit;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * How an engine compiles its sets.
 *
 * @param backend AUTO tiers from the VM to the JIT; a named backend is pinned
 * @param outputs the outputs to compute, in order; empty: every definition
 * @param isa null or "auto", "x86-64", "avx2", "avx512" (the VM's kernels)
 */
public record EngineOptions(Backend backend, List<String> outputs, String isa) {
  /**
   * @throws NullPointerException if backend, outputs or one of the outputs is null (isa may be)
   */
  public EngineOptions {
    Objects.requireNonNull(backend, "backend is null");
    Objects.requireNonNull(outputs, "outputs is null (List.of() means every definition)");
    for (int k = 0; k < outputs.size(); ++k) {
      if (outputs.get(k) == null) throw new NullPointerException("outputs[" + k + "] is null");
    }
    outputs = List.copyOf(outputs);
  }

  /** AUTO, every output, the best instruction set of the CPU. */
  public static EngineOptions defaults() {
    return new EngineOptions(Backend.AUTO, List.of(), null);
  }

  public static EngineOptions of(Backend backend, String... outputs) {
    Objects.requireNonNull(outputs, "outputs is null");
    return new EngineOptions(backend, Arrays.asList(outputs), null);
  }

  public EngineOptions withIsa(String isa) {
    return new EngineOptions(backend, outputs, isa);
  }
}
