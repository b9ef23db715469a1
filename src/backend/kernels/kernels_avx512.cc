// The column kernels for the avx512 tier (compile flags: src/CMakeLists.txt).
#define CALCJIT_KERNELS_TIER avx512
#define CALCJIT_KERNELS_LANES 16
#include "backend/kernels/kernels_impl.h"
