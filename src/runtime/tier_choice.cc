// Tier choice by measurement: the VM and the JIT of one set timed on the same
// synthetic batch (calcjit/serving.h, MeasureTiers).
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "calcjit/serving.h"
#include "runtime/internal.h"

namespace calcjit {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kDefaultItems = 1'000;
constexpr int kRounds = 7;           // alternating rounds; each engine keeps its best
constexpr int kMinRounds = 3;        // ... at least this many, even past the budget
constexpr double kRoundNs = 1e6;     // each round evaluates for at least 1 ms
constexpr double kBudgetNs = 250e6;  // and all rounds stop after 250 ms

// This thread's CPU time in ns: the machine may be busy (the callers'
// threads, other processes), and a round's wall time would count the time the
// thread waited for a core against whichever engine it was timing.
double ThreadCpuNs() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e9 + static_cast<double>(now.tv_nsec);
}

// "1,386"
std::string Grouped(double value) {
  const std::string digits = std::to_string(static_cast<std::uint64_t>(value + 0.5));
  std::string out;
  for (std::size_t k = 0; k < digits.size(); ++k) {
    if (k > 0 && (digits.size() - k) % 3 == 0) out += ',';
    out += digits[k];
  }
  return out;
}

// Three significant digits below 100 ("0.612", "41.3"), grouped above.
std::string Nanoseconds(double value) {
  if (value >= 100.0) return Grouped(value);
  char text[32];
  std::snprintf(text, sizeof text, value < 1.0 ? "%.3f" : value < 10.0 ? "%.2f" : "%.1f", value);
  return text;
}

// The inputs of a batch of `n` items in the schema's shapes: values from 0.25
// to 4 (every operator's ordinary range: logarithms, divisions and roots take
// their fast paths, as live traffic mostly does), the same for every engine.
std::vector<std::vector<float>> SyntheticInputs(const Schema& schema, std::size_t n) {
  std::vector<std::vector<float>> inputs;
  std::uint32_t state = 0x9E3779B9u;
  for (const InputInfo& input : schema.inputs) {
    std::vector<float> values(input.ValueCount(n));
    for (float& value : values) {
      state = state * 1664525u + 1013904223u;
      value = 0.25f + 3.75f * static_cast<float>(state >> 8) / static_cast<float>(1u << 24);
    }
    inputs.push_back(std::move(values));
  }
  return inputs;
}

// One engine's batch over the synthetic inputs.
class Timed {
 public:
  Timed(const Engine& engine, const std::vector<std::vector<float>>& inputs, std::size_t n)
      : engine_(engine), batch_(engine), n_(n) {
    batch_.SetItemCount(n);
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      if (Status bound = batch_.BindInput(k, inputs[k]); !bound.ok()) status_ = bound;
    }
  }

  // A round: evaluations for at least kRoundNs of CPU time; the best per-item
  // time kept.
  Status Round() {
    CALCJIT_RETURN_IF_ERROR(status_);
    std::size_t evaluations = 0;
    const double start = ThreadCpuNs();
    double elapsed = 0.0;
    do {
      CALCJIT_RETURN_IF_ERROR(engine_.Evaluate(batch_));
      ++evaluations;
      elapsed = ThreadCpuNs() - start;
    } while (elapsed < kRoundNs);
    best_ = std::min(best_, elapsed / static_cast<double>(evaluations * n_));
    return Status::Ok();
  }

  // Allocations and first touches of the workspace, outside the rounds.
  Status WarmUp() {
    CALCJIT_RETURN_IF_ERROR(status_);
    return engine_.Evaluate(batch_);
  }

  double best() const { return best_; }

 private:
  const Engine& engine_;
  Batch batch_;
  std::size_t n_;
  Status status_ = Status::Ok();
  double best_ = 1e300;
};

bool HasRegions(const Engine& engine) {
  const auto& prepared = engine.compiled().prepared();
  return prepared != nullptr && !prepared->program->Regions().empty();
}

}  // namespace

Result<TierMeasurement> MeasureTiers(const Engine& vm, const Engine& jit, std::size_t item_count) {
  TierMeasurement measurement;
  measurement.chosen = Backend::kVm;
  if (vm.backend() != Backend::kVm || jit.backend() != Backend::kJit) {
    measurement.note = "not timed: the engines are not a VM and a JIT engine";
    return measurement;
  }
  if (!HasRegions(jit)) {
    measurement.note = "not timed: no region to compile, the VM and the JIT run the same kernels";
    return measurement;
  }
  const std::size_t n = std::clamp<std::size_t>(item_count == 0 ? kDefaultItems : item_count, 1,
                                                kMaxTierMeasurementItems);
  const std::vector<std::vector<float>> inputs = SyntheticInputs(vm.schema(), n);
  Timed timed_vm(vm, inputs, n);
  Timed timed_jit(jit, inputs, n);
  CALCJIT_RETURN_IF_ERROR(timed_vm.WarmUp());
  CALCJIT_RETURN_IF_ERROR(timed_jit.WarmUp());
  const Clock::time_point start = Clock::now();
  for (int round = 0; round < kRounds; ++round) {
    // Alternating, and each round in the other order, so that neither engine
    // always runs just after the other warmed (or evicted) the caches.
    Timed& first = round % 2 == 0 ? timed_vm : timed_jit;
    Timed& second = round % 2 == 0 ? timed_jit : timed_vm;
    CALCJIT_RETURN_IF_ERROR(first.Round());
    CALCJIT_RETURN_IF_ERROR(second.Round());
    const double spent = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
    if (round + 1 >= kMinRounds && spent > kBudgetNs) break;
  }
  measurement.measured = true;
  measurement.items = n;
  measurement.vm_ns_per_item = timed_vm.best();
  measurement.jit_ns_per_item = timed_jit.best();
  // The JIT must win to replace the VM: a tie keeps what serves already.
  measurement.chosen =
      measurement.jit_ns_per_item < measurement.vm_ns_per_item ? Backend::kJit : Backend::kVm;
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.2f",
                measurement.jit_ns_per_item / measurement.vm_ns_per_item);
  measurement.note = "vm " + Nanoseconds(measurement.vm_ns_per_item) + " ns, jit " +
                     Nanoseconds(measurement.jit_ns_per_item) + " ns per item at " + Grouped(n) +
                     " items (jit/vm " + ratio + "): the " +
                     std::string(BackendName(measurement.chosen)) + " is faster";
  return measurement;
}

Result<TierMeasurement> MeasureTiers(const FeatureSet& set, const EngineOptions& options,
                                     std::size_t item_count) {
  EngineOptions vm_options = options;
  vm_options.backend = Backend::kVm;
  Result<Engine> vm = Engine::Compile(set, vm_options);
  if (!vm.ok()) return vm.status();
  EngineOptions jit_options = options;
  jit_options.backend = Backend::kJit;
  Result<Engine> jit = internal::CompileLike(*vm, jit_options);
  if (!jit.ok()) return jit.status();
  return MeasureTiers(*vm, *jit, item_count);
}

}  // namespace calcjit
