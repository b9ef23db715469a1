#include "model/onnx/block_evaluator.h"

#include "math/fp_env.h"

namespace calcjit::model {

Isa ResolveNetIsa(Isa isa) {
  if (isa == Isa::kAuto || !IsIsaSupported(isa)) return BestIsa();
  return isa;
}

EvaluateNetFn NetEvaluatorFor(Isa isa) {
  switch (ResolveNetIsa(isa)) {
    case Isa::kAvx512:
      return &avx512::Evaluate;
    case Isa::kAvx2:
      return &avx2::Evaluate;
    default:
      return &baseline::Evaluate;
  }
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
