// The ONNX block evaluator for the baseline tier (compile flags: src/model/onnx/CMakeLists.txt).
#define CALCJIT_NET_TIER baseline
#define CALCJIT_NET_LANES 4
#define CALCJIT_NET_STRIPES_PER_PASS 4
#include "model/onnx/block_evaluator_impl.h"
