#include "model/tree/block_evaluator.h"

#include "common/tiers.h"
#include "math/fp_env.h"

namespace calcjit::model {

std::size_t EvaluateScratchBytes(const PreparedModel& model, std::size_t) {
  return model.scratch_layout().total_bytes;
}

EvaluateFn TreeEvaluatorFor(Isa isa) {
  return ForIsa<EvaluateFn>(isa, &baseline::Evaluate, &avx2::Evaluate, &avx512::Evaluate);
}

void Evaluate(const PreparedModel& model, const float* const* feature_columns, std::size_t n,
              float* const* output_columns, void* scratch, Isa isa) {
  const math::ScopedFpEnv fp_env;
  TreeEvaluatorFor(isa)(model, feature_columns, n, output_columns, scratch);
}

}  // namespace calcjit::model
