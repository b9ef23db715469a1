// The benchmark workloads, shared by the Google Benchmark binary
// (calcjit_bench) and the callgrind driver (calcjit_bench_callgrind), so that
// both measure exactly the same code on exactly the same data.
//
// A workload is a case (a seed formula of the original study, the example
// ranking set, or the large generated set) at one item count, prepared for
// one mode: "manual" (a hand-written C++ loop) or a calcjit backend
// ("evaluated" is the reference interpreter; "vm" and "jit" join when the
// build has them).
#ifndef CALCJIT_BENCH_BENCH_CASES_H_
#define CALCJIT_BENCH_BENCH_CASES_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "calcjit/calcjit.hpp"
#include "examples/ranking/example_data.h"

namespace calcjit::bench {

// How a workload is computed.
struct Mode {
  std::string name;                // "manual", "native", "evaluated", "vm", "jit"
  std::optional<Backend> backend;  // none for "manual" and "native"
};

// The modes this build and machine can run, in report order: "manual" (the
// hand-written loops built with the project's flags) and "native" (the same
// loops built with -march=native, the limit on this machine) first,
// then every available backend. Adding a backend to calcjit adds its mode
// here by itself once IsBackendAvailable reports it.
std::vector<Mode> AvailableModes();
std::optional<Mode> FindMode(std::string_view name);

// The item counts of the study.
inline constexpr std::size_t kSeedSizes[] = {100, 2000, 10000};
// The sets of bench/ and examples/ run at every seed size (issue 27's check:
// the JIT no slower than the VM on any of them at any of these sizes); the
// statistics cases at one.
inline constexpr std::size_t kRankingSize = 2000;
// The seed of the generated data: fixed, so every run times the same floats.
inline constexpr std::uint64_t kDataSeed = 42;

// An input of a seed formula and the range its values are drawn from.
struct UniformInput {
  const char* name;
  float lo;
  float hi;  // exclusive
};

// A seed formula of the original study: its text, its inputs and the
// hand-written loop that computes it ("manual").
struct SeedCase {
  const char* name;    // "Qux", "Sum10"
  const char* output;  // the feature it defines
  const char* text;    // the set, in the text syntax
  std::vector<UniformInput> inputs;
  // The hand-written computation: `inputs` in the order above, n floats
  // each; built with the project's flags and for the host (bench/manual.h).
  void (*manual)(std::span<const float* const> inputs, float* out, std::size_t n);
  void (*native)(std::span<const float* const> inputs, float* out, std::size_t n);
};

// f_qux = f_foo / (f_bar + f_baz), and s = x0 + x1 + ... + x9 (left-nested).
const std::vector<SeedCase>& SeedCases();
const SeedCase* FindSeedCase(std::string_view name);

// A workload ready to run: data generated, engine compiled, batch bound,
// outputs allocated. Run() is the timed body and allocates nothing.
class Workload {
 public:
  virtual ~Workload() = default;
  // One computation of the whole batch.
  virtual Status Run() = 0;
  // Checks the result against the expected bits (after at least one Run):
  // "" when they agree, else what differs. Seed cases compare with the
  // manual loop's bits; the feature sets compare a backend with the
  // reference interpreter, and check that the reference's scores are in
  // [0, 1] (and, for the large set, that almost every value is finite).
  virtual std::string Check() = 0;
  virtual std::size_t item_count() const = 0;
};

Result<std::unique_ptr<Workload>> MakeSeedWorkload(const SeedCase& seed_case, const Mode& mode,
                                                   std::size_t n);
// The example set (examples/ranking/ranking.calc, read from the source tree)
// on a generated query; only backend modes.
Result<std::unique_ptr<Workload>> MakeRankingWorkload(const Mode& mode, std::size_t n);
// Six aggregates over one column (batch_mean, batch_std, zscore,
// min_max_scale, batch_min, batch_max of x), every output; only backend
// modes. With share_statistics false, the scheduler's "statistics" step is
// switched off: each aggregate runs its own kernel, as before issue 15.
Result<std::unique_ptr<Workload>> MakeStatisticsWorkload(const Mode& mode, std::size_t n,
                                                         bool share_statistics = true);
// The example set with the "statistics" step switched off.
Result<std::unique_ptr<Workload>> MakeRankingWorkloadUnshared(const Mode& mode, std::size_t n);
// The large generated set (bench/large_set.calc, written by
// bench/gen_large_set.py: 1,000 features, every operator, formulas nested
// 100+ levels deep), every output, on a generated query; only backend modes.
Result<std::unique_ptr<Workload>> MakeLargeWorkload(const Mode& mode, std::size_t n);
// bench/ranking_like_30.calc (30 outputs over one 193-node piece, its JIT code
// staged), every output; only backend modes.
Result<std::unique_ptr<Workload>> MakeRankingLike30Workload(const Mode& mode, std::size_t n);

// A column of n values shaped like the example set's rank inputs, for the
// rank benchmarks: "prices" (1 to 1,000, denser low), "counts" (small
// integers 0 to 49: many ties) or "signed_nan" (signed values, a tenth NaN).
std::vector<float> RankColumn(std::string_view shape, std::size_t n);

// The text of bench/large_set.calc, read from the source tree, for timing
// FeatureSet::Parse and Engine::Compile on it.
Result<std::string> ReadLargeSetText();
// The text of the example set (examples/ranking/ranking.calc).
Result<std::string> ReadRankingSetText();

}  // namespace calcjit::bench

#endif  // CALCJIT_BENCH_BENCH_CASES_H_
