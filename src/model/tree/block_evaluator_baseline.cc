// The block evaluator for the baseline tier (compile flags: src/model/CMakeLists.txt).
#define CALCJIT_MODEL_TIER baseline
#include "model/tree/block_evaluator_impl.h"
