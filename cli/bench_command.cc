// calcjit bench SET [--items N] [--backends evaluated,vm,jit]: times each
// backend on the user's own set with generated inputs (uniform [0, 1) for
// scalars, unit vectors; the example set's inputs get its plausible data) and
// prints ns per query and per item, with ratios to `evaluated`. A quick look,
// not a benchmark suite: bench/ has the careful one (docs/PERFORMANCE.md).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "cli/common.h"
#include "examples/ranking/example_data.h"

namespace calcjit::cli {

namespace {

struct Timing {
  std::string name;
  Backend backend;
  double compile_ms = 0.0;
  double ns_per_query = 0.0;  // the median of the rounds
  std::vector<std::uint32_t> first_output_bits;
};

std::optional<Backend> ModeBackend(const std::string& mode) {
  if (mode == "evaluated") return Backend::kReference;
  return BackendFromName(mode);
}

Result<Timing> TimeBackend(const FeatureSet& set, const std::string& mode,
                           const BenchOptions& options) {
  const std::optional<Backend> backend = ModeBackend(mode);
  if (!backend || *backend == Backend::kAuto) {
    return UserError("unknown backend '" + mode + "' (evaluated, vm or jit)");
  }
  Timing timing{mode, *backend};
  EngineOptions engine_options;
  engine_options.backend = *backend;
  engine_options.reuse_compiled = false;  // time a real compilation
  const auto compile_start = std::chrono::steady_clock::now();
  Result<Engine> engine = Engine::Compile(set, engine_options);
  if (!engine.ok()) return engine.status();
  timing.compile_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - compile_start)
          .count();
  const example::ExampleQuery query =
      example::GenerateExampleQuery(engine->schema(), options.items, options.seed);
  Batch batch(*engine);
  CALCJIT_RETURN_IF_ERROR(example::BindExampleQuery(query, batch));
  CALCJIT_RETURN_IF_ERROR(engine->Evaluate(batch));  // warm-up, and the result to compare
  for (std::size_t k = 0; k < engine->schema().outputs.size(); ++k) {
    for (float v : batch.Output(k)) {
      std::uint32_t bits;
      std::memcpy(&bits, &v, sizeof bits);
      timing.first_output_bits.push_back(bits);
    }
  }
  // Rounds of evaluations, each long enough to time; the median round.
  std::vector<double> rounds;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration<double>(std::max(options.seconds, 0.01));
  std::size_t per_round = 1;
  while (rounds.size() < 5 || std::chrono::steady_clock::now() < deadline) {
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t r = 0; r < per_round; ++r) CALCJIT_RETURN_IF_ERROR(engine->Evaluate(batch));
    const double ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
    if (ns < 2e6 && rounds.empty()) {
      per_round *= 2;  // too short to time: grow the round first
      continue;
    }
    rounds.push_back(ns / static_cast<double>(per_round));
    if (rounds.size() >= 1000) break;
  }
  std::nth_element(rounds.begin(), rounds.begin() + rounds.size() / 2, rounds.end());
  timing.ns_per_query = rounds[rounds.size() / 2];
  return timing;
}

}  // namespace

int RunBench(const BenchOptions& options) {
  const Result<FeatureSet> set = LoadSet(options.set);
  if (!set.ok()) {
    ReportError(set.status());
    return 1;
  }
  std::vector<Timing> timings;
  for (const std::string& mode : options.backends) {
    Result<Timing> timing = TimeBackend(*set, mode, options);
    if (!timing.ok()) {
      ReportError(timing.status());
      return 1;
    }
    timings.push_back(std::move(timing).value());
  }
  std::printf("%zu features, %zu items per query, median of timed rounds (%.1f s per backend)\n\n",
              set->schema().outputs.size(), options.items, options.seconds);
  std::printf("%-10s %12s %14s %12s %14s %10s\n", "backend", "compile ms", "us per query",
              "ns per item", "x evaluated", "same bits");
  const Timing* evaluated = nullptr;
  for (const Timing& t : timings) {
    if (t.backend == Backend::kReference) evaluated = &t;
  }
  bool all_same = true;
  for (const Timing& t : timings) {
    char ratio[32] = "-";
    if (evaluated != nullptr && t.ns_per_query > 0) {
      std::snprintf(ratio, sizeof ratio, "%.1fx", evaluated->ns_per_query / t.ns_per_query);
    }
    const bool same = t.first_output_bits == timings.front().first_output_bits;
    all_same &= same;
    std::printf("%-10s %12.2f %14.2f %12.3f %14s %10s\n", t.name.c_str(), t.compile_ms,
                t.ns_per_query / 1e3,
                options.items > 0 ? t.ns_per_query / static_cast<double>(options.items) : 0.0,
                ratio, same ? "yes" : "NO");
  }
  if (!all_same) {
    ReportError("the backends disagree on some output bits: please report this set as a bug");
    return 1;
  }
  return 0;
}

}  // namespace calcjit::cli
