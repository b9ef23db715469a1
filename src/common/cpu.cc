// CPU detection: the one place that asks the processor what it can run.
#include "calcjit/cpu.h"

#include "common/cpu_features.h"

namespace calcjit {

std::optional<Isa> IsaFromName(std::string_view name) {
  if (name == "auto") return Isa::kAuto;
  if (name == "x86-64" || name == "baseline") return Isa::kBaseline;
  if (name == "avx2" || name == "x86-64-v3") return Isa::kAvx2;
  if (name == "avx512" || name == "x86-64-v4") return Isa::kAvx512;
  return std::nullopt;
}

std::string_view IsaName(Isa isa) {
  switch (isa) {
    case Isa::kAuto:
      return "auto";
    case Isa::kBaseline:
      return "x86-64";
    case Isa::kAvx2:
      return "avx2";
    case Isa::kAvx512:
      return "avx512";
  }
  return "?";
}

bool IsIsaSupported(Isa isa) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  switch (isa) {
    case Isa::kAuto:
    case Isa::kBaseline:
      return true;
#if defined(__clang__)
    // clang 16 (the fuzz build, docs/FUZZING.md) knows no "x86-64-v3"/"-v4"
    // here: the features of those levels that it can test (not f16c, movbe
    // or lzcnt), one by one.
    case Isa::kAvx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
             __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
    case Isa::kAvx512:
      return IsIsaSupported(Isa::kAvx2) && __builtin_cpu_supports("avx512f") &&
             __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512cd") &&
             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#else
    case Isa::kAvx2:
      return __builtin_cpu_supports("x86-64-v3");
    case Isa::kAvx512:
      return __builtin_cpu_supports("x86-64-v4");
#endif
  }
  return false;
#else
  return isa == Isa::kAuto || isa == Isa::kBaseline;
#endif
}

Isa BestIsa() {
  if (IsIsaSupported(Isa::kAvx512)) return Isa::kAvx512;
  if (IsIsaSupported(Isa::kAvx2)) return Isa::kAvx2;
  return Isa::kBaseline;
}

bool CpuHasGfni() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("gfni");
#else
  return false;
#endif
}

bool CpuHasVbmi() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512vbmi");
#else
  return false;
#endif
}

}  // namespace calcjit
