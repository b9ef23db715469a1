// The column kernels for the avx2 tier (compile flags: src/CMakeLists.txt).
#define CALCJIT_KERNELS_TIER avx2
#define CALCJIT_KERNELS_LANES 8
#include "backend/kernels/kernels_impl.h"
