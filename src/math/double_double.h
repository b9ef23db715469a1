// Double-double building blocks for the float32 transcendental kernels
// (transcendental.h). Everything here is exact IEEE double arithmetic under
// round-to-nearest, written so that GCC and clang vectorize it: no FMA (the
// project compiles with -ffp-contract=off and the JIT has to reproduce these
// bits), no libm, no branches.
#ifndef CALCJIT_MATH_DOUBLE_DOUBLE_H_
#define CALCJIT_MATH_DOUBLE_DOUBLE_H_

#include <bit>
#include <cstdint>

#include "math/bits.h"

// The kernels are large; without forced inlining GCC keeps them out of line
// and then cannot vectorize the caller's loop. clang understands the same
// attribute. CALCJIT_KERNEL (math/bits.h) is `inline`, or `static inline` in
// the VM's per-instruction-set translation units.
#define CALCJIT_MATH_INLINE [[gnu::always_inline]] CALCJIT_KERNEL

namespace calcjit::math::internal {

// An unevaluated sum hi + lo.
struct DoubleDouble {
  double hi;
  double lo;
};

// hi + lo == a + b exactly, hi = RN(a + b). Requires |a| >= |b| (or a == 0).
CALCJIT_MATH_INLINE DoubleDouble Fast2Sum(double a, double b) {
  double s = a + b;
  double e = b - (s - a);
  return {s, e};
}

// hi + lo == a + b exactly, hi = RN(a + b), for any order of magnitudes.
CALCJIT_MATH_INLINE DoubleDouble TwoSum(double a, double b) {
  double s = a + b;
  double bb = s - a;
  double e = (a - (s - bb)) + (b - bb);
  return {s, e};
}

// Veltkamp splitting: a == hi + lo with hi, lo of at most 26 bits each.
// Exact as long as 2^27 * a does not overflow.
CALCJIT_MATH_INLINE DoubleDouble Split(double a) {
  constexpr double kSplitter = 134217729.0;  // 2^27 + 1
  double c = kSplitter * a;
  double hi = c - (c - a);
  return {hi, a - hi};
}

// Dekker's product: hi + lo == a * b exactly (no FMA allowed), as long as
// nothing underflows or overflows, which holds for every use in this library.
CALCJIT_MATH_INLINE DoubleDouble TwoProd(double a, double b) {
  double p = a * b;
  DoubleDouble as = Split(a);
  DoubleDouble bs = Split(b);
  double e = ((as.hi * bs.hi - p) + as.hi * bs.lo + as.lo * bs.hi) + as.lo * bs.lo;
  return {p, e};
}

// Rounds hi + lo to the nearest float32 (ties to even), honoring float
// subnormals and overflow. Requires hi == RN(hi + lo) (a normalized pair, as
// Fast2Sum returns) and hi a normal double or zero.
//
// First hi + lo is rounded to 53 bits with round-to-odd: if lo != 0 and hi
// has an even significand, hi moves one ulp toward lo (the neighbor on lo's
// side has an odd significand, and hi + lo lies strictly between the two).
// Round-to-odd at 53 bits followed by round-to-nearest at 24 bits (or fewer,
// for subnormal floats) equals a single rounding (Boldo and Melquiond,
// "Emulation of FMA and correctly rounded sums: proved algorithms using
// rounding to odd", IEEE TC 2008: it needs p >= q + 2).
CALCJIT_MATH_INLINE float RoundToFloat(DoubleDouble v) {
  std::uint64_t hb = std::bit_cast<std::uint64_t>(v.hi);
  std::uint64_t lb = std::bit_cast<std::uint64_t>(v.lo);
  // +1 moves away from zero, -1 toward zero (in either sign of hi).
  // (Masks rather than bools or 64-bit integer comparisons: GCC 12 vectorizes
  // neither a bool made from an integer bit test nor, without SSE4.2, a signed
  // 64-bit comparison.)
  std::uint64_t step = std::uint64_t{1} | (std::uint64_t{0} - ((hb ^ lb) >> 63));
  step = v.lo != 0.0 ? step : 0;
  hb += step & ((hb & 1) - 1);  // only from an even significand
  return static_cast<float>(std::bit_cast<double>(hb));
}

// cond ? value : r, blended through integer masks. A plain select lets GCC
// sink the computation of r (its final, possibly trapping double -> float
// conversion) into the branch that uses it, and a branch with a trapping
// operation is not if-converted: the caller's loop would not vectorize.
CALCJIT_MATH_INLINE float Override(bool cond, float value, float r) {
  std::uint32_t m = cond ? ~std::uint32_t{0} : 0;
  return std::bit_cast<float>((std::bit_cast<std::uint32_t>(value) & m) |
                              (std::bit_cast<std::uint32_t>(r) & ~m));
}

CALCJIT_MATH_INLINE double Blend(bool cond, double a, double b) {
  std::uint64_t m = cond ? ~std::uint64_t{0} : 0;
  return std::bit_cast<double>((std::bit_cast<std::uint64_t>(a) & m) |
                               (std::bit_cast<std::uint64_t>(b) & ~m));
}

// Clamps x to [lo, hi] (lo <= hi, neither NaN) through the integer order of
// the bit patterns; NaN goes to lo or hi by its sign bit. Integer min/max on
// purpose: with a floating-point select of a constant, GCC threads the
// constant path through the whole kernel, duplicates it, and then cannot
// vectorize the loop ("control flow in loop").
CALCJIT_MATH_INLINE std::int32_t OrderedKey(float x) {
  std::int32_t b = std::bit_cast<std::int32_t>(x);
  return b ^ ((b >> 31) & 0x7FFFFFFF);  // the map is its own inverse
}
CALCJIT_MATH_INLINE float ClampOrdered(float x, float lo, float hi) {
  std::int32_t k = OrderedKey(x);
  std::int32_t klo = OrderedKey(lo);
  std::int32_t khi = OrderedKey(hi);
  k = k > klo ? k : klo;
  k = k < khi ? k : khi;
  return std::bit_cast<float>(k ^ ((k >> 31) & 0x7FFFFFFF));
}
CALCJIT_MATH_INLINE std::int64_t OrderedKey(double x) {
  std::int64_t b = std::bit_cast<std::int64_t>(x);
  return b ^ ((b >> 63) & 0x7FFFFFFFFFFFFFFF);
}
CALCJIT_MATH_INLINE double ClampOrdered(double x, double lo, double hi) {
  std::int64_t k = OrderedKey(x);
  std::int64_t klo = OrderedKey(lo);
  std::int64_t khi = OrderedKey(hi);
  k = k > klo ? k : klo;
  k = k < khi ? k : khi;
  return std::bit_cast<double>(k ^ ((k >> 63) & 0x7FFFFFFFFFFFFFFF));
}

}  // namespace calcjit::math::internal

#endif  // CALCJIT_MATH_DOUBLE_DOUBLE_H_
