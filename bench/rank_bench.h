// BM_Kernel/rank/...: RANK alone, the sorts it can use, and the top-k
// kernel the optimizer rewrites rank comparisons to (docs/PERFORMANCE.md,
// "Rank: sort choice and top-k (issue 15)").
#ifndef CALCJIT_BENCH_RANK_BENCH_H_
#define CALCJIT_BENCH_RANK_BENCH_H_

namespace calcjit::bench {

void RegisterRankBenchmarks();

}  // namespace calcjit::bench

#endif  // CALCJIT_BENCH_RANK_BENCH_H_
