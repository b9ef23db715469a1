#include "backend/kernels/kernels.h"

namespace calcjit::kernels {

const KernelTable& KernelsFor(Isa isa) {
  switch (isa) {
    case Isa::kAvx512:
      return avx512::Kernels();
    case Isa::kAvx2:
      return avx2::Kernels();
    default:
      return baseline::Kernels();
  }
}

}  // namespace calcjit::kernels
