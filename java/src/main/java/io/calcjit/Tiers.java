package io.calcjit;

/**
 * Tier choice: the VM and the JIT of the version serving now, timed on the same synthetic batch
 * once the JIT compiled; the faster serves (docs/SERVING.md, "Tier choice").
 *
 * @param measured false until the JIT has compiled (and for a pinned backend)
 * @param items items in the batch timed
 * @param chosen VM or JIT
 * @param note the timings and the choice in words, or why nothing was timed
 */
public record Tiers(
    boolean measured, long items, double vmNsPerItem, double jitNsPerItem, Backend chosen,
    String note) {}
