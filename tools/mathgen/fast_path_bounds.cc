// calcjit_fast_path_bounds: evaluates, with MPFR, every term of the error
// bounds of the fast path (src/math/transcendental_fast.h; the derivation is
// docs/NUMERICS.md, "Fast path") and of the AVX-512 fast path
// (avx512_bounds.cc), prints them, and checks that each derived
// bound is below the constant the header states and within the window of the
// rounding test. Exit code 1 otherwise. Also samples the actual polynomial
// errors (a sanity check of the analytic truncation bounds, not part of the
// proof).
//
// Terms are upper bounds computed at 128 bits and rounded up to double;
// u = 2^-53.
#include <mpfr.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <initializer_list>

#include "avx512_bounds.h"
#include "math/transcendental.h"

namespace {

namespace ci = calcjit::math::internal;

constexpr double kU = 0x1p-53;

// Rounds an MPFR value up to a double.
double Up(mpfr_srcptr v) {
  return mpfr_get_d(v, MPFR_RNDU);
}

// |r|^(n+1) / (n+1)! * factor, rounded up.
double TaylorTail(double r, int n, double factor) {
  mpfr_t t, f;
  mpfr_inits2(128, t, f, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_d(t, r, MPFR_RNDU);
  mpfr_pow_ui(t, t, n + 1, MPFR_RNDU);
  mpfr_fac_ui(f, n + 1, MPFR_RNDD);
  mpfr_div(t, t, f, MPFR_RNDU);
  mpfr_mul_d(t, t, factor, MPFR_RNDU);
  double d = Up(t);
  mpfr_clears(t, f, static_cast<mpfr_ptr>(nullptr));
  return d;
}

double Log2(double x) {
  return std::log2(x);
}

bool Check(const char* name, double derived, double constant, int window_bits) {
  bool ok = derived <= constant && constant * 0x1p53 <= std::ldexp(1.0, window_bits);
  std::printf("%-8s derived bound 2^%.3f, header constant 2^%.3f, window 2^%d ulps: %s\n", name,
              Log2(derived), Log2(constant), window_bits, ok ? "ok" : "VIOLATED");
  return ok;
}

// max over a grid of |T_n(r) - e^r| / e^r, T_n evaluated exactly (MPFR).
double SampleExpTruncation(int degree, double rmax) {
  mpfr_t r, p, e, term;
  mpfr_inits2(160, r, p, e, term, static_cast<mpfr_ptr>(nullptr));
  double worst = 0;
  for (int i = -2000; i <= 2000; ++i) {
    mpfr_set_d(r, rmax * i / 2000.0, MPFR_RNDN);
    mpfr_set_ui(p, 0, MPFR_RNDN);
    mpfr_set_ui(term, 1, MPFR_RNDN);
    for (int k = 0; k <= degree; ++k) {
      if (k > 0) {
        mpfr_mul(term, term, r, MPFR_RNDN);
        mpfr_div_ui(term, term, k, MPFR_RNDN);
      }
      mpfr_add(p, p, term, MPFR_RNDN);
    }
    mpfr_exp(e, r, MPFR_RNDN);
    mpfr_sub(p, p, e, MPFR_RNDN);
    mpfr_div(p, p, e, MPFR_RNDN);
    worst = std::fmax(worst, std::fabs(mpfr_get_d(p, MPFR_RNDN)));
  }
  mpfr_clears(r, p, e, term, static_cast<mpfr_ptr>(nullptr));
  return worst;
}

}  // namespace

int main() {
  bool ok = true;
  std::printf("calcjit_fast_path_bounds (MPFR %s)\n\n", mpfr_get_version());

  // ---- exp core ---------------------------------------------------------
  // |x| <= 121 (the clamps), k = round(x / ln2) up to 1/2 + 2^-44, |k| <= 175.
  const double kMaxK = 175;
  const double r_max = 0.34659;  // (1/2 + 2^-44) ln2 + |r - r*|, rounded up
  // |r - r*| <= k |RN(ln2) - ln2| + half-ulp(k RN(ln2)) + half-ulp(r).
  mpfr_t ln2, t;
  mpfr_inits2(128, ln2, t, static_cast<mpfr_ptr>(nullptr));
  mpfr_const_log2(ln2, MPFR_RNDN);
  mpfr_sub_d(t, ln2, 0x1.62e42fefa39efp-1, MPFR_RNDN);
  const double ln2_err = std::fabs(mpfr_get_d(t, MPFR_RNDU));
  const double r_err = kMaxK * ln2_err + 0x1p-47 + 0x1p-55;
  const double reduction = std::expm1(r_err) * (1 + 0x1p-40);
  std::printf("exp core: |RN(ln2) - ln2| = 2^%.2f, |r - r*| <= 2^%.2f (relative 2^%.2f)\n",
              Log2(ln2_err), Log2(r_err), Log2(reduction));
  // Estrin: at most 10 roundings per monomial, and the coefficient's own:
  // gamma_11 * sum |c_k| |r|^k <= gamma_11 e^|r|, relative to e^r >= e^-|r|.
  const double gamma11 = 11 * kU / (1 - 11 * kU);
  const double evaluation = gamma11 * std::exp(2 * r_max) * (1 + 0x1p-40);
  double exp_core[2];
  for (int degree : {10, 11}) {
    // Lagrange remainder: e^xi r^(n+1)/(n+1)! / e^r <= |r|^(n+1)/(n+1)! e^|r|.
    const double truncation = TaylorTail(r_max, degree, std::exp(r_max) * (1 + 0x1p-40));
    const double sampled = SampleExpTruncation(degree, r_max);
    const double total = (truncation + reduction + evaluation) * (1 + 0x1p-30);
    exp_core[degree - 10] = total;
    std::printf(
        "exp core degree %d: truncation 2^%.2f (sampled 2^%.2f), evaluation 2^%.2f, total "
        "2^%.3f\n",
        degree, Log2(truncation), Log2(sampled), Log2(evaluation), Log2(total));
  }
  ok &= Check("exp", exp_core[0], ci::kExpFastBound, 12);
  // 1/(1+t): the error of t damped by t/(1+t) <= 1, two roundings.
  ok &= Check("sigmoid", (exp_core[0] + 2 * kU) * (1 + 0x1p-30), ci::kSigmoidFastBound, 12);

  // ---- tanh -------------------------------------------------------------
  // Large path: sensitivity of (E-1)/(E+1) to E is 1/sinh(2|x|) <= 1/sinh(1/16),
  // then three roundings (E - 1 is exact while E <= 2).
  const double amplification = 1 / std::sinh(0.0625) * (1 + 0x1p-40);
  const double tanh_big = (amplification * exp_core[1] + 3 * kU) * (1 + 0x1p-30);
  // Small path: first omitted term 62/2835 x^9 of an alternating series with
  // decreasing terms, relative to tanh|x| >= |x| (1 - x^2/3); the tail
  // (|v| <= 2^-11.58 |x|) with 7 roundings; the final addition.
  const double x2 = 0x1p-10;
  const double tanh_trunc = 62.0 / 2835.0 * x2 * x2 * x2 * x2 / (1 - x2 / 3) * (1 + 0x1p-40);
  const double tanh_small = (tanh_trunc + 7 * kU * (x2 / 3) * 1.001 + kU) * (1 + 0x1p-30);
  std::printf(
      "tanh: amplification %.3f, large path 2^%.3f, small path 2^%.3f (truncation 2^%.2f)\n",
      amplification, Log2(tanh_big), Log2(tanh_small), Log2(tanh_trunc));
  ok &= Check("tanh", std::fmax(tanh_big, tanh_small), ci::kTanhFastBound, 13);

  // ---- log, log1p -------------------------------------------------------
  // Per bucket: |r| and the smallest |log z| (e = 0), from the tables.
  double r_abs_max = 0, k1 = 0, k2 = 0, min_log_noncenter = 1;
  const std::uint64_t one_bucket = ((0x3FF0000000000000ULL - ci::kLogOff) >> 45) & 127;
  for (std::uint64_t i = 0; i < 128; ++i) {
    const double zlo = std::bit_cast<double>(ci::kLogOff + (i << 45));
    const double zhi = std::bit_cast<double>(ci::kLogOff + ((i + 1) << 45));
    const double invc = ci::kLogFastInvC[i];
    // |z invc - 1| at both ends, at 128 bits, rounded up.
    double r = 0;
    for (double z : {zlo, zhi}) {
      mpfr_set_d(t, z, MPFR_RNDN);
      mpfr_mul_d(t, t, invc, MPFR_RNDN);
      mpfr_sub_ui(t, t, 1, MPFR_RNDN);
      r = std::fmax(r, std::fabs(mpfr_get_d(t, MPFR_RNDU)));
    }
    r_abs_max = std::fmax(r_abs_max, r);
    if (i == one_bucket) continue;
    // min |log z| over [zlo, zhi) is at the end nearer to 1.
    double min_log = 1e9;
    for (double z : {zlo, zhi}) {
      mpfr_set_d(t, z, MPFR_RNDN);
      mpfr_log(t, t, MPFR_RNDN);
      min_log = std::fmin(min_log, std::fabs(mpfr_get_d(t, MPFR_RNDD)));
    }
    min_log_noncenter = std::fmin(min_log_noncenter, min_log);
    k1 = std::fmax(k1, std::fabs(ci::kLogFastLogInvC[i]) / min_log * (1 + 0x1p-40));
    k2 = std::fmax(k2, r / min_log * (1 + 0x1p-40));
  }
  // e != 0: z in [zmin, 2 zmin), so |log x| >= log(2 zmin) (e >= 1) or
  // -log(zmin) (e <= -1).
  const double zmin = std::bit_cast<double>(ci::kLogOff);
  const double min_log_e = std::fmin(std::log(2 * zmin), -std::log(zmin)) * (1 - 0x1p-40);
  std::printf(
      "log tables: max |r| = 2^%.4f, K1 = max |T|/|log z| = %.4f, K2 = max |r|/|log z| = %.4f, "
      "min |log z| (other buckets) = 2^%.3f, min |log x| (e != 0) = %.4f\n",
      Log2(r_abs_max), k1, k2, Log2(min_log_noncenter), min_log_e);
  // rho: |P - log1p(r)| <= rho |r|: truncation |r|^5/6/(1-|r|), evaluation.
  const double rho = (std::pow(r_abs_max, 5) / 6 / (1 - r_abs_max) + 1.01 * kU) * (1 + 0x1p-40);
  const double center = kU + rho * (1 + r_abs_max);
  const double noncenter = kU + k1 * kU + k2 * rho;
  const double other_e =
      kU + kU * (1 + r_abs_max / min_log_e) +
      (0.35 * kU + kU * (r_abs_max + 0x1p-41) + rho * r_abs_max + 0x1p-90) / min_log_e;
  const double log_bound = std::fmax(center, std::fmax(noncenter, other_e)) * (1 + 0x1p-30);
  std::printf("log: rho 2^%.3f; center 2^%.3f, other buckets 2^%.3f, e != 0 2^%.3f\n", Log2(rho),
              Log2(center), Log2(noncenter), Log2(other_e));
  ok &= Check("log", log_bound, ci::kLogFastBound, 12);
  // log1p: r = RN(RN(z invc) - 1 + RN(ul 2^-e invc)) outside the center
  // bucket: 2^-53 + 2^-105 absolute and u |r| relative more.
  const double extra_noncenter = (0x1p-53 + 0x1p-105) / min_log_noncenter + kU * k2;
  const double extra_e = (0x1p-53 + 0x1p-105) / min_log_e + kU * r_abs_max / min_log_e;
  const double log1p_bound =
      std::fmax(center, std::fmax(noncenter + extra_noncenter, other_e + extra_e)) * (1 + 0x1p-30);
  ok &= Check("log1p", log1p_bound, ci::kLog1pFastBound, 12);

  mpfr_clears(ln2, t, static_cast<mpfr_ptr>(nullptr));
  ok &= calcjit::mathgen::CheckAvx512Bounds();
  mpfr_free_cache();
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
