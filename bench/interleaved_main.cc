// calcjit_interleaved: the VM and the JIT on one set, timed in alternation
// (the JIT twice: as built, and with its "stage" step off: one loop per
// piece, docs/PERFORMANCE.md run U3),
// the fastest of many short batches kept. On a shared, noisy machine the
// minimum of interleaved batches is steadier than a median of consecutive
// ones, and the ratio between the two backends steadier still.
//
//   calcjit_interleaved SET [ITEMS] [ROUNDS]      (defaults 2000, 12)
//
// Links the shared library, so that two builds compare with one binary:
//   LD_LIBRARY_PATH=../other-build/src build/bench/calcjit_interleaved SET
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "bench/bench_support.h"
#include "calcjit/calcjit.hpp"
#include "examples/ranking/example_data.h"

namespace {

// This thread's CPU time: on a machine shared with builds, a batch's wall
// time includes the time the thread waited for a core; its CPU time does not
// (docs/PERFORMANCE.md, "The machine").
using calcjit::bench::ThreadCpuMs;

int Fail(const std::string& message) {
  std::fprintf(stderr, "calcjit_interleaved: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return Fail("usage: calcjit_interleaved SET [ITEMS] [ROUNDS]");
  const std::size_t items = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 2000;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 12;
  const calcjit::Result<calcjit::FeatureSet> set = calcjit::FeatureSet::ReadFile(argv[1]);
  if (!set.ok()) return Fail(set.status().ToString());

  struct Run {
    const char* name;
    calcjit::Backend backend;
    std::vector<std::string> disabled;
    std::optional<calcjit::Engine> engine;
    double best_ms = std::numeric_limits<double>::infinity();
  };
  std::vector<Run> runs = {{"vm", calcjit::Backend::kVm, {}, {}},
                           {"jit", calcjit::Backend::kJit, {}, {}},
                           {"jit, one loop per piece", calcjit::Backend::kJit, {"stage"}, {}}};
  for (Run& run : runs) {
    calcjit::EngineOptions options;
    options.backend = run.backend;
    options.disabled_passes = run.disabled;
    calcjit::Result<calcjit::Engine> engine = calcjit::Engine::Compile(*set, options);
    if (!engine.ok()) return Fail(engine.status().ToString());
    run.engine = std::move(engine).value();
  }
  const calcjit::example::ExampleQuery query =
      calcjit::example::GenerateExampleQuery(runs[0].engine->schema(), items, 42);
  // About 10 ms per batch.
  for (int round = 0; round < rounds; ++round) {
    for (Run& run : runs) {
      const calcjit::Engine& engine = *run.engine;
      calcjit::Batch batch(engine);
      if (!calcjit::example::BindExampleQuery(query, batch).ok()) return Fail("cannot bind");
      if (!engine.Evaluate(batch).ok()) return Fail("evaluation failed");
      const double start = ThreadCpuMs();
      int evaluations = 0;
      double elapsed_ms = 0.0;
      do {
        if (!engine.Evaluate(batch).ok()) return Fail("evaluation failed");
        ++evaluations;
        elapsed_ms = ThreadCpuMs() - start;
      } while (elapsed_ms < 10.0);
      const double ms = elapsed_ms / evaluations;
      if (ms < run.best_ms) run.best_ms = ms;
    }
  }
  std::printf("%s, %zu items, fastest of %d interleaved batches, CPU time (%s code):\n", argv[1],
              items, rounds, std::string(calcjit::IsaName(runs[1].engine->isa())).c_str());
  for (const Run& run : runs) std::printf("  %-24s %8.3f ms\n", run.name, run.best_ms);
  std::printf("  vm/jit %.3f, jit/vm %.3f, one loop/vm %.3f\n", runs[0].best_ms / runs[1].best_ms,
              runs[1].best_ms / runs[0].best_ms, runs[2].best_ms / runs[0].best_ms);
  return 0;
}
