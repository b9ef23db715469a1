// The double-double float32 transcendental kernels (spec/DSL.md section 3):
// ExpDoubleDouble, LogDoubleDouble, Log1pDoubleDouble, SigmoidDoubleDouble and
// TanhDoubleDouble are correctly rounded (round to nearest even) for every
// float32 input; Pow has an error below 1 ulp and is exact whenever the true
// result is a float32.
//
// The five unary ones are the exact fallback of the plain-double fast path
// (math/transcendental_fast.h), which redoes here only the inputs whose fast
// result it cannot prove correctly rounded; math/transcendental.h puts the two
// together as the public Exp, Log, Log1p, Sigmoid and Tanh. Pow is public here.
//
// Header-only and portable on purpose: the reference interpreter and the VM
// call these directly (GCC vectorizes plain loops over the unary functions and
// Pow with -O3 -mavx2), and the JIT compiles the same header to bitcode with
// clang. Hence: double and integer arithmetic only, no FMA (-ffp-contract=off),
// no libm, no long double, no branches (special cases are selected at the end
// from values computed anyway), tables as constexpr arrays (gathers).
//
// Method (docs/NUMERICS.md has the error analysis): each function computes its
// result as a double-double hi + lo with a relative error below 2^-62 (2^-59
// for Pow), then RoundToFloat rounds hi + lo once, via round-to-odd, to
// float32. The exhaustive check (tools/ulpcheck) proves that no input of the
// unary functions lands close enough to a rounding boundary to be misrounded.
#ifndef CALCJIT_MATH_TRANSCENDENTAL_DD_H_
#define CALCJIT_MATH_TRANSCENDENTAL_DD_H_

#include <bit>
#include <cstdint>
#include <limits>

#include "math/double_double.h"

namespace calcjit::math {
namespace internal {

#include "math/tables.inc"

inline constexpr float kInfF = std::numeric_limits<float>::infinity();
inline constexpr float kNanF = std::numeric_limits<float>::quiet_NaN();

// e^(xh + xl) as a normalized double-double, relative error < 2^-67.
// Requires |xh| <= 177 (so that k fits the exactness of k * kExpLn2N{1,2}) and
// |xl| <= ulp(xh). Results down to 2^-256 stay normal doubles.
//
// x = k ln2/128 + r, |r| <= ln2/256 (plus xl); e^x = 2^(k/128) e^r, with
// 2^(j/128) from a double-double table and e^r - 1 from its Taylor series.
CALCJIT_MATH_INLINE DoubleDouble ExpDD(double xh, double xl) {
  constexpr double kShift = 0x1.8p52;  // adding it rounds to an integer
  // 1023 - (bits(kShift) >> 7), modulo 2^64: turns (kb >> 7) into the biased
  // exponent of 2^floor(k/128).
  constexpr std::uint64_t kScaleBias = std::uint64_t{1023} - (0x4338000000000000ULL >> 7);
  double kd = xh * kExpInvLn2N + kShift;
  // bits(kd) = bits(kShift) + k: k in the low bits, no double-to-int convert
  // (AVX2 has none for 64-bit integers).
  std::uint64_t kb = std::bit_cast<std::uint64_t>(kd);
  double kf = kd - kShift;
  double a = xh - kf * kExpLn2N1;  // exact: kf*kExpLn2N1 exact, then Sterbenz
  double b = kf * kExpLn2N2;       // exact: 15 + 38 bits
  DoubleDouble r = TwoSum(a, -b);
  double rh = r.hi;
  double rl = r.lo + (xl - kf * kExpLn2N3);

  // e^(rh + rl) - 1 = rh + s, |s| < 2^-17.
  double q =
      rh * rh *
      (kExpPoly[0] +
       rh * (kExpPoly[1] +
             rh * (kExpPoly[2] + rh * (kExpPoly[3] + rh * (kExpPoly[4] + rh * kExpPoly[5])))));
  double s = (q + rl) + rh * rl;

  std::uint64_t j = kb & 127;
  double th = kExp2Hi[j];
  double tl = kExp2Lo[j];
  // T (1 + rh + s) with T*rh exact: its rounding error would be 2^-61.5.
  DoubleDouble p = TwoProd(th, rh);
  double lo = ((p.lo + th * s) + tl) + tl * (rh + s);
  DoubleDouble h = Fast2Sum(th, p.hi);
  DoubleDouble res = Fast2Sum(h.hi, h.lo + lo);

  std::uint64_t scale_bits = ((kb >> 7) + kScaleBias) << 52;
  double scale = std::bit_cast<double>(scale_bits);  // 2^floor(k/128), exact
  return {res.hi * scale, res.lo * scale};
}

// log(uh + ul) as a normalized double-double, relative error < 2^-66.
// Requires uh a positive normal double in [2^-150, 2^130) and |ul| <= ulp(uh)/2.
//
// uh = 2^e z with z in [0.705, 1.41); c the center of z's bucket (c = 1 for the
// bucket around 1, so that no cancellation hides near log(1) = 0);
// log(uh + ul) = e ln2 + log(c) + log1p(r), r = (z - c + ul 2^-e) / c, where
// z - c is exact (Sterbenz) and r is formed as a double-double.
CALCJIT_MATH_INLINE DoubleDouble LogDD(double uh, double ul) {
  std::uint64_t ix = std::bit_cast<std::uint64_t>(uh);
  std::uint64_t tmp = ix - kLogOff;  // wraps below kLogOff: handled by the bias
  std::uint64_t i = (tmp >> 45) & 127;
  // e + 1024 via a logical shift: (signed) tmp is within +-2^62.
  std::uint64_t eb = (tmp + (std::uint64_t{1} << 62)) >> 52;
  double ef = std::bit_cast<double>(0x4330000000000000ULL | eb) - (0x1p52 + 1024.0);
  double z = std::bit_cast<double>(ix - (tmp & 0xFFF0000000000000ULL));
  double down = std::bit_cast<double>((std::uint64_t{2047} - eb) << 52);  // 2^-e

  double c = kLogC[i];
  double invc_hi = kLogInvCHi[i];
  double invc_lo = kLogInvCLo[i];
  double dh = z - c;      // exact (Sterbenz)
  double dl = ul * down;  // exact
  DoubleDouble p = TwoProd(dh, invc_hi);
  double rest = p.lo + (dl * invc_hi + dh * invc_lo);
  DoubleDouble r = TwoSum(p.hi, rest);
  double rh = r.hi;
  double rl = r.lo;

  // log1p(rh + rl) = rh - rh^2/2 + rh^3 P(rh) + rl (1 - rh), |rh| <= 2^-8.
  DoubleDouble sq = TwoProd(rh, rh);
  DoubleDouble l1 = Fast2Sum(rh, -0.5 * sq.hi);
  double poly =
      rh * sq.hi *
      (kLogPoly[0] +
       rh * (kLogPoly[1] +
             rh * (kLogPoly[2] +
                   rh * (kLogPoly[3] +
                         rh * (kLogPoly[4] +
                               rh * (kLogPoly[5] + rh * (kLogPoly[6] + rh * kLogPoly[7])))))));
  double l1_lo = l1.lo + ((poly - 0.5 * sq.lo) + rl * (1.0 - rh));

  double a = ef * kLn2Hi;  // exact: 9 + 44 bits
  DoubleDouble s = TwoSum(a, kLogLogCHi[i]);
  DoubleDouble s2 = TwoSum(s.hi, l1.hi);
  double lo = ((s.lo + s2.lo) + l1_lo) + (ef * kLn2Lo + kLogLogCLo[i]);
  return Fast2Sum(s2.hi, lo);
}

// 1 / (dh + dl) and (nh + nl) / (dh + dl) in double-double (relative error
// about 2^-104). The remainder n - q*d is exact up to its low-order terms
// because q*d is formed with TwoProd and nh - RN(q*dh) is exact (Sterbenz).
CALCJIT_MATH_INLINE DoubleDouble DivDD(double nh, double nl, double dh, double dl) {
  double qh = nh / dh;
  DoubleDouble p = TwoProd(qh, dh);
  double rem = (((nh - p.hi) - p.lo) + nl) - qh * dl;
  double ql = rem / dh;
  return Fast2Sum(qh, ql);
}

CALCJIT_MATH_INLINE bool SignBit(float x) {
  return (std::bit_cast<std::uint32_t>(x) >> 31) != 0;
}

// e^x, correctly rounded.
CALCJIT_MATH_INLINE float ExpDoubleDouble(float x) {
  // Beyond the clamps the result is already 0 (e^-110 < 2^-158) or inf
  // (e^100 > 2^144); NaN fails both comparisons and is clamped to -110.
  double xd = static_cast<double>(ClampOrdered(x, -110.0f, 100.0f));
  float r = RoundToFloat(ExpDD(xd, 0.0));
  return Override(x != x, x, r);
}

// Natural logarithm, correctly rounded. Log(+-0) = -inf, Log(x < 0) = NaN,
// Log(+inf) = +inf.
CALCJIT_MATH_INLINE float LogDoubleDouble(float x) {
  // float -> double is exact and normalizes float subnormals.
  // Non-positive, inf and NaN inputs are overridden below; the clamp only
  // keeps LogDD in its domain.
  double xd = static_cast<double>(ClampOrdered(x, 0x1p-149f, 0x1.fffffep127f));
  float r = RoundToFloat(LogDD(xd, 0.0));
  r = Override(x == 0.0f, -kInfF, r);
  r = Override(x < 0.0f, kNanF, r);
  r = Override(x == kInfF, kInfF, r);
  return Override(x != x, x, r);
}

// log(1 + x), correctly rounded. Log1p(+-0) = +-0, Log1p(-1) = -inf,
// Log1p(x < -1) = NaN, Log1p(+inf) = +inf.
CALCJIT_MATH_INLINE float Log1pDoubleDouble(float x) {
  double xd = static_cast<double>(ClampOrdered(x, -0x1.fffffep-1f, 0x1.fffffep127f));
  // 1 + x exactly as a double-double (it needs up to 150 bits).
  DoubleDouble u = TwoSum(1.0, xd);
  float r = RoundToFloat(LogDD(u.hi, u.lo));
  r = Override(x == -1.0f, -kInfF, r);
  r = Override(x < -1.0f, kNanF, r);
  r = Override(x == kInfF, kInfF, r);
  r = Override(x == 0.0f, x, r);
  return Override(x != x, x, r);
}

// 1 / (1 + e^-x), correctly rounded. Sigmoid(+inf) = 1, Sigmoid(-inf) = +0.
CALCJIT_MATH_INLINE float SigmoidDoubleDouble(float x) {
  // Beyond +-120 the result rounds to 1 or 0 (e^-120 < 2^-173); NaN -> 120.
  double mx = -static_cast<double>(ClampOrdered(x, -120.0f, 120.0f));
  DoubleDouble t = ExpDD(mx, 0.0);  // e^-x
  DoubleDouble d = TwoSum(1.0, t.hi);
  float r = RoundToFloat(DivDD(1.0, 0.0, d.hi, d.lo + t.lo));
  return Override(x != x, x, r);
}

// Hyperbolic tangent, correctly rounded. Tanh(-0) = -0.
CALCJIT_MATH_INLINE float TanhDoubleDouble(float x) {
  // tanh(20) = 1 - 2^-56.7 rounds to 1 like everything beyond; NaN -> 20.
  float axf = std::bit_cast<float>(std::bit_cast<std::uint32_t>(x) & 0x7FFFFFFFu);
  double ax = static_cast<double>(ClampOrdered(axf, 0.0f, 20.0f));

  // |x| < 2^-5: Taylor series to x^13 (truncation < 2^-77 relative); the tail
  // is below 2^-11.6 |x|, so its rounding errors stay below 2^-63 |x|.
  double x2 = ax * ax;  // exact: 24-bit input
  double p =
      x2 *
      (kTanhPoly[0] +
       x2 * (kTanhPoly[1] +
             x2 * (kTanhPoly[2] + x2 * (kTanhPoly[3] + x2 * (kTanhPoly[4] + x2 * kTanhPoly[5])))));
  DoubleDouble small = Fast2Sum(ax, ax * p);

  // Otherwise (E - 1) / (E + 1) with E = e^(2|x|); E - 1 >= 2^-4 keeps the
  // error of E amplified by at most 17.
  DoubleDouble e = ExpDD(2.0 * ax, 0.0);
  DoubleDouble num = TwoSum(e.hi, -1.0);
  DoubleDouble den = TwoSum(e.hi, 1.0);
  DoubleDouble big = DivDD(num.hi, num.lo + e.lo, den.hi, den.lo + e.lo);

  bool use_small = ax < 0x1p-5;
  // Integer blends: a select would let GCC sink each path into a branch.
  DoubleDouble v{Blend(use_small, small.hi, big.hi), Blend(use_small, small.lo, big.lo)};
  float r = RoundToFloat(v);  // >= +0
  r = std::bit_cast<float>(std::bit_cast<std::uint32_t>(r) |
                           (std::bit_cast<std::uint32_t>(x) & 0x80000000u));
  return Override(x != x, x, r);
}

}  // namespace internal

// x^y with an error below 1 ulp, exact whenever x^y is a float32 (subnormal
// results included), and the special cases of C99 powf (Annex F.9.4.4).
//
// |x|^y = e^(y log|x|): log|x| in double-double (relative error < 2^-66), times
// y exactly (TwoProd), then ExpDD of that double-double. Only |y log|x|| <= 104
// matters (beyond, the result is 0 or inf), so the result has a relative error
// below 104 * 2^-66 + 2^-67 < 2^-59, far below the 2^-25 distance from a float
// to the nearest rounding boundary: exact results come out exact.
CALCJIT_MATH_INLINE float Pow(float x, float y) {
  using namespace internal;
  float ax = std::bit_cast<float>(std::bit_cast<std::uint32_t>(x) & 0x7FFFFFFFu);
  float ay = std::bit_cast<float>(std::bit_cast<std::uint32_t>(y) & 0x7FFFFFFFu);

  // Every float with |y| >= 2^24 is an even integer; below, y is an integer
  // when truncation does not change it. NaN y lands in yc = 0 (decided later).
  float yc = ClampOrdered(ay, 0.0f, 0x1p24f);
  bool y_int = static_cast<float>(static_cast<std::int32_t>(yc)) == yc;
  // Odd integer: yc - 2 trunc(yc/2) == 1 (all exact). Float arithmetic rather
  // than testing the integer's low bit: GCC 12 does not vectorize a bool made
  // from an integer bit test combined with a float comparison.
  float half = static_cast<float>(static_cast<std::int32_t>(yc * 0.5f));
  bool y_odd = yc - 2.0f * half == 1.0f;

  // Core on finite, nonzero x and finite y; other inputs get neutral values
  // and are overridden below.
  double axd = static_cast<double>(ClampOrdered(ax, 0x1p-149f, 0x1.fffffep127f));
  double yd = static_cast<double>(ClampOrdered(y, -0x1.fffffep127f, 0x1.fffffep127f));
  DoubleDouble l = LogDD(axd, 0.0);
  DoubleDouble t0 = TwoProd(yd, l.hi);
  DoubleDouble t = Fast2Sum(t0.hi, t0.lo + yd * l.lo);
  // |x|^y is 0 below e^-110 and inf above e^100; the clamp keeps ExpDD in range.
  // (t is finite; integer blends rather than 64-bit integer min/max, which
  // SSE2 lacks. t.lo is dropped when t.hi is clamped.)
  bool t_high = t.hi > 100.0;
  bool t_low = t.hi < -110.0;
  double th = Blend(t_high, 100.0, Blend(t_low, -110.0, t.hi));
  double tl = Blend(t_high, 0.0, Blend(t_low, 0.0, t.lo));
  DoubleDouble e = ExpDD(th, tl);
  // x^y can be exactly the midpoint between two floats (pow(4097, 2) =
  // 2^24 + 2^13 + 1, pow(2, -150)); the approximation then lies on either
  // side. Within 2^-57 (relative) of a midpoint use the midpoint itself, so
  // that ties go to even as in a correctly rounded x * x. The error of e is
  // below 2^-59, so true midpoints always snap; a non-midpoint that snaps is
  // off by at most half an ulp plus 2^-32 ulp, within the 1 ulp contract.
  float near = static_cast<float>(e.hi);
  double near_d = static_cast<double>(near);
  bool above = (e.hi - near_d) + e.lo > 0.0;  // e.hi - near_d is exact (Sterbenz)
  std::uint32_t step = above ? 1u : ~0u;
  // Below +0 this is a NaN and never snaps.
  float other = std::bit_cast<float>(std::bit_cast<std::uint32_t>(near) + step);
  double mid = 0.5 * (near_d + static_cast<double>(other));
  double dist = (e.hi - mid) + e.lo;
  bool snap = (dist < 0x1p-57 * mid) & (dist > -0x1p-57 * mid);
  // (Integer blends: GCC would otherwise sink the work into a branch.)
  e = {Blend(snap, mid, e.hi), Blend(snap, 0.0, e.lo)};
  float mag = RoundToFloat(e);

  bool x_neg = x < 0.0f;
  std::uint32_t sign = (x_neg & y_odd) ? 0x80000000u : 0u;
  float r = std::bit_cast<float>(std::bit_cast<std::uint32_t>(mag) | sign);
  r = Override(x_neg & !y_int, kNanF, r);
  // x = +-0 or +-inf: 0 or inf by the signs of y and the size of x; the sign
  // of x survives only for odd integer y.
  bool x_inf = ax == kInfF;
  float zero_inf = ((y < 0.0f) != x_inf) ? kInfF : 0.0f;
  zero_inf = Override(SignBit(x) & y_odd, -zero_inf, zero_inf);
  r = Override((ax == 0.0f) | x_inf, zero_inf, r);
  // y = +-inf: 1 for |x| = 1, else 0 or inf.
  float y_inf = ((ax < 1.0f) == (y < 0.0f)) ? kInfF : 0.0f;
  y_inf = ax == 1.0f ? 1.0f : y_inf;
  r = Override(ay == kInfF, y_inf, r);
  r = Override((x != x) | (y != y), kNanF, r);
  return Override((y == 0.0f) | (x == 1.0f), 1.0f, r);
}

}  // namespace calcjit::math

#endif  // CALCJIT_MATH_TRANSCENDENTAL_DD_H_
