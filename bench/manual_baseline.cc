// The seed loops with the project's flags (bench/manual_loops.h).
#define CALCJIT_MANUAL_NAMESPACE baseline
#include "bench/manual_loops.h"
