// The entry points the backends call for EXP, LOG, LOG1P, SIGMOID and TANH
// give the scalar function's bits: the VM's kernel of every tier this CPU has
// (src/backend/kernels/kernels_impl.h, which runs the column forms) at n = 0, 1 and
// sizes that are no multiple of any vector width, in place too; and the JIT's
// vector variants (src/backend/jit/vector_kernels.cc) on 4, 8 and 16 lanes.
// tools/ulpcheck proves every one of these paths on all 2^32 inputs.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "backend/kernels/kernels.h"
#include "calcjit/cpu.h"
#include "ir/op.h"
#include "math/transcendental.h"

typedef float Floats4 __attribute__((vector_size(16)));
typedef float Floats8 __attribute__((vector_size(32)));
typedef float Floats16 __attribute__((vector_size(64)));
#define CALCJIT_DECLARE_VARIANTS(name)                     \
  extern "C" Floats4 _ZGVbN4v_calcjit_vec_##name(Floats4); \
  extern "C" __attribute__((target("arch=x86-64-v3")))     \
  Floats8 _ZGVdN8v_calcjit_vec_##name(Floats8);            \
  extern "C" __attribute__((target("arch=x86-64-v4")))     \
  Floats16 _ZGVeN16v_calcjit_vec_##name(Floats16);
CALCJIT_DECLARE_VARIANTS(Exp)
CALCJIT_DECLARE_VARIANTS(Log)
CALCJIT_DECLARE_VARIANTS(Log1p)
CALCJIT_DECLARE_VARIANTS(Sigmoid)
CALCJIT_DECLARE_VARIANTS(Tanh)

namespace calcjit {
namespace {

std::uint32_t Bits(float f) {
  return std::bit_cast<std::uint32_t>(f);
}

::testing::AssertionResult SameFloat(float expected, float got) {
  if (std::isnan(expected) && std::isnan(got)) return ::testing::AssertionSuccess();
  if (Bits(expected) == Bits(got)) return ::testing::AssertionSuccess();
  char buf[128];
  std::snprintf(buf, sizeof buf, "expected %a (0x%08X), got %a (0x%08X)",
                static_cast<double>(expected), Bits(expected), static_cast<double>(got), Bits(got));
  return ::testing::AssertionFailure() << buf;
}

// Runs the variant on lanes of x[0..kLanes).
template <typename Vector, Vector (*kVariant)(Vector)>
void RunVariant(const float* x, float* out) {
  Vector v;
  std::memcpy(&v, x, sizeof v);
  v = kVariant(v);
  std::memcpy(out, &v, sizeof v);
}
template <Floats4 (*kVariant)(Floats4)>
void Run4(const float* x, float* out) {
  RunVariant<Floats4, kVariant>(x, out);
}
template <Floats8 (*kVariant)(Floats8)>
__attribute__((target("arch=x86-64-v3"))) void Run8(const float* x, float* out) {
  RunVariant<Floats8, kVariant>(x, out);
}
template <Floats16 (*kVariant)(Floats16)>
__attribute__((target("arch=x86-64-v4"))) void Run16(const float* x, float* out) {
  RunVariant<Floats16, kVariant>(x, out);
}

struct Function {
  const char* name;
  ir::Op op;
  float (*scalar)(float);
  void (*jit4)(const float*, float*);
  void (*jit8)(const float*, float*);
  void (*jit16)(const float*, float*);
};

// clang-format off
#define CALCJIT_FUNCTION(name)                                                 \
  Function{#name, ir::Op::k##name, &math::name,                                \
           &Run4<_ZGVbN4v_calcjit_vec_##name>, &Run8<_ZGVdN8v_calcjit_vec_##name>, \
           &Run16<_ZGVeN16v_calcjit_vec_##name>}
// clang-format on

const Function kFunctions[] = {CALCJIT_FUNCTION(Exp), CALCJIT_FUNCTION(Log),
                               CALCJIT_FUNCTION(Log1p), CALCJIT_FUNCTION(Sigmoid),
                               CALCJIT_FUNCTION(Tanh)};

struct Tier {
  const char* name;
  Isa isa;
  const kernels::KernelTable& (*kernels)();
};
const Tier kTiers[] = {{"baseline", Isa::kBaseline, &kernels::baseline::Kernels},
                       {"avx2", Isa::kAvx2, &kernels::avx2::Kernels},
                       {"avx512", Isa::kAvx512, &kernels::avx512::Kernels}};

// Ordinary values, special values, and inputs whose fast path fails the
// rounding test (the fallback), mixed.
std::vector<float> Inputs(std::size_t n, std::uint32_t seed) {
  const float specials[] = {0.0f,
                            -0.0f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(),
                            0x1p-149f,
                            -0x1p-149f,
                            0x1.fffffep127f,
                            -1.0f,
                            1.0f,
                            88.72284f,
                            -103.0f,
                            std::bit_cast<float>(0x337FFF00u),   // exp: fallback
                            std::bit_cast<float>(0x00027552u),   // log: fallback
                            std::bit_cast<float>(0x34000001u),   // log1p: fallback
                            std::bit_cast<float>(0x34BFFFC0u),   // sigmoid: fallback
                            std::bit_cast<float>(0x3A27BA16u)};  // tanh: fallback
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> ordinary(-20.0f, 20.0f);
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = i % 3 == 2 ? specials[rng() % std::size(specials)] : ordinary(rng);
  }
  return x;
}

TEST(BackendPathsTest, VmKernelsOfEveryTierMatchTheScalarFunction) {
  for (const Tier& tier : kTiers) {
    if (!IsIsaSupported(tier.isa)) continue;
    for (const Function& f : kFunctions) {
      const kernels::UnaryKernel kernel = tier.kernels().unary[static_cast<int>(f.op)];
      ASSERT_NE(kernel, nullptr) << tier.name << " " << f.name;
      float untouched = 42.0f;
      kernel(&untouched, &untouched, 0);
      EXPECT_EQ(untouched, 42.0f) << tier.name << " " << f.name << " n = 0";
      for (std::size_t n : {1u, 3u, 7u, 13u, 17u, 63u, 65u, 100u, 1001u}) {
        const std::vector<float> x = Inputs(n, static_cast<std::uint32_t>(n));
        std::vector<float> out(n + 1, 42.0f);
        kernel(x.data(), out.data(), n);
        std::vector<float> in_place = x;
        kernel(in_place.data(), in_place.data(), n);
        for (std::size_t i = 0; i < n; ++i) {
          const float expected = f.scalar(x[i]);
          ASSERT_TRUE(SameFloat(expected, out[i]))
              << tier.name << " " << f.name << " n = " << n << " at " << static_cast<double>(x[i]);
          ASSERT_TRUE(SameFloat(expected, in_place[i]))
              << tier.name << " " << f.name << " in place, n = " << n;
        }
        EXPECT_EQ(out[n], 42.0f) << tier.name << " " << f.name << " wrote past n = " << n;
      }
    }
  }
}

TEST(BackendPathsTest, JitVectorVariantsMatchTheScalarFunction) {
  const std::vector<float> x = Inputs(16 * 64, 5);
  for (const Function& f : kFunctions) {
    struct Variant {
      std::size_t lanes;
      bool supported;
      void (*run)(const float*, float*);
    };
    const Variant variants[] = {{4, true, f.jit4},
                                {8, IsIsaSupported(Isa::kAvx2), f.jit8},
                                {16, IsIsaSupported(Isa::kAvx512), f.jit16}};
    for (const Variant& v : variants) {
      if (!v.supported) continue;
      for (std::size_t i = 0; i + v.lanes <= x.size(); i += v.lanes) {
        float out[16];
        v.run(x.data() + i, out);
        for (std::size_t k = 0; k < v.lanes; ++k) {
          ASSERT_TRUE(SameFloat(f.scalar(x[i + k]), out[k]))
              << f.name << " " << v.lanes << " lanes at " << static_cast<double>(x[i + k]);
        }
      }
    }
  }
}

}  // namespace
}  // namespace calcjit
