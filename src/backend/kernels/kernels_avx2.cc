// The column kernels for the avx2 tier (compile flags: src/CMakeLists.txt).
#define CALCJIT_VM_TIER avx2
#define CALCJIT_VM_LANES 8
#include "backend/kernels/kernels_impl.h"
