// The aggregate and vector kernels against the contract's exact order of
// summation (spec section 3). Each reference below is written from the
// spec's wording, structured differently from the kernel (stripe by stripe
// instead of item by item), so that a slip in either shows up.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "math/aggregate.h"
#include "math/bits.h"
#include "math/vector.h"

namespace calcjit::math {
namespace {

const float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

bool SameValue(float a, float b) {
  return (a != a && b != b) || FloatBits(a) == FloatBits(b);
}

// Random columns rich in what the rules are about: NaN holes, ties, ±0,
// huge and tiny magnitudes, infinities now and then.
std::vector<float> RandomColumn(std::mt19937& rng, std::size_t n, bool with_infinities) {
  std::vector<float> x(n);
  std::uniform_int_distribution<int> kind(0, 19);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-40, 40);
  for (float& v : x) {
    switch (kind(rng)) {
      case 0:
        v = kNan;
        break;
      case 1:
        v = 0.0f;
        break;
      case 2:
        v = -0.0f;
        break;
      case 3:
        v = 3.0f;
        break;  // ties
      case 4:
        v = with_infinities ? kInf : 1.0f;
        break;
      case 5:
        v = 1e-45f;
        break;
      default:
        v = std::ldexp(unit(rng), exponent(rng));
        break;
    }
  }
  return x;
}

// Partial sum j adds the non-NaN x[i] with i mod 8 = j, in ascending i.
double SpecStripedSum(const std::vector<double>& terms, const std::vector<bool>& present) {
  double s[8];
  for (int j = 0; j < 8; ++j) {
    s[j] = 0.0;
    for (std::size_t i = static_cast<std::size_t>(j); i < terms.size(); i += 8) {
      if (present[i]) s[j] = s[j] + terms[i];
    }
  }
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

TEST(AggregateTest, SumMeanStdFollowTheStripedFloat64Order) {
  std::mt19937 rng(7);
  for (std::size_t n : {0u, 1u, 7u, 8u, 9u, 17u, 255u, 1000u}) {
    for (int round = 0; round < 20; ++round) {
      const std::vector<float> x = RandomColumn(rng, n, round % 5 == 0);
      std::vector<double> terms(n);
      std::vector<bool> present(n);
      std::size_t count = 0;
      for (std::size_t i = 0; i < n; ++i) {
        present[i] = !std::isnan(x[i]);
        terms[i] = x[i];
        count += present[i];
      }
      const double sum = SpecStripedSum(terms, present);
      const double mean = count ? sum / static_cast<double>(count) : kNan;
      std::vector<double> squares(n);
      for (std::size_t i = 0; i < n; ++i) squares[i] = (terms[i] - mean) * (terms[i] - mean);
      const double std_dev =
          count ? std::sqrt(SpecStripedSum(squares, present) / static_cast<double>(count)) : kNan;

      std::vector<float> out(n);
      BatchSum(x, out);
      for (float v : out) ASSERT_TRUE(SameValue(v, static_cast<float>(sum))) << "n=" << n;
      BatchMean(x, out);
      for (float v : out) ASSERT_TRUE(SameValue(v, static_cast<float>(mean))) << "n=" << n;
      BatchStd(x, out);
      for (float v : out) ASSERT_TRUE(SameValue(v, static_cast<float>(std_dev))) << "n=" << n;
    }
  }
}

// Rank by its definition, item against item.
void ExpectRanksByDefinition(const std::vector<float>& x) {
  std::vector<float> out(x.size());
  std::vector<std::uint64_t> scratch(2 * x.size());
  Rank(x, out, scratch);
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i])) {
      ASSERT_TRUE(std::isnan(out[i])) << "item " << i;
      continue;
    }
    std::size_t greater = 0;
    for (float v : x) greater += (!std::isnan(v) && v > x[i]);
    ASSERT_EQ(out[i], static_cast<float>(1 + greater)) << "item " << i << " of " << x.size();
  }
}

TEST(AggregateTest, RankCountsGreaterNonNanItems) {
  std::mt19937 rng(11);
  for (std::size_t n : {0u, 1u, 2u, 3u, 9u, 100u, 257u, 1000u, 4097u}) {
    ExpectRanksByDefinition(RandomColumn(rng, n, true));
  }
}

// The radix sort skips bytes that all values share and takes keys two at a
// time, pairing equal digits: columns where every byte position is shared,
// where only the low or only the high bytes differ, and runs of equal values.
TEST(AggregateTest, RankOnColumnsThatShareBytes) {
  std::mt19937 rng(12);
  std::uniform_int_distribution<int> small(0, 4);
  for (std::size_t n : {1u, 2u, 5u, 64u, 999u, 2000u}) {
    std::vector<float> same(n, 3.5f), few(n), one_octave(n), signs(n), runs(n);
    for (std::size_t i = 0; i < n; ++i) {
      few[i] = static_cast<float>(small(rng));
      one_octave[i] = 1.0f + static_cast<float>(small(rng)) * 0x1p-23f;  // low byte differs
      signs[i] = small(rng) < 2 ? -0.0f : (small(rng) < 2 ? 0.0f : -1e30f);
      runs[i] = static_cast<float>(i / 7) * (i % 3 == 0 ? 1.0f : kNan);
    }
    ExpectRanksByDefinition(same);
    ExpectRanksByDefinition(few);
    ExpectRanksByDefinition(one_octave);
    ExpectRanksByDefinition(signs);
    ExpectRanksByDefinition(runs);
  }
}

TEST(AggregateTest, MinMaxScaleAndZscoreUseTheRoundedStatistics) {
  std::mt19937 rng(13);
  for (int round = 0; round < 50; ++round) {
    const std::vector<float> x = RandomColumn(rng, 64, false);
    const float lo = MinNonNan(x);
    const float hi = MaxNonNan(x);
    const float mean = static_cast<float>(MeanNonNan(x));
    const float std_dev = static_cast<float>(StdNonNan(x));
    std::vector<float> scaled(x.size()), z(x.size());
    MinMaxScale(x, scaled);
    Zscore(x, z);
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (std::isnan(x[i])) {
        EXPECT_TRUE(std::isnan(scaled[i]) && std::isnan(z[i]));
        continue;
      }
      EXPECT_TRUE(SameValue(scaled[i], hi == lo ? 0.0f : (x[i] - lo) / (hi - lo)));
      EXPECT_TRUE(SameValue(z[i], std_dev == 0.0f ? 0.0f : (x[i] - mean) / std_dev));
    }
  }
}

TEST(AggregateTest, CountIsTruthyItems) {
  const std::vector<float> x = {1.0f, 0.0f, -0.0f, kNan, -kInf, 2.0f};
  std::vector<float> out(x.size());
  BatchCount(x, out);
  for (float v : out) EXPECT_EQ(v, 3.0f);
}

// Every result derived from the shared statistics has the bits of the
// aggregate's own kernel (exact bits: NaN or not, the sign of zero).
TEST(AggregateTest, SharedStatisticsGiveEachKernelsBits) {
  using Kernel = void (*)(std::span<const float>, std::span<float>);
  using Derived =
      void (*)(const shared_statistics::Statistics&, std::span<const float>, std::span<float>);
  struct Row {
    const char* name;
    Kernel kernel;
    Derived derived;
  };
  const Row rows[] = {
      {"BatchMin", &BatchMin, &shared_statistics::BatchMin},
      {"BatchMax", &BatchMax, &shared_statistics::BatchMax},
      {"BatchSum", &BatchSum, &shared_statistics::BatchSum},
      {"BatchMean", &BatchMean, &shared_statistics::BatchMean},
      {"BatchStd", &BatchStd, &shared_statistics::BatchStd},
      {"BatchCount", &BatchCount, &shared_statistics::BatchCount},
      {"Softmax", &Softmax, &shared_statistics::Softmax},
      {"MinMaxScale", &MinMaxScale, &shared_statistics::MinMaxScale},
      {"Zscore", &Zscore, &shared_statistics::Zscore},
  };
  std::mt19937 rng(15);
  for (std::size_t n : {0u, 1u, 3u, 7u, 8u, 9u, 16u, 17u, 33u, 100u, 1001u}) {
    for (int round = 0; round < 20; ++round) {
      std::vector<float> x = RandomColumn(rng, n, round % 3 == 0);
      if (round == 1) x.assign(n, kNan);
      const shared_statistics::Statistics s = shared_statistics::Compute(x, true);
      for (const Row& row : rows) {
        std::vector<float> expected(n), actual(n);
        row.kernel(x, expected);
        row.derived(s, x, actual);
        for (std::size_t i = 0; i < n; ++i) {
          ASSERT_EQ(FloatBits(actual[i]), FloatBits(expected[i]))
              << row.name << ", n = " << n << ", round " << round << ", item " << i;
        }
      }
    }
  }
}

TEST(AggregateTest, KernelsMayWriteOverTheirInput) {
  std::vector<float> x = {4.0f, kNan, 1.0f, 4.0f, -2.0f};
  std::vector<float> expected(x.size());
  std::vector<std::uint64_t> scratch(2 * x.size());
  Rank(x, expected, scratch);
  Rank(x, x, scratch);
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_TRUE(SameValue(x[i], expected[i]));
}

float SpecDot(const std::vector<float>& a, const std::vector<float>& b) {
  float s[8];
  for (std::size_t j = 0; j < 8; ++j) {
    s[j] = 0.0f;
    for (std::size_t k = j; k < a.size(); k += 8) s[j] = s[j] + a[k] * b[k];
  }
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

TEST(VectorTest, DotNormL2CosineFollowTheStripedOrder) {
  std::mt19937 rng(17);
  for (std::size_t d : {1u, 2u, 7u, 8u, 9u, 15u, 16u, 17u, 64u, 100u}) {
    for (int round = 0; round < 20; ++round) {
      std::vector<float> a = RandomColumn(rng, d, round % 4 == 0);
      std::vector<float> b = RandomColumn(rng, d, false);
      std::vector<float> diff2(d);
      for (std::size_t k = 0; k < d; ++k) diff2[k] = a[k] - b[k];
      const float dot = SpecDot(a, b);
      EXPECT_TRUE(SameValue(Dot(a.data(), b.data(), d), dot));
      EXPECT_TRUE(SameValue(Norm(a.data(), d), std::sqrt(SpecDot(a, a))));
      EXPECT_TRUE(SameValue(L2Distance(a.data(), b.data(), d), std::sqrt(SpecDot(diff2, diff2))));
      const float denominator = std::sqrt(SpecDot(a, a)) * std::sqrt(SpecDot(b, b));
      EXPECT_TRUE(
          SameValue(Cosine(a.data(), b.data(), d), denominator == 0.0f ? 0.0f : dot / denominator));
    }
  }
}

}  // namespace
}  // namespace calcjit::math
