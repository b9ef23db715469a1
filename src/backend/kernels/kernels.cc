#include "backend/kernels/kernels.h"

#include "common/tiers.h"

namespace calcjit::kernels {

const KernelTable& KernelsFor(Isa isa) {
  return ForIsa(isa, &baseline::Kernels, &avx2::Kernels, &avx512::Kernels)();
}

}  // namespace calcjit::kernels
