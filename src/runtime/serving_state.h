// The objects behind ServingEngine and Session: versions, the reloader's
// background JIT compilations, the shadow worker.
#ifndef CALCJIT_RUNTIME_SERVING_STATE_H_
#define CALCJIT_RUNTIME_SERVING_STATE_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "calcjit/engine.h"
#include "calcjit/serving.h"
#include "runtime/atomic_shared.h"

namespace calcjit::internal {

// One loaded set: immutable but for the engine that serves it (the VM, then
// the JIT when tiering) and its counters.
struct Version {
  Version(std::uint64_t version_id, FeatureSet loaded, Engine first)
      : id(version_id), set(std::move(loaded)) {
    schema = first.schema();
    engine.store(std::make_shared<const Engine>(std::move(first)));
  }

  const std::uint64_t id;
  const FeatureSet set;
  Schema schema;
  mutable AtomicShared<const Engine> engine;

  double parse_ms = 0.0;
  double vm_compile_ms = 0.0;
  mutable std::atomic<double> jit_compile_ms{0.0};
  mutable std::atomic<bool> jit_pending{false};
  mutable std::atomic<std::uint64_t> evaluations{0};
  mutable std::atomic<std::uint64_t> items{0};
  mutable std::atomic<std::uint64_t> errors{0};
  mutable std::atomic<std::uint64_t> shadow_evaluations{0};
  mutable std::atomic<std::uint64_t> shadow_dropped{0};
  mutable std::atomic<std::uint64_t> mismatches{0};

  // Counters and the tier change while the version serves: mutable.
  mutable std::mutex note_mutex;
  mutable std::string note;         // why the JIT does not serve it
  mutable TierMeasurement tiers;    // the VM and the JIT timed (tier choice)
  mutable std::string shadow_note;  // why the shadow compares nothing on it
};

// A sampled evaluation, copied for the shadow: the served version's inputs
// (by schema index; absent when unbound) and outputs.
struct ShadowJob {
  std::shared_ptr<const Version> version;
  std::shared_ptr<const ShadowOptions> options;
  std::size_t item_count = 0;
  std::vector<std::optional<std::vector<float>>> inputs;
  std::vector<std::vector<float>> outputs;
};

// The shadow's engine for a version: the candidate set, or the served set
// itself, compiled for the shadow's backend, computing the served outputs it
// defines.
Result<Engine> CompileShadow(const Version& version, const ShadowOptions& options);
// Whether a shadow engine can run on what the version's sessions bind: every
// input it needs is bound with the same shape, or has a default; it computes
// at least one served output. The error names the input and the version.
Status ShadowFits(const Version& version, const Schema& shadow);

class ShadowWorker {
 public:
  ShadowWorker();
  ~ShadowWorker();
  // False when the queue is full (the job is dropped).
  bool Submit(ShadowJob job);
  void Drain();
  std::vector<Mismatch> Mismatches() const;
  void ClearMismatches();

 private:
  void Loop();
  void Process(const ShadowJob& job);

  static constexpr std::size_t kQueueLimit = 64;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  std::deque<ShadowJob> queue_;
  bool busy_ = false;
  bool stop_ = false;
  std::vector<Mismatch> recorded_;
  // The shadow engine of the last (version, options) seen.
  std::uint64_t engine_version_ = 0;
  std::shared_ptr<const ShadowOptions> engine_options_;
  std::optional<Engine> engine_;
  std::thread thread_;
};

class ServingState {
 public:
  explicit ServingState(ServingOptions options) : options_(std::move(options)) {}
  ~ServingState();

  Result<std::uint64_t> Load(const FeatureSet& set, double parse_ms);
  std::shared_ptr<const Version> Current() const { return current_.load(); }
  void WaitForJit() const;

  Status SetShadow(const ShadowOptions& options);
  // Evaluations check the flag (a relaxed load) before they load the options,
  // so that without shadowing the hot path takes no shared_ptr's lock bit.
  bool ShadowOn() const { return shadow_on_.load(std::memory_order_relaxed); }
  std::shared_ptr<const ShadowOptions> Shadow() const { return shadow_.load(); }
  // Whether this evaluation is one the shadow samples.
  bool Sample(double fraction);
  ShadowWorker* worker() const;

 private:
  void CompileJitInBackground(const std::shared_ptr<Version>& version);

  const ServingOptions options_;
  AtomicShared<const Version> current_;
  std::mutex reload_mutex_;  // one reload at a time
  std::uint64_t next_version_ = 1;

  mutable std::mutex jit_mutex_;
  mutable std::condition_variable jit_done_;
  struct Compilation {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::vector<Compilation> jit_threads_;  // finished ones are joined at the next reload

  AtomicShared<const ShadowOptions> shadow_;
  std::atomic<bool> shadow_on_{false};
  std::atomic<std::uint64_t> sampled_{0};
  mutable std::mutex worker_mutex_;
  std::unique_ptr<ShadowWorker> worker_;
};

}  // namespace calcjit::internal

#endif  // CALCJIT_RUNTIME_SERVING_STATE_H_
