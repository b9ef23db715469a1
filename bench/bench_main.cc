// calcjit_bench: every mode side by side in one binary, one run.
//
//   BM_Qux/<mode>/<n>      f_qux = f_foo / (f_bar + f_baz), n = 100, 2000, 10000
//   BM_Sum10/<mode>/<n>    s = x0 + x1 + ... + x9 (left-nested), same sizes
//   BM_Ranking/<mode>/<n>  examples/ranking/ranking.calc, every output, same sizes
//   BM_RankingLike30/<mode>/<n> bench/ranking_like_30.calc, every output, same sizes
//   BM_RankingUnshared/<mode>/2000 the same with the "statistics" step off (issue 15)
//   BM_Statistics/<mode>/2000 six aggregates over one column (batch_mean, batch_std,
//                          zscore, min_max_scale, batch_min, batch_max), every output
//   BM_StatisticsUnshared/<mode>/2000 the same, each aggregate its own kernel
//   BM_Large/<mode>/<n>    bench/large_set.calc (1,000 generated features), every output,
//                          same sizes
//   BM_Parse/large         FeatureSet::Parse of the large set's text (parse and check)
//   BM_Prepare/<set>/<mode> Engine::Compile from scratch of a parsed set (Qux, Sum10,
//                          ranking, large; for the VM: optimizing and building the
//                          program; for the JIT also generating code, on 2 threads,
//                          and on 1: BM_Prepare/large/jit-1-thread)
//   BM_Kernel/transcendental/<fn>/<path>/<n> EXP, LOG, LOG1P, SIGMOID, TANH per VM tier,
//                          engine and libmvec (bench/transcendental_bench.h)
//   BM_Kernel/rank/<column>/<n>, BM_Kernel/rank_sort/..., BM_Kernel/rank_top_k/...
//                          RANK alone, each sort it can use, and the top-k kernel
//                          (bench/rank_bench.h)
//   BM_Reload/<set>/auto   Parse + Compile of the bytes the service is serving
//   BM_Recompile/<set>/auto the same after the serving engine was released: parse
//                          and optimize again, JIT pieces from the code cache
// Preparation times are wall-clock times (the JIT compiles on several threads).
//
// <mode> is "manual" (hand-written loops built with the project's flags;
// seed formulas only), "native" (the same loops built with -march=native: the
// limit on this machine), "evaluated"
// (the reference interpreter through the public API), then any other backend
// the build can run ("vm", "jit"), registered by themselves.
//
// Every evaluation benchmark checks its result once before timing and aborts
// on a mismatch. After the run, a table of ratios between the modes (from the
// same run) and the preparation times go to stderr, so that
// --benchmark_format=json on stdout stays valid JSON (bench/ratios.py prints
// the same tables from a JSON file).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "bench/bench_cases.h"
#include "bench/rank_bench.h"
#include "bench/transcendental_bench.h"

namespace calcjit::bench {
namespace {

[[noreturn]] void Die(const std::string& benchmark, const std::string& message) {
  std::fprintf(stderr, "%s: %s\n", benchmark.c_str(), message.c_str());
  std::abort();
}

// The body shared by every benchmark: prepare, check once, time Run().
using MakeCase = Result<std::unique_ptr<Workload>> (*)(const std::string&, const Mode&,
                                                       std::size_t);

void RunWorkload(benchmark::State& state, const std::string& name, MakeCase make,
                 const std::string& case_name, const Mode& mode) {
  const auto n = static_cast<std::size_t>(state.range(0));
  Result<std::unique_ptr<Workload>> workload = make(case_name, mode, n);
  if (!workload.ok()) Die(name, workload.status().ToString());
  Workload& w = **workload;
  const Status first = w.Run();
  if (!first.ok()) Die(name, first.ToString());
  const std::string mismatch = w.Check();
  if (!mismatch.empty()) Die(name, "wrong result: " + mismatch);

  for (auto _ : state) {
    const Status status = w.Run();
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      break;
    }
    benchmark::ClobberMemory();  // the outputs are "used"
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
  // Seconds per item (shown as e.g. "1.2n", i.e. 1.2 ns per item).
  state.counters["per_item"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate |
                                                     benchmark::Counter::kInvert);
}

Result<std::unique_ptr<Workload>> MakeSeed(const std::string& case_name, const Mode& mode,
                                           std::size_t n) {
  return MakeSeedWorkload(*FindSeedCase(case_name), mode, n);
}

// "Ranking", "RankingLike30", "Large": the sets of examples/ and bench/.
Result<std::unique_ptr<Workload>> MakeSetCase(const std::string& case_name, const Mode& mode,
                                              std::size_t n) {
  if (case_name == "Ranking") return MakeRankingWorkload(mode, n);
  if (case_name == "RankingLike30") return MakeRankingLike30Workload(mode, n);
  return MakeLargeWorkload(mode, n);
}

// "RankingUnshared", "Statistics", "StatisticsUnshared": the cases of issue
// 15's shared statistics, with the scheduler's "statistics" step on and off.
Result<std::unique_ptr<Workload>> MakeSharedStatisticsCase(const std::string& case_name,
                                                           const Mode& mode, std::size_t n) {
  if (case_name == "RankingUnshared") return MakeRankingWorkloadUnshared(mode, n);
  return MakeStatisticsWorkload(mode, n, case_name == "Statistics");
}

// Reports the time per feature too: sets differ in size, and "how long does
// a set of N features take to load" is the question users ask.
void SetPerFeature(benchmark::State& state, std::size_t features) {
  state.counters["per_feature"] = benchmark::Counter(
      static_cast<double>(features),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

std::string LargeSetTextOrDie(const std::string& name) {
  Result<std::string> text = ReadLargeSetText();
  if (!text.ok()) Die(name, text.status().ToString());
  return std::move(text).value();
}

// The sets whose preparation is timed, by the name in the benchmark.
std::string SetTextOrDie(const std::string& set, const std::string& name) {
  if (set == "large") return LargeSetTextOrDie(name);
  if (set == "ranking") {
    Result<std::string> text = ReadRankingSetText();
    if (!text.ok()) Die(name, text.status().ToString());
    return std::move(text).value();
  }
  for (const SeedCase& seed : SeedCases()) {
    if (set == seed.name) return seed.text;
  }
  Die(name, "unknown set " + set);
  return "";
}

FeatureSet ParseOrDie(const std::string& text, const std::string& name) {
  Result<FeatureSet> set = FeatureSet::Parse(text, Format::kText);
  if (!set.ok()) Die(name, set.status().ToString());
  return std::move(set).value();
}

// Parsing and checking the text: what every process pays once per set.
void RunParse(benchmark::State& state, const std::string& name) {
  const std::string text = LargeSetTextOrDie(name);
  std::size_t features = 0;
  for (auto _ : state) {
    Result<FeatureSet> set = FeatureSet::Parse(text, Format::kText);
    if (!set.ok()) Die(name, set.status().ToString());
    features = set->schema().outputs.size();
    benchmark::DoNotOptimize(set);
  }
  SetPerFeature(state, features);
}

// Compiling the parsed set for one backend from scratch (no cached engine or
// code); the engine is destroyed inside the loop too (pausing the timer for
// it would cost more than it hides).
void RunPrepare(benchmark::State& state, const std::string& name, const std::string& set_name,
                const Mode& mode, bool parallel) {
  const FeatureSet set = ParseOrDie(SetTextOrDie(set_name, name), name);
  EngineOptions options;
  options.backend = *mode.backend;
  options.reuse_compiled = false;
  options.jit_parallel = parallel;
  for (auto _ : state) {
    Result<Engine> engine = Engine::Compile(set, options);
    if (!engine.ok()) Die(name, engine.status().ToString());
    benchmark::DoNotOptimize(engine);
  }
  SetPerFeature(state, set.schema().outputs.size());
}

// A service reloading its set: parse the bytes and compile them. "Reload":
// the same bytes as the version it is serving (kept alive here), which the
// caches recognize. "Recompile": the serving version was released, so the set
// is parsed and optimized again, and the JIT's pieces come from the code cache.
void RunReload(benchmark::State& state, const std::string& name, const std::string& set_name,
               bool keep_serving) {
  const std::string text = SetTextOrDie(set_name, name);
  std::optional<Engine> serving;
  if (keep_serving) {
    Result<Engine> engine = Engine::Compile(ParseOrDie(text, name));
    if (!engine.ok()) Die(name, engine.status().ToString());
    serving = std::move(engine).value();
  } else {
    Result<Engine> warm = Engine::Compile(ParseOrDie(text, name));  // fills the code cache
    if (!warm.ok()) Die(name, warm.status().ToString());
  }
  std::size_t features = 0;
  for (auto _ : state) {
    Result<Engine> engine = Engine::Compile(ParseOrDie(text, name));
    if (!engine.ok()) Die(name, engine.status().ToString());
    features = engine->schema().outputs.size();
    benchmark::DoNotOptimize(engine);
  }
  SetPerFeature(state, features);
}

// BM_<case_name>/<mode>/<n> for every n of `sizes`.
void RegisterCase(const std::string& case_name, const Mode& mode, MakeCase make,
                  std::span<const std::size_t> sizes) {
  const std::string name = "BM_" + case_name + "/" + mode.name;
  benchmark::internal::Benchmark* b = benchmark::RegisterBenchmark(
      name.c_str(), [name, case_name, mode, make](benchmark::State& state) {
        RunWorkload(state, name + "/" + std::to_string(state.range(0)), make, case_name, mode);
      });
  for (std::size_t n : sizes) b->Arg(static_cast<std::int64_t>(n));
  b->Unit(benchmark::kMicrosecond);
}

void RegisterAll() {
  const std::vector<Mode> modes = AvailableModes();
  RegisterTranscendentalBenchmarks();
  RegisterRankBenchmarks();
  for (const SeedCase& seed_case : SeedCases()) {
    for (const Mode& mode : modes) RegisterCase(seed_case.name, mode, &MakeSeed, kSeedSizes);
  }
  for (const std::string case_name : {"Ranking", "RankingLike30", "Large"}) {
    for (const Mode& mode : modes) {
      if (mode.backend) RegisterCase(case_name, mode, &MakeSetCase, kSeedSizes);
    }
  }
  constexpr std::size_t kStatisticsSizes[] = {kRankingSize};
  for (const std::string case_name : {"RankingUnshared", "Statistics", "StatisticsUnshared"}) {
    for (const Mode& mode : modes) {
      if (mode.backend) RegisterCase(case_name, mode, &MakeSharedStatisticsCase, kStatisticsSizes);
    }
  }
  benchmark::RegisterBenchmark("BM_Parse/large",
                               [](benchmark::State& state) { RunParse(state, "BM_Parse/large"); })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  for (const std::string set : {"Qux", "Sum10", "ranking", "large"}) {
    for (const Mode& mode : modes) {
      if (!mode.backend) continue;
      const std::string name = "BM_Prepare/" + set + "/" + mode.name;
      benchmark::RegisterBenchmark(
          name.c_str(),
          [name, set, mode](benchmark::State& state) { RunPrepare(state, name, set, mode, true); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }
  if (const std::optional<Mode> jit = FindMode("jit")) {
    const std::string serial = "BM_Prepare/large/jit-1-thread";
    benchmark::RegisterBenchmark(serial.c_str(),
                                 [serial, mode = *jit](benchmark::State& state) {
                                   RunPrepare(state, serial, "large", mode, false);
                                 })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    for (const std::string set : {"ranking", "large"}) {
      for (const bool keep_serving : {true, false}) {
        const std::string name =
            std::string(keep_serving ? "BM_Reload/" : "BM_Recompile/") + set + "/auto";
        benchmark::RegisterBenchmark(name.c_str(),
                                     [name, set, keep_serving](benchmark::State& state) {
                                       RunReload(state, name, set, keep_serving);
                                     })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
      }
    }
  }
}

// Forwards everything to the display reporter the flags ask for, and keeps
// each benchmark's CPU time per iteration (the median when there are
// repetitions) to print the ratios between modes at the end, and the
// preparation times (the benchmarks without an item count) after them.
class RatioReporter final : public benchmark::BenchmarkReporter {
 public:
  explicit RatioReporter(benchmark::BenchmarkReporter* display) : display_(display) {}

  bool ReportContext(const Context& context) override { return display_->ReportContext(context); }

  void ReportRuns(const std::vector<Run>& runs) override {
    display_->ReportRuns(runs);
    RecordTranscendentalRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred) continue;
      const bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      if (run.run_type == Run::RT_Aggregate && !median) continue;
      // "BM_Qux/manual" + "2000"
      const std::string& function = run.run_name.function_name;
      if (function.rfind("BM_Kernel/", 0) == 0) continue;  // no modes to compare
      const double nanoseconds = run.GetAdjustedCPUTime() * Scale(run.time_unit);
      // A median beats single repetitions; without one, the last repetition counts.
      auto record = [&](Entry& entry) {
        if (median || !entry.is_median) entry = Entry{nanoseconds, median};
      };
      if (run.run_name.args.empty()) {
        // "BM_Parse/large", "BM_Prepare/large/vm": no item count, no ratio row.
        // Wall time: the JIT compiles on several threads, and CPU time counts
        // only the calling one.
        if (preparation_.count(function) == 0) preparation_order_.push_back(function);
        Entry& entry = preparation_[function];
        if (median || !entry.is_median) {
          entry = Entry{run.GetAdjustedRealTime() * Scale(run.time_unit), median};
        }
        continue;
      }
      const std::size_t slash = function.find('/');
      if (slash == std::string::npos) continue;
      const Key key{function.substr(3, slash - 3), std::stoul(run.run_name.args),
                    function.substr(slash + 1)};
      if (times_.count(key) == 0) order_.push_back(key);
      record(times_[key]);
    }
  }

  void Finalize() override {
    display_->Finalize();
    PrintRatios();
    PrintTranscendentalTable();
    PrintPreparation();
  }

 private:
  struct Key {
    std::string case_name;
    std::size_t n;
    std::string mode;
    bool operator<(const Key& other) const {
      return std::tie(case_name, n, mode) < std::tie(other.case_name, other.n, other.mode);
    }
  };
  struct Entry {
    double nanoseconds = 0.0;
    bool is_median = false;
  };

  static double Scale(benchmark::TimeUnit unit) {
    switch (unit) {
      case benchmark::kNanosecond:
        return 1.0;
      case benchmark::kMicrosecond:
        return 1e3;
      case benchmark::kMillisecond:
        return 1e6;
      case benchmark::kSecond:
        return 1e9;
    }
    return 1.0;
  }

  void PrintRatios() {
    if (times_.empty()) return;
    const std::vector<Mode> modes = AvailableModes();
    std::fprintf(stderr,
                 "\nRatios of CPU time per evaluation (median of the repetitions), this run:\n");
    std::string header = "  case      n     ";
    for (const Mode& mode : modes) header += Pad(mode.name + " ns/item", 20);
    for (const Mode& mode : modes) {
      if (mode.backend) header += Pad(mode.name + "/manual", 18);
    }
    for (const Mode& mode : modes) {
      if (mode.backend) header += Pad(mode.name + "/native", 18);
    }
    for (const Mode& mode : modes) {
      if (mode.backend && *mode.backend != Backend::kReference) {
        header += Pad("evaluated/" + mode.name, 18);
      }
    }
    std::fprintf(stderr, "%s\n", header.c_str());
    // Rows: one per (case, n), in the order the benchmarks ran.
    std::map<std::pair<std::string, std::size_t>, std::map<std::string, double>> rows;
    for (const auto& [key, entry] : times_)
      rows[{key.case_name, key.n}][key.mode] = entry.nanoseconds;
    std::vector<std::pair<std::string, std::size_t>> order;
    for (const Key& key : order_) {
      if (std::find(order.begin(), order.end(), std::pair(key.case_name, key.n)) == order.end()) {
        order.emplace_back(key.case_name, key.n);
      }
    }
    for (const auto& row : order) {
      const std::map<std::string, double>& by_mode = rows[row];
      char prefix[40];
      std::snprintf(prefix, sizeof(prefix), "  %-8s %6zu  ", row.first.c_str(), row.second);
      std::string line = prefix;
      auto time = [&](const std::string& mode) -> const double* {
        const auto it = by_mode.find(mode);
        return it == by_mode.end() ? nullptr : &it->second;
      };
      for (const Mode& mode : modes) {
        const double* t = time(mode.name);
        line += Pad(t ? Format("%.3f", *t / static_cast<double>(row.second)) : "-", 20);
      }
      for (const char* loop : {"manual", "native"}) {
        const double* manual = time(loop);
        for (const Mode& mode : modes) {
          if (!mode.backend) continue;
          const double* t = time(mode.name);
          line += Pad(t && manual ? Format("%.2fx", *t / *manual) : "-", 18);
        }
      }
      const double* evaluated = time("evaluated");
      for (const Mode& mode : modes) {
        if (!mode.backend || *mode.backend == Backend::kReference) continue;
        const double* t = time(mode.name);
        line += Pad(t && evaluated ? Format("%.1fx", *evaluated / *t) : "-", 18);
      }
      std::fprintf(stderr, "%s\n", line.c_str());
    }
  }

  // Milliseconds per call, and for BM_Prepare/<set>/<mode> the ratio to the
  // reference interpreter's compile time of the same set.
  void PrintPreparation() {
    if (preparation_.empty()) return;
    std::fprintf(stderr,
                 "\nPreparation, wall time per call (median of the repetitions), this run:\n");
    std::fprintf(stderr, "  %s%s%s\n", Pad("benchmark", 32).c_str(), Pad("ms", 12).c_str(),
                 "x evaluated");
    for (const std::string& name : preparation_order_) {
      const double nanoseconds = preparation_.at(name).nanoseconds;
      std::string ratio = "-";
      const std::size_t last_slash = name.rfind('/');
      if (name.rfind("BM_Prepare/", 0) == 0 && last_slash != std::string::npos) {
        const auto reference = preparation_.find(name.substr(0, last_slash) + "/evaluated");
        if (reference != preparation_.end() && reference->second.nanoseconds > 0.0) {
          ratio = Format("%.1fx", nanoseconds / reference->second.nanoseconds);
        }
      }
      std::fprintf(stderr, "  %s%s%s\n", Pad(name, 32).c_str(),
                   Pad(Format("%.3f", nanoseconds / 1e6), 12).c_str(), ratio.c_str());
    }
  }

  static std::string Format(const char* format, double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), format, value);
    return buffer;
  }
  static std::string Pad(const std::string& text, std::size_t width) {
    return text.size() >= width ? text + " " : text + std::string(width - text.size(), ' ');
  }

  std::unique_ptr<benchmark::BenchmarkReporter> display_;
  std::map<Key, Entry> times_;
  std::vector<Key> order_;                      // of first report
  std::map<std::string, Entry> preparation_;    // by benchmark name
  std::vector<std::string> preparation_order_;  // of first report
};

}  // namespace
}  // namespace calcjit::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  calcjit::bench::RegisterAll();
  calcjit::bench::RatioReporter reporter(benchmark::CreateDefaultDisplayReporter());
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
