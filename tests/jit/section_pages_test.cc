// The JIT's rules about the pages of loaded code (backend/jit/section_pages.h):
// code never shares a page with writable data; a piece's data pages are
// known and an ordinary load puts a page the kernel dropped back in the page
// table (a masked-off load would not: docs/PERFORMANCE.md, run U).
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <vector>

#include "backend/jit/compiler.h"
#include "backend/jit/jit.h"
#include "backend/jit/section_pages.h"
#include "calcjit/calcjit.hpp"
#include "runtime/internal.h"
#include "tests/support/api_test_util.h"

namespace calcjit::jit {
namespace {

constexpr std::uintptr_t kPage = 4096;

TEST(SectionPagesTest, CodeAndWritableDataOnOnePageIsRefused) {
  const std::vector<SectionRange> shared = {{10 * kPage, 100, SectionKind::kCode},
                                            {10 * kPage + 512, 64, SectionKind::kWritableData}};
  const Status status = CheckCodeApartFromWritableData(shared);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("0xa000 holds both code and writable data"), std::string::npos)
      << status.message();
  // A writable section that only ends on the code's page counts too.
  const std::vector<SectionRange> straddling = {
      {10 * kPage, 100, SectionKind::kCode}, {9 * kPage + 4000, 200, SectionKind::kWritableData}};
  EXPECT_FALSE(CheckCodeApartFromWritableData(straddling).ok());
}

TEST(SectionPagesTest, SeparatePagesAndReadOnlyDataPass) {
  const std::vector<SectionRange> apart = {{10 * kPage, 4096, SectionKind::kCode},
                                           {11 * kPage, 64, SectionKind::kWritableData},
                                           {10 * kPage + 64, 64, SectionKind::kReadOnlyData}};
  EXPECT_TRUE(CheckCodeApartFromWritableData(apart).ok());
}

TEST(SectionPagesTest, DataPagesAreEveryDataPageOnce) {
  const std::vector<SectionRange> sections = {{10 * kPage, 4096, SectionKind::kCode},
                                              {20 * kPage + 4000, 200, SectionKind::kReadOnlyData},
                                              {21 * kPage + 8, 8, SectionKind::kReadOnlyData},
                                              {30 * kPage, 0, SectionKind::kWritableData}};
  const std::vector<const volatile char*> pages = DataPages(sections);
  ASSERT_EQ(pages.size(), 2u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(pages[0]), 20 * kPage);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(pages[1]), 21 * kPage);
}

bool Resident(const void* page) {
  unsigned char state = 0;
  EXPECT_EQ(mincore(const_cast<void*>(page), kPage, &state), 0);
  return (state & 1) != 0;
}

TEST(SectionPagesTest, TouchingPutsADroppedPageBack) {
  void* memory = mmap(nullptr, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(memory, MAP_FAILED);
  static_cast<volatile char*>(memory)[0] = 1;
  ASSERT_TRUE(Resident(memory));
  ASSERT_EQ(madvise(memory, kPage, MADV_DONTNEED), 0);  // as reclaim or migration would
  ASSERT_FALSE(Resident(memory));
  const std::vector<const volatile char*> pages = {static_cast<const volatile char*>(memory)};
  TouchPages(pages);
  EXPECT_TRUE(Resident(memory));
  munmap(memory, kPage);
}

// A real piece with constants: its data pages are recorded, resident, and
// none of them is a page of its code.
TEST(SectionPagesTest, ALoadedPieceKnowsItsDataPages) {
  const Result<Engine> engine = Engine::Compile(
      testing_util::ParseText("input x;\ny_section_pages = exp(x * 1.7) / (x + 2.3) - 0.61;\n"),
      EngineOptions{Backend::kVm});
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  const auto& program = *engine->compiled().prepared()->program;
  const std::vector<const program::Region*> regions = program.Regions();
  ASSERT_FALSE(regions.empty());
  const Result<CompiledPiece> piece = CompilePiece(*regions[0], BestIsa(), false);
  ASSERT_TRUE(piece.ok()) << piece.status().ToString();
  ASSERT_FALSE(piece->data_pages.empty());
  const auto code_page = reinterpret_cast<std::uintptr_t>(piece->function) / kPage;
  for (const volatile char* page : piece->data_pages) {
    EXPECT_TRUE(Resident(const_cast<const char*>(page)));
    EXPECT_NE(reinterpret_cast<std::uintptr_t>(page) / kPage, code_page);
  }
}

// The regression check of run U: JIT code blends the canonical NaN in with a
// masked load from its constant pool, every lane off when no item is NaN, so
// nothing but the touch before each call brings that page back once the
// kernel has taken it out of the page table. Take it out (its contents are
// lost: the set is this test's own, so no other engine runs that code), run
// the region over ordinary numbers, and the page must be back.
TEST(SectionPagesTest, EachCallPutsThePiecesDataPagesBack) {
  const Result<Engine> engine =
      Engine::Compile(testing_util::ParseText("input a; input b;\ns_dropped_page = a + b;\n"),
                      EngineOptions{Backend::kVm});
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  const auto& program = *engine->compiled().prepared()->program;
  ASSERT_EQ(program.Regions().size(), 1u);
  const Result<CompiledPiece> piece = CompilePiece(*program.Regions()[0], BestIsa());
  ASSERT_TRUE(piece.ok()) << piece.status().ToString();
  // The same piece, from the code cache, behind the JIT's region code.
  Result<program::CompiledRegions> regions = CompileRegions(program, JitOptions{BestIsa()});
  ASSERT_TRUE(regions.ok()) << regions.status().ToString();
  ASSERT_FALSE(piece->data_pages.empty());
  for (const volatile char* page : piece->data_pages) {
    void* address = const_cast<char*>(page);
    ASSERT_EQ(madvise(address, kPage, MADV_DONTNEED), 0);
    ASSERT_FALSE(Resident(address));
  }
  std::vector<float> a(64, 1.5f), b(64, 2.0f), s(64);
  const float* reads[] = {a.data(), b.data()};
  float* writes[] = {s.data()};
  program::RegionArgs args;
  args.reads = reads;
  args.writes = writes;
  args.item_count = a.size();
  const program::RegionCode& code = *regions->code[0];
  std::vector<float> scratch(code.ScratchFloats() + 16);
  code.Run(args, scratch.data());
  EXPECT_EQ(s[63], 3.5f);
  for (const volatile char* page : piece->data_pages) {
    EXPECT_TRUE(Resident(const_cast<char*>(page)));
  }
  ClearCodeCache();  // its constants are gone
}

}  // namespace
}  // namespace calcjit::jit
