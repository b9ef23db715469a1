// The reproduction of docs/PERFORMANCE.md, run U (issue 27): JIT code 25-70x
// slower for the life of an engine. A masked load whose lanes are all off,
// or whose masked-off lanes reach another page, takes a microcode assist when
// that page is not in the page table, on every execution, and never faults
// the page back in. Three cases, each timed before and after:
//
//   1. the JIT's own code: the sum of 10 inputs at 10,000 items (the seed
//      `sum10` set), whose loop blends the canonical NaN in with a masked
//      broadcast from its constant pool once per 16 items. Its data page is
//      taken out of the page table (MADV_DONTNEED, as reclaim or migration
//      would; its contents are lost, which changes no result here: no item
//      is NaN). Timed by calling the piece's function as the engine did
//      before the fix, and through the region code (which touches the data
//      pages before each call);
//   2. a 3-float column tail loaded and stored masked, where the column ends
//      16 bytes before a page that was never touched, as the JIT's and VM's
//      tails did before the fix, and through today's tail functions.
//
// Usage: calcjit_masked_assist (prints ns per call; no arguments).
#include <immintrin.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "backend/jit/compiler.h"
#include "backend/jit/jit.h"
#include "backend/jit/tail_blocks.h"
#include "calcjit/calcjit.hpp"
#include "runtime/internal.h"

namespace {

using Clock = std::chrono::steady_clock;

template <typename F>
double BestNs(F&& call, int calls) {
  double best = 1e300;
  for (int round = 0; round < 5; ++round) {
    const Clock::time_point start = Clock::now();
    for (int k = 0; k < calls; ++k) call();
    best = std::min(best,
                    std::chrono::duration<double, std::nano>(Clock::now() - start).count() / calls);
  }
  return best;
}

__attribute__((target("avx512f"))) void MaskedTail(const float* src, float* block, float* dst) {
  const __mmask16 three = 0x7;
  _mm512_storeu_ps(block, _mm512_maskz_loadu_ps(three, src));
  _mm512_mask_storeu_ps(dst, three, _mm512_loadu_ps(block));
}

int Jit() {
  using namespace calcjit;
  std::string text =
      "input a; input b; input c; input d; input e; input f; input g; input h; "
      "input i; input j;\nsum10 = a + b + c + d + e + f + g + h + i + j;\n";
  Result<FeatureSet> set = FeatureSet::Parse(text, Format::kText);
  if (!set.ok()) return std::fprintf(stderr, "%s\n", set.status().ToString().c_str()), 1;
  Result<Engine> vm = Engine::Compile(*set, EngineOptions{Backend::kVm});
  if (!vm.ok()) return std::fprintf(stderr, "%s\n", vm.status().ToString().c_str()), 1;
  const program::Program& program = *vm->compiled().prepared()->program;
  const Isa isa = BestIsa();
  Result<jit::CompiledPiece> piece = jit::CompilePiece(*program.Regions()[0], isa);
  Result<program::CompiledRegions> regions = jit::CompileRegions(program, jit::JitOptions{isa});
  if (!piece.ok() || !regions.ok()) return std::fprintf(stderr, "compile failed\n"), 1;
  constexpr std::size_t kItems = 10'000;
  std::vector<std::vector<float>> columns(10, std::vector<float>(kItems, 1.25f));
  std::vector<float> out(kItems);
  std::vector<const float*> reads;
  for (const auto& column : columns) reads.push_back(column.data());
  float* writes[] = {out.data()};
  program::RegionArgs args{reads.data(), nullptr, writes, kItems};
  const program::RegionCode& code = *regions->code[0];
  std::vector<float> scratch(code.ScratchFloats() + 16);
  auto raw = [&] { piece->function(reads.data(), nullptr, writes, kItems, nullptr); };
  auto run = [&] { code.Run(args, scratch.data()); };
  std::printf("JIT sum10, %zu items, %s (ns per call):\n", kItems, IsaName(isa).data());
  std::printf("  data page present:                     function %9.0f   region code %9.0f\n",
              BestNs(raw, 200), BestNs(run, 200));
  auto drop = [&] {
    for (const volatile char* page : piece->data_pages) {
      madvise(const_cast<char*>(page), 4096, MADV_DONTNEED);
    }
  };
  drop();
  const double dropped_raw = BestNs(raw, 200);
  drop();
  const double dropped_run = BestNs(run, 200);
  std::printf("  data page out of the page table:       function %9.0f   region code %9.0f\n",
              dropped_raw, dropped_run);
  jit::ClearCodeCache();
  return 0;
}

int Tail() {
  const calcjit::jit::TailBlocks tail = calcjit::jit::TailBlocksFor(calcjit::Isa::kAvx512);
  auto* base = static_cast<char*>(
      mmap(nullptr, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  base[0] = 1;                                             // page 0 written, page 1 never touched
  float* end = reinterpret_cast<float*>(base + 4096) - 3;  // 3 floats, then page 1
  float* middle = reinterpret_cast<float*>(base + 2048);
  std::fill_n(end, 3, 1.0f);
  std::fill_n(middle, 3, 1.0f);
  alignas(64) float block[16];
  std::printf("3-float tail, masked load and store (ns per call):\n");
  std::printf("  in the middle of a page:               masked %7.1f   tail functions %7.1f\n",
              BestNs([&] { MaskedTail(middle, block, middle); }, 20000),
              BestNs([&] { tail.load(middle, 3, block), tail.store(block, 3, middle); }, 20000));
  std::printf("  before a page never touched:           masked %7.1f   tail functions %7.1f\n",
              BestNs([&] { MaskedTail(end, block, end); }, 20000),
              BestNs([&] { tail.load(end, 3, block), tail.store(block, 3, end); }, 20000));
  munmap(base, 3 * 4096);
  return 0;
}

}  // namespace

int main() {
  if (!calcjit::IsIsaSupported(calcjit::Isa::kAvx512)) {
    std::printf("this CPU has no AVX-512: nothing to reproduce\n");
    return 0;
  }
  if (int failed = Jit()) return failed;
  return Tail();
}
