// The aggregate kernels (spec section 3): a column of the batch in, a column
// out. NaN items are skipped by every aggregate. Sums are float64 with eight
// partial sums striped by item index (i mod 8; a NaN item leaves a hole),
// combined as ((s0+s1)+(s2+s3))+((s4+s5)+(s6+s7)), and rounded to float32 once.
//
// Header-only like the other kernels (CALCJIT_KERNEL, math/bits.h), so that
// the VM compiles them for each instruction-set tier. The loops are written
// without branches so that they vectorize; the comments say why each
// rewriting keeps the contract's bits. `out` must not overlap `x`, except
// for Rank, which reads every item before it writes.
#ifndef CALCJIT_MATH_AGGREGATE_H_
#define CALCJIT_MATH_AGGREGATE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

#include "math/bits.h"
#include "math/elementwise.h"
#include "math/rank_sort.h"

namespace calcjit::math {

CALCJIT_KERNEL bool IsNanItem(float v) {
  return v != v;
}

CALCJIT_KERNEL void FillColumn(std::span<float> out, float value) {
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = value;
}

// The striped float64 sum of the non-NaN items, and their count.
struct StripedSum {
  double sum = 0.0;
  std::size_t count = 0;
};

// Four float32 items at a time, and the eight float64 partial sums as four
// vectors of two (GCC's and clang's vector extension; sixteen-byte vectors
// are native on every tier, and each lane is rounded exactly like the scalar
// code).
typedef float Floats4 __attribute__((vector_size(16)));
typedef float Floats2 __attribute__((vector_size(8)));
typedef int Ints4 __attribute__((vector_size(16)));
typedef double Doubles2 __attribute__((vector_size(16)));

struct DoubleStripes {
  Doubles2 s[4] = {};  // stripes 0-1, 2-3, 4-5, 6-7

  // Adds eight items (stripes 0..7, in order) to the stripes.
  CALCJIT_KERNEL_MEMBER void Add8(Floats4 lo, Floats4 hi) {
    s[0] = s[0] + __builtin_convertvector(__builtin_shufflevector(lo, lo, 0, 1), Doubles2);
    s[1] = s[1] + __builtin_convertvector(__builtin_shufflevector(lo, lo, 2, 3), Doubles2);
    s[2] = s[2] + __builtin_convertvector(__builtin_shufflevector(hi, hi, 0, 1), Doubles2);
    s[3] = s[3] + __builtin_convertvector(__builtin_shufflevector(hi, hi, 2, 3), Doubles2);
  }
  CALCJIT_KERNEL_MEMBER void AddTail(std::size_t j, double term) {
    s[j / 2][j % 2] = s[j / 2][j % 2] + term;
  }
  CALCJIT_KERNEL_MEMBER double Combine() const {
    return ((s[0][0] + s[0][1]) + (s[1][0] + s[1][1])) +
           ((s[2][0] + s[2][1]) + (s[3][0] + s[3][1]));
  }
};

CALCJIT_KERNEL Floats4 LoadItems4(const float* p) {
  Floats4 v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}

// The items with NaN replaced by +0.
CALCJIT_KERNEL Floats4 NanToZero(Floats4 v) {
  const Floats4 zero = {};
  return v != v ? zero : v;
}

// Adding +0.0 for a NaN item is the same as skipping it: a partial sum starts
// at +0 and can never become -0 (x + y is -0 only when both are -0), and
// s + (+0) == s for every other s, infinities and NaN included.
CALCJIT_KERNEL StripedSum SumNonNan(std::span<const float> x) {
  DoubleStripes s;
  Ints4 nan_count = {};
  const std::size_t n = x.size();
  const float* data = x.data();
  std::size_t i = 0;
  for (const std::size_t full = n - n % 8; i < full; i += 8) {
    const Floats4 lo = LoadItems4(data + i);
    const Floats4 hi = LoadItems4(data + i + 4);
    s.Add8(NanToZero(lo), NanToZero(hi));
    nan_count = nan_count - (lo != lo) - (hi != hi);  // a true lane is -1
  }
  std::size_t count = i;
  for (int lane = 0; lane < 4; ++lane) count -= static_cast<std::size_t>(nan_count[lane]);
  for (std::size_t j = 0; i < n; ++i, ++j) {
    const float v = data[i];
    s.AddTail(j, IsNanItem(v) ? 0.0 : static_cast<double>(v));
    count += IsNanItem(v) ? 0 : 1;
  }
  return StripedSum{s.Combine(), count};
}

// The binary MIN (or MAX) folded over the non-NaN items. IEEE minimum and
// maximum (with -0 below +0) are total orders on non-NaN values, so any fold
// order gives the same result: sixteen lanes start at the operator's identity
// (+inf for MIN, -inf for MAX) and meet at the end. NaN if no item is non-NaN.
template <float (*kOp)(float, float)>
CALCJIT_KERNEL float FoldNonNan(std::span<const float> x, float identity) {
  float lanes[16];
  for (float& lane : lanes) lane = identity;
  std::size_t count = 0;
  std::size_t i = 0;
  for (const std::size_t full = x.size() - x.size() % 16; i < full; i += 16) {
    for (std::size_t j = 0; j < 16; ++j) {
      const float v = x[i + j];
      lanes[j] = Select(IsNanItem(v), lanes[j], kOp(lanes[j], v));
      count += IsNanItem(v) ? 0 : 1;
    }
  }
  float result = identity;
  for (; i < x.size(); ++i) {
    const float v = x[i];
    result = Select(IsNanItem(v), result, kOp(result, v));
    count += IsNanItem(v) ? 0 : 1;
  }
  for (float lane : lanes) result = kOp(result, lane);
  return count == 0 ? CanonicalNan() : result;
}

CALCJIT_KERNEL float MinNonNan(std::span<const float> x) {
  return FoldNonNan<Min>(x, __builtin_inff());
}
CALCJIT_KERNEL float MaxNonNan(std::span<const float> x) {
  return FoldNonNan<Max>(x, -__builtin_inff());
}

// Unrounded float64 mean; NaN when no item is non-NaN.
CALCJIT_KERNEL double MeanNonNan(std::span<const float> x) {
  const StripedSum s = SumNonNan(x);
  return s.count == 0 ? static_cast<double>(CanonicalNan()) : s.sum / static_cast<double>(s.count);
}

// Population standard deviation in two passes (spec section 3), the squared
// deviations striped like the sum (squares are never -0, so +0 for a NaN
// item is again the same as skipping it). `s` is SumNonNan(x).
CALCJIT_KERNEL double StdNonNan(std::span<const float> x, const StripedSum& s) {
  if (s.count == 0) return static_cast<double>(CanonicalNan());
  const double mean = s.sum / static_cast<double>(s.count);
  DoubleStripes d;
  const std::size_t n = x.size();
  const float* data = x.data();
  std::size_t i = 0;
  for (const std::size_t full = n - n % 8; i < full; i += 8) {
    // A pair at a time: (x - mean)^2 in float64, +0 for a NaN item.
    for (int pair = 0; pair < 4; ++pair) {
      const float v0 = data[i + 2 * pair];
      const float v1 = data[i + 2 * pair + 1];
      const Doubles2 v = {static_cast<double>(v0), static_cast<double>(v1)};
      const Doubles2 deviation = v - mean;
      const Doubles2 square = deviation * deviation;
      const Doubles2 zero = {};
      typedef long long Longs2 __attribute__((vector_size(16)));
      const Longs2 nan = {IsNanItem(v0) ? -1LL : 0LL, IsNanItem(v1) ? -1LL : 0LL};
      d.s[pair] = d.s[pair] + (nan ? zero : square);
    }
  }
  for (std::size_t j = 0; i < n; ++i, ++j) {
    const float v = data[i];
    const double deviation = static_cast<double>(v) - mean;
    d.AddTail(j, IsNanItem(v) ? 0.0 : deviation * deviation);
  }
  return __builtin_sqrt(d.Combine() / static_cast<double>(s.count));
}

CALCJIT_KERNEL double StdNonNan(std::span<const float> x) {
  return StdNonNan(x, SumNonNan(x));
}

CALCJIT_KERNEL void BatchMin(std::span<const float> x, std::span<float> out) {
  FillColumn(out, MinNonNan(x));
}
CALCJIT_KERNEL void BatchMax(std::span<const float> x, std::span<float> out) {
  FillColumn(out, MaxNonNan(x));
}
CALCJIT_KERNEL void BatchSum(std::span<const float> x, std::span<float> out) {
  FillColumn(out, static_cast<float>(SumNonNan(x).sum));  // the sum of no item is +0
}
CALCJIT_KERNEL void BatchMean(std::span<const float> x, std::span<float> out) {
  FillColumn(out, static_cast<float>(MeanNonNan(x)));
}
CALCJIT_KERNEL void BatchStd(std::span<const float> x, std::span<float> out) {
  FillColumn(out, static_cast<float>(StdNonNan(x)));
}
CALCJIT_KERNEL void BatchCount(std::span<const float> x, std::span<float> out) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < x.size(); ++i) count += Truthy(x[i]) ? 1 : 0;
  FillColumn(out, static_cast<float>(count));
}

// The sort key of an item for Rank: unsigned order is the order of the
// floats, -0 is folded into +0 (they tie by IEEE ==, so they must be equal
// keys), and NaN gets the largest key so that NaN items sort last. Bit
// arithmetic rather than `v + 0.0f`, which a caller's DAZ mode would break.
CALCJIT_KERNEL std::uint32_t RankKey(float v) {
  std::uint32_t bits = FloatBits(v);
  bits = (bits & 0x7FFFFFFFu) == 0 ? 0u : bits;
  const std::uint32_t monotonic = (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
  return IsNanItem(v) ? 0xFFFFFFFFu : monotonic;
}

// Sorts 64-bit keys by their upper 32 bits: an LSD radix sort, one pass per
// byte of the value, skipping the bytes all keys share (the order among equal
// values does not matter to rank). `temp` is as large as `keys`; returns the
// buffer that holds the result. 256 buckets keep the fixed cost small for a
// few thousand items. Two things keep equal digits in a row (common in the
// high bytes, where values share an exponent) from serializing on the
// store-to-load latency of one counter: the histogram counts even and odd
// items apart, and the scatter takes two keys at a time, giving the second
// its slot from the first's when their digits agree.
CALCJIT_KERNEL std::uint64_t* RadixSortByValue(std::span<std::uint64_t> keys,
                                               std::span<std::uint64_t> temp) {
  const std::size_t n = keys.size();
  std::uint32_t counts[2][4][256] = {};
  std::size_t i = 0;
  for (; i + 2 <= n; i += 2) {
    const auto a = static_cast<std::uint32_t>(keys[i] >> 32);
    const auto b = static_cast<std::uint32_t>(keys[i + 1] >> 32);
    for (int digit = 0; digit < 4; ++digit) {
      ++counts[0][digit][(a >> (8 * digit)) & 0xFF];
      ++counts[1][digit][(b >> (8 * digit)) & 0xFF];
    }
  }
  if (i < n) {
    const auto a = static_cast<std::uint32_t>(keys[i] >> 32);
    for (int digit = 0; digit < 4; ++digit) ++counts[0][digit][(a >> (8 * digit)) & 0xFF];
  }
  std::uint64_t* from = keys.data();
  std::uint64_t* to = temp.data();
  for (int digit = 0; digit < 4; ++digit) {
    std::uint32_t* slot = counts[0][digit];  // becomes each bucket's next free slot
    const std::uint32_t* odd = counts[1][digit];
    std::uint32_t offset = 0;
    bool one_bucket = false;
    for (std::size_t b = 0; b < 256; ++b) {
      const std::uint32_t here = slot[b] + odd[b];
      one_bucket = one_bucket || here == n;
      slot[b] = offset;
      offset += here;
    }
    if (one_bucket) continue;  // every key has the same byte here
    const int shift = 32 + 8 * digit;
    std::size_t j = 0;
    for (; j + 2 <= n; j += 2) {
      const std::uint64_t k0 = from[j];
      const std::uint64_t k1 = from[j + 1];
      const std::size_t b0 = (k0 >> shift) & 0xFF;
      const std::size_t b1 = (k1 >> shift) & 0xFF;
      const std::uint32_t p0 = slot[b0];
      const std::uint32_t p1 = b0 == b1 ? p0 + 1 : slot[b1];
      slot[b0] = p0 + 1;
      slot[b1] = p1 + 1;  // after slot[b0]: when b0 == b1 this is p0 + 2
      to[p0] = k0;
      to[p1] = k1;
    }
    if (j < n) to[slot[(from[j] >> shift) & 0xFF]++] = from[j];
    std::uint64_t* swap = from;
    from = to;
    to = swap;
  }
  return from;
}

// The sort keys of the items (RankKey in the upper half, the item index in
// the lower) in keys[0, x.size()); returns the number of non-NaN items, which
// sort first. `differing` gets the bits in which some key differs from the
// first one (0 for fewer than two items).
CALCJIT_KERNEL std::size_t MakeRankKeys(std::span<const float> x, std::uint64_t* keys,
                                        std::uint32_t* differing) {
  std::size_t count = 0;
  const std::uint32_t first = x.empty() ? 0u : RankKey(x[0]);
  std::uint32_t bits = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float v = x[i];
    const std::uint32_t key = RankKey(v);
    keys[i] = (static_cast<std::uint64_t>(key) << 32) | i;
    bits |= key ^ first;
    count += IsNanItem(v) ? 0 : 1;
  }
  *differing = bits;
  return count;
}

// The number of the key's four bytes in which some key differs: the passes
// RadixSortByValue makes (it skips the bytes that every key shares).
CALCJIT_KERNEL int DifferingKeyBytes(std::uint32_t differing) {
  int bytes = 0;
  for (int b = 0; b < 4; ++b) bytes += ((differing >> (8 * b)) & 0xFFu) != 0 ? 1 : 0;
  return bytes;
}

// The ranks from the keys of MakeRankKeys sorted by value (their order among
// equal values does not matter), handed out from the largest value down: an
// item starts a new group, and takes 1 + the number of items above it, unless
// its value equals the one above. `count` is the number of non-NaN items.
CALCJIT_KERNEL void RanksFromSortedKeys(std::span<const float> x, const std::uint64_t* sorted,
                                        std::size_t count, std::span<float> out) {
  const std::size_t n = x.size();
  for (std::size_t k = count; k < n; ++k) {
    const std::size_t item = sorted[k] & 0xFFFFFFFFu;
    out[item] = x[item];  // a NaN item stays NaN (out may be x: it is NaN there too)
  }
  std::uint64_t above = 0;  // the value of the item above, once there is one
  std::uint32_t rank = 1;
  for (std::size_t k = count; k-- > 0;) {
    const std::uint64_t value = sorted[k] >> 32;
    rank = (k + 1 == count || value != above) ? static_cast<std::uint32_t>(count - k) : rank;
    above = value;
    out[sorted[k] & 0xFFFFFFFFu] = static_cast<float>(rank);
  }
}

// 1 + the number of non-NaN items greater than the item; ties (IEEE ==, so
// -0 ties +0) share the best rank; a NaN item stays NaN. `scratch` holds at
// least 2 * x.size() keys.
CALCJIT_KERNEL void RadixRank(std::span<const float> x, std::span<float> out,
                              std::span<std::uint64_t> scratch) {
  const std::size_t n = x.size();
  std::uint32_t differing = 0;
  const std::size_t count = MakeRankKeys(x, scratch.data(), &differing);
  const std::uint64_t* sorted = RadixSortByValue(scratch.first(n), scratch.subspan(n, n));
  RanksFromSortedKeys(x, sorted, count, out);
}

// The same with the keys sorted by Highway's vqsort (math/rank_sort.h).
// `scratch` holds at least x.size() keys.
CALCJIT_KERNEL void VqSortRank(std::span<const float> x, std::span<float> out,
                               std::span<std::uint64_t> scratch) {
  std::uint32_t differing = 0;
  const std::size_t count = MakeRankKeys(x, scratch.data(), &differing);
  VqSortByValue(scratch.data(), x.size());
  RanksFromSortedKeys(x, scratch.data(), count, out);
}

// The scratch keys per item that Rank needs.
inline constexpr std::size_t kRankScratchPerItem = 2;

// RANK (spec section 3). Every correct sort gives the same ranks, which are
// integers. vqsort beat the radix sort and std::sort at every size from 64
// to 10,000 items on prices and on signed values (docs/PERFORMANCE.md, "Rank:
// sort choice and top-k"). The one exception measured: when the keys differ
// in at most two of their four bytes (small integers, few distinct values),
// the radix sort makes only two passes and is faster from kRankRadixFrom to
// kRankRadixTo items.
inline constexpr std::size_t kRankRadixFrom = 1000;
inline constexpr std::size_t kRankRadixTo = 4096;
inline constexpr int kRankRadixMostBytes = 2;
CALCJIT_KERNEL void Rank(std::span<const float> x, std::span<float> out,
                         std::span<std::uint64_t> scratch) {
  const std::size_t n = x.size();
  std::uint32_t differing = 0;
  const std::size_t count = MakeRankKeys(x, scratch.data(), &differing);
  // Where vqsort is wrong (rank_sort.h), the radix sort at every size: faster
  // than the std::sort VqSortByValue falls back to there.
  const bool radix = !VqSortRightHere() || (n >= kRankRadixFrom && n <= kRankRadixTo &&
                                            DifferingKeyBytes(differing) <= kRankRadixMostBytes);
  const std::uint64_t* sorted = scratch.data();
  if (radix) {
    sorted = RadixSortByValue(scratch.first(n), scratch.subspan(n, n));
  } else {
    VqSortByValue(scratch.data(), n);
  }
  RanksFromSortedKeys(x, sorted, count, out);
}

// The top-k question `RANK(x) <= bound` (EQ, NE, LT, LE, ... are IEEE, spec
// section 3), 1 or 0 for every item, without ranking: the optimizer's
// rewrite of rank(x) <= k, rank(x) < k and rank(x) == 1 (opt/top_k.cc), the
// same bits as the comparison of RANK's column.
//
// The c non-NaN items have ranks in 1..c, and RANK's float(r) (from an
// unsigned integer, rounded to nearest) never decreases as r grows, so
// float(r) <= bound holds exactly for r <= K, K the largest r in 0..c with
// r = 0 or float(r) <= bound (K = 0 for a NaN or negative bound). And
// rank(i) = 1 + #{j : x[j] > x[i]} <= K exactly when x[i] >= t, t the K-th
// largest non-NaN value counted with repeats: if x[i] >= t, the items
// greater than x[i] are greater than t, so at most K - 1 of them; if x[i] <
// t, the K largest are all greater. Ties at t (with -0 == +0: the keys fold
// them) all count. A NaN item's rank is NaN, and NaN <= bound is false: 0.
// t is found by selection (O(n) on average) on the non-NaN keys (RankKey,
// whose unsigned order is the order of the values), or as their maximum for
// K = 1. `scratch` holds at least x.size() 64-bit words (the c keys).
inline constexpr std::size_t kRankAtMostScratchPerItem = 1;
CALCJIT_KERNEL void RankAtMost(std::span<const float> x, std::span<float> out,
                               std::span<std::uint64_t> scratch, float bound) {
  const std::size_t n = x.size();
  std::size_t count = 0;
  for (std::size_t i = 0; i < n; ++i) count += IsNanItem(x[i]) ? 0 : 1;
  // K by bisection over 0..c: "float(r) <= bound" is true up to K, then false.
  std::size_t below = 0, above = count;  // K in [below, above]
  while (below < above) {
    const std::size_t middle = below + (above - below + 1) / 2;
    if (static_cast<float>(static_cast<std::uint32_t>(middle)) <= bound) {
      below = middle;
    } else {
      above = middle - 1;
    }
  }
  const std::size_t k = below;
  if (k == 0) {
    FillColumn(out, 0.0f);
    return;
  }
  std::uint32_t threshold = 0;  // every key, when K = c
  if (k == 1) {
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t key = IsNanItem(x[i]) ? 0u : RankKey(x[i]);
      threshold = key > threshold ? key : threshold;
    }
  } else if (k < count) {
    // 32-bit keys held in 64-bit words: the scratch is 64-bit memory, and
    // reading it as another type would break C++'s aliasing rules.
    std::uint64_t* const keys = scratch.data();
    std::size_t j = 0;
    for (std::size_t i = 0; i < n; ++i) {
      keys[j] = RankKey(x[i]);
      j += IsNanItem(x[i]) ? 0 : 1;
    }
    // The K-th largest is the (c - K)-th smallest (from 0). The comparator
    // is a lambda on purpose: its type is local to this (per-tier, static)
    // function, so no instantiation of nth_element is shared between the
    // kernel tiers (math/bits.h).
    std::uint64_t* const kth = keys + (count - k);
    std::nth_element(keys, kth, keys + count,
                     [](std::uint64_t a, std::uint64_t b) { return a < b; });
    threshold = static_cast<std::uint32_t>(*kth);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const float v = x[i];
    const bool top = !IsNanItem(v) && RankKey(v) >= threshold;
    out[i] = top ? 1.0f : 0.0f;
  }
}

// m = MAX; e = EXP(x - m) in float32; s = the striped float64 sum of e over
// the non-NaN items (a NaN e, as for x = inf, is added like any other);
// e / s in float64, rounded. (e is never -0, so +0 for a NaN item is skipping.)
// `m` is MaxNonNan(x), computed by the caller.
CALCJIT_KERNEL void SoftmaxWithMax(std::span<const float> x, float m, std::span<float> out) {
  const std::size_t n = x.size();
  // EXP as a column (fast path over blocks, fallback for the failed lanes),
  // in place in out; then the NaN items.
  for (std::size_t i = 0; i < n; ++i) out[i] = x[i] - m;
  ExpColumn(out.data(), out.data(), n);
  for (std::size_t i = 0; i < n; ++i) {
    const float v = x[i];
    out[i] = Select(IsNanItem(v), v, out[i]);
  }
  DoubleStripes s;
  std::size_t i = 0;
  for (const std::size_t full = n - n % 8; i < full; i += 8) {
    const Floats4 x_lo = LoadItems4(x.data() + i), x_hi = LoadItems4(x.data() + i + 4);
    const Floats4 e_lo = LoadItems4(out.data() + i), e_hi = LoadItems4(out.data() + i + 4);
    const Floats4 zero = {};
    s.Add8(x_lo != x_lo ? zero : e_lo, x_hi != x_hi ? zero : e_hi);
  }
  for (std::size_t j = 0; i < n; ++i, ++j) {
    s.AddTail(j, IsNanItem(x[i]) ? 0.0 : static_cast<double>(out[i]));
  }
  const double total = s.Combine();
  for (std::size_t k = 0; k < n; ++k) {
    const float p = static_cast<float>(static_cast<double>(out[k]) / total);
    out[k] = Select(IsNanItem(x[k]), x[k], p);
  }
}

CALCJIT_KERNEL void Softmax(std::span<const float> x, std::span<float> out) {
  SoftmaxWithMax(x, MaxNonNan(x), out);
}

// (x - MIN) / (MAX - MIN) in float32; 0 where MAX == MIN; NaN items stay NaN.
// `lo` and `hi` are MinNonNan(x) and MaxNonNan(x).
CALCJIT_KERNEL void MinMaxScaleWith(std::span<const float> x, float lo, float hi,
                                    std::span<float> out) {
  const float range = hi - lo;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float v = x[i];
    const float scaled = (v - lo) / range;
    out[i] = Select(IsNanItem(v), v, Select(hi == lo, 0.0f, scaled));
  }
}

CALCJIT_KERNEL void MinMaxScale(std::span<const float> x, std::span<float> out) {
  MinMaxScaleWith(x, MinNonNan(x), MaxNonNan(x), out);
}

// (x - MEAN) / STD in float32, MEAN and STD rounded to float32 first; 0
// where STD == 0; NaN items stay NaN. `mean` and `std_dev` are those
// roundings.
CALCJIT_KERNEL void ZscoreWith(std::span<const float> x, float mean, float std_dev,
                               std::span<float> out) {
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float v = x[i];
    const float z = (v - mean) / std_dev;
    out[i] = Select(IsNanItem(v), v, Select(std_dev == 0.0f, 0.0f, z));
  }
}

CALCJIT_KERNEL void Zscore(std::span<const float> x, std::span<float> out) {
  const StripedSum sum = SumNonNan(x);
  const float mean = static_cast<float>(sum.count == 0 ? static_cast<double>(CanonicalNan())
                                                       : sum.sum / static_cast<double>(sum.count));
  ZscoreWith(x, mean, static_cast<float>(StdNonNan(x, sum)), out);
}

// Aggregates over the same column computed from statistics they share
// (issue 15; the scheduler groups them, program/schedule.cc). Compute makes
// one pass over the column for min, max, the striped sum with the non-NaN
// count and the truthy count, and the standard deviation's second pass only
// when asked; each overload below, named like its row of op.def, derives
// that aggregate's result from the statistics with exactly the bits of the
// kernel above of the same name. (A namespace of their own, so that the
// overloads leave `&math::BatchMin` and the like unambiguous; callers find
// them by argument-dependent lookup on Statistics.)
namespace shared_statistics {

struct Statistics {
  StripedSum sum;          // the striped float64 sum and the non-NaN count
  float min = 0.0f;        // MinNonNan: NaN when no item is non-NaN
  float max = 0.0f;        // MaxNonNan
  std::size_t truthy = 0;  // the truthy items (COUNT)
  double mean = 0.0;       // MeanNonNan: unrounded, NaN when no item is non-NaN
  double std_dev = 0.0;    // StdNonNan, when Compute was asked for it
};

// IEEE minimum and maximum of lanes that are not NaN: on a tie (which
// includes -0 == +0) the OR of the bits is -0 if either is, the AND +0 if
// either is, as math::Min and math::Max do.
CALCJIT_KERNEL Floats4 MinLanes(Floats4 a, Floats4 b) {
  const Floats4 tie =
      __builtin_bit_cast(Floats4, __builtin_bit_cast(Ints4, a) | __builtin_bit_cast(Ints4, b));
  return a == b ? tie : (a < b ? a : b);
}
CALCJIT_KERNEL Floats4 MaxLanes(Floats4 a, Floats4 b) {
  const Floats4 tie =
      __builtin_bit_cast(Floats4, __builtin_bit_cast(Ints4, a) & __builtin_bit_cast(Ints4, b));
  return a == b ? tie : (a > b ? a : b);
}

// Why every result has the bits of the separate kernels: the stripes get
// the same terms in the same order as SumNonNan's (eight items at a time
// through Add8, then the tail through AddTail), so the same float64
// roundings; min and max are folds of a total order on non-NaN values (-0
// below +0), where the fold order changes nothing, and a NaN item replaced
// by the fold's identity is a skipped item; counts are exact. The mean and
// the standard deviation are then computed from that sum by the very code
// of MeanNonNan and StdNonNan.
CALCJIT_KERNEL Statistics Compute(std::span<const float> x, bool with_std) {
  DoubleStripes s;
  const Floats4 zero = {};
  const Floats4 inf = zero + __builtin_inff();
  const Floats4 minus_inf = zero - __builtin_inff();
  Floats4 min_lo = inf, min_hi = inf, max_lo = minus_inf, max_hi = minus_inf;
  Ints4 nan_count = {};
  Ints4 truthy_count = {};
  const std::size_t n = x.size();
  const float* data = x.data();
  std::size_t i = 0;
  for (const std::size_t full = n - n % 8; i < full; i += 8) {
    const Floats4 lo = LoadItems4(data + i);
    const Floats4 hi = LoadItems4(data + i + 4);
    s.Add8(NanToZero(lo), NanToZero(hi));
    nan_count = nan_count - (lo != lo) - (hi != hi);  // a true lane is -1
    truthy_count = truthy_count - ((lo == lo) & (lo != zero)) - ((hi == hi) & (hi != zero));
    min_lo = MinLanes(min_lo, lo != lo ? inf : lo);
    min_hi = MinLanes(min_hi, hi != hi ? inf : hi);
    max_lo = MaxLanes(max_lo, lo != lo ? minus_inf : lo);
    max_hi = MaxLanes(max_hi, hi != hi ? minus_inf : hi);
  }
  std::size_t count = i;
  std::size_t truthy = 0;
  float min = __builtin_inff();
  float max = -__builtin_inff();
  for (int lane = 0; lane < 4; ++lane) {
    count -= static_cast<std::size_t>(nan_count[lane]);
    truthy += static_cast<std::size_t>(truthy_count[lane]);
    min = Min(Min(min, min_lo[lane]), min_hi[lane]);
    max = Max(Max(max, max_lo[lane]), max_hi[lane]);
  }
  for (std::size_t j = 0; i < n; ++i, ++j) {
    const float v = data[i];
    s.AddTail(j, IsNanItem(v) ? 0.0 : static_cast<double>(v));
    count += IsNanItem(v) ? 0 : 1;
    truthy += Truthy(v) ? 1 : 0;
    min = Select(IsNanItem(v), min, Min(min, v));
    max = Select(IsNanItem(v), max, Max(max, v));
  }
  Statistics result;
  result.sum = StripedSum{s.Combine(), count};
  result.min = count == 0 ? CanonicalNan() : min;
  result.max = count == 0 ? CanonicalNan() : max;
  result.truthy = truthy;
  result.mean = count == 0 ? static_cast<double>(CanonicalNan())
                           : result.sum.sum / static_cast<double>(count);
  result.std_dev = with_std ? StdNonNan(x, result.sum) : 0.0;
  return result;
}

CALCJIT_KERNEL void BatchMin(const Statistics& s, std::span<const float>, std::span<float> out) {
  FillColumn(out, s.min);
}
CALCJIT_KERNEL void BatchMax(const Statistics& s, std::span<const float>, std::span<float> out) {
  FillColumn(out, s.max);
}
CALCJIT_KERNEL void BatchSum(const Statistics& s, std::span<const float>, std::span<float> out) {
  FillColumn(out, static_cast<float>(s.sum.sum));
}
CALCJIT_KERNEL void BatchMean(const Statistics& s, std::span<const float>, std::span<float> out) {
  FillColumn(out, static_cast<float>(s.mean));
}
CALCJIT_KERNEL void BatchStd(const Statistics& s, std::span<const float>, std::span<float> out) {
  FillColumn(out, static_cast<float>(s.std_dev));
}
CALCJIT_KERNEL void BatchCount(const Statistics& s, std::span<const float>, std::span<float> out) {
  FillColumn(out, static_cast<float>(s.truthy));
}
CALCJIT_KERNEL void Softmax(const Statistics& s, std::span<const float> x, std::span<float> out) {
  SoftmaxWithMax(x, s.max, out);
}
CALCJIT_KERNEL void MinMaxScale(const Statistics& s, std::span<const float> x,
                                std::span<float> out) {
  MinMaxScaleWith(x, s.min, s.max, out);
}
CALCJIT_KERNEL void Zscore(const Statistics& s, std::span<const float> x, std::span<float> out) {
  ZscoreWith(x, static_cast<float>(s.mean), static_cast<float>(s.std_dev), out);
}

}  // namespace shared_statistics

}  // namespace calcjit::math

#endif  // CALCJIT_MATH_AGGREGATE_H_
