#include "model/block_evaluator.h"

#include "math/fp_env.h"

namespace calcjit::model {

namespace {
bool CpuHas(Isa isa) {
  switch (isa) {
    case Isa::kAuto:
    case Isa::kBaseline:
      return true;
    case Isa::kAvx2:  // x86-64-v3
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
             __builtin_cpu_supports("bmi2");
    case Isa::kAvx512:  // x86-64-v4
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
             CpuHas(Isa::kAvx2);
  }
  return false;
}
}  // namespace

Isa ResolveModelIsa(Isa isa) {
  if (isa != Isa::kAuto) return isa;
  if (CpuHas(Isa::kAvx512)) return Isa::kAvx512;
  if (CpuHas(Isa::kAvx2)) return Isa::kAvx2;
  return Isa::kBaseline;
}

std::size_t EvaluateScratchBytes(const PreparedModel& model, std::size_t) {
  return model.scratch_layout().total_bytes;
}

void Evaluate(const PreparedModel& model, const float* const* feature_columns, std::size_t n,
              float* const* output_columns, void* scratch, Isa isa) {
  const math::ScopedFpEnv fp_env;
  switch (ResolveModelIsa(isa)) {
    case Isa::kAvx512:
      return avx512::Evaluate(model, feature_columns, n, output_columns, scratch);
    case Isa::kAvx2:
      return avx2::Evaluate(model, feature_columns, n, output_columns, scratch);
    default:
      return baseline::Evaluate(model, feature_columns, n, output_columns, scratch);
  }
}

}  // namespace calcjit::model
