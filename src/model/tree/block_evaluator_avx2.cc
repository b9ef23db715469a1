// The block evaluator for the avx2 tier (compile flags: src/model/CMakeLists.txt).
#define CALCJIT_MODEL_TIER avx2
#include "model/tree/block_evaluator_impl.h"
