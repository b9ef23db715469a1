// The VM's kernels for the avx512 tier (compile flags: src/CMakeLists.txt).
#define CALCJIT_VM_TIER avx512
#include "backend/vm/kernels_impl.h"
