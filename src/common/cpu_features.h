// Instruction-set extensions beyond the tiers (calcjit/cpu.h) that a kernel
// may take where the CPU has them, asked in cpu.cc with the tiers. A tier's
// code never needs them: each use has a fallback of the same bits, and the
// choice is made once, where a model or set is prepared.
#ifndef CALCJIT_COMMON_CPU_FEATURES_H_
#define CALCJIT_COMMON_CPU_FEATURES_H_

namespace calcjit {

// GFNI (Galois-field instructions) and AVX512_VBMI (byte permutes), both
// Ice Lake and later and Zen 4: the AVX-512 binned trees' split steps
// (model/tree/binned_impl.h).
bool CpuHasGfni();
bool CpuHasVbmi();

}  // namespace calcjit

#endif  // CALCJIT_COMMON_CPU_FEATURES_H_
