#include "model/onnx/block_evaluator.h"

#include "common/tiers.h"
#include "math/fp_env.h"

namespace calcjit::model {

EvaluateNetFn NetEvaluatorFor(Isa isa) {
  return ForIsa<EvaluateNetFn>(isa, &baseline::Evaluate, &avx2::Evaluate, &avx512::Evaluate);
}

std::size_t EvaluateScratchBytes(const PreparedNet& net, std::size_t) {
  return net.scratch_layout().total_bytes + 63;  // room to align the start to 64 bytes
}

void Evaluate(const PreparedNet& net, const float* const* feature_columns, std::size_t n,
              float* const* output_columns, void* scratch, Isa isa) {
  const math::ScopedFpEnv fp_env;
  NetEvaluatorFor(isa)(net, feature_columns, n, output_columns, scratch);
}

}  // namespace calcjit::model
