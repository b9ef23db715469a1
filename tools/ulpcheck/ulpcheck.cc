// calcjit_ulpcheck: proves the float32 kernels of src/math/transcendental.h
// against MPFR. See docs/NUMERICS.md for the method and the recorded runs.
//
//   calcjit_ulpcheck exp|log|log1p|sigmoid|tanh|all [--stride S] [--threads T]
//                    [--paths P1,P2]   (only the named paths, e.g. vm-avx512,jit-16)
//   calcjit_ulpcheck pow [--pairs N] [--seed S] [--threads T] [--exact-stride S]
//                        [--mpfr-all]
//
// Unary functions: every float32 bit pattern (or every S-th, with a varying
// offset inside each stride so that a sample covers all exponents) must give
// the correctly rounded result; exit code 1 otherwise.
//
// Filter: the exact value is first approximated with glibc's double function
// (error a few double ulps, i.e. < 2^-50 relative). Unless that double lies
// within 2^-40 (relative) of a float32 rounding boundary (a midpoint between
// two adjacent floats, including the overflow threshold and the subnormal
// midpoints), the exact value rounds like it, and (float)d is the correctly
// rounded result. Only the rest goes to MPFR.
//
// Each unary function is checked on every path that computes it (unary_paths.h:
// the scalar function, its column form, the VM kernels of each tier and the
// JIT's vector variants this CPU can run), against the same reference; the
// report also counts the inputs that take the fast path's fallback.
#include <mpfr.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "math/transcendental.h"
#include "unary_paths.h"

namespace {

namespace cm = calcjit::math;

constexpr double kMargin = 0x1p-40;
constexpr int kMaxReported = 10;

std::uint32_t Bits(float x) {
  return std::bit_cast<std::uint32_t>(x);
}
float FromBits(std::uint32_t b) {
  return std::bit_cast<float>(b);
}

// True when d (an approximation of the exact value with relative error far
// below kMargin) is too close to a float32 rounding boundary to decide the
// rounding from d alone.
bool NearBoundary(double d) {
  if (!std::isfinite(d) || d == 0.0) return false;
  double a = std::fabs(d);
  float f = static_cast<float>(a);
  double fd = std::isinf(f) ? 0x1p128 : static_cast<double>(f);
  double nb;
  if (fd <= a) {
    nb = (f == std::numeric_limits<float>::max())
             ? 0x1p128
             : static_cast<double>(std::nextafterf(f, INFINITY));
  } else {
    nb = static_cast<double>(std::nextafterf(f, 0.0f));  // inf -> FLT_MAX
  }
  double mid = 0.5 * (fd + nb);
  return std::fabs(a - mid) <= kMargin * a;
}

// Per-thread MPFR scratch.
class MpScratch {
 public:
  MpScratch() {
    mpfr_inits2(64, x_, y_, r_, d_, static_cast<mpfr_ptr>(nullptr));
    mpfr_init2(t_, 64);
  }
  ~MpScratch() {
    mpfr_clears(x_, y_, r_, d_, t_, static_cast<mpfr_ptr>(nullptr));
    mpfr_free_cache();
  }
  MpScratch(const MpScratch&) = delete;
  MpScratch& operator=(const MpScratch&) = delete;

  // r_ = f(x) rounded to odd at 64 bits: then rounding r_ to float32 (at 24
  // bits or fewer for subnormals) equals rounding the exact value once.
  void RoundToOdd(int inex) {
    if (inex != 0 && mpfr_regular_p(r_) && mpfr_min_prec(r_) < mpfr_get_prec(r_)) {
      if (mpfr_sgn(r_) > 0) {
        mpfr_nextabove(r_);
      } else {
        mpfr_nextbelow(r_);
      }
    }
  }

  float Unary(int (*f)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t), float x) {
    mpfr_set_prec(r_, 64);
    mpfr_set_flt(x_, x, MPFR_RNDN);
    RoundToOdd(f(r_, x_, MPFR_RNDZ));
    return mpfr_get_flt(r_, MPFR_RNDN);
  }

  // 1/(1+e^-x) has no MPFR function: Ziv's loop until the approximation
  // rounds unambiguously at 25 bits (then at 24 bits or fewer too).
  float Sigmoid(float x) {
    if (x == 0.0f) return 0.5f;  // the only exact case
    mpfr_set_flt(x_, x, MPFR_RNDN);
    for (mpfr_prec_t p = 96; p <= 1 << 16; p *= 2) {
      mpfr_set_prec(t_, p);
      mpfr_neg(t_, x_, MPFR_RNDN);
      mpfr_exp(t_, t_, MPFR_RNDN);
      mpfr_add_ui(t_, t_, 1, MPFR_RNDN);
      mpfr_ui_div(t_, 1, t_, MPFR_RNDN);
      // Three roundings, each error <= 2^-p relative, none amplified:
      // total < 2^(2-p) relative, i.e. below 2^(EXP(t) - (p - 3)).
      if (mpfr_can_round(t_, p - 4, MPFR_RNDN, MPFR_RNDZ, 24 + 1)) {
        return mpfr_get_flt(t_, MPFR_RNDN);
      }
    }
    std::fprintf(stderr, "sigmoid reference did not converge for %a\n", static_cast<double>(x));
    std::abort();
  }

  // x^y rounded to odd at 64 bits in r_; returns the correctly rounded float
  // (MPFR follows the C99 / IEEE 754 special cases of pow). *exact is set
  // when x^y is exactly representable at 64 bits.
  float Pow(float x, float y, bool* exact) {
    mpfr_set_prec(r_, 64);
    mpfr_set_flt(x_, x, MPFR_RNDN);
    mpfr_set_flt(y_, y, MPFR_RNDN);
    int inex = mpfr_pow(r_, x_, y_, MPFR_RNDZ);
    *exact = inex == 0;
    RoundToOdd(inex);
    return mpfr_get_flt(r_, MPFR_RNDN);
  }

  // |got - r_| in ulps of r_'s binade (float32 ulps; 2^-149 below 2^-126,
  // 2^104 at and above 2^128). r_ must be finite; got finite or infinite.
  double UlpErrorVsR(float got) {
    if (std::isinf(got)) {
      // Only correct if x^y rounds to inf, i.e. r_ >= 2^128 - 2^103.
      mpfr_set_d(d_, 0x1.ffffffp127, MPFR_RNDN);
      return mpfr_cmpabs(r_, d_) >= 0 ? 0.0 : INFINITY;
    }
    if (mpfr_zero_p(r_)) return got == 0.0f ? 0.0 : INFINITY;
    long e = mpfr_get_exp(r_) - 1;  // r_ in [2^e, 2^(e+1))
    long ulp_exp = std::max(e, -126L) - 23;
    mpfr_set_prec(d_, 128);
    mpfr_set_flt(d_, got, MPFR_RNDN);
    mpfr_sub(d_, d_, r_, MPFR_RNDN);
    mpfr_mul_2si(d_, d_, -ulp_exp, MPFR_RNDN);
    return std::fabs(mpfr_get_d(d_, MPFR_RNDN));
  }

 private:
  mpfr_t x_, y_, r_, d_, t_;
};

bool SameResult(float expected, float got) {
  if (std::isnan(expected)) return std::isnan(got);
  return Bits(expected) == Bits(got);
}

// ---------------------------------------------------------------------------
// Unary functions

struct UnaryFunction {
  const char* name;
  double (*filter)(double);                             // glibc, double
  int (*reference)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);  // nullptr: sigmoid
};

double SigmoidDouble(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

const UnaryFunction kUnary[] = {
    {"exp", [](double x) { return std::exp(x); }, mpfr_exp},
    {"log", [](double x) { return std::log(x); }, mpfr_log},
    {"log1p", [](double x) { return std::log1p(x); }, mpfr_log1p},
    {"sigmoid", SigmoidDouble, nullptr},
    {"tanh", [](double x) { return std::tanh(x); }, mpfr_tanh},
};

struct Failure {
  std::uint32_t x;
  std::uint32_t y;  // pow only
  float expected;
  float got;
  double ulps;  // pow only
};

struct Report {
  std::uint64_t checked = 0;
  std::uint64_t mpfr_calls = 0;
  std::uint64_t failures = 0;
  std::vector<Failure> first;
  std::mutex mu;

  void Merge(std::uint64_t c, std::uint64_t m, std::uint64_t f, const std::vector<Failure>& fs) {
    std::lock_guard<std::mutex> lock(mu);
    checked += c;
    mpfr_calls += m;
    failures += f;
    for (const Failure& x : fs) first.push_back(x);
  }
};

// Runs body(begin, end, scratch) over [0, count) in chunks on `threads` threads.
void ParallelFor(std::uint64_t count, int threads,
                 const std::function<void(std::uint64_t, std::uint64_t, MpScratch&)>& body) {
  constexpr std::uint64_t kChunk = 1 << 16;
  std::atomic<std::uint64_t> next{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      MpScratch scratch;
      for (;;) {
        std::uint64_t begin = next.fetch_add(kChunk);
        if (begin >= count) break;
        body(begin, std::min(count, begin + kChunk), scratch);
      }
    });
  }
  for (std::thread& t : pool) t.join();
}

std::uint64_t SplitMix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// `only`: the names of the paths to check, comma-separated (empty: all).
bool CheckUnary(const UnaryFunction& fn, std::uint64_t stride, int threads,
                const std::string& only) {
  auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t count = ((std::uint64_t{1} << 32) + stride - 1) / stride;
  std::vector<calcjit::ulpcheck::UnaryPath> paths;
  for (const calcjit::ulpcheck::UnaryPath& path : calcjit::ulpcheck::PathsOf(fn.name)) {
    if (only.empty() || ("," + only + ",").find("," + path.name + ",") != std::string::npos) {
      paths.push_back(path);
    }
  }
  if (paths.empty()) {
    std::printf("%-8s no path matches --paths %s\n", fn.name, only.c_str());
    return false;
  }
  std::vector<Report> reports(paths.size());
  std::atomic<std::uint64_t> fallbacks{0};
  std::atomic<std::int64_t> fallbacks_avx512{0};
  ParallelFor(count, threads, [&](std::uint64_t begin, std::uint64_t end, MpScratch& mp) {
    std::vector<float> xs;
    xs.reserve(end - begin);
    for (std::uint64_t i = begin; i < end; ++i) {
      std::uint64_t b = i * stride + (stride > 1 ? SplitMix(i) % stride : 0);
      if (b >> 32) continue;  // the last stride may reach past 2^32
      xs.push_back(FromBits(static_cast<std::uint32_t>(b)));
    }
    const std::size_t n = xs.size();
    std::vector<float> expected(n);
    std::uint64_t mpfr_calls = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const float x = xs[i];
      double d = fn.filter(static_cast<double>(x));
      if (NearBoundary(d)) {
        ++mpfr_calls;
        expected[i] = fn.reference != nullptr ? mp.Unary(fn.reference, x) : mp.Sigmoid(x);
      } else {
        expected[i] = static_cast<float>(d);
      }
    }
    fallbacks += calcjit::ulpcheck::CountFallbacks(fn.name, xs.data(), n);
    fallbacks_avx512 += calcjit::ulpcheck::CountFallbacksAvx512(fn.name, xs.data(), n);
    std::vector<float> got(n);
    for (std::size_t p = 0; p < paths.size(); ++p) {
      paths[p].run(xs.data(), got.data(), n);
      std::uint64_t failures = 0;
      std::vector<Failure> first;
      for (std::size_t i = 0; i < n; ++i) {
        if (!SameResult(expected[i], got[i])) {
          ++failures;
          if (first.size() < kMaxReported)
            first.push_back({Bits(xs[i]), 0, expected[i], got[i], 0});
        }
      }
      reports[p].Merge(n, p == 0 ? mpfr_calls : 0, failures, first);
    }
  });
  bool ok = true;
  std::printf(
      "%-8s stride %-6llu checked %llu, sent to MPFR %llu, fallback %llu (%.2e), %.1f s\n", fn.name,
      static_cast<unsigned long long>(stride), static_cast<unsigned long long>(reports[0].checked),
      static_cast<unsigned long long>(reports[0].mpfr_calls),
      static_cast<unsigned long long>(fallbacks.load()),
      static_cast<double>(fallbacks.load()) / static_cast<double>(reports[0].checked), Seconds(t0));
  if (fallbacks_avx512.load() >= 0) {
    std::printf(
        "%-8s fallback of the AVX-512 fast path (vm-avx512, jit-16) %lld (%.2e)\n", fn.name,
        static_cast<long long>(fallbacks_avx512.load()),
        static_cast<double>(fallbacks_avx512.load()) / static_cast<double>(reports[0].checked));
  }
  for (std::size_t p = 0; p < paths.size(); ++p) {
    Report& report = reports[p];
    std::sort(report.first.begin(), report.first.end(),
              [](const Failure& a, const Failure& b) { return a.x < b.x; });
    std::printf("  %-12s checked %llu, misrounded %llu\n", paths[p].name.c_str(),
                static_cast<unsigned long long>(report.checked),
                static_cast<unsigned long long>(report.failures));
    for (std::size_t k = 0; k < report.first.size() && k < kMaxReported; ++k) {
      const Failure& f = report.first[k];
      std::printf("    x = 0x%08X (%a): expected 0x%08X (%a), got 0x%08X (%a)\n", f.x,
                  static_cast<double>(FromBits(f.x)), Bits(f.expected),
                  static_cast<double>(f.expected), Bits(f.got), static_cast<double>(f.got));
    }
    ok &= report.failures == 0 && report.checked == reports[0].checked;
  }
  std::fflush(stdout);
  return ok;
}

// ---------------------------------------------------------------------------
// Pow

struct PowStats {
  std::uint64_t pairs = 0;
  std::uint64_t mpfr_calls = 0;
  std::uint64_t not_correctly_rounded = 0;
  std::uint64_t failures = 0;
  double max_ulps = 0;
  std::uint32_t max_x = 0, max_y = 0;
  std::vector<Failure> first;
  std::mutex mu;
};

// A random pair from index i: mostly (x, y) whose result is finite and
// nontrivial, across all exponents of x; some uniformly random bit patterns.
void RandomPair(std::uint64_t seed, std::uint64_t i, float* x, float* y) {
  std::uint64_t h = SplitMix(seed * 0x100000001B3ULL + i);
  std::uint64_t h2 = SplitMix(h);
  double u = static_cast<double>(h2 >> 11) * 0x1p-53;        // [0, 1)
  std::uint32_t mode = static_cast<std::uint32_t>(h >> 60);  // 0..15
  std::uint32_t rx = static_cast<std::uint32_t>(h);
  std::uint32_t ry = static_cast<std::uint32_t>(h2 >> 32);
  if (mode < 9) {
    // Any positive finite x (subnormals included), log2 of the result
    // uniform in [-152, 130]: covers overflow/underflow edges and subnormal
    // results.
    float xv = FromBits(1 + rx % 0x7F7FFFFFu);
    double lx = std::log2(static_cast<double>(xv));
    double t = -152.0 + 282.0 * u;
    float yv = lx != 0 ? static_cast<float>(t / lx) : FromBits(ry);
    if (mode == 8) {  // negative x, integer y
      xv = -xv;
      yv = std::nearbyint(yv);
    }
    *x = xv;
    *y = yv;
  } else if (mode < 11) {
    // x close to 1, large |y|.
    std::uint32_t off = rx % (1u << 20);
    float xv = (rx >> 31) ? FromBits(0x3F800000u + off) : FromBits(0x3F800000u - off);
    double lx = std::log2(static_cast<double>(xv));
    double t = -152.0 + 282.0 * u;
    *x = xv;
    *y = lx != 0 ? static_cast<float>(t / lx) : FromBits(ry);
  } else if (mode < 13) {
    // Small integer y, any x.
    *x = FromBits(rx);
    *y = static_cast<float>(static_cast<int>(ry % 81) - 40);
  } else {
    *x = FromBits(rx);
    *y = FromBits(ry);
  }
}

void CheckPowPair(float x, float y, bool mpfr_all, MpScratch& mp, PowStats& local) {
  float got = cm::Pow(x, y);
  ++local.pairs;
  double d = std::pow(static_cast<double>(x), static_cast<double>(y));
  float filtered = static_cast<float>(d);
  bool use_mpfr = mpfr_all || NearBoundary(d) || !SameResult(filtered, got);
  float expected;
  double ulps;
  if (use_mpfr) {
    ++local.mpfr_calls;
    bool exact;
    expected = mp.Pow(x, y, &exact);
    // Errors against the 64-bit round-to-odd value (2^-40 ulp accurate).
    if (std::isnan(expected) || std::isnan(got)) {
      ulps = SameResult(expected, got) ? 0.0 : INFINITY;
    } else {
      ulps = mp.UlpErrorVsR(got);
    }
    if (exact && !SameResult(expected, got)) ulps = INFINITY;  // exact results must be exact
  } else {
    expected = filtered;
    if (std::isnan(d) || std::isinf(d) || d == 0.0 || std::isinf(got)) {
      ulps = SameResult(expected, got) ? 0.0 : INFINITY;
    } else {
      double a = std::fabs(d);
      int e = std::ilogb(a);
      ulps = std::fabs(static_cast<double>(got) - d) / std::ldexp(1.0, std::max(e, -126) - 23);
    }
  }
  // A wrong sign is never within 1 ulp, not even for zeros (pow(-2, -151)).
  if (!std::isnan(expected) && !std::isnan(got) && std::signbit(expected) != std::signbit(got)) {
    ulps = INFINITY;
  }
  if (!SameResult(expected, got)) ++local.not_correctly_rounded;
  if (ulps > local.max_ulps) {
    local.max_ulps = ulps;
    local.max_x = Bits(x);
    local.max_y = Bits(y);
  }
  if (!(ulps < 1.0)) {
    ++local.failures;
    if (local.first.size() < kMaxReported)
      local.first.push_back({Bits(x), Bits(y), expected, got, ulps});
  }
}

void MergePow(PowStats& into, const PowStats& from) {
  std::lock_guard<std::mutex> lock(into.mu);
  into.pairs += from.pairs;
  into.mpfr_calls += from.mpfr_calls;
  into.not_correctly_rounded += from.not_correctly_rounded;
  into.failures += from.failures;
  if (from.max_ulps > into.max_ulps) {
    into.max_ulps = from.max_ulps;
    into.max_x = from.max_x;
    into.max_y = from.max_y;
  }
  for (const Failure& f : from.first) into.first.push_back(f);
}

void PrintFailures(const std::vector<Failure>& fs) {
  for (std::size_t k = 0; k < fs.size() && k < kMaxReported; ++k) {
    const Failure& f = fs[k];
    std::printf(
        "  pow(0x%08X, 0x%08X) = pow(%a, %a): expected 0x%08X (%a), got 0x%08X (%a), %.3g ulp\n",
        f.x, f.y, static_cast<double>(FromBits(f.x)), static_cast<double>(FromBits(f.y)),
        Bits(f.expected), static_cast<double>(f.expected), Bits(f.got), static_cast<double>(f.got),
        f.ulps);
  }
}

bool PowRandom(std::uint64_t pairs, std::uint64_t seed, int threads, bool mpfr_all) {
  auto t0 = std::chrono::steady_clock::now();
  PowStats total;
  ParallelFor(pairs, threads, [&](std::uint64_t begin, std::uint64_t end, MpScratch& mp) {
    PowStats local;
    for (std::uint64_t i = begin; i < end; ++i) {
      float x, y;
      RandomPair(seed, i, &x, &y);
      CheckPowPair(x, y, mpfr_all, mp, local);
    }
    MergePow(total, local);
  });
  std::printf(
      "pow random: %llu pairs (seed %llu), sent to MPFR %llu, not correctly rounded %llu, "
      "max error %.6f ulp at pow(%a, %a), errors >= 1 ulp %llu, %.1f s\n",
      static_cast<unsigned long long>(total.pairs), static_cast<unsigned long long>(seed),
      static_cast<unsigned long long>(total.mpfr_calls),
      static_cast<unsigned long long>(total.not_correctly_rounded), total.max_ulps,
      static_cast<double>(FromBits(total.max_x)), static_cast<double>(FromBits(total.max_y)),
      static_cast<unsigned long long>(total.failures), Seconds(t0));
  PrintFailures(total.first);
  std::fflush(stdout);
  return total.failures == 0;
}

// C99 Annex F.9.4.4 as a table: every case written out from the standard's
// text, independently of MPFR. Value 0x7FC00000 stands for "any NaN".
struct SpecialCase {
  float x, y, expected;
};

bool PowSpecial() {
  const float inf = INFINITY, nan = NAN;
  const float tiny = 0x1p-149f, big = 0x1.fffffep127f;
  const float odd_big = 0x1.fffffep23f;  // 16777215, the largest odd float
  std::vector<SpecialCase> table = {
      // pow(x, +-0) = 1 for any x, even NaN.
      {0, 0, 1},
      {-0.0f, 0, 1},
      {inf, 0, 1},
      {-inf, -0.0f, 1},
      {nan, 0, 1},
      {nan, -0.0f, 1},
      {-3, 0, 1},
      {tiny, -0.0f, 1},
      // pow(+1, y) = 1 for any y, even NaN.
      {1, nan, 1},
      {1, inf, 1},
      {1, -inf, 1},
      {1, big, 1},
      {1, -0.5f, 1},
      // pow(-1, +-inf) = 1.
      {-1, inf, 1},
      {-1, -inf, 1},
      // NaN otherwise.
      {nan, 1, nan},
      {nan, -1, nan},
      {2, nan, nan},
      {-1, nan, nan},
      {0, nan, nan},
      {nan, nan, nan},
      {inf, nan, nan},
      // pow(+-0, y<0 odd integer) = +-inf.
      {0, -1, inf},
      {-0.0f, -1, -inf},
      {-0.0f, -3, -inf},
      {-0.0f, -odd_big, -inf},
      // pow(+-0, -inf) = +inf; pow(+-0, y<0 not odd integer) = +inf.
      {0, -inf, inf},
      {-0.0f, -inf, inf},
      {-0.0f, -2, inf},
      {-0.0f, -0.5f, inf},
      {0, -big, inf},
      {-0.0f, -0x1p24f, inf},
      // pow(+-0, y>0 odd integer) = +-0; pow(+-0, y>0 not odd integer) = +0.
      {0, 3, 0},
      {-0.0f, 3, -0.0f},
      {-0.0f, odd_big, -0.0f},
      {-0.0f, 2, 0},
      {-0.0f, 0.5f, 0},
      {-0.0f, inf, 0},
      {-0.0f, big, 0},
      {-0.0f, tiny, 0},
      // pow(x, -inf): +inf for |x| < 1, +0 for |x| > 1.
      {0.5f, -inf, inf},
      {-0.5f, -inf, inf},
      {tiny, -inf, inf},
      {2, -inf, 0},
      {-2, -inf, 0},
      {big, -inf, 0},
      {-inf, -inf, 0},
      {inf, -inf, 0},
      // pow(x, +inf): +0 for |x| < 1, +inf for |x| > 1.
      {0.5f, inf, 0},
      {-0x1.fffffep-1f, inf, 0},
      {2, inf, inf},
      {-0x1.000002p0f, inf, inf},
      {-inf, inf, inf},
      {inf, inf, inf},
      // pow(-inf, y): -0 for odd y < 0, +0 other y < 0, -inf odd y > 0, +inf other y > 0.
      {-inf, -1, -0.0f},
      {-inf, -3, -0.0f},
      {-inf, -2, 0},
      {-inf, -0.5f, 0},
      {-inf, -big, 0},
      {-inf, 1, -inf},
      {-inf, 3, -inf},
      {-inf, odd_big, -inf},
      {-inf, 2, inf},
      {-inf, 0.5f, inf},
      {-inf, tiny, inf},
      // pow(+inf, y): +0 for y < 0, +inf for y > 0.
      {inf, -1, 0},
      {inf, -tiny, 0},
      {inf, 1, inf},
      {inf, 0.5f, inf},
      // pow(x<0 finite, y finite non-integer) = NaN.
      {-8, 1.0f / 3, nan},
      {-2, 0.5f, nan},
      {-1, 0.5f, nan},
      {-tiny, 1.5f, nan},
      {-big, -0.5f, nan},
      {-1, tiny, nan},
      // x < 0 with integer y: the sign of the odd powers.
      {-2, 3, -8},
      {-2, 2, 4},
      {-2, -1, -0.5f},
      {-2, -2, 0.25f},
      {-1, odd_big, -1},
      {-1, 0x1p24f, 1},
      {-1, big, 1},
      {-0.5f, 149, -0x1p-149f},
      {-2, -149, -0x1p-149f},
      {-2, 127, -0x1p127f},
      // Overflow and underflow with signs.
      {-2, 129, -inf},
      {-2, 128, inf},
      {-2, -151, -0.0f},
      {-2, -152, 0},
      {2, 0x1p24f, inf},
      {0.5f, 0x1p24f, 0},
      {big, big, inf},
      {big, -big, 0},
      {tiny, big, 0},
      {tiny, -big, inf},
      {tiny, -1, inf},
      {tiny, 1, tiny},
      {big, 1, big},
      {-tiny, 1, -tiny},
  };
  int failures = 0;
  for (const SpecialCase& c : table) {
    float got = cm::Pow(c.x, c.y);
    if (!SameResult(c.expected, got)) {
      ++failures;
      std::printf("  C99 table: pow(%a, %a): expected %a, got %a\n", static_cast<double>(c.x),
                  static_cast<double>(c.y), static_cast<double>(c.expected),
                  static_cast<double>(got));
    }
  }
  // The same values crossed with each other, against MPFR (which implements
  // the same special cases): exact bits whenever MPFR's result is exact or
  // non-finite or zero, otherwise < 1 ulp.
  std::vector<float> values = {0.0f,
                               -0.0f,
                               inf,
                               -inf,
                               nan,
                               1,
                               -1,
                               0.5f,
                               -0.5f,
                               2,
                               -2,
                               3,
                               -3,
                               1.5f,
                               -1.5f,
                               tiny,
                               -tiny,
                               big,
                               -big,
                               0x1.000002p0f,
                               0x1.fffffep-1f,
                               -0x1.000002p0f,
                               10,
                               -10,
                               1e-10f,
                               0x1p24f,
                               -0x1p24f,
                               odd_big,
                               -odd_big,
                               0.25f,
                               149,
                               -149,
                               1.0f / 3,
                               0x1p-126f,
                               0x1p-127f};
  MpScratch mp;
  int crossed = 0;
  for (float x : values) {
    for (float y : values) {
      ++crossed;
      bool exact;
      float expected = mp.Pow(x, y, &exact);
      float got = cm::Pow(x, y);
      bool must_match = exact || std::isnan(expected) || std::isinf(expected) || expected == 0.0f;
      double ulps = must_match ? (SameResult(expected, got) ? 0.0 : INFINITY)
                               : (std::isnan(got) ? INFINITY : mp.UlpErrorVsR(got));
      if (!(ulps < 1.0)) {
        ++failures;
        std::printf("  crossed: pow(%a, %a): expected %a, got %a\n", static_cast<double>(x),
                    static_cast<double>(y), static_cast<double>(expected),
                    static_cast<double>(got));
      }
    }
  }
  std::printf("pow special: %zu C99 table cases, %d crossed special values vs MPFR, failures %d\n",
              table.size(), crossed, failures);
  return failures == 0;
}

// Every (x, y) whose true x^y is a float32 (see docs/NUMERICS.md), with the
// exact expected value built from integers.
bool PowExact(std::uint64_t one_stride, int threads) {
  auto t0 = std::chrono::steady_clock::now();
  std::uint64_t checked = 0, failures = 0;
  std::vector<Failure> first;
  auto check = [&](float x, float y, double expected_d) {
    float expected = static_cast<float>(expected_d);  // exact by construction
    if (static_cast<double>(expected) != expected_d) {
      std::fprintf(stderr, "internal error: inexact expectation pow(%a, %a)\n",
                   static_cast<double>(x), static_cast<double>(y));
      std::abort();
    }
    float got = cm::Pow(x, y);
    ++checked;
    if (!SameResult(expected, got)) {
      ++failures;
      if (first.size() < kMaxReported) first.push_back({Bits(x), Bits(y), expected, got, 0});
    }
  };
  auto bit_length = [](std::uint64_t v) { return 64 - std::countl_zero(v); };
  // A value M * 2^E (M odd, 0 < M < 2^24) is a float iff E >= -149 and it
  // is below 2^128.
  auto representable = [&](std::uint64_t m, long e) {
    return m < (1u << 24) && e >= -149 && bit_length(m) + e <= 128;
  };

  // Exactly between two floats (M * 2^E with 25 significant bits in the
  // normal range, M * 2^-150 with M odd below): Pow then rounds the tie to
  // even, as a correctly rounded x * x would.
  std::uint64_t midpoints = 0;
  auto is_midpoint = [](double v) {
    float f = static_cast<float>(v);
    if (static_cast<double>(f) == v || std::isinf(f)) return false;
    float g = static_cast<double>(f) < v ? std::nextafterf(f, INFINITY) : std::nextafterf(f, 0.0f);
    return 0.5 * (static_cast<double>(f) + static_cast<double>(g)) == v;
  };
  auto check_mid = [&](float x, float y, double v) {
    ++midpoints;
    check(x, y, static_cast<double>(static_cast<float>(v)));  // RN-even of the tie
  };

  // (1) y = n >= 2 integer, x = +-m 2^e, m odd, m^n < 2^24 (and the ties:
  // m^n < 2^25).
  for (int n = 2; n <= 151; ++n) {
    for (std::uint64_t m = 1;; m += 2) {
      std::uint64_t mn = 1;
      bool fits = true;
      for (int k = 0; k < n && fits; ++k) {
        mn *= m;
        fits = mn < (1u << 25);
      }
      if (!fits) break;
      for (long e = -149; e <= 127; ++e) {
        if (!representable(m, e) || (m == 1 && e == 0)) continue;
        float x = static_cast<float>(std::ldexp(static_cast<double>(m), static_cast<int>(e)));
        double r = std::ldexp(static_cast<double>(mn), static_cast<int>(e * n));
        double sr = (n % 2) ? -r : r;
        if (representable(mn, e * n)) {
          check(x, static_cast<float>(n), r);
          check(-x, static_cast<float>(n), sr);
        } else if (is_midpoint(r)) {
          check_mid(x, static_cast<float>(n), r);
          check_mid(-x, static_cast<float>(n), sr);
        }
      }
    }
  }
  // (2) y = -n negative integer: only x = +-2^e (2^-150 is a tie).
  for (int n = 1; n <= 300; ++n) {
    for (long e = -149; e <= 127; ++e) {
      if (e == 0) continue;
      float x = std::ldexp(1.0f, static_cast<int>(e));
      double r = std::ldexp(1.0, static_cast<int>(-e * n));
      double sr = (n % 2) ? -r : r;
      if (representable(1, -e * n)) {
        check(x, static_cast<float>(-n), r);
        check(-x, static_cast<float>(-n), sr);
      } else if (-e * n == -150) {
        check_mid(x, static_cast<float>(-n), r);
        check_mid(-x, static_cast<float>(-n), sr);
      }
    }
  }
  // (3) y = a / 2^k, a odd, k >= 1: x = w^(2^k), w = m 2^e, m odd.
  for (int k = 1; k <= 8; ++k) {
    const long kk = 1L << k;
    for (std::uint64_t m = 1;; m += 2) {
      std::uint64_t mk = 1;
      bool fits = true;
      for (long j = 0; j < kk && fits; ++j) {
        mk *= m;
        fits = mk < (1u << 24);
      }
      if (!fits) break;
      for (long e = -149; e <= 127; ++e) {
        if (!representable(mk, e * kk) || (m == 1 && e == 0)) continue;
        float x = static_cast<float>(std::ldexp(static_cast<double>(mk), static_cast<int>(e * kk)));
        // Result m^a 2^(e a): |e a| <= 200 and, for m > 1, a in [1, 24).
        const long a_max = e != 0 ? 200 / std::labs(e) : 24;
        for (long a = -a_max | 1; a <= a_max; a += 2) {
          if (a < 0 && m != 1) continue;
          std::uint64_t ma = 1;
          bool ok = true;
          for (long j = 0; j < a && ok; ++j) {
            ma *= m;
            ok = ma < (1u << 25);
          }
          if (!ok) continue;
          float y = static_cast<float>(std::ldexp(static_cast<double>(a), -k));
          double r = std::ldexp(static_cast<double>(ma), static_cast<int>(e * a));
          if (representable(ma, e * a)) {
            check(x, y, r);
          } else if (is_midpoint(r)) {
            check_mid(x, y, r);
          }
        }
      }
    }
  }
  std::uint64_t enumerated = checked;

  // (4) y = 1 for every finite nonzero x (every one_stride-th bit pattern).
  std::atomic<std::uint64_t> one_checked{0}, one_failures{0};
  std::mutex mu;
  const std::uint64_t count = ((std::uint64_t{1} << 32) + one_stride - 1) / one_stride;
  ParallelFor(count, threads, [&](std::uint64_t begin, std::uint64_t end, MpScratch&) {
    std::uint64_t c = 0, f = 0;
    for (std::uint64_t i = begin; i < end; ++i) {
      std::uint64_t b = i * one_stride + (one_stride > 1 ? SplitMix(i) % one_stride : 0);
      if (b >> 32) continue;
      float x = FromBits(static_cast<std::uint32_t>(b));
      if (!std::isfinite(x)) continue;
      ++c;
      float got = cm::Pow(x, 1.0f);
      if (Bits(got) != Bits(x)) {
        ++f;
        std::lock_guard<std::mutex> lock(mu);
        if (first.size() < kMaxReported) first.push_back({Bits(x), Bits(1.0f), x, got, 0});
      }
    }
    one_checked += c;
    one_failures += f;
  });
  checked += one_checked;
  failures += one_failures;
  std::printf(
      "pow exact: %llu enumerated cases (integer y, dyadic y; %llu of them exact ties) + %llu "
      "of pow(x, 1) (x stride %llu), failures %llu, %.1f s\n",
      static_cast<unsigned long long>(enumerated), static_cast<unsigned long long>(midpoints),
      static_cast<unsigned long long>(one_checked.load()),
      static_cast<unsigned long long>(one_stride), static_cast<unsigned long long>(failures),
      Seconds(t0));
  PrintFailures(first);
  std::fflush(stdout);
  return failures == 0;
}

[[noreturn]] void Usage() {
  std::fprintf(stderr,
               "usage: calcjit_ulpcheck exp|log|log1p|sigmoid|tanh|all [--stride S] [--threads T] "
               "[--paths P1,P2]\n"
               "       calcjit_ulpcheck pow [--pairs N] [--seed S] [--threads T] "
               "[--exact-stride S] [--mpfr-all]\n");
  std::exit(2);
}

std::uint64_t ParseCount(const char* s) {
  char* end = nullptr;
  double v = std::strtod(s, &end);  // accepts 1e9
  if (end == s || *end != '\0' || !(v >= 1) || v > 1e15) Usage();
  return static_cast<std::uint64_t>(v);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) Usage();
  std::string what = argv[1];
  std::uint64_t stride = 1, pairs = 1000000000, seed = 1, exact_stride = 1;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  bool mpfr_all = false;
  std::string only;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) Usage();
      return argv[++i];
    };
    if (a == "--stride") {
      stride = ParseCount(value());
    } else if (a == "--threads") {
      threads = static_cast<int>(ParseCount(value()));
    } else if (a == "--pairs") {
      pairs = ParseCount(value());
    } else if (a == "--seed") {
      seed = ParseCount(value());
    } else if (a == "--exact-stride") {
      exact_stride = ParseCount(value());
    } else if (a == "--paths") {
      only = value();
    } else if (a == "--mpfr-all") {
      mpfr_all = true;
    } else {
      Usage();
    }
  }
  std::printf("calcjit_ulpcheck: MPFR %s, %d threads\n", mpfr_get_version(), threads);
  bool ok = true;
  if (what == "pow") {
    ok &= PowSpecial();
    ok &= PowExact(exact_stride, threads);
    ok &= PowRandom(pairs, seed, threads, mpfr_all);
  } else {
    bool any = false;
    for (const UnaryFunction& fn : kUnary) {
      if (what == "all" || what == fn.name) {
        any = true;
        ok &= CheckUnary(fn, stride, threads, only);
      }
    }
    if (!any) Usage();
  }
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
