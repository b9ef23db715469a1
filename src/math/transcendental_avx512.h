// The AVX-512 fast path of Exp, Log, Log1p, Sigmoid and Tanh: 16 floats at a
// time as two vectors of 8 doubles, written with intrinsics, used by both
// the VM's avx512 tier (backend/kernels/kernels_impl.h) and the JIT's
// 16-lane vector variants (backend/jit/vector_kernels.cc): one source.
//
// Same method as math/transcendental_fast.h (plain double with a proven
// relative error bound, then the rounding test `Ambiguous16`; flagged lanes
// are redone by the double-double kernel), but an algorithm of its own that
// the portable code cannot afford on every tier: 16-entry tables held in
// two zmm registers (vpermt2q, no memory gather), short polynomials, and
// explicit FMA (_mm512_fmadd_pd; -ffp-contract=off stays on, nothing is
// contracted behind our back). Each accepted result is the correctly
// rounded float32, as on every other path, so the bits agree everywhere
// although the arithmetic differs (docs/NUMERICS.md, "AVX-512 fast path",
// has the argument and the bounds; tools/mathgen/fast_path_bounds.cc
// evaluates them).
//
// Every function carries target("arch=x86-64-v4"): the header is included
// by translation units compiled for that ISA and by functions that have the
// same target attribute; nothing here runs on a CPU without AVX-512.
#ifndef CALCJIT_MATH_TRANSCENDENTAL_AVX512_H_
#define CALCJIT_MATH_TRANSCENDENTAL_AVX512_H_

// GCC 12's intrinsics start from _mm512_undefined_*(), which -Wuninitialized
// and -Wmaybe-uninitialized report after inlining (GCC bug 105593, fixed in
// GCC 13): silenced for the intrinsic headers only (the pragma applies by
// source location).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#ifndef __clang__  // a GCC-only warning (clang: "unknown warning group")
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#pragma GCC diagnostic pop

#include <cstddef>
#include <cstdint>

#include "math/masked_lanes.h"
#include "math/transcendental.h"

#define CALCJIT_AVX512 __attribute__((target("arch=x86-64-v4")))
#define CALCJIT_AVX512_INLINE [[gnu::always_inline]] CALCJIT_KERNEL CALCJIT_AVX512

namespace calcjit::math::internal::avx512 {

// The bounds on |approximation - exact| / |exact| (docs/NUMERICS.md, "AVX-512
// fast path"; tools/mathgen/fast_path_bounds.cc derives each and checks it
// against these constants and the window W of the rounding test:
// bound 2^53 <= 2^W).
inline constexpr double kExpBound = 0x1.6p-43;
inline constexpr int kExpWindow = 11;
inline constexpr double kSigmoidBound = 0x1p-41;
inline constexpr int kSigmoidWindow = 12;
inline constexpr double kTanhBound = 0x1.8p-45;
inline constexpr int kTanhWindow = 9;
inline constexpr double kLogBound = 0x1p-43;
inline constexpr int kLogWindow = 11;
inline constexpr double kLog1pBound = 0x1p-43;
inline constexpr int kLog1pWindow = 11;

// 16 results, and the lanes whose result failed the rounding test.
struct Fast16 {
  __m512 value;
  __mmask16 fail;
};

CALCJIT_AVX512_INLINE __m512d Splat(double d) {
  return _mm512_set1_pd(d);
}
CALCJIT_AVX512_INLINE __m512i Splat64(std::uint64_t v) {
  return _mm512_set1_epi64(static_cast<long long>(v));
}

// A 16-entry table in two registers, loaded where a kernel starts (inlined
// into a column loop, the loads are hoisted out of it); table[idx & 15] is
// one vpermt2q, which reads idx's bits 0-3 and ignores the higher ones.
struct Table16 {
  __m512i q0, q1;
};
CALCJIT_AVX512_INLINE Table16 LoadTable16(const void* table) {
  const auto* p = static_cast<const __m512i*>(table);
  return {_mm512_loadu_si512(p), _mm512_loadu_si512(p + 1)};
}
CALCJIT_AVX512_INLINE __m512i Lookup16(const Table16& t, __m512i idx) {
  return _mm512_permutex2var_epi64(t.q0, idx, t.q1);
}

// The rounding test of math/transcendental_fast.h (`Ambiguous`, its proof in
// docs/NUMERICS.md) on the 16 results of two halves: a lane is flagged unless
// the low 29 bits of its double are farther than 2^kWindowBits from 2^28.
// The halves' low 32 bits are gathered into one vector of 16 (one vpermt2d),
// so that the test runs once, in 32-bit lanes, in the order of the floats.
// With kTinyResults (y >= 0), y < 2^-126 is tested as y + 2^-126;
// `maybe_tiny` is false only when no lane has a result below 2^-126 (the
// caller knows from its inputs): the shift is then skipped, one predictable
// branch instead of four operations on every vector.
template <bool kTinyResults, int kWindowBits>
CALCJIT_AVX512_INLINE __mmask16 Ambiguous16(__m512d lo, __m512d hi, bool maybe_tiny = false) {
  constexpr std::uint32_t kWindow = std::uint32_t{1} << kWindowBits;
  static_assert(kWindowBits <= 26);
  if constexpr (kTinyResults) {
    if (maybe_tiny) {
      const __m512d tiny = Splat(0x1p-126);
      lo = _mm512_mask_add_pd(lo, _mm512_cmp_pd_mask(lo, tiny, _CMP_LT_OQ), lo, tiny);
      hi = _mm512_mask_add_pd(hi, _mm512_cmp_pd_mask(hi, tiny, _CMP_LT_OQ), hi, tiny);
    }
  }
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i low32 =
      _mm512_permutex2var_epi32(_mm512_castpd_si512(lo), even, _mm512_castpd_si512(hi));
  const __m512i shifted = _mm512_add_epi32(
      low32, _mm512_set1_epi32(static_cast<int>(kWindow - (std::uint32_t{1} << 28))));
  const __m512i low = _mm512_and_si512(shifted, _mm512_set1_epi32((1 << 29) - 1));
  return _mm512_cmple_epu32_mask(low, _mm512_set1_epi32(static_cast<int>(2 * kWindow)));
}

// The two halves of 16 floats as doubles, and back.
CALCJIT_AVX512_INLINE __m512d LowHalf(__m512 x) {
  return _mm512_cvtps_pd(_mm512_castps512_ps256(x));
}
CALCJIT_AVX512_INLINE __m512d HighHalf(__m512 x) {
  return _mm512_cvtps_pd(_mm512_extractf32x8_ps(x, 1));
}
CALCJIT_AVX512_INLINE __m512 ToFloats(__m512d lo, __m512d hi) {
  return _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo)), _mm512_cvtpd_ps(hi), 1);
}

// The NaN lanes of x get x itself. Called only when the vector has a rare
// lane (`rare`: NaN or a result below 2^-126 possible), found with the same
// compare as the tiny results: one compare and one predictable branch.
CALCJIT_AVX512_INLINE __m512 OverrideNan(__m512 x, __m512 r) {
  return _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), x);
}

// sign(x) min(|x|, bound) in one vrangeps (imm 0b0010: the smaller
// magnitude, the sign of x); a NaN stays NaN (and is overridden at the end).
CALCJIT_AVX512_INLINE __m512 ClampMagnitude(__m512 x, float bound) {
  return _mm512_range_ps(x, _mm512_set1_ps(bound), 0x2);
}

// ---- exp core ---------------------------------------------------------------

struct ExpTables {
  Table16 scale;  // kExp16Bits
};
CALCJIT_AVX512_INLINE ExpTables LoadExpTables() {
  return {LoadTable16(kExp16Bits)};
}

// e^x for a double x with |x| <= 121 (results from 2^-175 to 2^175, normal
// doubles). x = k ln2/16 + r with k = round(16 x / ln2), |r| <= 0.021662;
// e^x = 2^(k>>4) 2^(j/16) e^r with j = k & 15: the table entry with k << 48
// added to its bits (kExp16Bits holds bits(RN(2^(j/16))) - (j << 48)), times
// the Taylor polynomial of degree kDegree of e^r (Horner, FMA): 5 for exp and
// sigmoid, 6 for tanh, whose quotient amplifies the error of e^(2|x|).
//
// Sized by its count of 512-bit operations, which share two ports: a
// 16-entry table costs one permutation where 32 entries would cost four
// operations to save one FMA; the reduction is one FMA with RN(ln2/16) (its
// error, 2^-47.8, is far below the polynomial's).
template <int kDegree>
CALCJIT_AVX512_INLINE __m512d ExpCore8(const ExpTables& t, __m512d x) {
  static_assert(kDegree == 5 || kDegree == 6);
  constexpr double kShift = 0x1.8p52;
  constexpr double kInvLn2x16 = kExpInvLn2N * 0x1p-3;     // RN(16/ln2)
  constexpr double kLn2d16 = (kLn2Hi + kLn2Lo) * 0x1p-4;  // RN(ln2)/16 = RN(ln2/16)
  const double* c = kExpFastTaylor;                       // RN(1/k!)
  // kd = 1.5 2^52 + k exactly (one rounding of 16x/ln2 + 1.5 2^52 to an integer).
  const __m512d kd = _mm512_fmadd_pd(x, Splat(kInvLn2x16), Splat(kShift));
  const __m512d kf = _mm512_sub_pd(kd, Splat(kShift));
  const __m512d r = _mm512_fnmadd_pd(kf, Splat(kLn2d16), x);
  __m512d q = Splat(c[kDegree]);
  for (int k = kDegree - 1; k >= 2; --k) q = _mm512_fmadd_pd(q, r, Splat(c[k]));
  q = _mm512_fmadd_pd(q, r, Splat(1.0));
  const __m512d p = _mm512_fmadd_pd(q, r, Splat(1.0));
  // The low bits of bits(kd) are 2^51 + k: shifted by 48, k << 48 modulo 2^64.
  const __m512i kbits = _mm512_castpd_si512(kd);
  const __m512i scale = _mm512_add_epi64(Lookup16(t.scale, kbits), _mm512_slli_epi64(kbits, 48));
  return _mm512_mul_pd(p, _mm512_castsi512_pd(scale));
}

// ---- the five functions -----------------------------------------------------

CALCJIT_AVX512_INLINE Fast16 ExpFast16(__m512 x) {
  static_assert(kExpBound * 0x1p53 <= static_cast<double>(1 << kExpWindow));
  const ExpTables t = LoadExpTables();
  // |x| <= 110: beyond, the float result is 0 or inf anyway (e^110 is a
  // normal double, converted to inf).
  const __m512 xc = ClampMagnitude(x, 110.0f);
  const __m512d ylo = ExpCore8<5>(t, LowHalf(xc));
  const __m512d yhi = ExpCore8<5>(t, HighHalf(xc));
  __m512 r = ToFloats(ylo, yhi);
  // Results below 2^-126 need x < -87.33 (e^-87 > 2^-126 with room for the
  // error bound); NaN compares unordered.
  const bool rare = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-87.0f), _CMP_NGE_UQ) != 0;
  if (rare) r = OverrideNan(x, r);
  return {r, Ambiguous16<true, kExpWindow>(ylo, yhi, rare)};
}

// 1/d for d >= 1 within 1.07 u (relative): vrcp14pd (relative error below
// 2^-14) and two Newton steps x' = x + x (1 - d x), each with FMA; a
// division (vdivpd zmm) would occupy the divider for 16 cycles per vector.
CALCJIT_AVX512_INLINE __m512d Reciprocal8(__m512d d) {
  const __m512d one = Splat(1.0);
  __m512d x = _mm512_rcp14_pd(d);
  x = _mm512_fmadd_pd(x, _mm512_fnmadd_pd(d, x, one), x);
  return _mm512_fmadd_pd(x, _mm512_fnmadd_pd(d, x, one), x);
}

// 1/d for d >= 1 within 2^-42 + 1.01 u (relative): vrcp14pd and one step
// of the cubic iteration x' = x (1 + e + e^2), e = 1 - d x (exact it leaves
// the relative error e^3 < 2^-42). Enough for sigmoid, one FMA cheaper.
CALCJIT_AVX512_INLINE __m512d ReciprocalCubic8(__m512d d) {
  const __m512d x = _mm512_rcp14_pd(d);
  const __m512d e = _mm512_fnmadd_pd(d, x, Splat(1.0));
  return _mm512_fmadd_pd(x, _mm512_fmadd_pd(e, e, e), x);
}

// 1 / (1 + e^-x).
CALCJIT_AVX512_INLINE __m512d SigmoidCore8(const ExpTables& t, __m512d x) {
  const __m512d e = ExpCore8<5>(t, _mm512_sub_pd(_mm512_setzero_pd(), x));
  return ReciprocalCubic8(_mm512_add_pd(Splat(1.0), e));
}

CALCJIT_AVX512_INLINE Fast16 SigmoidFast16(__m512 x) {
  static_assert(kSigmoidBound * 0x1p53 <= static_cast<double>(1 << kSigmoidWindow));
  const ExpTables t = LoadExpTables();
  const __m512 xc = ClampMagnitude(x, 120.0f);
  const __m512d ylo = SigmoidCore8(t, LowHalf(xc));
  const __m512d yhi = SigmoidCore8(t, HighHalf(xc));
  __m512 r = ToFloats(ylo, yhi);
  // As for exp: 1/(1 + e^-x) < e^x, so results below 2^-126 need x < -87.33.
  const bool rare = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-87.0f), _CMP_NGE_UQ) != 0;
  if (rare) r = OverrideNan(x, r);
  return {r, Ambiguous16<true, kSigmoidWindow>(ylo, yhi, rare)};
}

// tanh|x| for 0 <= ax <= 20: 1 - 2 / (E + 1) with E = e^(2 ax), and below
// 2^-5 the Taylor series to x^7 (x2 exact), computed only when the vector
// has such a lane (`any_small`: one predictable branch) and chosen per lane.
CALCJIT_AVX512_INLINE __m512d TanhCore8(const ExpTables& t, __m512d ax, bool any_small) {
  const __m512d e = ExpCore8<6>(t, _mm512_add_pd(ax, ax));
  __m512d y = _mm512_fnmadd_pd(Splat(2.0), Reciprocal8(_mm512_add_pd(e, Splat(1.0))), Splat(1.0));
  if (any_small) {
    const __m512d x2 = _mm512_mul_pd(ax, ax);
    __m512d h = _mm512_fmadd_pd(x2, Splat(kTanhPoly[2]), Splat(kTanhPoly[1]));
    h = _mm512_fmadd_pd(x2, h, Splat(kTanhPoly[0]));
    const __m512d small = _mm512_fmadd_pd(ax, _mm512_mul_pd(x2, h), ax);
    y = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(ax, Splat(0x1p-5), _CMP_LT_OQ), y, small);
  }
  return y;
}

CALCJIT_AVX512_INLINE Fast16 TanhFast16(__m512 x) {
  static_assert(kTanhBound * 0x1p53 <= static_cast<double>(1 << kTanhWindow));
  const ExpTables t = LoadExpTables();
  const __m512i sign = _mm512_set1_epi32(static_cast<int>(0x80000000u));
  const __m512i xi = _mm512_castps_si512(x);
  const __m512 ax = _mm512_castsi512_ps(_mm512_andnot_si512(sign, xi));
  const __m512 axc = _mm512_min_ps(ax, _mm512_set1_ps(20.0f));  // NaN -> 20
  // One compare for the rare lanes: |x| < 2^-5 (the small path), below them
  // the tiny results (tanh|x| < 2^-126 only for |x| < 2^-126), and NaN.
  const bool rare = _mm512_cmp_ps_mask(ax, _mm512_set1_ps(0x1p-5f), _CMP_NGE_UQ) != 0;
  const __m512d ylo = TanhCore8(t, LowHalf(axc), rare);
  const __m512d yhi = TanhCore8(t, HighHalf(axc), rare);
  const __m512i magnitude = _mm512_castps_si512(ToFloats(ylo, yhi));
  __m512 r = _mm512_castsi512_ps(_mm512_or_si512(magnitude, _mm512_and_si512(xi, sign)));
  if (rare) r = OverrideNan(x, r);
  return {r, Ambiguous16<true, kTanhWindow>(ylo, yhi, rare)};
}

struct LogTables {
  Table16 invc;     // kLog16InvC
  Table16 loginvc;  // kLog16LogInvC
};
CALCJIT_AVX512_INLINE LogTables LoadLogTables() {
  return {LoadTable16(kLog16InvC), LoadTable16(kLog16LogInvC)};
}

// log(uh + ul) for a positive normal double uh and |ul| <= ulp(uh)/2 (ul = 0
// unless kWithLow). uh = 2^e z, z in [0.698, 1.396), bucket i = the top 4
// bits of bits(uh) - kLog16Off; log = e ln2 - log(invc) + log1p(r) with
// r = z invc - 1 (exact for a 24-bit z: invc has 29 bits), |r| <= 2^-5.07;
// log1p(r) by its Taylor polynomial of degree 8, r + r^2 H(r).
template <bool kWithLow>
CALCJIT_AVX512_INLINE __m512d LogCore8(const LogTables& t, __m512d uh, __m512d ul) {
  const __m512i ix = _mm512_castpd_si512(uh);
  const __m512i tmp = _mm512_sub_epi64(ix, Splat64(kLog16Off));
  const __m512i i = _mm512_srli_epi64(tmp, 48);  // bits 0-3: the bucket
  const __m512i e = _mm512_srai_epi64(tmp, 52);
  const __m512d ef = _mm512_cvtepi64_pd(e);
  const __m512d z = _mm512_castsi512_pd(
      _mm512_sub_epi64(ix, _mm512_and_si512(tmp, Splat64(0xFFF0000000000000ULL))));
  const __m512d invc = _mm512_castsi512_pd(Lookup16(t.invc, i));
  const __m512d loginvc = _mm512_castsi512_pd(Lookup16(t.loginvc, i));
  __m512d r = _mm512_fmsub_pd(z, invc, Splat(1.0));
  if constexpr (kWithLow) {
    // ul 2^-e: the exponent field of 2^-e is 1023 - e.
    const __m512d down =
        _mm512_castsi512_pd(_mm512_slli_epi64(_mm512_sub_epi64(Splat64(1023), e), 52));
    r = _mm512_fmadd_pd(_mm512_mul_pd(ul, down), invc, r);
  }
  // H = -1/2 + r/3 - r^2/4 + ... - r^6/8 (kLogPoly: (-1)^(k+1)/k from k = 3).
  __m512d h = Splat(kLogPoly[5]);
  for (int k = 4; k >= 0; --k) h = _mm512_fmadd_pd(h, r, Splat(kLogPoly[k]));
  h = _mm512_fmadd_pd(h, r, Splat(-0.5));
  const __m512d p = _mm512_fmadd_pd(_mm512_mul_pd(r, r), h, r);
  return _mm512_fmadd_pd(ef, Splat(kLn2Hi + kLn2Lo), _mm512_add_pd(loginvc, p));
}

// The special inputs (`irregular`, rare: a predictable branch) run the core
// on 1 (result 0, which passes the test) and get their results selected
// afterwards: -inf for +-0, NaN below 0, x itself for +inf and NaN.
CALCJIT_AVX512_INLINE Fast16 LogFast16(__m512 x) {
  static_assert(kLogBound * 0x1p53 <= static_cast<double>(1 << kLogWindow));
  const LogTables t = LoadLogTables();
  // fpclass 0xDF: QNaN, +0, -0, +inf, -inf, negative finite, SNaN.
  const __mmask16 irregular = _mm512_fpclass_ps_mask(x, 0xDF);
  const bool any_irregular = irregular != 0;
  __m512 xs = x;
  if (any_irregular) xs = _mm512_mask_mov_ps(xs, irregular, _mm512_set1_ps(1.0f));
  const __m512d ylo = LogCore8<false>(t, LowHalf(xs), _mm512_setzero_pd());
  const __m512d yhi = LogCore8<false>(t, HighHalf(xs), _mm512_setzero_pd());
  __m512 r = ToFloats(ylo, yhi);
  if (any_irregular) {
    const __m512 zero = _mm512_setzero_ps();
    __m512 special =
        _mm512_mask_mov_ps(x, _mm512_cmp_ps_mask(x, zero, _CMP_LT_OQ), _mm512_set1_ps(kNanF));
    special = _mm512_mask_mov_ps(special, _mm512_cmp_ps_mask(x, zero, _CMP_EQ_OQ),
                                 _mm512_set1_ps(-kInfF));
    r = _mm512_mask_mov_ps(r, irregular, special);
  }
  return {r, static_cast<__mmask16>(~irregular & Ambiguous16<false, kLogWindow>(ylo, yhi))};
}

// 1 + x = uh + ul exactly (Fast2Sum would need |1| >= |x|; this is TwoSum).
CALCJIT_AVX512_INLINE __m512d Log1pCore8(const LogTables& t, __m512d x) {
  const __m512d one = Splat(1.0);
  const __m512d uh = _mm512_add_pd(one, x);
  const __m512d bv = _mm512_sub_pd(uh, one);
  const __m512d av = _mm512_sub_pd(uh, bv);
  const __m512d ul = _mm512_add_pd(_mm512_sub_pd(one, av), _mm512_sub_pd(x, bv));
  return LogCore8<true>(t, uh, ul);
}

// As for log: the special inputs -1 and below, +-0, +inf and NaN run the
// core on 1 and get -inf (for -1), NaN (below), x itself (the others).
CALCJIT_AVX512_INLINE Fast16 Log1pFast16(__m512 x) {
  static_assert(kLog1pBound * 0x1p53 <= static_cast<double>(1 << kLog1pWindow));
  const LogTables t = LoadLogTables();
  const __m512 minus_one = _mm512_set1_ps(-1.0f);
  // fpclass 0x9F: QNaN, +0, -0, +inf, -inf, SNaN.
  const __mmask16 irregular = static_cast<__mmask16>(_mm512_fpclass_ps_mask(x, 0x9F) |
                                                     _mm512_cmp_ps_mask(x, minus_one, _CMP_LE_OQ));
  const bool any_irregular = irregular != 0;
  __m512 xs = x;
  if (any_irregular) xs = _mm512_mask_mov_ps(xs, irregular, _mm512_set1_ps(1.0f));
  const __m512d ylo = Log1pCore8(t, LowHalf(xs));
  const __m512d yhi = Log1pCore8(t, HighHalf(xs));
  __m512 r = ToFloats(ylo, yhi);
  if (any_irregular) {
    __m512 special =
        _mm512_mask_mov_ps(x, _mm512_cmp_ps_mask(x, minus_one, _CMP_LT_OQ), _mm512_set1_ps(kNanF));
    special = _mm512_mask_mov_ps(special, _mm512_cmp_ps_mask(x, minus_one, _CMP_EQ_OQ),
                                 _mm512_set1_ps(-kInfF));
    r = _mm512_mask_mov_ps(r, irregular, special);
  }
  return {r, static_cast<__mmask16>(~irregular & Ambiguous16<false, kLog1pWindow>(ylo, yhi))};
}

// ---- the fallback and the column --------------------------------------------

// values[b] = kExact(x[b]) for every bit b of `fail`. Out of line and free of
// vector types (rare; the exact kernel is large).
template <float (*kExact)(float)>
[[gnu::noinline]] CALCJIT_KERNEL void RedoLanes(const float* x, float* values, unsigned fail) {
  for (; fail != 0; fail &= fail - 1) {
    const int b = __builtin_ctz(fail);
    values[b] = kExact(x[b]);
  }
}

// kFast on 16 lanes, the flagged lanes among `lanes` redone by kExact.
template <Fast16 (*kFast)(__m512), float (*kExact)(float)>
CALCJIT_AVX512_INLINE __m512 Lanes16(__m512 x, __mmask16 lanes) {
  const Fast16 f = kFast(x);
  const unsigned fail = static_cast<unsigned>(f.fail & lanes);
  if (__builtin_expect(fail == 0, 1)) return f.value;
  alignas(64) float in[16];
  alignas(64) float values[16];
  _mm512_store_ps(in, x);
  _mm512_store_ps(values, f.value);
  RedoLanes<kExact>(in, values, fail);
  return _mm512_load_ps(values);
}

// out[i] = f(x[i]) for i < n; out may be x. Whole vectors, then the tail
// with masked loads and stores (its padding lanes are 0 and never redone),
// or through a padded block when a masked-off lane would reach another page.
template <Fast16 (*kFast)(__m512), float (*kExact)(float)>
CALCJIT_AVX512_INLINE void Column16(const float* x, float* out, std::size_t n) {
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    _mm512_storeu_ps(out + i, Lanes16<kFast, kExact>(_mm512_loadu_ps(x + i), 0xFFFF));
  }
  if (i == n) return;
  const std::size_t rest = n - i;
  const __mmask16 tail = static_cast<__mmask16>((1u << rest) - 1);
  if (MaskedLanesStayOnActivePages(x + i, rest, 16) &&
      MaskedLanesStayOnActivePages(out + i, rest, 16)) {
    _mm512_mask_storeu_ps(out + i, tail,
                          Lanes16<kFast, kExact>(_mm512_maskz_loadu_ps(tail, x + i), tail));
    return;
  }
  // Near a page end: through a padded block (math/masked_lanes.h says why).
  alignas(64) float block[16] = {};
  for (std::size_t k = 0; k < rest; ++k) block[k] = x[i + k];
  _mm512_store_ps(block, Lanes16<kFast, kExact>(_mm512_load_ps(block), tail));
  for (std::size_t k = 0; k < rest; ++k) out[i + k] = block[k];
}

CALCJIT_AVX512_INLINE void ExpColumn(const float* x, float* out, std::size_t n) {
  Column16<ExpFast16, ExpDoubleDouble>(x, out, n);
}
CALCJIT_AVX512_INLINE void LogColumn(const float* x, float* out, std::size_t n) {
  Column16<LogFast16, LogDoubleDouble>(x, out, n);
}
CALCJIT_AVX512_INLINE void Log1pColumn(const float* x, float* out, std::size_t n) {
  Column16<Log1pFast16, Log1pDoubleDouble>(x, out, n);
}
CALCJIT_AVX512_INLINE void SigmoidColumn(const float* x, float* out, std::size_t n) {
  Column16<SigmoidFast16, SigmoidDoubleDouble>(x, out, n);
}
CALCJIT_AVX512_INLINE void TanhColumn(const float* x, float* out, std::size_t n) {
  Column16<TanhFast16, TanhDoubleDouble>(x, out, n);
}

// The 16-lane vector variants (one vector, all lanes).
CALCJIT_AVX512_INLINE __m512 Exp16(__m512 x) {
  return Lanes16<ExpFast16, ExpDoubleDouble>(x, 0xFFFF);
}
CALCJIT_AVX512_INLINE __m512 Log16(__m512 x) {
  return Lanes16<LogFast16, LogDoubleDouble>(x, 0xFFFF);
}
CALCJIT_AVX512_INLINE __m512 Log1p16(__m512 x) {
  return Lanes16<Log1pFast16, Log1pDoubleDouble>(x, 0xFFFF);
}
CALCJIT_AVX512_INLINE __m512 Sigmoid16(__m512 x) {
  return Lanes16<SigmoidFast16, SigmoidDoubleDouble>(x, 0xFFFF);
}
CALCJIT_AVX512_INLINE __m512 Tanh16(__m512 x) {
  return Lanes16<TanhFast16, TanhDoubleDouble>(x, 0xFFFF);
}

}  // namespace calcjit::math::internal::avx512

#endif  // CALCJIT_MATH_TRANSCENDENTAL_AVX512_H_
