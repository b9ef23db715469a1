// Every code path that computes the unary transcendental functions, as
// column functions, so that the exhaustive check proves each of them: the
// scalar function of src/math, its column form (fast path + fallback), the
// VM's kernels of every instruction-set tier this CPU has, and the JIT's
// vector variants (4, 8 and 16 lanes) that this CPU can run.
#ifndef CALCJIT_TOOLS_ULPCHECK_UNARY_PATHS_H_
#define CALCJIT_TOOLS_ULPCHECK_UNARY_PATHS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace calcjit::ulpcheck {

using ColumnFunction = void (*)(const float* x, float* out, std::size_t n);

struct UnaryPath {
  std::string name;  // e.g. "scalar", "vm-avx2", "jit-16"
  ColumnFunction run;
};

// The paths of `function` ("exp", "log", "log1p", "sigmoid", "tanh") that
// this CPU can run; the scalar path comes first.
std::vector<UnaryPath> PathsOf(const std::string& function);

// How many of x[0..n) fail the fast path's rounding test (and so take the
// fallback).
std::uint64_t CountFallbacks(const std::string& function, const float* x, std::size_t n);

// The same for the AVX-512 fast path (math/transcendental_avx512.h: the VM's
// avx512 tier and the JIT's 16-lane variants), or -1 if this CPU has no
// AVX-512.
std::int64_t CountFallbacksAvx512(const std::string& function, const float* x, std::size_t n);

}  // namespace calcjit::ulpcheck

#endif  // CALCJIT_TOOLS_ULPCHECK_UNARY_PATHS_H_
