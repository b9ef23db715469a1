package io.calcjit;

/**
 * Counters of the version serving now, since it was loaded.
 *
 * @param version the version
 * @param backend what serves it now (never AUTO)
 * @param jitPending its JIT compilation is still running
 * @param evaluations one per query
 * @param errors evaluations the engine refused
 */
public record Stats(
    long version, Backend backend, boolean jitPending, double parseMs, double vmCompileMs,
    double jitCompileMs, long evaluations, long items, long errors, long shadowEvaluations,
    long shadowDropped, long mismatches) {}
