// The fast path of Exp, Log, Log1p, Sigmoid and Tanh: each function in plain
// double arithmetic with a proven relative error bound, and a rounding test
// that accepts the result only when every value within that bound rounds to
// the same float32 — then it is the correctly rounded result. The few inputs
// that fail the test (2 to 8 in 10^6) are redone by the double-double kernels
// of math/transcendental_dd.h (math/transcendental.h does the dispatch).
//
// The same rules as the double-double kernels (docs/NUMERICS.md): double and
// integer arithmetic only, no FMA, no libm, no branches (special inputs are
// clamped into the domain and their results selected at the end), tables as
// constexpr arrays. A loop over a fast-path function vectorizes (GCC, every
// tier); the derivation of each bound is in docs/NUMERICS.md, "Fast path".
#ifndef CALCJIT_MATH_TRANSCENDENTAL_FAST_H_
#define CALCJIT_MATH_TRANSCENDENTAL_FAST_H_

#include <bit>
#include <cstdint>

#include "math/transcendental_dd.h"

namespace calcjit::math::internal {

// A fast-path result: `value` is the correctly rounded result unless `fail`
// is nonzero (then the caller redoes the input with the fallback).
struct FastResult {
  float value;
  std::uint32_t fail;
};

// The bounds on |approximation - exact| / |exact| (docs/NUMERICS.md, "Fast
// path", evaluated by tools/mathgen/fast_path_bounds.cc: 2^-41.50 for exp and
// sigmoid, 2^-41.34 for tanh, 2^-42.57 for log, 2^-42.12 for log1p), rounded
// up. The rounding test needs bound 2^53 <= its window (static_asserts).
inline constexpr double kExpFastBound = 0x1.8p-42;      // 2^-41.42
inline constexpr double kSigmoidFastBound = 0x1.8p-42;  // 2^-41.42
inline constexpr double kTanhFastBound = 0x1.2p-41;     // 2^-40.83
inline constexpr double kLogFastBound = 0x1.6p-43;      // 2^-42.54
inline constexpr double kLog1pFastBound = 0x1p-42;

// Nonzero unless every real v with |v - y| <= bound |y| rounds to the same
// float32 as y (then RN(v) = (float)y: round-to-nearest is monotonic). The
// callers' bounds satisfy bound 2^53 <= 2^kWindowBits (static_asserts).
//
// The float32 rounding boundaries in the binade of y are the doubles whose
// low 29 bits are 2^28 (the midpoints between adjacent floats, the overflow
// threshold 2^128 - 2^103 among them). |v - y| < bound 2^53 ulp(y) <=
// 2^kWindowBits ulp(y), so a boundary between y and v lies within
// 2^kWindowBits of y's bit pattern; one in a neighbouring binade would be
// farther than 2^27 ulp(y) (a power of two, a float, lies in between). Hence
// the test on the low 29 bits.
//
// With kTinyResults (y >= 0), results below 2^-126 (float subnormals, whose
// boundaries are the odd multiples of 2^-150) are tested as y + 2^-126: the
// binade [2^-126, 2^-125) has the same grid, and the addition's error, at
// most half an ulp there, keeps the distance below bound 2^52 + 1/2 ulps.
// The sign of y does not change its low bits; y = 0 passes, which only
// happens when the exact result is 0.
template <bool kTinyResults, int kWindowBits>
CALCJIT_MATH_INLINE std::uint32_t Ambiguous(double y) {
  constexpr std::int32_t kWindow = std::int32_t{1} << kWindowBits;
  constexpr std::uint32_t kLow29 = (std::uint32_t{1} << 29) - 1;
  double w = y;
  if constexpr (kTinyResults) {
    // (A select of constants, then an addition: a blend of y + 2^-126 with y
    // would not vectorize on SSE2.)
    w = y + (y < 0x1p-126 ? 0x1p-126 : 0.0);
  }
  // The low 29 bits, offset so that the window around 2^28 is [0, 2 kWindow].
  // (32-bit integers: SSE2 has no 64-bit comparison.)
  std::uint32_t low32 = static_cast<std::uint32_t>(std::bit_cast<std::uint64_t>(w));
  std::int32_t low = static_cast<std::int32_t>((low32 + (kWindow - (1u << 28))) & kLow29);
  return low <= 2 * kWindow ? 1u : 0u;
}

// sum_{k <= kDegree} r^k / k! (kDegree = 10 or 11) by Estrin's scheme: pairs
// c_k + c_(k+1) r combined with r^2, r^4, r^8, so that the chain of dependent
// operations is 7 long instead of Horner's 2 kDegree (the loop over a column
// is bound by that latency, not by the count of operations). Every monomial
// passes through at most 10 roundings (docs/NUMERICS.md).
template <int kDegree>
CALCJIT_MATH_INLINE double ExpTaylor(double r) {
  static_assert(kDegree == 10 || kDegree == 11);
  const double* c = kExpFastTaylor;
  double r2 = r * r;
  double r4 = r2 * r2;
  double r8 = r4 * r4;
  double q0 = (c[0] + c[1] * r) + r2 * (c[2] + c[3] * r);
  double q1 = (c[4] + c[5] * r) + r2 * (c[6] + c[7] * r);
  double high;
  if constexpr (kDegree == 10) {
    high = (c[8] + c[9] * r) + r2 * c[10];
  } else {
    high = (c[8] + c[9] * r) + r2 * (c[10] + c[11] * r);
  }
  return (q0 + r4 * q1) + r8 * high;
}

// e^x for a double x with |x| <= 121, relative error below 2^-41.50 for
// kDegree = 10 and 2^-45.34 for kDegree = 11.
//
// x = k ln2 + r with k = round(x / ln2) (adding 1.5 * 2^52 rounds to an
// integer and leaves k in the low bits) and r = x - k RN(ln2) in two roundings;
// |r| <= 0.34658. e^r is its Taylor polynomial of degree kDegree (Estrin), and
// 2^k is built in the exponent bits (results from 2^-175 to 2^146 stay normal
// doubles). No table: a lookup does not vectorize well on every tier.
template <int kDegree>
CALCJIT_MATH_INLINE double ExpFastCore(double x) {
  constexpr double kShift = 0x1.8p52;
  constexpr double kInvLn2 = kExpInvLn2N * 0x1p-7;  // RN(1/ln2): RN(128/ln2) / 128
  constexpr double kLn2 = kLn2Hi + kLn2Lo;          // RN(ln2)
  static_assert(kLn2 == 0x1.62e42fefa39efp-1);
  double kd = x * kInvLn2 + kShift;
  double kf = kd - kShift;
  double r = x - kf * kLn2;  // |error| < 2^-46.34 (|k| <= 175)
  double p = ExpTaylor<kDegree>(r);
  // The low 12 bits of bits(kd) + 1023 are k + 1023, the biased exponent.
  std::uint64_t scale_bits = (std::bit_cast<std::uint64_t>(kd) + 1023) << 52;
  return p * std::bit_cast<double>(scale_bits);
}

CALCJIT_MATH_INLINE FastResult ExpFast(float x) {
  static_assert(kExpFastBound * 0x1p53 <= 0x1p12);
  // The clamps of ExpDoubleDouble: beyond them the result is 0 or inf anyway;
  // NaN goes to a clamp and is overridden.
  double y = ExpFastCore<10>(static_cast<double>(ClampOrdered(x, -110.0f, 100.0f)));
  float r = static_cast<float>(y);
  return {Override(x != x, x, r), Ambiguous<true, 12>(y)};
}

CALCJIT_MATH_INLINE FastResult SigmoidFast(float x) {
  static_assert(kSigmoidFastBound * 0x1p53 <= 0x1p12);
  double mx = -static_cast<double>(ClampOrdered(x, -120.0f, 120.0f));
  double t = ExpFastCore<10>(mx);  // e^-x
  double y = 1.0 / (1.0 + t);
  float r = static_cast<float>(y);
  return {Override(x != x, x, r), Ambiguous<true, 12>(y)};
}

CALCJIT_MATH_INLINE FastResult TanhFast(float x) {
  static_assert(kTanhFastBound * 0x1p53 <= 0x1p13);
  float axf = std::bit_cast<float>(std::bit_cast<std::uint32_t>(x) & 0x7FFFFFFFu);
  double ax = static_cast<double>(ClampOrdered(axf, 0.0f, 20.0f));
  // |x| < 2^-5: Taylor series to x^7 (x^2 is exact for a float x).
  double x2 = ax * ax;
  double small = ax + ax * (x2 * (kTanhPoly[0] + x2 * (kTanhPoly[1] + x2 * kTanhPoly[2])));
  // Otherwise (E - 1) / (E + 1) with E = e^(2|x|) (E - 1 is exact for E <= 2).
  double e = ExpFastCore<11>(2.0 * ax);
  double big = (e - 1.0) / (e + 1.0);
  double y = Blend(ax < 0x1p-5, small, big);
  float r = static_cast<float>(y);  // >= +0
  r = std::bit_cast<float>(std::bit_cast<std::uint32_t>(r) |
                           (std::bit_cast<std::uint32_t>(x) & 0x80000000u));
  return {Override(x != x, x, r), Ambiguous<true, 13>(y)};
}

// log(uh + ul) for a positive normal double uh in [2^-150, 2^130) and
// |ul| <= ulp(uh)/2 (ul = 0 unless kWithLow). Relative error below 2^-42.57
// for a float uh (and ul = 0), 2^-42.12 for 1 + x (log1p).
//
// uh = 2^e z with z in [0.705, 1.41) and the bucket i of z as in LogDD;
// log = e ln2 - log(invc) + log1p(r) with r = z invc - 1, invc = 1/c rounded to
// 29 bits (kLogFastInvC): for a 24-bit z the product is exact, and so is the
// subtraction (Sterbenz); the bucket around 1 has invc = 1, -log(invc) = 0.
// log1p(r), |r| <= 2^-8, is its Taylor polynomial of degree 5.
template <bool kWithLow>
CALCJIT_MATH_INLINE double LogFastCore(double uh, double ul) {
  std::uint64_t ix = std::bit_cast<std::uint64_t>(uh);
  std::uint64_t tmp = ix - kLogOff;
  std::uint64_t i = (tmp >> 45) & 127;
  std::uint64_t eb = (tmp + (std::uint64_t{1} << 62)) >> 52;  // e + 1024
  double ef = std::bit_cast<double>(0x4330000000000000ULL | eb) - (0x1p52 + 1024.0);
  double z = std::bit_cast<double>(ix - (tmp & 0xFFF0000000000000ULL));
  double invc = kLogFastInvC[i];
  double r = z * invc - 1.0;
  if constexpr (kWithLow) {
    double down = std::bit_cast<double>((std::uint64_t{2047} - eb) << 52);  // 2^-e
    r = r + (ul * down) * invc;
  }
  double p = r + (r * r) * (-0.5 + r * (kLogPoly[0] + r * (kLogPoly[1] + r * kLogPoly[2])));
  double s = ef * kLn2Hi + kLogFastLogInvC[i];  // ef * kLn2Hi is exact
  return s + (p + ef * kLn2Lo);
}

// The special inputs (not positive and finite for log, not in (-1, inf) or
// zero for log1p) run the core on a harmless stand-in and get their result
// selected at the end: the same results as the fallback's.
CALCJIT_MATH_INLINE FastResult LogFast(float x) {
  static_assert(kLogFastBound * 0x1p53 <= 0x1p12);
  bool regular = (x > 0.0f) & (x < kInfF);
  double xd = static_cast<double>(Override(!regular, 1.0f, x));
  double y = LogFastCore<false>(xd, 0.0);
  // -inf for +-0, NaN below 0, x itself for +inf and NaN.
  float special = Override(x == 0.0f, -kInfF, Override(x < 0.0f, kNanF, x));
  float r = Override(!regular, special, static_cast<float>(y));
  return {r, Ambiguous<false, 12>(y)};
}

// (Results below 2^-126, which the test without kTinyResults does not cover,
// only come from subnormal x, and for those y = x exactly: the correctly
// rounded result. docs/NUMERICS.md.)
CALCJIT_MATH_INLINE FastResult Log1pFast(float x) {
  static_assert(kLog1pFastBound * 0x1p53 <= 0x1p12);
  bool regular = (x > -1.0f) & (x < kInfF) & (x != 0.0f);
  double xd = static_cast<double>(Override(!regular, 1.0f, x));
  DoubleDouble u = TwoSum(1.0, xd);  // 1 + x exactly
  double y = LogFastCore<true>(u.hi, u.lo);
  // -inf for -1, NaN below, x itself for +-0, +inf and NaN.
  float special = Override(x == -1.0f, -kInfF, Override(x < -1.0f, kNanF, x));
  float r = Override(!regular, special, static_cast<float>(y));
  return {r, Ambiguous<false, 12>(y)};
}

}  // namespace calcjit::math::internal

#endif  // CALCJIT_MATH_TRANSCENDENTAL_FAST_H_
