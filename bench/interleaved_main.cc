// calcjit_interleaved: the VM and the JIT on one set, timed in alternation,
// the fastest of many short batches kept. On a shared, noisy machine the
// minimum of interleaved batches is steadier than a median of consecutive
// ones, and the ratio between the two backends steadier still.
//
//   calcjit_interleaved SET [ITEMS] [ROUNDS]      (defaults 2000, 12)
//
// Links the shared library, so that two builds compare with one binary:
//   LD_LIBRARY_PATH=../other-build/src build/bench/calcjit_interleaved SET
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "calcjit/calcjit.hpp"
#include "examples/ranking/example_data.h"

namespace {

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
    std::optional<calcjit::Engine> engine;
    double best_ms = std::numeric_limits<double>::infinity();
  };
  std::vector<Run> runs = {{"vm", calcjit::Backend::kVm, {}}, {"jit", calcjit::Backend::kJit, {}}};
  for (Run& run : runs) {
    calcjit::EngineOptions options;
    options.backend = run.backend;
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
      const auto start = std::chrono::steady_clock::now();
      int evaluations = 0;
      double elapsed_ms = 0.0;
      do {
        if (!engine.Evaluate(batch).ok()) return Fail("evaluation failed");
        ++evaluations;
        elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                               start)
                         .count();
      } while (elapsed_ms < 10.0);
      const double ms = elapsed_ms / evaluations;
      if (ms < run.best_ms) run.best_ms = ms;
    }
  }
  std::printf("%s, %zu items, fastest of %d interleaved batches (%s code):\n", argv[1], items,
              rounds, std::string(calcjit::IsaName(runs[1].engine->isa())).c_str());
  for (const Run& run : runs) std::printf("  %-4s %8.3f ms\n", run.name, run.best_ms);
  std::printf("  vm/jit %.3f\n", runs[0].best_ms / runs[1].best_ms);
  return 0;
}
