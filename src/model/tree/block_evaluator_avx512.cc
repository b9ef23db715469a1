// The block evaluator for the avx512 tier (compile flags: src/model/CMakeLists.txt).
#define CALCJIT_MODEL_TIER avx512
#include "model/tree/block_evaluator_impl.h"
