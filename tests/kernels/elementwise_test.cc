// The element-wise kernels of src/math against the contract (spec section 3),
// over a dense sample of every float32 bit pattern where a reference exists.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "math/bits.h"
#include "math/elementwise.h"

namespace calcjit::math {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNan = std::numeric_limits<float>::quiet_NaN();

bool SameBits(float a, float b) {
  return FloatBits(a) == FloatBits(b);
}
bool SameValue(float a, float b) {
  return (a != a && b != b) || SameBits(a, b);
}

// Every 61st bit pattern (about 70 million), which visits every exponent and
// both signs, plus the specials.
template <typename Check>
void ForSampledFloats(Check check) {
  for (std::uint64_t bits = 0; bits <= 0xFFFFFFFFull; bits += 61) {
    check(FloatFromBits(static_cast<std::uint32_t>(bits)));
  }
  for (float v : {0.0f, -0.0f, kInf, -kInf, kNan, 0.5f, -0.5f, 1.5f, -2.5f, 8388607.5f, -8388607.5f,
                  8388608.0f, 0.49999997f, -0.49999997f}) {
    check(v);
  }
}

TEST(ElementwiseTest, FloorCeilRoundMatchCOnSampledFloats) {
  std::uint64_t mismatches = 0;
  ForSampledFloats([&](float x) {
    mismatches += !SameValue(Floor(x), std::floor(x));
    mismatches += !SameValue(Ceil(x), std::ceil(x));
    mismatches += !SameValue(Round(x), std::round(x));  // half away from zero, as C roundf
  });
  EXPECT_EQ(mismatches, 0u);
}

TEST(ElementwiseTest, RoundingKeepsTheSignOfZero) {
  EXPECT_TRUE(SameBits(Floor(-0.0f), -0.0f));
  EXPECT_TRUE(SameBits(Ceil(-0.5f), -0.0f));
  EXPECT_TRUE(SameBits(Round(-0.4f), -0.0f));
  EXPECT_TRUE(SameBits(Round(0.4f), 0.0f));
  EXPECT_TRUE(SameBits(Floor(-0.5f), -1.0f));
}

TEST(ElementwiseTest, SqrtIsTheIeeeSquareRoot) {
  std::uint64_t mismatches = 0;
  ForSampledFloats([&](float x) { mismatches += !SameValue(Sqrt(x), std::sqrt(x)); });
  EXPECT_EQ(mismatches, 0u);
  EXPECT_TRUE(SameBits(Sqrt(-0.0f), -0.0f));
  EXPECT_TRUE(std::isnan(Sqrt(-1e-45f)));
}

TEST(ElementwiseTest, NegAndAbsOnlyTouchTheSignBit) {
  std::uint64_t mismatches = 0;
  ForSampledFloats([&](float x) {
    mismatches += FloatBits(Neg(x)) != (FloatBits(x) ^ 0x80000000u);
    mismatches += FloatBits(Abs(x)) != (FloatBits(x) & 0x7FFFFFFFu);
  });
  EXPECT_EQ(mismatches, 0u);
}

TEST(ElementwiseTest, SignPassesZerosAndNan) {
  EXPECT_EQ(Sign(3.0f), 1.0f);
  EXPECT_EQ(Sign(-1e-45f), -1.0f);
  EXPECT_TRUE(SameBits(Sign(0.0f), 0.0f));
  EXPECT_TRUE(SameBits(Sign(-0.0f), -0.0f));
  EXPECT_TRUE(std::isnan(Sign(kNan)));
  EXPECT_EQ(Sign(-kInf), -1.0f);
}

// IEEE 754-2019 minimum/maximum, written out from the definition.
float SpecMin(float a, float b) {
  if (a != a || b != b) return kNan;
  if (a == 0.0f && b == 0.0f) return std::signbit(a) || std::signbit(b) ? -0.0f : 0.0f;
  return a < b ? a : b;
}
float SpecMax(float a, float b) {
  if (a != a || b != b) return kNan;
  if (a == 0.0f && b == 0.0f) return std::signbit(a) && std::signbit(b) ? -0.0f : 0.0f;
  return a > b ? a : b;
}

TEST(ElementwiseTest, MinMaxAreIeeeMinimumMaximum) {
  const float values[] = {0.0f, -0.0f, 1.0f, -1.0f, kInf, -kInf, kNan, 1e-45f, -1e-45f, 3e38f};
  for (float a : values) {
    for (float b : values) {
      EXPECT_TRUE(SameValue(Min(a, b), SpecMin(a, b))) << a << " " << b;
      EXPECT_TRUE(SameValue(Max(a, b), SpecMax(a, b))) << a << " " << b;
    }
  }
}

TEST(ElementwiseTest, ComparisonsAndLogicGiveOneOrZero) {
  const float values[] = {0.0f, -0.0f, 1.0f, -2.0f, kInf, kNan};
  for (float a : values) {
    for (float b : values) {
      EXPECT_EQ(Eq(a, b), (a == b) ? 1.0f : 0.0f);
      EXPECT_EQ(Ne(a, b), (a != b) ? 1.0f : 0.0f);
      EXPECT_EQ(Lt(a, b), (a < b) ? 1.0f : 0.0f);
      EXPECT_EQ(Le(a, b), (a <= b) ? 1.0f : 0.0f);
      EXPECT_EQ(Gt(a, b), (a > b) ? 1.0f : 0.0f);
      EXPECT_EQ(Ge(a, b), (a >= b) ? 1.0f : 0.0f);
      const bool ta = a == a && a != 0.0f;
      const bool tb = b == b && b != 0.0f;
      EXPECT_EQ(And(a, b), (ta && tb) ? 1.0f : 0.0f);
      EXPECT_EQ(Or(a, b), (ta || tb) ? 1.0f : 0.0f);
      EXPECT_TRUE(SameBits(If(a, 5.0f, b), ta ? 5.0f : b) || (!ta && b != b));
    }
    EXPECT_EQ(Not(a), (a == a && a != 0.0f) ? 0.0f : 1.0f);
    EXPECT_EQ(IsNan(a), a != a ? 1.0f : 0.0f);
  }
}

TEST(ElementwiseTest, CanonicalNan) {
  EXPECT_EQ(FloatBits(CanonicalizeNan(FloatFromBits(0xFFC00001u))), 0x7FC00000u);
  EXPECT_EQ(FloatBits(CanonicalizeNan(FloatFromBits(0x7F800001u))), 0x7FC00000u);
  EXPECT_EQ(FloatBits(CanonicalizeNan(-0.0f)), 0x80000000u);
}

}  // namespace
}  // namespace calcjit::math
