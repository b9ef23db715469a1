// The error bounds of the AVX-512 fast path, term by term as derived in
// docs/NUMERICS.md ("AVX-512 fast path"). Terms are upper bounds: the exact
// quantities (table errors, |RN(c) - c|) come from MPFR, rounded up; the
// arithmetic on bounds is done in double with a (1 + 2^-40) factor per
// step, far above its own rounding. u = 2^-53.
#include "avx512_bounds.h"

#include <mpfr.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "math/transcendental.h"
#include "math/transcendental_avx512.h"

namespace calcjit::mathgen {
namespace {

namespace ci = calcjit::math::internal;
namespace av = calcjit::math::internal::avx512;

constexpr double kU = 0x1p-53;
constexpr double kSafe = 1 + 0x1p-40;

// |a - b| for a double a and an MPFR value b, rounded up.
double AbsDiff(double a, mpfr_srcptr b) {
  mpfr_t t;
  mpfr_init2(t, 256);
  mpfr_sub_d(t, b, a, MPFR_RNDN);
  mpfr_abs(t, t, MPFR_RNDN);
  const double d = mpfr_get_d(t, MPFR_RNDU);
  mpfr_clear(t);
  return d;
}

// ln2 / divisor at 256 bits.
void Ln2Over(mpfr_ptr out, long divisor) {
  mpfr_const_log2(out, MPFR_RNDN);
  mpfr_div_si(out, out, divisor, MPFR_RNDN);
}

// A bound on |q_0 - Q_0| for Horner's scheme with FMA on |r| <= r_max:
// q_n = c_n, q_k = RN(c_k + r q_(k+1)), Q the same without rounding. With
// E_k = |q_k - Q_k| and A_k = sum_(i >= k) |c_i| r_max^(i-k) >= |Q_k|:
// E_k <= (1 + u) r_max E_(k+1) + u A_k.
double HornerError(const std::vector<double>& c, double r_max) {
  const int n = static_cast<int>(c.size()) - 1;
  double e = 0;
  for (int k = n - 1; k >= 0; --k) {
    double a = 0;
    for (int i = n; i >= k; --i) a = a * r_max + std::fabs(c[i]);
    e = ((1 + kU) * r_max * e + kU * a) * kSafe;
  }
  return e;
}

bool Check(const char* name, double derived, double constant, int window_bits) {
  const bool ok = derived <= constant && constant * 0x1p53 <= std::ldexp(1.0, window_bits);
  std::printf("%-14s derived bound 2^%.3f, header constant 2^%.3f, window 2^%d ulps: %s\n", name,
              std::log2(derived), std::log2(constant), window_bits, ok ? "ok" : "VIOLATED");
  return ok;
}

// The exp core (ExpCore8<degree>) for |x| <= x_max: the relative error of
// y against e^x. Also returns |r| <= *r_bound.
double ExpCoreBound(int degree, double x_max, double* r_bound) {
  mpfr_t v;
  mpfr_init2(v, 256);
  // C = RN(16/ln2), k = RN_int(x C): |x 16/ln2 - k| <= 1/2 + x_max |C - 16/ln2|.
  const double c_inv = ci::kExpInvLn2N * 0x1p-3;
  mpfr_const_log2(v, MPFR_RNDN);
  mpfr_ui_div(v, 16, v, MPFR_RNDN);
  const double c_err = AbsDiff(c_inv, v);
  const double k_max = std::ceil(x_max * c_inv) + 1;
  // r = RN(x - k L), L = RN(ln2)/16 = RN(ln2/16); |x - k L| < 2^-5, so the
  // FMA's rounding is at most 2^-59.
  const double l = (ci::kLn2Hi + ci::kLn2Lo) * 0x1p-4;
  Ln2Over(v, 16);
  const double l_err = AbsDiff(l, v);
  const double r_err = (k_max * l_err + 0x1p-59) * kSafe;
  const double r_star = (mpfr_get_d(v, MPFR_RNDU) * (0.5 + x_max * c_err)) * kSafe;
  const double r_max = r_star + r_err;
  *r_bound = r_max;
  const double reduction = std::expm1(r_err) * kSafe;
  // The polynomial: coefficients 1, 1, RN(1/k!) (k >= 2; 1/2 is exact).
  std::vector<double> c = {1.0, 1.0};
  double coef = 0;
  for (int k = 2; k <= degree; ++k) {
    c.push_back(ci::kExpFastTaylor[k]);
    mpfr_fac_ui(v, k, MPFR_RNDN);
    mpfr_ui_div(v, 1, v, MPFR_RNDN);
    coef += AbsDiff(ci::kExpFastTaylor[k], v) * std::pow(r_max, k) * kSafe;
  }
  const double evaluation = HornerError(c, r_max);
  // Lagrange: |e^r - T_n(r)| <= e^R R^(n+1)/(n+1)!; relative to e^r >= e^-R.
  mpfr_set_d(v, r_max, MPFR_RNDU);
  mpfr_pow_ui(v, v, degree + 1, MPFR_RNDU);
  mpfr_t f;
  mpfr_init2(f, 256);
  mpfr_fac_ui(f, degree + 1, MPFR_RNDD);
  mpfr_div(v, v, f, MPFR_RNDU);
  mpfr_clear(f);
  const double truncation = mpfr_get_d(v, MPFR_RNDU) * std::exp(2 * r_max) * kSafe;
  const double polynomial = truncation + (evaluation + coef) * std::exp(r_max) * kSafe;
  // The table: RN(2^(j/16)) from the bits (kExp16Bits[j] + (j << 48)).
  double table = 0;
  for (int j = 0; j < 16; ++j) {
    const double t =
        std::bit_cast<double>(ci::kExp16Bits[j] + (static_cast<std::uint64_t>(j) << 48));
    mpfr_set_si(v, j, MPFR_RNDN);
    mpfr_div_si(v, v, 16, MPFR_RNDN);
    mpfr_exp2(v, v, MPFR_RNDN);
    table = std::fmax(table, AbsDiff(t, v) / t * kSafe);
  }
  // y = RN(p * 2^e RN(2^(j/16))): one more rounding.
  const double total =
      ((1 + reduction) * (1 + polynomial) * (1 + table) * (1 + kU) - 1) * (1 + 0x1p-30);
  std::printf(
      "exp core degree %d, |x| <= %g: |r| <= %.6f, reduction 2^%.2f, truncation 2^%.2f, "
      "evaluation 2^%.2f, table 2^%.2f, total 2^%.3f\n",
      degree, x_max, r_max, std::log2(reduction), std::log2(truncation),
      std::log2(evaluation * std::exp(r_max)), std::log2(table), std::log2(total));
  mpfr_clear(v);
  return total;
}

// |1 - x' d| after one Newton step x' = RN(x + x RN(1 - d x)) from |1 - x d| <= a.
double NewtonStep(double a) {
  return (a * a + a * kU * (1 + a) + kU * (1 + a * a + a * kU * (1 + a))) * kSafe;
}

bool ExpSigmoidTanh() {
  bool ok = true;
  double r_max = 0;
  const double exp_core = ExpCoreBound(5, 110, &r_max);
  ok &= Check("exp", exp_core, av::kExpBound, av::kExpWindow);

  // Sigmoid: t = exp core(-x) for |x| <= 120; d = RN(1 + t) within
  // eps_t + u(1 + eps_t) of 1 + t*; the cubic reciprocal step from vrcp14pd
  // (|e| < 2^-14): |y d - 1| <= e^3 + (1 + 2^-14) |g - g*| + u(1 + 2^-41) with
  // |g - g*| <= 2.002 2^-14 u.
  const double sig_core = ExpCoreBound(5, 120, &r_max);
  const double d_rel = (sig_core + kU * (1 + sig_core)) * kSafe;
  const double cubic =
      (0x1p-42 + (1 + 0x1p-14) * 2.002 * 0x1p-14 * kU + kU * (1 + 0x1p-41)) * kSafe;
  const double sigmoid = (cubic + d_rel) / (1 - d_rel) * (1 + 0x1p-30);
  std::printf("sigmoid: 1 + t within 2^%.3f, reciprocal (cubic step) 2^%.3f\n", std::log2(d_rel),
              std::log2(cubic));
  ok &= Check("sigmoid", sigmoid, av::kSigmoidBound, av::kSigmoidWindow);

  // Tanh, |x| >= 2^-5: E = exp core(2|x|) (2|x| <= 40), D = RN(E + 1),
  // R = 1/D by two Newton steps, y = RN(1 - 2R). Relative to tanh|x|, the
  // error of E is amplified by 1/sinh(2|x|) <= 1/sinh(1/16), the errors of
  // D and R by 2/(E - 1) <= 2/(e^(1/16) - 1).
  const double e_core = ExpCoreBound(6, 40, &r_max);
  const double rec = NewtonStep(NewtonStep(0x1p-14));
  const double a1 = 1 / std::sinh(0.0625) * kSafe;
  const double a2 = 2 / std::expm1(0.0625) * kSafe;
  const double d_max = e_core + kU + e_core * kU;
  const double big =
      (kU + (e_core * a1 + (kU + rec + e_core * kU) * a2) / (1 - d_max)) * (1 + 0x1p-30);
  // |x| < 2^-5: x + x (x2 (a1 + x2 (a2 + x2 a3))) with FMA: the first omitted
  // term 62/2835 x^9 (alternating series), relative to tanh|x| >= |x|(1 - x^2/3);
  // the tail (<= 2^-11.58 |x|) with at most 7 roundings; the final one.
  const double x2 = 0x1p-10;
  const double small_trunc = 62.0 / 2835.0 * x2 * x2 * x2 * x2 / (1 - x2 / 3) * kSafe;
  const double small = (small_trunc + 7 * kU * (x2 / 3) * 1.001 + kU) * (1 + 0x1p-30);
  std::printf(
      "tanh: reciprocal (two Newton steps) 2^%.3f, amplification %.3f and %.3f, large 2^%.3f, "
      "small 2^%.3f\n",
      std::log2(rec), a1, a2, std::log2(big), std::log2(small));
  ok &= Check("tanh", std::fmax(big, small), av::kTanhBound, av::kTanhWindow);
  return ok;
}

bool LogLog1p() {
  mpfr_t t;
  mpfr_init2(t, 256);
  // Per bucket: |r| and the smallest |log z| (e = 0), from the tables.
  double r_max = 0, k1 = 0, k2 = 0, min_log_noncenter = 1, max_t = 0;
  const std::uint64_t one_bucket = ((0x3FF0000000000000ULL - ci::kLog16Off) >> 48) & 15;
  for (std::uint64_t i = 0; i < 16; ++i) {
    const double zlo = std::bit_cast<double>(ci::kLog16Off + (i << 48));
    const double zhi = std::bit_cast<double>(ci::kLog16Off + ((i + 1) << 48));
    const double invc = ci::kLog16InvC[i];
    double r = 0;
    for (double z : {zlo, zhi}) {
      mpfr_set_d(t, z, MPFR_RNDN);
      mpfr_mul_d(t, t, invc, MPFR_RNDN);
      mpfr_sub_ui(t, t, 1, MPFR_RNDN);
      r = std::fmax(r, std::fabs(mpfr_get_d(t, MPFR_RNDU)));
    }
    r_max = std::fmax(r_max, r);
    max_t = std::fmax(max_t, std::fabs(ci::kLog16LogInvC[i]));
    if (i == one_bucket) continue;
    double min_log = 1e9;
    for (double z : {zlo, zhi}) {
      mpfr_set_d(t, z, MPFR_RNDN);
      mpfr_log(t, t, MPFR_RNDN);
      min_log = std::fmin(min_log, std::fabs(mpfr_get_d(t, MPFR_RNDD)));
    }
    min_log_noncenter = std::fmin(min_log_noncenter, min_log);
    k1 = std::fmax(k1, std::fabs(ci::kLog16LogInvC[i]) / min_log * kSafe);
    k2 = std::fmax(k2, r / min_log * kSafe);
  }
  r_max = r_max * (1 + 3 * kU);  // log1p: r is within 2u|r| of z invc - 1
  // P = RN(r + RN(r^2) h), h = H(r) by Horner with FMA, H = -1/2 + c3 r + ... + c8 r^6.
  std::vector<double> h = {-0.5};
  double coef = 0;
  for (int k = 3; k <= 8; ++k) {
    h.push_back(ci::kLogPoly[k - 3]);
    mpfr_set_si(t, (k % 2) ? 1 : -1, MPFR_RNDN);
    mpfr_div_si(t, t, k, MPFR_RNDN);
    coef += AbsDiff(ci::kLogPoly[k - 3], t) * std::pow(r_max, k - 1) * kSafe;
  }
  const double h_error = HornerError(h, r_max);
  double h_max = 0;
  for (int i = static_cast<int>(h.size()) - 1; i >= 0; --i) h_max = h_max * r_max + std::fabs(h[i]);
  // rho bounds |P - log1p(r)| / |r|.
  const double truncation = std::pow(r_max, 8) / 9 / (1 - r_max) * kSafe;
  const double rho = (truncation + coef + kU * (1 + r_max * h_max * 1.01) +
                      r_max * (kU * h_max + h_error * (1 + kU))) *
                     kSafe;
  const double center = (kU + rho * (1 + r_max)) * kSafe;
  const double noncenter = (kU * (1 + 0x1p-40) + k1 * kU + k2 * rho) * kSafe;
  // e != 0 (|e| <= 150 for float inputs, 1 + x included): y = RN(e RN(ln2) + w),
  // w = RN(T + P); |log x| >= |e| ln2 - (log of the farther end of [zmin, 2 zmin)).
  mpfr_const_log2(t, MPFR_RNDN);
  const double ln2_err = AbsDiff(ci::kLn2Hi + ci::kLn2Lo, t);
  const double zmin = std::bit_cast<double>(ci::kLog16Off);
  double other_e = 0, min_log_e = 1e9;
  for (int e = -150; e <= 128; ++e) {
    if (e == 0) continue;
    const double min_log =
        (e > 0 ? e * std::log(2.0) + std::log(zmin) : -e * std::log(2.0) - std::log(2 * zmin)) *
        (1 - 0x1p-40);
    min_log_e = std::fmin(min_log_e, min_log);
    const double abs_err =
        std::abs(e) * ln2_err + kU * (max_t + r_max * (1 + r_max)) + kU * max_t + rho * r_max;
    other_e = std::fmax(other_e, (kU * (1 + 0x1p-40) + abs_err / min_log) * kSafe);
  }
  std::printf(
      "log tables (16 buckets): max |r| = 2^%.4f, K1 = %.4f, K2 = %.4f, min |log z| (other "
      "buckets) = 2^%.3f, min |log x| (e != 0) = %.4f\n",
      std::log2(r_max), k1, k2, std::log2(min_log_noncenter), min_log_e);
  std::printf(
      "log: rho 2^%.3f (truncation 2^%.2f); center 2^%.3f, other buckets 2^%.3f, e != 0 2^%.3f\n",
      std::log2(rho), std::log2(truncation), std::log2(center), std::log2(noncenter),
      std::log2(other_e));
  bool ok = true;
  const double log_bound = std::fmax(center, std::fmax(noncenter, other_e)) * (1 + 0x1p-30);
  ok &= Check("log", log_bound, av::kLogBound, av::kLogWindow);
  // log1p outside the center bucket: r = RN(RN(z invc - 1) + ul 2^-e invc) is
  // within 2u r_max of z invc - 1 + ul 2^-e invc, which moves log1p(r) by at
  // most that over (1 - r_max).
  const double shift = 2 * kU * r_max * (1 + kU) / (1 - r_max) * kSafe;
  const double log1p_bound = std::fmax(center, std::fmax(noncenter + shift / min_log_noncenter,
                                                         other_e + shift / min_log_e)) *
                             (1 + 0x1p-30);
  ok &= Check("log1p", log1p_bound, av::kLog1pBound, av::kLog1pWindow);
  mpfr_clear(t);
  return ok;
}

}  // namespace

bool CheckAvx512Bounds() {
  std::printf("\nAVX-512 fast path (math/transcendental_avx512.h)\n");
  bool ok = ExpSigmoidTanh();
  ok &= LogLog1p();
  return ok;
}

}  // namespace calcjit::mathgen
