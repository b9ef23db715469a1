// The tail of a batch in and out of a padded block (backend/jit/tail_blocks.h),
// on every tier this CPU runs: every count from 0 to 16, from a buffer that
// ends where an unreadable page begins, so that a read or write past the
// caller's floats would crash the test instead of passing unseen.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "backend/jit/tail_blocks.h"
#include "calcjit/cpu.h"

namespace calcjit::jit {
namespace {

// Two pages, the second inaccessible: End(n) is n floats before it.
class GuardedPage {
 public:
  GuardedPage() : page_(static_cast<std::size_t>(sysconf(_SC_PAGESIZE))) {
    void* memory =
        mmap(nullptr, 2 * page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(memory, MAP_FAILED);
    base_ = static_cast<char*>(memory);
    EXPECT_EQ(mprotect(base_ + page_, page_, PROT_NONE), 0);
  }
  ~GuardedPage() { munmap(base_, 2 * page_); }
  float* End(std::size_t n) { return reinterpret_cast<float*>(base_ + page_) - n; }

 private:
  std::size_t page_;
  char* base_ = nullptr;
};

class TailBlocksTest : public ::testing::TestWithParam<Isa> {};

TEST_P(TailBlocksTest, MovesExactlyTheTailAndZeroesThePadding) {
  if (!IsIsaSupported(GetParam())) GTEST_SKIP() << "this CPU lacks " << IsaName(GetParam());
  const TailBlocks tail = TailBlocksFor(GetParam());
  GuardedPage page;
  for (std::size_t n = 0; n <= kChunk; ++n) {
    SCOPED_TRACE("n = " + std::to_string(n));
    float* src = page.End(n);
    for (std::size_t i = 0; i < n; ++i) src[i] = static_cast<float>(i) + 0.5f;
    if (n > 0) src[0] = -0.0f;  // a sign bit, moved as it is
    alignas(64) float block[kChunk];
    std::fill(std::begin(block), std::end(block), 7.0f);
    tail.load(src, n, block);
    for (std::size_t i = 0; i < kChunk; ++i) {
      const float expected = i < n ? src[i] : 0.0f;
      EXPECT_EQ(std::memcmp(&block[i], &expected, sizeof(float)), 0) << "lane " << i;
    }
    // Back: exactly n floats written, ending at the guard page.
    for (std::size_t i = 0; i < kChunk; ++i) block[i] = 100.0f + static_cast<float>(i);
    float* dst = page.End(n);
    float* before = dst - 1;
    *before = -5.0f;
    tail.store(block, n, dst);
    for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(dst[i], 100.0f + static_cast<float>(i));
    EXPECT_EQ(*before, -5.0f);
  }
}

INSTANTIATE_TEST_SUITE_P(Tiers, TailBlocksTest,
                         ::testing::Values(Isa::kBaseline, Isa::kAvx2, Isa::kAvx512),
                         [](const ::testing::TestParamInfo<Isa>& param) {
                           return std::string(IsaName(param.param)) == "x86-64"
                                      ? std::string("baseline")
                                      : std::string(IsaName(param.param));
                         });

}  // namespace
}  // namespace calcjit::jit
