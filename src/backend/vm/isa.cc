#include "backend/vm/isa.h"

namespace calcjit::vm {

bool CpuSupports(Isa isa) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  switch (isa) {
    case Isa::kAuto:
    case Isa::kBaseline:
      return true;
    case Isa::kAvx2:
      return __builtin_cpu_supports("x86-64-v3");
    case Isa::kAvx512:
      return __builtin_cpu_supports("x86-64-v4");
  }
  return false;
#else
  return isa == Isa::kAuto || isa == Isa::kBaseline;
#endif
}

Isa DetectIsa() {
  if (CpuSupports(Isa::kAvx512)) return Isa::kAvx512;
  if (CpuSupports(Isa::kAvx2)) return Isa::kAvx2;
  return Isa::kBaseline;
}

}  // namespace calcjit::vm
