// Compiling a feature set for a backend and evaluating batches with it.
#ifndef CALCJIT_ENGINE_H_
#define CALCJIT_ENGINE_H_

#include "calcjit/cxx20.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "calcjit/cpu.h"
#include "calcjit/feature_set.h"
#include "calcjit/schema.h"
#include "calcjit/status.h"

namespace calcjit {

class Engine;
struct EngineOptions;
template <typename T>
class Result;

namespace internal {
class BatchState;
class CompiledEngine;
Result<Engine> CompileLike(const Engine& base, const EngineOptions& options);
}  // namespace internal

// The backends (all give the same bits). kAuto is the JIT, or the VM when the
// JIT cannot compile the set or it is over EngineOptions::jit_node_limit
// (Engine::backend_note() then says why).
enum class Backend : unsigned char { kReference, kVm, kJit, kAuto };

// "reference", "vm", "jit", "auto".
std::optional<Backend> BackendFromName(std::string_view name);
std::string_view BackendName(Backend backend);
// Whether this build and machine can run `backend` (kAuto always can).
bool IsBackendAvailable(Backend backend);

struct EngineOptions {
  Backend backend = Backend::kAuto;
  // The outputs to compute, in order; empty means every definition. Only
  // these and what they need are computed, and only the inputs they need
  // must be bound.
  std::vector<std::string> outputs;
  // For the VM and the JIT: force an instruction-set tier (tests use it to
  // compare tiers); a tier the CPU lacks is an error.
  Isa isa = Isa::kAuto;
  // Optimizer passes, VM steps and scheduler steps to switch off, by name
  // (docs/DESIGN.md lists them); every backend checks the names, the
  // reference ignores them.
  std::vector<std::string> disabled_passes;
  // VM: items per block (0: the default, 1024).
  std::uint32_t block_size = 0;
  // JIT: sets with more expression nodes than this are not compiled; `auto`
  // then serves them from the VM (and says why in Engine::backend_note()).
  std::size_t jit_node_limit = 1'000'000;
  // JIT: compile the pieces of a large set on several threads.
  bool jit_parallel = true;
  // VM and JIT: the most expression nodes one region computes (0: the
  // default, 1,000); a phase with more is split into several regions, which
  // the JIT compiles as separate functions, in parallel, cached one by one.
  std::uint32_t jit_piece_nodes = 0;
  // Reuse what was compiled before: an engine still alive for the same set
  // and options, JIT code of identical pieces (a process-wide cache bounded
  // in bytes). false compiles everything anew and caches nothing, as compile-
  // time benchmarks need; the results are the same bits either way.
  bool reuse_compiled = true;
};

class Batch;

// How a bound span's length is read at evaluation (docs/LANGUAGE.md,
// "Evaluating", has every rule).
enum class Extent : unsigned char {
  // The span holds exactly the floats the call needs.
  kExact,
  // The span is a buffer that may be longer than a call needs: the call uses
  // its first floats, as many as it needs, and fails when it has fewer. A
  // query input bound so holds one value (or vector) per query. For frontends
  // that bind a buffer once and evaluate different item counts with it (Java).
  kPrefix,
};

// Asked between two queries of a many-query call, never during one: true
// stops the call with a runtime error ("cancelled after k of q queries"); the
// outputs of the k queries done are written, the others are not. Python's
// frontend lets Ctrl-C through this way.
using CancelCheck = std::function<bool()>;

// A feature set compiled for one backend. Immutable and cheap to copy;
// Evaluate may run on many threads at once, each with its own Batch.
class Engine {
 public:
  // Parses nothing, checks the options, optimizes and generates code. Compiling
  // a set (the same FeatureSet, or the same bytes parsed again) with the same
  // options as an engine that is still alive returns that engine at once.
  static Result<Engine> Compile(const FeatureSet& set, const EngineOptions& options = {});
  // Compile on a thread of its own, so the caller's thread goes on serving
  // (JIT compilation of a large set takes up to a second).
  static std::future<Result<Engine>> CompileAsync(FeatureSet set, EngineOptions options = {});

  // The inputs the requested outputs need (in the set's schema order) and
  // the outputs in the requested order.
  const Schema& schema() const;
  // The backend that actually runs (never kAuto).
  Backend backend() const;
  // The instruction-set tier its code uses (kBaseline for the reference interpreter).
  Isa isa() const;
  // Why `auto` did not pick the best backend (the JIT failed or the set is
  // over the limit), or "" when it did or a backend was named.
  const std::string& backend_note() const;

  // Evaluates one query of batch.item_count() items: EvaluateQueries with one
  // query.
  Status Evaluate(Batch& batch) const;
  // Evaluates `item_counts.size()` queries in one call, each on its own
  // (aggregates see one query's items), with the same bits as one call per
  // query. The batch's bindings cover the whole call: item inputs and outputs
  // hold every query's items back to back (N = the sum of item_counts floats,
  // or N * d row-major), a query input one value (or vector) for every query
  // or one per query. Validates every binding first (lengths, inputs without
  // a default left unbound, outputs sharing memory), so that on error nothing
  // is written to the caller's output buffers; zero queries compute nothing
  // and leave every output empty. Runs with round-to-nearest and without
  // FTZ/DAZ whatever the calling thread had set, and restores the thread's
  // settings afterwards. The batch's item_count() is not used.
  Status EvaluateQueries(Batch& batch, std::span<const std::size_t> item_counts) const;
  // The same, asking `cancelled` between two queries.
  Status EvaluateQueries(Batch& batch, std::span<const std::size_t> item_counts,
                         const CancelCheck& cancelled) const;

  const internal::CompiledEngine& compiled() const { return *compiled_; }

 private:
  friend class Batch;
  friend Result<Engine> internal::CompileLike(const Engine& base, const EngineOptions& options);
  explicit Engine(std::shared_ptr<const internal::CompiledEngine> compiled)
      : compiled_(std::move(compiled)) {}
  std::shared_ptr<const internal::CompiledEngine> compiled_;
};

// The data of a call for one engine: the item count (for Evaluate), spans over
// the caller's input floats (never copied) and, per output, either a caller
// span or a buffer the batch owns and reuses. A Batch belongs to one thread at
// a time; it also holds that thread's scratch memory for the engine, so with
// the VM and JIT backends, evaluating again with as many items or fewer (over
// the whole call) allocates nothing. The first `rank` a thread evaluates
// also makes that thread's sorting buffer, once. (The reference interpreter
// allocates a fresh column per node by design: it is the classic interpreter
// the other backends replace.)
class Batch {
 public:
  explicit Batch(const Engine& engine);
  ~Batch();
  Batch(Batch&&) noexcept;
  Batch& operator=(Batch&&) noexcept;
  Batch(const Batch&) = delete;
  Batch& operator=(const Batch&) = delete;

  void SetItemCount(std::size_t item_count);
  std::size_t item_count() const;

  // Binds an input of the engine's schema. The length is checked against the
  // input's shape when evaluating: for one query of n items, n floats for an
  // item scalar, n*d (row-major) for an item vector, 1 for a query scalar, d
  // for a query vector (EvaluateQueries says how many queries).
  Status BindInput(std::string_view name, std::span<const float> values,
                   Extent extent = Extent::kExact);
  Status BindInput(std::size_t input_index, std::span<const float> values,
                   Extent extent = Extent::kExact);
  void UnbindInput(std::size_t input_index);
  // Makes the engine write an output straight into the caller's memory (n
  // floats). It must not overlap an input, another output or the batch's own
  // buffers: evaluating refuses that with an error.
  Status BindOutput(std::string_view name, std::span<float> values, Extent extent = Extent::kExact);
  Status BindOutput(std::size_t output_index, std::span<float> values,
                    Extent extent = Extent::kExact);
  // Forgets every binding (the owned output buffers keep their capacity).
  void Clear();

  // An output after an evaluation, every query's items: the caller's span (its
  // prefix, for Extent::kPrefix) if bound, else the batch's own buffer (valid
  // until the next evaluation with this batch).
  std::span<const float> Output(std::size_t output_index) const;
  Result<std::span<const float>> Output(std::string_view name) const;

 private:
  friend class Engine;
  std::unique_ptr<internal::BatchState> state_;
};

}  // namespace calcjit

#endif  // CALCJIT_ENGINE_H_
