// Serving a feature set that is reloaded while queries run: versions swapped
// atomically, the VM at once and the JIT when its background compilation is
// done, shadow evaluations that compare with another backend or a candidate
// set, and statistics.
#ifndef CALCJIT_SERVING_H_
#define CALCJIT_SERVING_H_

#include "calcjit/cxx20.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "calcjit/engine.h"
#include "calcjit/feature_set.h"
#include "calcjit/schema.h"
#include "calcjit/status.h"

namespace calcjit {

namespace internal {
class ServingState;
class SessionState;
}  // namespace internal

struct ServingOptions {
  // kAuto tiers: each version serves from the VM as soon as it is loaded and
  // from the JIT once a background thread has compiled it and (with
  // measure_tiers) timed it faster than the VM. A named backend is pinned
  // (the version is ready when that backend has compiled it).
  EngineOptions engine;
  // kAuto: after the JIT compiles, the background thread times the VM and
  // the JIT on one synthetic batch of the version's shape (MeasureTiers) and
  // the JIT replaces the VM only if it was faster; false: the JIT replaces
  // the VM as soon as it has compiled.
  bool measure_tiers = true;
};

// The VM and the JIT of one set timed on the same batch: how tiering chooses
// (docs/SERVING.md, "Tier choice"). The bits are the same either way.
struct TierMeasurement {
  bool measured = false;  // false: not timed (`note` says why)
  std::size_t items = 0;  // items in the batch timed
  double vm_ns_per_item = 0.0;
  double jit_ns_per_item = 0.0;
  Backend chosen = Backend::kVm;  // the faster (the VM when not measured)
  // "vm 1,386 ns, jit 1,536 ns per item at 2,000 items (jit/vm 1.11): the vm is faster",
  // or why nothing was timed.
  std::string note;
};

// The most items MeasureTiers times in one batch.
inline constexpr std::size_t kMaxTierMeasurementItems = 16'384;

// Times `vm` and `jit`, engines of one set and options, on one synthetic
// batch of `item_count` items (1 to kMaxTierMeasurementItems; 0: 1,000) in the
// shape of their schema, in alternating rounds of the calling thread's CPU
// time, and keeps the best round of each. Takes some tens of milliseconds;
// tiered serving runs it on its background thread, never on a caller's. A
// program with no region to compile runs the same kernels on both: not
// timed, the VM chosen.
Result<TierMeasurement> MeasureTiers(const Engine& vm, const Engine& jit,
                                     std::size_t item_count = 0);
// Compiles `set` for the VM and the JIT (`options` but the backend) and times
// them: for `calcjit check` and `calcjit dump --tiers`.
Result<TierMeasurement> MeasureTiers(const FeatureSet& set, const EngineOptions& options = {},
                                     std::size_t item_count = 0);

// What shadow evaluations compare with.
struct ShadowOptions {
  // The fraction of evaluations (0 to 1) that are also computed by the shadow
  // and compared, output by output, item by item, bit for bit.
  double fraction = 0.0;
  // The shadow's backend (kReference: the oracle).
  Backend backend = Backend::kReference;
  // A candidate set to compare with instead of the serving set itself (the
  // second stage of a rollout: compute both, compare, then switch). Outputs
  // of the serving version that the candidate lacks are not compared.
  std::shared_ptr<const FeatureSet> candidate;
  // How many mismatches to keep for reading (all are counted).
  std::size_t max_recorded = 32;
};

// One value that differed: the serving result and the shadow's.
struct Mismatch {
  std::uint64_t version = 0;
  std::string output;
  std::size_t item = 0;
  std::uint32_t served_bits = 0;
  std::uint32_t shadow_bits = 0;

  // "score[17]: served 0x3F000000, shadow 0x3F000001 (version 3)"
  std::string ToString() const;
};

// Counters of one version since it was loaded.
struct VersionStats {
  std::uint64_t version = 0;
  Backend backend = Backend::kVm;  // what serves it now
  std::string backend_note;        // why the JIT does not serve it, if so
  bool jit_pending = false;        // its JIT compilation is still running
  double parse_ms = 0.0;           // the FeatureSet's parse, when loaded from bytes
  double vm_compile_ms = 0.0;      // 0 when the VM was not compiled
  double jit_compile_ms = 0.0;     // 0 until the JIT has compiled it
  std::uint64_t evaluations = 0;
  std::uint64_t items = 0;
  std::uint64_t errors = 0;  // evaluations refused (bad bindings)
  std::uint64_t shadow_evaluations = 0;
  std::uint64_t shadow_dropped = 0;  // sampled, but not compared (queue full, or the shadow
                                     // cannot run on this version: shadow_note says why)
  std::string shadow_note;
  std::uint64_t mismatches = 0;  // values that differed
  // kAuto with measure_tiers: the VM and the JIT timed once the JIT compiled
  // (measured is false until then); `backend` is `tiers.chosen` after it.
  TierMeasurement tiers;
};

class Session;

// The current version of a set, replaced by Reload. Thread-safe: any number
// of threads evaluate (each with its own Session) while another reloads.
class ServingEngine {
 public:
  // Compiles `set` as version 1.
  static Result<ServingEngine> Create(const FeatureSet& set, const ServingOptions& options = {});
  static Result<ServingEngine> Load(std::string_view bytes, Format format,
                                    const ServingOptions& options = {},
                                    const LoadOptions& load = {});

  ServingEngine(ServingEngine&&) noexcept;
  ServingEngine& operator=(ServingEngine&&) noexcept;
  ~ServingEngine();

  // Parses (for Reload of bytes), checks and compiles off the hot path, then
  // swaps: evaluations that started keep their version to the end; the old
  // version is freed when the last of them finishes. On error the current
  // version keeps serving and the error is returned. Returns the new version.
  Result<std::uint64_t> Reload(const FeatureSet& set);
  // `load` says where the set's models are (LoadOptions): a set parsed from
  // bytes has no file, so its models need a model root or their bytes.
  Result<std::uint64_t> Reload(std::string_view bytes, Format format, const LoadOptions& load = {});

  // The version serving now, and its schema.
  std::uint64_t version() const;
  Schema schema() const;
  VersionStats Stats() const;

  // Waits until the current version's background JIT compilation (if any)
  // has finished; tests and benchmarks use it.
  void WaitForJit() const;

  // Shadow evaluations (off the caller's thread, sampled; they allocate, the
  // served evaluation does not). fraction 0 switches them off. A shadow that
  // cannot run on what the current version's sessions bind (an input it needs
  // that the version does not read and that has no default, an input of
  // another shape, no served output in common) is refused with an error
  // naming the input and the version; if a later reload makes it so, the
  // samples are dropped and VersionStats::shadow_note says why.
  Status SetShadow(const ShadowOptions& options);
  // Waits until every sampled shadow evaluation so far has been compared.
  void DrainShadow() const;
  // The first mismatches recorded (at most ShadowOptions::max_recorded).
  std::vector<Mismatch> Mismatches() const;

 private:
  friend class Session;
  explicit ServingEngine(std::shared_ptr<internal::ServingState> state);
  std::shared_ptr<internal::ServingState> state_;
};

// One thread's bindings for a ServingEngine: the caller's memory for inputs
// and outputs, by name, kept across evaluations and across versions whose
// schema is the same. A reload that changes the schema makes the next
// evaluation fail with an error naming both versions; Rebind() accepts the new
// schema (then bind again what changed). Evaluating again with as many items
// or fewer (over the whole call) allocates nothing, except the first
// evaluation on a new version or backend (its scratch memory).
class Session {
 public:
  explicit Session(const ServingEngine& engine);
  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;
  ~Session();

  // The item count of Evaluate().
  void SetItemCount(std::size_t item_count);
  // Binds the caller's memory; lengths are checked when evaluating, by the
  // rules of Engine::EvaluateQueries (docs/LANGUAGE.md, "Evaluating").
  Status BindInput(std::string_view name, std::span<const float> values,
                   Extent extent = Extent::kExact);
  Status BindOutput(std::string_view name, std::span<float> values, Extent extent = Extent::kExact);
  // The same by position in schema() (no lookup by name: for frontends that
  // bind every input and output on every call).
  Status BindInput(std::size_t input_index, std::span<const float> values,
                   Extent extent = Extent::kExact);
  Status BindOutput(std::size_t output_index, std::span<float> values,
                    Extent extent = Extent::kExact);
  // Forgets every binding (unbound inputs take their defaults again, outputs
  // go to the session's own buffers); the scratch memory stays.
  void Clear();
  // Takes the current version's schema; keeps the bindings (and the session's
  // own output buffers) whose names it still has.
  void Rebind();
  // The schema the bindings are for.
  const Schema& schema() const;

  // Evaluates one query of SetItemCount() items on the current version:
  // EvaluateQueries with one query.
  Status Evaluate();
  // Evaluates several queries in one call, with the bindings and guarantees of
  // Engine::EvaluateQueries. Every query runs on one version, the current one
  // when the call starts (a reload during the call cannot split it); zero
  // queries check the bindings against it and compute nothing. Statistics
  // count one evaluation per query.
  Status EvaluateQueries(std::span<const std::size_t> item_counts);
  // The same, asking `cancelled` between two queries.
  Status EvaluateQueries(std::span<const std::size_t> item_counts, const CancelCheck& cancelled);
  // The version the last evaluation ran on (0 before the first).
  std::uint64_t version() const;
  // An output after an evaluation, every query's items: the caller's span (its
  // prefix, for Extent::kPrefix) if bound, else the session's own buffer
  // (valid until the next evaluation or Rebind).
  Result<std::span<const float>> Output(std::string_view name) const;
  std::span<const float> Output(std::size_t output_index) const;

 private:
  std::unique_ptr<internal::SessionState> state_;
};

}  // namespace calcjit

#endif  // CALCJIT_SERVING_H_
