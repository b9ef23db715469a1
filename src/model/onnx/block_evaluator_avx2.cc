// The ONNX block evaluator for the avx2 tier (compile flags: src/model/onnx/CMakeLists.txt).
#define CALCJIT_NET_TIER avx2
#define CALCJIT_NET_LANES 8
#define CALCJIT_NET_STRIPES_PER_PASS 4
#include "model/onnx/block_evaluator_impl.h"
