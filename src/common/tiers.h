// The one selection of code by instruction-set tier. Kernels, tree and net
// evaluators are compiled once per tier (baseline x86-64, x86-64-v3,
// x86-64-v4) from one source; whoever holds one function per tier picks
// among them here, and "auto" means the best this CPU has (calcjit/cpu.h, the
// one place that asks the processor).
#ifndef CALCJIT_COMMON_TIERS_H_
#define CALCJIT_COMMON_TIERS_H_

#include "calcjit/cpu.h"

namespace calcjit {

// The tier `requested` runs as: kAuto is the best this CPU supports; any
// other tier is taken as given (callers check IsIsaSupported where a user
// names a tier).
inline Isa ConcreteIsa(Isa requested) {
  return requested == Isa::kAuto ? BestIsa() : requested;
}

// Of one value (a function, a table) per tier, the one for `tier`.
template <typename T>
T ForIsa(Isa tier, T baseline, T avx2, T avx512) {
  switch (ConcreteIsa(tier)) {
    case Isa::kAvx512:
      return avx512;
    case Isa::kAvx2:
      return avx2;
    case Isa::kAuto:
    case Isa::kBaseline:
      break;
  }
  return baseline;
}

}  // namespace calcjit

#endif  // CALCJIT_COMMON_TIERS_H_
