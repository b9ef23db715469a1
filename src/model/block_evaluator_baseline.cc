// The block evaluator for the baseline tier (compile flags: src/model/CMakeLists.txt).
#define CALCJIT_MODEL_TIER baseline
#include "model/block_evaluator_impl.h"
