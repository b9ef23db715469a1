// The column kernels for the baseline tier (compile flags: src/CMakeLists.txt).
#define CALCJIT_KERNELS_TIER baseline
#define CALCJIT_KERNELS_LANES 4
#include "backend/kernels/kernels_impl.h"
