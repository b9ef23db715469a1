// The rank benchmarks (rank_bench.h):
//   BM_Kernel/rank/<column>/<n>          the engine's RANK (the kernel every
//                                        backend runs, of the CPU's best tier)
//   BM_Kernel/rank_sort/<sort>/<column>/<n> RANK with one sort: radix (the
//                                        radix sort of math/aggregate.h), vqsort
//                                        (Highway), std_sort (std::sort of
//                                        (float, index) pairs), compiled here for
//                                        baseline x86-64
//   BM_Kernel/rank_top_k/<k>/prices/<n>  the engine's RankAtMost, bound k (1, 10, or
//                                        half: n / 2), what rank(x) <= k becomes
// <column> is prices, counts (small integers: ties) or signed_nan (signed
// values, a tenth NaN). Every benchmark checks its ranks against the radix
// sort's once before timing and aborts on a mismatch.
#include "bench/rank_bench.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "backend/kernels/kernels.h"
#include "bench/bench_cases.h"
#include "calcjit/cpu.h"
#include "math/aggregate.h"

namespace calcjit::bench {
namespace {

// Items per second, and ns per item (shown as e.g. "6.8n").
void CountItems(benchmark::State& state, std::size_t n) {
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
  state.counters["ns_per_item"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate |
                                                     benchmark::Counter::kInvert);
}

// RANK with std::sort of (float, index) pairs: NaN items set aside, the rest
// sorted by value, descending, ranks handed out down the groups of ties.
struct ValueIndex {
  float value;
  std::uint32_t index;
};
void StdSortRank(std::span<const float> x, std::span<float> out, std::vector<ValueIndex>& pairs) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i] != x[i]) {
      out[i] = x[i];
    } else {
      pairs[count++] = {x[i], static_cast<std::uint32_t>(i)};
    }
  }
  std::sort(pairs.begin(), pairs.begin() + static_cast<std::ptrdiff_t>(count),
            [](const ValueIndex& a, const ValueIndex& b) { return a.value > b.value; });
  std::size_t rank = 1;
  for (std::size_t k = 0; k < count; ++k) {
    if (k > 0 && pairs[k].value != pairs[k - 1].value) rank = k + 1;  // -0 == +0: a tie
    out[pairs[k].index] = static_cast<float>(rank);
  }
}

using RankFunction = std::function<void(std::span<const float>, std::span<float>)>;

void RunRank(benchmark::State& state, const std::string& shape, const RankFunction& rank) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::vector<float> column = RankColumn(shape, n);
  std::vector<float> out(n), expected(n);
  std::vector<std::uint64_t> scratch(2 * n);
  math::RadixRank(column, expected, scratch);
  rank(column, out);
  if (std::memcmp(out.data(), expected.data(), n * sizeof(float)) != 0) {
    std::fprintf(stderr, "rank benchmark on %s/%zu: wrong ranks\n", shape.c_str(), n);
    std::abort();
  }
  for (auto _ : state) {
    rank(column, out);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  CountItems(state, n);
}

// The engine's RANK: the kernel table entry the program executor calls.
RankFunction EngineRank(std::size_t n) {
  const kernels::AggregateKernel kernel =
      kernels::KernelsFor(BestIsa()).aggregate[static_cast<int>(ir::Op::kRank)];
  auto scratch = std::make_shared<std::vector<std::uint64_t>>(
      static_cast<std::size_t>(ir::ScratchKeysPerItem(ir::Op::kRank)) * n);
  return [kernel, scratch](std::span<const float> x, std::span<float> out) {
    kernel(x.data(), x.size(), out.data(), out.size(), scratch->data(), 0.0f);
  };
}

RankFunction SortRank(const std::string& sort, std::size_t n) {
  auto scratch = std::make_shared<std::vector<std::uint64_t>>(2 * n);
  if (sort == "radix") {
    return [scratch](std::span<const float> x, std::span<float> out) {
      math::RadixRank(x, out, *scratch);
    };
  }
  if (sort == "vqsort") {
    return [scratch](std::span<const float> x, std::span<float> out) {
      math::VqSortRank(x, out, *scratch);
    };
  }
  auto pairs = std::make_shared<std::vector<ValueIndex>>(n);
  return [pairs](std::span<const float> x, std::span<float> out) { StdSortRank(x, out, *pairs); };
}

// The engine's RankAtMost (what `rank(x) <= k` runs as), checked once against
// the comparison of the engine's ranks.
void RunTopK(benchmark::State& state, const std::string& k_name) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::vector<float> column = RankColumn("prices", n);
  const float bound = k_name == "half" ? static_cast<float>(n / 2) : std::stof(k_name);
  const kernels::KernelTable& table = kernels::KernelsFor(BestIsa());
  const auto top_k = table.aggregate[static_cast<int>(ir::Op::kRankAtMost)];
  std::vector<std::uint64_t> scratch(2 * n);
  std::vector<float> out(n), ranks(n);
  table.aggregate[static_cast<int>(ir::Op::kRank)](column.data(), n, ranks.data(), n,
                                                   scratch.data(), 0.0f);
  top_k(column.data(), n, out.data(), n, scratch.data(), bound);
  for (std::size_t i = 0; i < n; ++i) {
    if (out[i] != (ranks[i] <= bound ? 1.0f : 0.0f)) {
      std::fprintf(stderr, "top-k benchmark, k %s, n %zu: wrong at item %zu\n", k_name.c_str(), n,
                   i);
      std::abort();
    }
  }
  for (auto _ : state) {
    top_k(column.data(), n, out.data(), n, scratch.data(), bound);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  CountItems(state, n);
}

constexpr std::int64_t kSizes[] = {100, 2000, 10000};
// Around the switch points of math::Rank too.
constexpr std::int64_t kSortSizes[] = {64, 100, 256, 512, 1000, 2000, 4000, 10000};

}  // namespace

void RegisterRankBenchmarks() {
  for (const std::string shape : {"prices", "counts", "signed_nan"}) {
    const std::string name = "BM_Kernel/rank/" + shape;
    auto* b = benchmark::RegisterBenchmark(name.c_str(), [shape](benchmark::State& state) {
      RunRank(state, shape, EngineRank(static_cast<std::size_t>(state.range(0))));
    });
    for (std::int64_t n : kSizes) b->Arg(n);
    b->Unit(benchmark::kMicrosecond);
  }
  for (const std::string shape : {"prices", "counts", "signed_nan"}) {
    for (const std::string sort : {"radix", "vqsort", "std_sort"}) {
      const std::string name = "BM_Kernel/rank_sort/" + sort + "/" + shape;
      auto* b = benchmark::RegisterBenchmark(name.c_str(), [sort, shape](benchmark::State& state) {
        RunRank(state, shape, SortRank(sort, static_cast<std::size_t>(state.range(0))));
      });
      for (std::int64_t n : shape == "prices" ? std::span<const std::int64_t>(kSortSizes)
                                              : std::span<const std::int64_t>(kSizes))
        b->Arg(n);
      b->Unit(benchmark::kMicrosecond);
    }
  }
  for (const std::string k : {"1", "10", "half"}) {
    const std::string name = "BM_Kernel/rank_top_k/" + k + "/prices";
    auto* b = benchmark::RegisterBenchmark(name.c_str(),
                                           [k](benchmark::State& state) { RunTopK(state, k); });
    for (std::int64_t n : kSizes) b->Arg(n);
    b->Unit(benchmark::kMicrosecond);
  }
}

}  // namespace calcjit::bench
