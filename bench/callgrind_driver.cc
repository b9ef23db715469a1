// calcjit_bench_callgrind CASE MODE N ITERATIONS: runs one benchmark
// workload ITERATIONS times inside MeasuredLoop, so that callgrind counts
// the instructions of exactly the timed body:
//
//   valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*MeasuredLoop*'
//            build/bench/calcjit_bench_callgrind Qux evaluated 2000 100
//
// CASE is Qux, Sum10, Ranking, RankingUnshared, Statistics, StatisticsUnshared
// or Large; MODE is manual, evaluated, vm or jit (the sets: not manual).
// bench/callgrind.sh runs every case and mode and prints a table.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/bench_cases.h"

namespace {

// Out of line, so that --toggle-collect sees its entry and exit.
[[gnu::noinline]] int MeasuredLoop(calcjit::bench::Workload& workload, long iterations) {
  int failures = 0;
  for (long r = 0; r < iterations; ++r) failures += workload.Run().ok() ? 0 : 1;
  return failures;
}

int Fail(const std::string& message) {
  std::fprintf(stderr, "calcjit_bench_callgrind: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace calcjit::bench;
  if (argc != 5) return Fail("usage: calcjit_bench_callgrind CASE MODE N ITERATIONS");
  const std::string case_name = argv[1];
  const std::optional<Mode> mode = FindMode(argv[2]);
  if (!mode) return Fail(std::string("mode '") + argv[2] + "' is not available in this build");
  const std::size_t n = std::strtoul(argv[3], nullptr, 10);
  const long iterations = std::strtol(argv[4], nullptr, 10);

  calcjit::Result<std::unique_ptr<Workload>> workload =
      case_name == "Ranking"              ? MakeRankingWorkload(*mode, n)
      : case_name == "RankingUnshared"    ? MakeRankingWorkloadUnshared(*mode, n)
      : case_name == "Statistics"         ? MakeStatisticsWorkload(*mode, n, true)
      : case_name == "StatisticsUnshared" ? MakeStatisticsWorkload(*mode, n, false)
      : case_name == "Large"              ? MakeLargeWorkload(*mode, n)
      : case_name == "RankingLike30"      ? MakeRankingLike30Workload(*mode, n)
      : FindSeedCase(case_name) != nullptr
          ? MakeSeedWorkload(*FindSeedCase(case_name), *mode, n)
          : calcjit::Result<std::unique_ptr<Workload>>(
                calcjit::UserError("unknown case '" + case_name + "'"));
  if (!workload.ok()) return Fail(workload.status().ToString());
  // Checked once, outside the measured loop, like the benchmarks.
  const calcjit::Status first = (*workload)->Run();
  if (!first.ok()) return Fail(first.ToString());
  const std::string mismatch = (*workload)->Check();
  if (!mismatch.empty()) return Fail("wrong result: " + mismatch);
  if (MeasuredLoop(**workload, iterations) != 0) return Fail("an evaluation failed");
  std::printf("%s %s n=%zu: %ld iterations measured\n", case_name.c_str(), mode->name.c_str(), n,
              iterations);
  return 0;
}
