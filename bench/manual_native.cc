// The seed loops built for the host: bench/CMakeLists.txt compiles this file
// with -march=native (bench/manual_loops.h).
#define CALCJIT_MANUAL_NAMESPACE native
#include "bench/manual_loops.h"
