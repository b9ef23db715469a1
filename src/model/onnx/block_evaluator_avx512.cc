// The ONNX block evaluator for the avx512 tier (compile flags: src/model/onnx/CMakeLists.txt).
#define CALCJIT_NET_TIER avx512
#define CALCJIT_NET_LANES 16
#define CALCJIT_NET_STRIPES_PER_PASS 8
#include "model/onnx/block_evaluator_impl.h"
