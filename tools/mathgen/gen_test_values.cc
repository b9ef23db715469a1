// Prints the MPFR-computed expectations of tests/math/transcendental_test.cc
// (tables of {input bits, correctly rounded result bits}): hand-picked inputs,
// the float thresholds of overflow/underflow, and the inputs closest to a
// rounding boundary in a sampled scan (the hardest to round).
//
//   g++ -std=c++20 -O2 -o /tmp/gen_test_values tools/mathgen/gen_test_values.cc -lmpfr -lgmp
//   /tmp/gen_test_values > /tmp/values.txt   # then paste into the test
//
// Independent of src/math on purpose: the expectations come from MPFR only.
#include <mpfr.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace {

using MpFn = int (*)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);

int MpSigmoid(mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t rnd) {
  // 1/(1+e^-x) with 2x + 64 extra bits: far more than the distance of any
  // printed input to a rounding boundary (each value is also checked by
  // calcjit_ulpcheck).
  mpfr_t t;
  mpfr_init2(t, 2 * mpfr_get_prec(r) + 64);
  mpfr_neg(t, x, MPFR_RNDN);
  mpfr_exp(t, t, MPFR_RNDN);
  mpfr_add_ui(t, t, 1, MPFR_RNDN);
  mpfr_ui_div(t, 1, t, MPFR_RNDN);
  int inex = mpfr_set(r, t, rnd);
  mpfr_clear(t);
  return inex;
}

// Correctly rounded float32 of f(x), with binary32 subnormals and overflow:
// f rounded to odd at 64 bits (toward zero, then the sticky last bit), in
// MPFR's default exponent range (intermediates such as 1 + e^103 overflow
// binary32), then one rounding by mpfr_get_flt.
float Reference(MpFn f, float x) {
  mpfr_t mx, r;
  mpfr_init2(mx, 24);
  mpfr_init2(r, 64);
  mpfr_set_flt(mx, x, MPFR_RNDN);
  int inex = f(r, mx, MPFR_RNDZ);
  if (inex != 0 && mpfr_regular_p(r) && mpfr_min_prec(r) < 64) {
    if (mpfr_sgn(r) > 0) {
      mpfr_nextabove(r);
    } else {
      mpfr_nextbelow(r);
    }
  }
  float out = mpfr_get_flt(r, MPFR_RNDN);
  mpfr_clears(mx, r, static_cast<mpfr_ptr>(nullptr));
  return out;
}

float RefPow(float x, float y) {
  mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
  mpfr_t mx, my, r;
  mpfr_inits2(24, mx, my, r, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_flt(mx, x, MPFR_RNDN);
  mpfr_set_flt(my, y, MPFR_RNDN);
  mpfr_set_emin(-148);
  mpfr_set_emax(128);
  int inex = mpfr_pow(r, mx, my, MPFR_RNDN);
  inex = mpfr_subnormalize(r, inex, MPFR_RNDN);
  float out = mpfr_get_flt(r, MPFR_RNDN);
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);
  mpfr_clears(mx, my, r, static_cast<mpfr_ptr>(nullptr));
  return out;
}

std::uint32_t Bits(float f) {
  return std::bit_cast<std::uint32_t>(f);
}

// Distance of f(x) (approximated in double by g) to the nearest float
// midpoint, relative.
double BoundaryDistance(double d) {
  if (!std::isfinite(d) || d == 0) return 1;
  double a = std::fabs(d);
  float f = static_cast<float>(a);
  if (std::isinf(f)) return 1;
  double fd = f;
  double nb = fd <= a ? std::nextafterf(f, INFINITY) : std::nextafterf(f, 0.0f);
  return std::fabs(a - 0.5 * (fd + nb)) / a;
}

void PrintTable(const char* name, MpFn f, double (*g)(double), std::vector<float> inputs) {
  // The 12 hardest inputs of a sampled scan.
  std::vector<std::pair<double, std::uint32_t>> hard;
  for (std::uint64_t b = 12345; b < (std::uint64_t{1} << 32); b += 1009) {
    float x = std::bit_cast<float>(static_cast<std::uint32_t>(b));
    if (std::isnan(x)) continue;
    hard.push_back({BoundaryDistance(g(x)), static_cast<std::uint32_t>(b)});
  }
  std::partial_sort(hard.begin(), hard.begin() + 12, hard.end());
  for (int i = 0; i < 12; ++i) inputs.push_back(std::bit_cast<float>(hard[i].second));
  std::printf("// %s: {x bits, correctly rounded result bits}\n", name);
  std::printf("constexpr BitsCase k%sCases[] = {\n", name);
  for (float x : inputs) {
    float r = Reference(f, x);
    std::printf("    {0x%08X, 0x%08X},  // %a -> %a\n", Bits(x), Bits(r), static_cast<double>(x),
                static_cast<double>(r));
  }
  std::printf("};\n\n");
}

double SigmoidD(double x) {
  return 1 / (1 + std::exp(-x));
}

}  // namespace

int main() {
  const float tiny = 0x1p-149f, big = 0x1.fffffep127f, min_normal = 0x1p-126f;
  std::vector<float> common = {0.0f,  -0.0f,  tiny,  -tiny, min_normal, -min_normal, big,
                               -big,  1.0f,   -1.0f, 0.5f,  -0.5f,      2.0f,        -2.0f,
                               10.0f, -10.0f, 0.1f,  -0.1f, 1e-10f,     -1e-10f,     3.0f,
                               20.0f, -20.0f, 88.0f, -87.0f};

  // Exp: the thresholds of overflow, underflow to 0 and subnormal results.
  std::vector<float> exp_in = common;
  {
    // Largest x with a finite result, its successor; smallest x > 0 results.
    std::uint32_t lo = Bits(88.0f), hi = Bits(90.0f);
    while (lo < hi) {  // first x with inf
      std::uint32_t mid = lo + (hi - lo) / 2;
      if (std::isinf(Reference(mpfr_exp, std::bit_cast<float>(mid)))) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    exp_in.push_back(std::bit_cast<float>(lo - 1));
    exp_in.push_back(std::bit_cast<float>(lo));
    // Negative side: bits grow with |x|; first x whose result is 0.
    lo = Bits(-100.0f);
    hi = Bits(-110.0f);
    while (lo < hi) {
      std::uint32_t mid = lo + (hi - lo) / 2;
      if (Reference(mpfr_exp, std::bit_cast<float>(mid)) == 0.0f) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    exp_in.push_back(std::bit_cast<float>(lo - 1));
    exp_in.push_back(std::bit_cast<float>(lo));
    // The first subnormal result.
    lo = Bits(-80.0f);
    hi = Bits(-100.0f);
    while (lo < hi) {
      std::uint32_t mid = lo + (hi - lo) / 2;
      if (Reference(mpfr_exp, std::bit_cast<float>(mid)) < min_normal) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    exp_in.push_back(std::bit_cast<float>(lo - 1));
    exp_in.push_back(std::bit_cast<float>(lo));
  }
  PrintTable(
      "Exp", mpfr_exp, [](double x) { return std::exp(x); }, exp_in);

  std::vector<float> log_in = common;
  for (float v : {0x1.fffffep-1f, 0x1.000002p0f, 0x1p-126f, 0x1.8p-149f, 7.0f, 1e30f}) {
    log_in.push_back(v);
  }
  PrintTable(
      "Log", mpfr_log, [](double x) { return std::log(x); }, log_in);

  std::vector<float> log1p_in = common;
  for (float v : {-0x1.fffffep-1f, 0x1p-24f, -0x1p-24f, 0x1p-25f, 0x1p-23f, 1e30f, -0.75f}) {
    log1p_in.push_back(v);
  }
  PrintTable(
      "Log1p", mpfr_log1p, [](double x) { return std::log1p(x); }, log1p_in);

  std::vector<float> sig_in = common;
  for (float v : {17.0f, 17.5f, -103.0f, -104.0f, -88.0f, 0x1p-25f, 0x1p-24f}) sig_in.push_back(v);
  PrintTable("Sigmoid", MpSigmoid, SigmoidD, sig_in);

  std::vector<float> tanh_in = common;
  for (float v : {0x1p-5f, 0x1.fffffep-6f, 0x1p-12f, 9.0f, 9.1f, 0x1p-13f}) tanh_in.push_back(v);
  PrintTable(
      "Tanh", mpfr_tanh, [](double x) { return std::tanh(x); }, tanh_in);

  // Pow: pairs with inexact, finite results (spread over the range).
  std::printf("// Pow: {x bits, y bits, correctly rounded result bits}\n");
  std::printf("constexpr PowCase kPowCases[] = {\n");
  std::vector<std::pair<float, float>> pairs = {{2.0f, 0.5f},
                                                {10.0f, 0.1f},
                                                {0.3f, 7.7f},
                                                {1.0001f, 1e5f},
                                                {0.9999f, -1e5f},
                                                {3.0f, -80.0f},
                                                {7.0f, 45.5f},
                                                {1e-20f, 1.7f},
                                                {1e20f, -0.3f},
                                                {-3.0f, 5.0f},
                                                {-0.7f, -11.0f},
                                                {5.0f, 55.1f},
                                                {0.5f, 149.5f},
                                                {2.0f, 127.99f},
                                                {2.0f, -149.2f},
                                                {tiny, 0.5f},
                                                {big, 0.999f},
                                                {1.5f, 218.7f},
                                                {0x1.000002p0f, 0x1p24f},
                                                {0x1.fffffep-1f, -0x1p25f}};
  for (auto [x, y] : pairs) {
    float r = RefPow(x, y);
    std::printf("    {0x%08X, 0x%08X, 0x%08X},  // pow(%a, %a) -> %a\n", Bits(x), Bits(y), Bits(r),
                static_cast<double>(x), static_cast<double>(y), static_cast<double>(r));
  }
  std::printf("};\n");
  mpfr_free_cache();
  return 0;
}
