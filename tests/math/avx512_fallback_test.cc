// The AVX-512 fast path (math/transcendental_avx512.h) redoes the lanes that
// fail its rounding test with the double-double kernel: columns made of such
// inputs, at every position of a vector and in the masked tail (n not a
// multiple of 16), in place too, give the scalar function's bits on the VM's
// avx512 tier and the JIT's 16-lane variants: a redo that took the wrong
// lane, a tail mask that lost or added lanes, or a store past n would show.
// (The fast path's own value is usually right for those inputs too, so this
// does not show a skipped redo; the exhaustive check covers the results, on
// whole vectors.) Skipped without AVX-512.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "backend/kernels/kernels.h"
#include "calcjit/cpu.h"
#include "ir/op.h"
#include "math/transcendental.h"
#include "math/transcendental_avx512.h"

typedef float Floats16 __attribute__((vector_size(64)));
#define CALCJIT_DECLARE_VARIANT(name) \
  extern "C" CALCJIT_AVX512 Floats16 _ZGVeN16v_calcjit_vec_##name(Floats16);
CALCJIT_DECLARE_VARIANT(Exp)
CALCJIT_DECLARE_VARIANT(Log)
CALCJIT_DECLARE_VARIANT(Log1p)
CALCJIT_DECLARE_VARIANT(Sigmoid)
CALCJIT_DECLARE_VARIANT(Tanh)

namespace calcjit {
namespace {

namespace av = math::internal::avx512;

struct Function {
  const char* name;
  ir::Op op;
  float (*scalar)(float);
  av::Fast16 (*fast)(__m512);
  Floats16 (*variant)(Floats16);
};

const Function kFunctions[] = {
    {"exp", ir::Op::kExp, &math::Exp, &av::ExpFast16, &_ZGVeN16v_calcjit_vec_Exp},
    {"log", ir::Op::kLog, &math::Log, &av::LogFast16, &_ZGVeN16v_calcjit_vec_Log},
    {"log1p", ir::Op::kLog1p, &math::Log1p, &av::Log1pFast16, &_ZGVeN16v_calcjit_vec_Log1p},
    {"sigmoid", ir::Op::kSigmoid, &math::Sigmoid, &av::SigmoidFast16,
     &_ZGVeN16v_calcjit_vec_Sigmoid},
    {"tanh", ir::Op::kTanh, &math::Tanh, &av::TanhFast16, &_ZGVeN16v_calcjit_vec_Tanh},
};

bool Same(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) ||
         std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

// The first `count` inputs (scanning bit patterns with a stride) whose
// AVX-512 fast path fails the rounding test.
CALCJIT_AVX512 std::vector<float> FailingInputs(const Function& f, std::size_t count) {
  std::vector<float> found;
  for (std::uint64_t b = 0; b < (std::uint64_t{1} << 32) && found.size() < count; b += 16 * 31) {
    alignas(64) float x[16];
    for (int k = 0; k < 16; ++k) x[k] = std::bit_cast<float>(static_cast<std::uint32_t>(b + k));
    const unsigned fail = f.fast(_mm512_load_ps(x)).fail;
    for (int k = 0; k < 16; ++k) {
      if (((fail >> k) & 1) != 0 && found.size() < count) found.push_back(x[k]);
    }
  }
  return found;
}

CALCJIT_AVX512 void RunVariant(const Function& f, const float* x, float* out) {
  Floats16 v;
  std::memcpy(&v, x, sizeof v);
  v = f.variant(v);
  std::memcpy(out, &v, sizeof v);
}

TEST(Avx512FallbackTest, FailedLanesAreRedoneInWholeVectorsAndInTheTail) {
  if (!IsIsaSupported(Isa::kAvx512)) GTEST_SKIP() << "no AVX-512";
  for (const Function& f : kFunctions) {
    const std::vector<float> failing = FailingInputs(f, 24);
    ASSERT_EQ(failing.size(), 24u) << f.name;
    // Failing inputs mixed with ordinary ones, so that every lane position
    // and the tail see both.
    std::vector<float> x;
    for (std::size_t i = 0; i < 3 * failing.size(); ++i) {
      x.push_back(i % 3 == 1 ? 0.75f + 0.01f * static_cast<float>(i) : failing[i / 3]);
    }
    const auto column = kernels::avx512::Kernels().unary[static_cast<int>(f.op)];
    for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{16}, std::size_t{29},
                          std::size_t{48}, x.size()}) {
      std::vector<float> out(n + 1, 42.0f);
      column(x.data(), out.data(), n);
      std::vector<float> in_place(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(n));
      column(in_place.data(), in_place.data(), n);
      for (std::size_t i = 0; i < n; ++i) {
        const float expected = f.scalar(x[i]);
        EXPECT_TRUE(Same(expected, out[i])) << f.name << " n = " << n << " i = " << i;
        EXPECT_TRUE(Same(expected, in_place[i])) << f.name << " in place, n = " << n;
      }
      EXPECT_EQ(out[n], 42.0f) << f.name << " wrote past n = " << n;
    }
    for (std::size_t i = 0; i + 16 <= x.size(); i += 16) {
      float out[16];
      RunVariant(f, x.data() + i, out);
      for (std::size_t k = 0; k < 16; ++k) {
        EXPECT_TRUE(Same(f.scalar(x[i + k]), out[k])) << f.name << " jit-16 at " << i + k;
      }
    }
  }
}

// n floats that end where an inaccessible page begins.
class GuardedEnd {
 public:
  GuardedEnd() {
    base_ = static_cast<char*>(
        mmap(nullptr, 2 * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    EXPECT_NE(base_, MAP_FAILED);
    EXPECT_EQ(mprotect(base_ + kPage, kPage, PROT_NONE), 0);
  }
  ~GuardedEnd() { munmap(base_, 2 * kPage); }
  float* End(std::size_t n) { return reinterpret_cast<float*>(base_ + kPage) - n; }

 private:
  static constexpr std::size_t kPage = 4096;
  char* base_ = nullptr;
};

// A tail within 64 bytes of a page end goes through a padded block, not
// masked (math/masked_lanes.h): the same bits, failing lanes redone, nothing
// read or written past n (the guard page would crash), in place too.
TEST(Avx512FallbackTest, TailsThatEndAtAPageEndGiveTheSameBits) {
  if (!IsIsaSupported(Isa::kAvx512)) GTEST_SKIP() << "no AVX-512";
  GuardedEnd in_page, out_page;
  for (const Function& f : kFunctions) {
    const std::vector<float> failing = FailingInputs(f, 8);
    const auto column = kernels::avx512::Kernels().unary[static_cast<int>(f.op)];
    for (std::size_t n = 1; n <= 40; ++n) {
      float* x = in_page.End(n);
      for (std::size_t i = 0; i < n; ++i) {
        x[i] = i % 2 == 0 ? failing[i / 2 % failing.size()] : 0.5f + 0.03f * static_cast<float>(i);
      }
      float* out = out_page.End(n);
      column(x, out, n);
      for (std::size_t i = 0; i < n; ++i) {
        EXPECT_TRUE(Same(f.scalar(x[i]), out[i])) << f.name << " n = " << n << " i = " << i;
      }
      std::vector<float> expected(n);
      for (std::size_t i = 0; i < n; ++i) expected[i] = f.scalar(x[i]);
      column(x, x, n);
      for (std::size_t i = 0; i < n; ++i) {
        EXPECT_TRUE(Same(expected[i], x[i])) << f.name << " in place, n = " << n;
      }
    }
  }
}

}  // namespace
}  // namespace calcjit
