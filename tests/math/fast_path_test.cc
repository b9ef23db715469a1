// Unit tests of the fast path and its fallback (math/transcendental_fast.h,
// math/transcendental.h): the special inputs and thresholds on every entry
// point, inputs whose fast result fails the rounding test (they must take the
// fallback and still come out correctly rounded), the column entry points at
// n = 0, 1 and sizes that are no multiple of any vector width or block, in
// place and not, and the agreement of scalar, column and double-double paths
// on a sample of all bit patterns. The VM tiers and the JIT's vector variants
// run the same column functions; tools/ulpcheck proves every one of them.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "math/transcendental.h"

namespace calcjit::math {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

std::uint32_t Bits(float f) {
  return std::bit_cast<std::uint32_t>(f);
}
float FromBits(std::uint32_t b) {
  return std::bit_cast<float>(b);
}

std::string Hex(float f) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a (0x%08X)", static_cast<double>(f), Bits(f));
  return buf;
}

::testing::AssertionResult SameFloat(float expected, float got) {
  if (std::isnan(expected) && std::isnan(got)) return ::testing::AssertionSuccess();
  if (Bits(expected) == Bits(got)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected " << Hex(expected) << ", got " << Hex(got);
}

// One function in all its forms. `exact` is the double-double kernel, the
// fallback, whose correct rounding on all 2^32 inputs the exhaustive runs
// proved before the fast path existed; it is the reference here.
struct Function {
  const char* name;
  float (*scalar)(float);
  void (*column)(const float*, float*, std::size_t);
  internal::FastResult (*fast)(float);
  float (*exact)(float);
  // Inputs whose fast result fails the rounding test (found by a scan).
  std::vector<std::uint32_t> fallback_inputs;
};

const std::vector<Function>& Functions() {
  static const std::vector<Function> functions = {
      {"exp",
       &Exp,
       &ExpColumn,
       &internal::ExpFast,
       &internal::ExpDoubleDouble,
       // e^x near 1 + 2^-23 + 2^-24 (a midpoint) for x near 2^-24, 2^-23...;
       // and three with float-subnormal results.
       {0x337FFF00u, 0x343FFFBFu, 0x349FFFDFu, 0x34DFFFDDu, 0xC2B1189Fu, 0xC2B1C033u, 0xC2B21310u}},
      {"log",
       &Log,
       &LogColumn,
       &internal::LogFast,
       &internal::LogDoubleDouble,
       {0x00027552u, 0x00123716u, 0x00221E16u, 0x00316243u}},
      {"log1p",
       &Log1p,
       &Log1pColumn,
       &internal::Log1pFast,
       &internal::Log1pDoubleDouble,
       {0x337FFF81u, 0x33B5049Au, 0x34000001u, 0x345DB3B4u}},
      {"sigmoid",
       &Sigmoid,
       &SigmoidColumn,
       &internal::SigmoidFast,
       &internal::SigmoidDoubleDouble,
       {0x33FFFF00u, 0x34BFFFC0u, 0x351FFFE0u, 0x355FFFE0u}},
      {"tanh",
       &Tanh,
       &TanhColumn,
       &internal::TanhFast,
       &internal::TanhDoubleDouble,
       {0x39B89B28u, 0x3A27BA16u, 0x3A46DCCDu, 0x3A5E7725u}},
  };
  return functions;
}

// Special values and thresholds: signed zeros, infinities, NaN, the extreme
// subnormals and normals, and the edges where results overflow, become
// subnormal, underflow to zero or saturate at +-1 / 0 / 1.
std::vector<float> SpecialInputs() {
  std::vector<float> v = {0.0f,
                          -0.0f,
                          kInf,
                          -kInf,
                          kNan,
                          -kNan,
                          FromBits(0x7F800001u),  // signaling NaN pattern
                          0x1p-149f,
                          -0x1p-149f,
                          0x1p-126f,
                          -0x1p-126f,
                          0x1.fffffcp-127f,  // largest subnormal
                          0x1.fffffep127f,
                          -0x1.fffffep127f,
                          1.0f,
                          -1.0f,
                          0x1.fffffep-1f,
                          -0x1.fffffep-1f,
                          0x1.000002p0f,
                          2.0f,
                          0.5f,
                          88.72283f,   // exp: largest finite result
                          88.72284f,   // exp: overflow
                          -87.33654f,  // exp: near the smallest normal result
                          -87.33655f,
                          -103.27893f,  // exp: near 2^-149
                          -103.97208f,  // exp: last nonzero result
                          -103.97209f,
                          -110.0f,
                          -120.0f,
                          120.0f,
                          -1000.0f,
                          1000.0f,
                          9.010913f,  // tanh rounds to 1 from here on
                          0x1p-5f,    // tanh: the switch between its two paths
                          0x1.fffffep-6f,
                          -0x1p-5f,
                          0x1p-13f,
                          20.0f,
                          20.000002f,
                          16.635532f,  // sigmoid rounds to 1 from about here
                          -16.635532f};
  return v;
}

TEST(FastPathTest, SpecialValuesAgreeOnEveryEntryPoint) {
  const std::vector<float> xs = SpecialInputs();
  for (const Function& f : Functions()) {
    std::vector<float> out(xs.size());
    f.column(xs.data(), out.data(), xs.size());
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const float expected = f.exact(xs[i]);
      EXPECT_TRUE(SameFloat(expected, f.scalar(xs[i]))) << f.name << " scalar at " << Hex(xs[i]);
      EXPECT_TRUE(SameFloat(expected, out[i])) << f.name << " column at " << Hex(xs[i]);
      const internal::FastResult fast = f.fast(xs[i]);
      if (fast.fail == 0) {
        EXPECT_TRUE(SameFloat(expected, fast.value)) << f.name << " fast at " << Hex(xs[i]);
      }
    }
  }
}

TEST(FastPathTest, SpecialResults) {
  EXPECT_EQ(Bits(Exp(kInf)), Bits(kInf));
  EXPECT_EQ(Bits(Exp(-kInf)), Bits(0.0f));
  EXPECT_EQ(Bits(Exp(88.72284f)), Bits(kInf));
  EXPECT_EQ(Bits(Exp(-104.0f)), Bits(0.0f));
  EXPECT_GT(Exp(-103.0f), 0.0f);  // a float subnormal
  EXPECT_LT(Exp(-103.0f), 0x1p-126f);
  EXPECT_EQ(Bits(Log(0.0f)), Bits(-kInf));
  EXPECT_EQ(Bits(Log(-0.0f)), Bits(-kInf));
  EXPECT_TRUE(std::isnan(Log(-1.0f)));
  EXPECT_TRUE(std::isnan(Log(-kInf)));
  EXPECT_EQ(Bits(Log(kInf)), Bits(kInf));
  EXPECT_EQ(Bits(Log(1.0f)), Bits(0.0f));
  EXPECT_EQ(Bits(Log1p(-0.0f)), Bits(-0.0f));
  EXPECT_EQ(Bits(Log1p(0.0f)), Bits(0.0f));
  EXPECT_EQ(Bits(Log1p(-1.0f)), Bits(-kInf));
  EXPECT_TRUE(std::isnan(Log1p(-1.5f)));
  EXPECT_EQ(Bits(Log1p(0x1p-149f)), Bits(0x1p-149f));
  EXPECT_EQ(Bits(Sigmoid(kInf)), Bits(1.0f));
  EXPECT_EQ(Bits(Sigmoid(-kInf)), Bits(0.0f));
  EXPECT_EQ(Bits(Sigmoid(0.0f)), Bits(0.5f));
  EXPECT_EQ(Bits(Tanh(-0.0f)), Bits(-0.0f));
  EXPECT_EQ(Bits(Tanh(-kInf)), Bits(-1.0f));
  EXPECT_EQ(Bits(Tanh(-0x1p-149f)), Bits(-0x1p-149f));
  for (const Function& f : Functions()) {
    EXPECT_TRUE(std::isnan(f.scalar(kNan))) << f.name;
    float out = 0.0f;
    const float nan = kNan;
    f.column(&nan, &out, 1);
    EXPECT_TRUE(std::isnan(out)) << f.name;
  }
}

TEST(FastPathTest, FailingInputsTakeTheFallbackAndRoundCorrectly) {
  for (const Function& f : Functions()) {
    for (std::uint32_t b : f.fallback_inputs) {
      const float x = FromBits(b);
      EXPECT_NE(f.fast(x).fail, 0u) << f.name << " at " << Hex(x);
      const float expected = f.exact(x);
      EXPECT_TRUE(SameFloat(expected, f.scalar(x))) << f.name << " scalar at " << Hex(x);
      // In a column, between values that pass the test, in place too.
      std::vector<float> xs = {0.25f, x, 0.75f};
      std::vector<float> out(3);
      f.column(xs.data(), out.data(), xs.size());
      EXPECT_TRUE(SameFloat(expected, out[1])) << f.name << " column at " << Hex(x);
      EXPECT_TRUE(SameFloat(f.exact(0.25f), out[0])) << f.name;
      EXPECT_TRUE(SameFloat(f.exact(0.75f), out[2])) << f.name;
      f.column(xs.data(), xs.data(), xs.size());
      EXPECT_TRUE(SameFloat(expected, xs[1])) << f.name << " in place at " << Hex(x);
    }
  }
}

TEST(FastPathTest, EmptyColumnWritesNothing) {
  for (const Function& f : Functions()) {
    float out = 42.0f;
    const float x = 1.0f;
    f.column(&x, &out, 0);
    EXPECT_EQ(out, 42.0f) << f.name;
    f.column(nullptr, nullptr, 0);
  }
}

// Sizes around the vector widths (4, 8, 16 floats) and the block of 64, with
// unaligned starts; every element must match the scalar function, and nothing
// past the end may be written.
TEST(FastPathTest, ColumnsOfAnySizeMatchScalarCalls) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<std::uint32_t> bits;
  for (const Function& f : Functions()) {
    for (std::size_t n :
         {1u, 2u, 3u, 5u, 7u, 9u, 15u, 17u, 31u, 33u, 63u, 64u, 65u, 127u, 129u, 1000u, 1003u}) {
      for (std::size_t offset : {0u, 1u, 3u}) {
        std::vector<float> xs(n + offset), out(n + offset + 1, 42.0f);
        for (std::size_t i = 0; i < xs.size(); ++i) {
          // Mostly ordinary values, some arbitrary bit patterns (specials).
          xs[i] = i % 5 == 4 ? FromBits(bits(rng))
                             : std::uniform_real_distribution<float>(-30.0f, 30.0f)(rng);
        }
        f.column(xs.data() + offset, out.data() + offset, n);
        for (std::size_t i = 0; i < n; ++i) {
          ASSERT_TRUE(SameFloat(f.scalar(xs[offset + i]), out[offset + i]))
              << f.name << " n = " << n << " i = " << i << " x = " << Hex(xs[offset + i]);
        }
        EXPECT_EQ(out[offset + n], 42.0f) << f.name << " wrote past the end, n = " << n;
        // In place gives the same bits.
        std::vector<float> in_place(xs.begin() + offset, xs.end());
        f.column(in_place.data(), in_place.data(), n);
        for (std::size_t i = 0; i < n; ++i) {
          ASSERT_TRUE(SameFloat(out[offset + i], in_place[i])) << f.name << " in place";
        }
      }
    }
  }
}

// Scalar, column, fast path (where it passes) and the double-double fallback
// agree on a sample of all bit patterns (every 4099th, all signs and
// exponents); the fast path fails its test for few of them.
TEST(FastPathTest, PathsAgreeOnASampleOfAllInputs) {
  std::vector<float> xs;
  for (std::uint64_t b = 0; b < (std::uint64_t{1} << 32); b += 4099) {
    xs.push_back(FromBits(static_cast<std::uint32_t>(b)));
  }
  std::vector<float> out(xs.size());
  for (const Function& f : Functions()) {
    f.column(xs.data(), out.data(), xs.size());
    std::size_t fails = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const float expected = f.exact(xs[i]);
      ASSERT_TRUE(SameFloat(expected, out[i])) << f.name << " column at " << Hex(xs[i]);
      ASSERT_TRUE(SameFloat(expected, f.scalar(xs[i]))) << f.name << " scalar at " << Hex(xs[i]);
      const internal::FastResult fast = f.fast(xs[i]);
      fails += fast.fail;
      if (fast.fail == 0) {
        ASSERT_TRUE(SameFloat(expected, fast.value)) << f.name << " fast at " << Hex(xs[i]);
      }
    }
    // The bounds give fallback rates near 10^-5; 10^-3 would mean a broken test.
    EXPECT_LT(fails, xs.size() / 1000) << f.name;
  }
}

}  // namespace
}  // namespace calcjit::math
