// RANK and its top-k form RankAtMost (op.def) against the contract's
// definition (spec section 3), written item against item: every sort RANK
// can use (vqsort, the radix sort), every kernel tier the backends run, and
// the sizes where vqsort changes method (its sorting networks for small
// columns, its partitions for larger ones) and where math::Rank switches
// between vqsort and the radix sort.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <algorithm>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "backend/kernels/kernels.h"
#include "calcjit/cpu.h"
#include "ir/op.h"
#include "math/aggregate.h"
#include "math/bits.h"
#include "math/rank_sort.h"

namespace calcjit {
namespace {

const float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// 1 + the number of non-NaN items greater; NaN for a NaN item.
std::vector<float> RanksByDefinition(const std::vector<float>& x) {
  std::vector<float> ranks(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i])) {
      ranks[i] = kNan;
      continue;
    }
    std::uint32_t greater = 0;
    for (float v : x) greater += (!std::isnan(v) && v > x[i]) ? 1u : 0u;
    ranks[i] = static_cast<float>(1u + greater);
  }
  return ranks;
}

bool SameBits(float a, float b) {
  return math::FloatBits(a) == math::FloatBits(b) || (a != a && b != b);
}

// Columns rich in what rank is about: ties, -0 beside +0, runs of NaN, a
// single repeated value, values of both signs and huge magnitudes.
std::vector<float> Column(std::mt19937& rng, std::size_t n, int shape) {
  std::vector<float> x(n);
  std::uniform_int_distribution<int> small(0, 5);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  for (std::size_t i = 0; i < n; ++i) {
    switch (shape) {
      case 0:  // ties and zeros of both signs
        x[i] = static_cast<float>(small(rng)) * (small(rng) < 3 ? 1.0f : -1.0f);
        if (x[i] == 0.0f) x[i] = small(rng) < 3 ? 0.0f : -0.0f;
        break;
      case 1:  // runs of NaN between spread values
        x[i] = (i / 5) % 3 == 0 ? kNan : unit(rng) * std::ldexp(1.0f, small(rng) * 20 - 50);
        break;
      case 2:  // all equal
        x[i] = 2.5f;
        break;
      case 3:  // all NaN
        x[i] = kNan;
        break;
      case 5:  // small integers >= 0 and both zeros: keys differ in two bytes only
        x[i] = small(rng) == 0 ? -0.0f : static_cast<float>(small(rng) * 7);
        break;
      default:  // infinities, ±0 and ordinary values
        x[i] = small(rng) == 0 ? (small(rng) < 3 ? kInf : -kInf)
                               : (small(rng) == 1 ? -0.0f : unit(rng) * 1000.0f);
        break;
    }
  }
  return x;
}

std::vector<Isa> Tiers() {
  std::vector<Isa> tiers;
  for (Isa isa : {Isa::kBaseline, Isa::kAvx2, Isa::kAvx512}) {
    if (IsIsaSupported(isa)) tiers.push_back(isa);
  }
  return tiers;
}

std::vector<float> RunTier(Isa isa, ir::Op op, const std::vector<float>& x, float bound) {
  std::vector<float> out(x.size(), 42.0f);
  std::vector<std::uint64_t> scratch(static_cast<std::size_t>(ir::ScratchKeysPerItem(op)) *
                                     x.size());
  kernels::KernelsFor(isa).aggregate[static_cast<int>(op)](x.data(), x.size(), out.data(),
                                                           out.size(), scratch.data(), bound);
  return out;
}

void ExpectColumn(const std::vector<float>& got, const std::vector<float>& expected,
                  const std::string& what) {
  ASSERT_EQ(got.size(), expected.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_TRUE(SameBits(got[i], expected[i])) << what << ", item " << i << " of " << got.size()
                                               << ": " << got[i] << " instead of " << expected[i];
  }
}

// Every size up to 300 (vqsort's sorting networks and its first partitions),
// around powers of two, and large batches.
std::vector<std::size_t> Sizes() {
  std::vector<std::size_t> sizes;
  for (std::size_t n = 0; n <= 300; ++n) sizes.push_back(n);
  for (std::size_t n :
       {511u, 512u, 513u, 1023u, 1024u, 1025u, 2000u, 2047u, 2048u, 2049u, 4096u, 4097u}) {
    sizes.push_back(n);
  }
  for (std::size_t n : {math::kRankRadixFrom, math::kRankRadixTo}) {
    for (std::size_t m : {n - 1, n, n + 1}) sizes.push_back(m);
  }
  return sizes;
}

TEST(RankTest, EverySortAndTierGivesTheRanksOfTheDefinition) {
  std::mt19937 rng(21);
  for (std::size_t n : Sizes()) {
    for (int shape = 0; shape < 6; ++shape) {
      const std::vector<float> x = Column(rng, n, shape);
      const std::vector<float> expected = RanksByDefinition(x);
      if (shape == 5 && n >= 2) {  // the column math::Rank gives the radix sort in its range
        std::vector<std::uint64_t> keys(n);
        std::uint32_t differing = 0;
        math::MakeRankKeys(x, keys.data(), &differing);
        ASSERT_LE(math::DifferingKeyBytes(differing), math::kRankRadixMostBytes);
      }
      const std::string what = "n " + std::to_string(n) + ", shape " + std::to_string(shape);
      std::vector<float> out(n);
      std::vector<std::uint64_t> scratch(2 * n);
      math::RadixRank(x, out, scratch);
      ExpectColumn(out, expected, what + ", radix");
      math::VqSortRank(x, out, scratch);
      ExpectColumn(out, expected, what + ", vqsort");
      for (Isa isa : Tiers()) {
        ExpectColumn(RunTier(isa, ir::Op::kRank, x, 0.0f), expected,
                     what + ", tier " + std::string(IsaName(isa)));
      }
    }
  }
}

TEST(RankTest, LargeBatchesAgreeWithTheRadixSort) {
  std::mt19937 rng(22);
  for (std::size_t n : {10000u, 65536u, 100000u}) {
    for (int shape = 0; shape < 6; ++shape) {
      const std::vector<float> x = Column(rng, n, shape);
      std::vector<float> radix(n);
      std::vector<std::uint64_t> scratch(2 * n);
      math::RadixRank(x, radix, scratch);
      ExpectColumn(RunTier(BestIsa(), ir::Op::kRank, x, 0.0f), radix,
                   "n " + std::to_string(n) + ", shape " + std::to_string(shape));
    }
  }
}

TEST(RankTest, RankMayWriteOverItsInput) {
  std::mt19937 rng(23);
  for (std::size_t n : {5u, 200u, 3000u}) {
    std::vector<float> x = Column(rng, n, 1);
    const std::vector<float> expected = RanksByDefinition(x);
    std::vector<std::uint64_t> scratch(2 * n);
    math::Rank(x, x, scratch);
    ExpectColumn(x, expected, "in place, n " + std::to_string(n));
  }
}

// The bounds a top-k question can bring: below 1, between integers, each
// rank, the count of non-NaN items and beyond, infinities, NaN, ±0, and the
// float just below an integer (what rank < k becomes).
std::vector<float> Bounds(std::size_t n) {
  std::vector<float> bounds = {-kInf,
                               -1.0f,
                               -0.0f,
                               0.0f,
                               0.5f,
                               1.0f,
                               std::nextafter(1.0f, 0.0f),
                               1.5f,
                               2.0f,
                               2.5f,
                               3.0f,
                               kInf,
                               kNan,
                               1e30f,
                               std::numeric_limits<float>::max(),
                               std::numeric_limits<float>::denorm_min()};
  for (std::size_t k : {n / 2, n - 1, n, n + 1}) {
    bounds.push_back(static_cast<float>(k));
    bounds.push_back(std::nextafter(static_cast<float>(k), -kInf));
  }
  return bounds;
}

TEST(RankTest, RankAtMostIsTheComparisonOfTheRanks) {
  std::mt19937 rng(24);
  for (std::size_t n : {0u, 1u, 2u, 3u, 7u, 64u, 65u, 300u, 2000u}) {
    for (int shape = 0; shape < 6; ++shape) {
      const std::vector<float> x = Column(rng, n, shape);
      const std::vector<float> ranks = RanksByDefinition(x);
      for (float bound : Bounds(n)) {
        std::vector<float> expected(n);
        // IEEE <=: false for a NaN rank or a NaN bound.
        for (std::size_t i = 0; i < n; ++i) expected[i] = ranks[i] <= bound ? 1.0f : 0.0f;
        const std::string what = "n " + std::to_string(n) + ", shape " + std::to_string(shape) +
                                 ", bound " + std::to_string(bound);
        std::vector<float> out(n, 42.0f);
        std::vector<std::uint64_t> scratch(n);
        math::RankAtMost(x, out, scratch, bound);
        ExpectColumn(out, expected, what);
        for (Isa isa : Tiers()) {
          ExpectColumn(RunTier(isa, ir::Op::kRankAtMost, x, bound), expected,
                       what + ", tier " + std::string(IsaName(isa)));
        }
        std::vector<float> in_place = x;
        math::RankAtMost(in_place, in_place, scratch, bound);
        ExpectColumn(in_place, expected, what + ", in place");
      }
    }
  }
}

// Highway's vqsort per target this CPU has (Highway's own switch for tests):
// every target VqSortRightOn trusts must sort item numbers right, ties
// included; on the one it does not (AVX2, Highway 1.0.3), the sort lost and
// duplicated the items of equal values, so that RANK on a CPU without
// AVX-512 gave ranks past the column's length. Were a target fixed, this
// test still passes; were a trusted one broken, it fails.
TEST(RankTest, VqSortIsTrustedOnlyWhereItSortsRight) {
  EXPECT_FALSE(math::VqSortRightOn(HWY_AVX2 | HWY_SSE4 | HWY_SSSE3));
  EXPECT_TRUE(math::VqSortRightOn(HWY_AVX3 | HWY_AVX2 | HWY_SSE4));
  EXPECT_TRUE(math::VqSortRightOn(HWY_SSE4 | HWY_SSSE3));
  const std::int64_t supported = hwy::SupportedTargets();
  std::mt19937 rng(27);
  for (const std::int64_t target :
       {std::int64_t{HWY_AVX3}, std::int64_t{HWY_AVX2}, std::int64_t{HWY_SSE4}}) {
    if ((supported & target) == 0) continue;
    hwy::SetSupportedTargetsForTest(target);
    bool right = true;
    for (std::size_t n : {33u, 100u, 257u, 1000u, 2000u}) {
      for (int shape : {0, 5, 4}) {  // ties of both signs, small integers, spread values
        const std::vector<float> x = Column(rng, n, shape);
        std::vector<std::uint64_t> keys(n);
        std::uint32_t differing = 0;
        math::MakeRankKeys(x, keys.data(), &differing);
        std::vector<std::uint64_t> sorted = keys;
        math::HighwayVqSortByValue(sorted.data(), n);
        std::vector<std::uint64_t> expected = keys;
        std::sort(expected.begin(), expected.end());
        std::vector<std::uint64_t> got = sorted;
        std::sort(got.begin(), got.end());
        bool ordered = true;
        for (std::size_t k = 1; k < n; ++k) ordered &= (sorted[k - 1] >> 32) <= (sorted[k] >> 32);
        right &= ordered && got == expected;
      }
    }
    hwy::SetSupportedTargetsForTest(0);
    if (math::VqSortRightOn(target)) {
      EXPECT_TRUE(right) << hwy::TargetName(target) << ": trusted, and its sort is wrong";
    }
  }
}

}  // namespace
}  // namespace calcjit
