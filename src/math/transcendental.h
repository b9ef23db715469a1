// The project's own float32 transcendental functions (spec/DSL.md section 3):
// Exp, Log, Log1p, Sigmoid and Tanh are correctly rounded (round to nearest
// even) for every float32 input; Pow (math/transcendental_dd.h) has an error
// below 1 ulp and is exact whenever the true result is a float32.
//
// Each unary function runs a plain-double fast path with a proven error bound
// and a rounding test (math/transcendental_fast.h); the inputs that fail the
// test, 2 to 8 in 10^6, are redone by the double-double kernel
// (math/transcendental_dd.h). Both are correctly rounded wherever they answer,
// so the result is the same bits whichever path gives it.
//
// Two forms of each:
// - `float Exp(float x)`: one value (the reference interpreter, constant
//   folding, scalar code). Not for vectorized loops: it branches.
// - `void ExpColumn(const float* x, float* out, std::size_t n)`: a column, in
//   blocks of kColumnBlock values: the fast path over the whole block (a
//   straight loop that vectorizes), then the fallback for the failed lanes
//   only. `out` may be `x` (in place); otherwise they must not overlap.
//
// Header-only and portable on purpose (double and integer arithmetic, no FMA,
// no libm, no long double): the VM compiles the column functions once per
// instruction-set tier, the JIT's vector variants call them with a fixed
// width (backend/jit/vector_kernels.cc). docs/NUMERICS.md has the proofs.
#ifndef CALCJIT_MATH_TRANSCENDENTAL_H_
#define CALCJIT_MATH_TRANSCENDENTAL_H_

#include <cstddef>
#include <cstdint>

#include "math/transcendental_dd.h"
#include "math/transcendental_fast.h"

namespace calcjit::math {
namespace internal {

// Values per block of a column: the scratch of a block stays in L1, and the
// fallback pass is skipped for a block with no failed lane.
inline constexpr std::size_t kColumnBlock = 64;

// The fallback, out of line: it is rare, and inlined it would make every
// caller large (and tempt the vectorizer to run it on every lane).
template <float (*kExact)(float)>
[[gnu::noinline]] CALCJIT_KERNEL float ExactOutOfLine(float x) {
  return kExact(x);
}

template <FastResult (*kFast)(float), float (*kExact)(float)>
CALCJIT_MATH_INLINE float ScalarWithFallback(float x) {
  FastResult f = kFast(x);
  if (__builtin_expect(f.fail != 0, 0)) return ExactOutOfLine<kExact>(x);
  return f.value;
}

// Redoes the values of x[0..n) that fail the fast path's test (found again by
// running the fast path: cheaper than keeping a flag per value, since this
// runs for about one block in 2,000 to 8,000).
template <FastResult (*kFast)(float), float (*kExact)(float)>
[[gnu::noinline]] CALCJIT_KERNEL void RedoFailed(const float* x, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (kFast(x[i]).fail != 0) out[i] = kExact(x[i]);
  }
}

// out[i] = f(x[i]) for n <= kColumnBlock values; out may be x. The results
// go to a local block first: the fallback still sees the inputs, and the
// vectorizer sees no possible aliasing.
template <FastResult (*kFast)(float), float (*kExact)(float)>
CALCJIT_MATH_INLINE void BlockWithFallback(const float* x, float* out, std::size_t n) {
  float values[kColumnBlock];
  std::uint32_t any = 0;
  for (std::size_t i = 0; i < n; ++i) {
    FastResult f = kFast(x[i]);
    values[i] = f.value;
    any |= f.fail;
  }
  if (__builtin_expect(any != 0, 0)) RedoFailed<kFast, kExact>(x, values, n);
  __builtin_memcpy(out, values, n * sizeof(float));
}

template <FastResult (*kFast)(float), float (*kExact)(float)>
CALCJIT_MATH_INLINE void ColumnWithFallback(const float* x, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; i += kColumnBlock) {
    const std::size_t m = n - i < kColumnBlock ? n - i : kColumnBlock;
    BlockWithFallback<kFast, kExact>(x + i, out + i, m);
  }
}

}  // namespace internal

// e^x, correctly rounded.
CALCJIT_MATH_INLINE float Exp(float x) {
  return internal::ScalarWithFallback<internal::ExpFast, internal::ExpDoubleDouble>(x);
}
// Natural logarithm, correctly rounded. Log(+-0) = -inf, Log(x < 0) = NaN,
// Log(+inf) = +inf.
CALCJIT_MATH_INLINE float Log(float x) {
  return internal::ScalarWithFallback<internal::LogFast, internal::LogDoubleDouble>(x);
}
// log(1 + x), correctly rounded. Log1p(+-0) = +-0, Log1p(-1) = -inf,
// Log1p(x < -1) = NaN, Log1p(+inf) = +inf.
CALCJIT_MATH_INLINE float Log1p(float x) {
  return internal::ScalarWithFallback<internal::Log1pFast, internal::Log1pDoubleDouble>(x);
}
// 1 / (1 + e^-x), correctly rounded. Sigmoid(+inf) = 1, Sigmoid(-inf) = +0.
CALCJIT_MATH_INLINE float Sigmoid(float x) {
  return internal::ScalarWithFallback<internal::SigmoidFast, internal::SigmoidDoubleDouble>(x);
}
// Hyperbolic tangent, correctly rounded. Tanh(+-0) = +-0, Tanh(+-inf) = +-1.
CALCJIT_MATH_INLINE float Tanh(float x) {
  return internal::ScalarWithFallback<internal::TanhFast, internal::TanhDoubleDouble>(x);
}

// The column forms: out[i] = F(x[i]) for i < n, the same bits as the scalar
// functions. out may be x; n may be 0.
CALCJIT_MATH_INLINE void ExpColumn(const float* x, float* out, std::size_t n) {
  internal::ColumnWithFallback<internal::ExpFast, internal::ExpDoubleDouble>(x, out, n);
}
CALCJIT_MATH_INLINE void LogColumn(const float* x, float* out, std::size_t n) {
  internal::ColumnWithFallback<internal::LogFast, internal::LogDoubleDouble>(x, out, n);
}
CALCJIT_MATH_INLINE void Log1pColumn(const float* x, float* out, std::size_t n) {
  internal::ColumnWithFallback<internal::Log1pFast, internal::Log1pDoubleDouble>(x, out, n);
}
CALCJIT_MATH_INLINE void SigmoidColumn(const float* x, float* out, std::size_t n) {
  internal::ColumnWithFallback<internal::SigmoidFast, internal::SigmoidDoubleDouble>(x, out, n);
}
CALCJIT_MATH_INLINE void TanhColumn(const float* x, float* out, std::size_t n) {
  internal::ColumnWithFallback<internal::TanhFast, internal::TanhDoubleDouble>(x, out, n);
}

}  // namespace calcjit::math

#endif  // CALCJIT_MATH_TRANSCENDENTAL_H_
