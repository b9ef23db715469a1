// calcjit_rank_alternating: the sorts RANK can use, timed call by call in
// alternation on the same column, the minimum per item of many calls each.
// On a machine that other jobs load, a minimum over alternating calls
// compares candidates far more steadily than separate benchmark runs
// (docs/PERFORMANCE.md, "Rank: sort choice and top-k (issue 15)").
//
//   calcjit_rank_alternating [prices|counts|signed_nan]
//
// radix, vqsort: math::RadixRank, math::VqSortRank compiled here (baseline
// x86-64); engine: the kernel table's RANK of the CPU's best tier, which
// every backend runs; top-1, top-10: its RankAtMost with bound 1 and 10.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "backend/kernels/kernels.h"
#include "bench/bench_cases.h"
#include "calcjit/cpu.h"
#include "math/aggregate.h"

namespace {

using calcjit::BestIsa;
using calcjit::ir::Op;
namespace kernels = calcjit::kernels;
namespace math = calcjit::math;

}  // namespace

int main(int argc, char** argv) {
  const std::string shape = argc > 1 ? argv[1] : "prices";
  const kernels::KernelTable& table = kernels::KernelsFor(BestIsa());
  std::printf("%s, ns per item (minimum over alternating calls), engine tier %s\n", shape.c_str(),
              std::string(calcjit::IsaName(BestIsa())).c_str());
  std::printf("%7s %8s %8s %8s %8s %8s\n", "n", "radix", "vqsort", "engine", "top-1", "top-10");
  for (const std::size_t n : {100u, 256u, 512u, 750u, 1000u, 2000u, 4000u, 6000u, 8000u, 10000u}) {
    const std::vector<float> x = calcjit::bench::RankColumn(shape, n);
    std::vector<float> out(n), expected(n);
    std::vector<std::uint64_t> scratch(2 * n);
    auto engine = [&](Op op, float bound) {
      table.aggregate[static_cast<int>(op)](x.data(), n, out.data(), n, scratch.data(), bound);
    };
    const std::vector<std::function<void()>> candidates = {
        [&] { math::RadixRank(x, out, scratch); }, [&] { math::VqSortRank(x, out, scratch); },
        [&] { engine(Op::kRank, 0.0f); },          [&] { engine(Op::kRankAtMost, 1.0f); },
        [&] { engine(Op::kRankAtMost, 10.0f); },
    };
    math::RadixRank(x, expected, scratch);
    for (std::size_t c = 0; c < 3; ++c) {
      candidates[c]();
      if (std::memcmp(out.data(), expected.data(), n * sizeof(float)) != 0) {
        std::fprintf(stderr, "candidate %zu: wrong ranks at n = %zu\n", c, n);
        return 1;
      }
    }
    std::vector<double> best(candidates.size(), 1e300);
    const int rounds = n <= 1000 ? 4000 : 800;
    for (int round = 0; round < rounds; ++round) {
      for (std::size_t c = 0; c < candidates.size(); ++c) {
        const auto start = std::chrono::steady_clock::now();
        candidates[c]();
        const auto stop = std::chrono::steady_clock::now();
        best[c] = std::min(best[c], std::chrono::duration<double, std::nano>(stop - start).count() /
                                        static_cast<double>(n));
      }
    }
    std::printf("%7zu %8.2f %8.2f %8.2f %8.2f %8.2f\n", n, best[0], best[1], best[2], best[3],
                best[4]);
  }
  return 0;
}
