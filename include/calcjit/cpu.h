// The instruction-set tiers calcjit's kernels and generated code are built
// for, and which of them this CPU can run. Every tier gives the same bits
// (the same IEEE operations in the same order; only the vector width
// differs), so the tier is a matter of speed only.
#ifndef CALCJIT_CPU_H_
#define CALCJIT_CPU_H_

#include "calcjit/cxx20.h"

#include <optional>
#include <string_view>

namespace calcjit {

// kAuto takes the best tier the CPU has. The shipped library needs only
// baseline x86-64; the other tiers run where the CPU has them.
enum class Isa : unsigned char {
  kAuto,
  kBaseline,  // x86-64 (SSE2)
  kAvx2,      // x86-64-v3
  kAvx512,    // x86-64-v4
};

// "auto", "x86-64" (or "baseline"), "avx2" (or "x86-64-v3"), "avx512" (or "x86-64-v4").
std::optional<Isa> IsaFromName(std::string_view name);
std::string_view IsaName(Isa isa);
// Whether this CPU (and OS) can run code for `isa` (kAuto always can).
bool IsIsaSupported(Isa isa);
// The best tier this CPU supports (never kAuto).
Isa BestIsa();

}  // namespace calcjit

#endif  // CALCJIT_CPU_H_
