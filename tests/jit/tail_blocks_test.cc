// The tail of a batch in and out of a padded block (backend/jit/tail_blocks.h),
// on every tier this CPU runs: every count from 0 to 16, from a buffer that
// ends where an unreadable page begins, so that a read or write past the
// caller's floats would crash the test instead of passing unseen.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
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
  // n floats in the middle of the first page.
  float* Middle(std::size_t n) { return reinterpret_cast<float*>(base_ + page_ / 2) - n; }

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

// Nanoseconds per load and store of a 3-float tail at `at`: the least of
// several rounds (the machine is shared).
double NanosecondsPerTail(const TailBlocks& tail, float* at) {
  constexpr int kCalls = 4000;
  alignas(64) float block[kChunk] = {};
  double best = 1e30;
  for (int round = 0; round < 5; ++round) {
    const auto start = std::chrono::steady_clock::now();
    for (int k = 0; k < kCalls; ++k) {
      tail.load(at, 3, block);
      tail.store(block, 3, at);
    }
    const std::chrono::duration<double, std::nano> took = std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count() / kCalls);
  }
  return best;
}

// A masked-off lane on a page that is not in the page table costs a microcode
// assist on every call (100-1,000 ns; docs/PERFORMANCE.md, run U): the tails
// of a column that ends where an unreadable page begins must cost what they
// cost in the middle of a page. Before the fix the guarded tail was 100x and
// more slower; the bound leaves room for a noisy machine.
TEST_P(TailBlocksTest, NoAssistWhenTheColumnEndsAtAMissingPage) {
  if (!IsIsaSupported(GetParam())) GTEST_SKIP() << "this CPU lacks " << IsaName(GetParam());
  const TailBlocks tail = TailBlocksFor(GetParam());
  GuardedPage page;
  float* guarded = page.End(3);
  float* middle = page.Middle(3);
  std::fill_n(guarded, 3, 1.0f);
  std::fill_n(middle, 3, 1.0f);
  const double at_end = NanosecondsPerTail(tail, guarded);
  const double in_middle = NanosecondsPerTail(tail, middle);
  EXPECT_LT(at_end, 10 * in_middle + 20)
      << at_end << " ns at the page end, " << in_middle << " ns in the middle of a page";
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
