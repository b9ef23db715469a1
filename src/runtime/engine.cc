// Engine and Batch: choosing a backend, validating bindings, evaluating.
#include "calcjit/engine.h"

#include <algorithm>
#include <future>
#include <string>

#include "backend/jit/compiler.h"
#include "backend/reference/interpreter.h"
#include "math/fp_env.h"
#include "runtime/caches.h"
#include "runtime/internal.h"

namespace calcjit {

namespace internal {

// Everything a Batch holds, sized for its engine once, so that evaluating
// again with the same or fewer items allocates nothing.
class BatchState {
 public:
  explicit BatchState(std::shared_ptr<const CompiledEngine> engine)
      : engine_(std::move(engine)),
        inputs_(engine_->schema().inputs.size()),
        input_bound_(inputs_.size(), false),
        views_(inputs_.size()),
        bound_outputs_(engine_->schema().outputs.size()),
        output_bound_(bound_outputs_.size(), false),
        owned_outputs_(bound_outputs_.size()),
        output_pointers_(bound_outputs_.size(), nullptr),
        results_(bound_outputs_.size()),
        workspace_(engine_->executable().NewWorkspace()) {
    memory_ranges_.reserve(inputs_.size() + bound_outputs_.size());
  }

  // A bound buffer, for the overlap check: [begin, end) in bytes, whose it is.
  struct MemoryRange {
    std::uintptr_t begin;
    std::uintptr_t end;
    std::size_t index;
    bool output;
  };

  std::shared_ptr<const CompiledEngine> engine_;
  std::size_t item_count_ = 0;
  std::vector<std::span<const float>> inputs_;
  std::vector<bool> input_bound_;
  std::vector<backend::InputView> views_;
  std::vector<std::span<float>> bound_outputs_;
  std::vector<bool> output_bound_;
  std::vector<std::vector<float>> owned_outputs_;
  std::vector<float*> output_pointers_;
  std::vector<std::span<float>> results_;
  std::unique_ptr<Workspace> workspace_;
  std::vector<MemoryRange> memory_ranges_;  // reserved once: checking allocates nothing
};

}  // namespace internal

namespace {

std::string ShapeName(const InputInfo& input) {
  std::string shape = input.scope == Scope::kQuery ? "a query " : "an item ";
  shape +=
      input.dimension > 0 ? "vector of dimension " + std::to_string(input.dimension) : "scalar";
  return shape;
}

backend::InputLayout LayoutOf(const InputInfo& input) {
  if (input.dimension > 0) {
    return input.scope == Scope::kItem ? backend::InputLayout::kItemVector
                                       : backend::InputLayout::kQueryVector;
  }
  return input.scope == Scope::kItem ? backend::InputLayout::kColumn
                                     : backend::InputLayout::kBroadcast;
}

// Engines compiled recently and still in use, by set and options: compiling
// the same set (the same checked set object, which the parse cache hands out
// again for the same bytes) with the same options returns the engine already
// serving it, without optimizing or generating code. The key holds the set's
// address; a live engine keeps its set alive, so the address cannot be reused
// while the entry can still be found.
internal::WeakCache<internal::CompiledEngine>& EngineCache() {
  static auto* cache = new internal::WeakCache<internal::CompiledEngine>(8);
  return *cache;
}

std::string EngineKey(const ir::CheckedSet* set, const EngineOptions& options, Isa isa) {
  std::string key = std::to_string(reinterpret_cast<std::uintptr_t>(set));
  key += "|" + std::string(BackendName(options.backend)) + "|" + std::string(IsaName(isa));
  key += "|" + jit::CompilerVersion() + "|outputs";
  for (const std::string& output : options.outputs)
    key += "," + std::to_string(output.size()) + ":" + output;
  key += "|off";
  for (const std::string& pass : options.disabled_passes) key += "," + pass;
  key += "|" + std::to_string(options.block_size) + "|" + std::to_string(options.jit_node_limit) +
         "|" + std::to_string(options.jit_piece_nodes);
  return key;
}

// The backends read inputs and write outputs in blocks, in any order (the JIT
// tells LLVM the iterations are independent), so an output that shares memory
// with an input or another output would give a wrong answer, not an error.
// Refuse it instead. Inputs may share memory with each other. A few buffers
// are compared pair by pair: branches that always go the same way, where a
// sort of addresses in no particular order mispredicts (about 0.1 us for the
// eleven buffers of a ten-input sum). Beyond that, sorting the bound buffers
// by address and sweeping keeps this O(k log k) for sets with hundreds of
// outputs.
Status CheckOutputsOverlapNothing(const Schema& schema, internal::BatchState& state) {
  using Range = internal::BatchState::MemoryRange;
  std::vector<Range>& ranges = state.memory_ranges_;
  ranges.clear();
  auto add = [&](const float* data, std::size_t size, std::size_t index, bool output) {
    if (size == 0) return;
    const auto begin = reinterpret_cast<std::uintptr_t>(data);
    ranges.push_back(Range{begin, begin + size * sizeof(float), index, output});
  };
  bool any_output = false;
  for (std::size_t k = 0; k < schema.outputs.size(); ++k) {
    if (!state.output_bound_[k]) continue;
    add(state.bound_outputs_[k].data(), state.bound_outputs_[k].size(), k, true);
    any_output = true;
  }
  if (!any_output) return Status::Ok();
  for (std::size_t slot = 0; slot < schema.inputs.size(); ++slot) {
    if (state.input_bound_[slot])
      add(state.inputs_[slot].data(), state.inputs_[slot].size(), slot, false);
  }
  auto overlap_error = [&](const Range& output, const Range& other) {
    const auto name = [&](const Range& r) {
      return r.output ? "output '" + schema.outputs[r.index] + "'"
                      : "input '" + schema.inputs[r.index].name + "'";
    };
    return UserError(name(output) + " shares memory with " + name(other) +
                         "; each output needs a buffer of its own",
                     schema.outputs[output.index]);
  };
  constexpr std::size_t kPairwiseLimit = 16;
  if (ranges.size() <= kPairwiseLimit) {
    // Outputs come first in `ranges`: each output against every later range.
    for (std::size_t i = 0; i < ranges.size() && ranges[i].output; ++i) {
      for (std::size_t j = i + 1; j < ranges.size(); ++j) {
        if (ranges[i].begin < ranges[j].end && ranges[j].begin < ranges[i].end) {
          // Two outputs: the later one is the one that shares.
          return ranges[j].output ? overlap_error(ranges[j], ranges[i])
                                  : overlap_error(ranges[i], ranges[j]);
        }
      }
    }
    return Status::Ok();
  }
  std::sort(ranges.begin(), ranges.end(),
            [](const Range& a, const Range& b) { return a.begin < b.begin; });
  // The earlier range reaching furthest, and the earlier output reaching
  // furthest: a range overlaps an earlier one iff it starts before its end.
  const Range* furthest = nullptr;
  const Range* furthest_output = nullptr;
  for (const Range& r : ranges) {
    const Range* other = r.output ? furthest : furthest_output;
    if (other != nullptr && r.begin < other->end) {
      return r.output ? overlap_error(r, *other) : overlap_error(*other, r);
    }
    if (furthest == nullptr || r.end > furthest->end) furthest = &r;
    if (r.output && (furthest_output == nullptr || r.end > furthest_output->end)) {
      furthest_output = &r;
    }
  }
  return Status::Ok();
}

}  // namespace

std::optional<Backend> BackendFromName(std::string_view name) {
  if (name == "reference") return Backend::kReference;
  if (name == "vm") return Backend::kVm;
  if (name == "jit") return Backend::kJit;
  if (name == "auto") return Backend::kAuto;
  return std::nullopt;
}

std::string_view BackendName(Backend backend) {
  switch (backend) {
    case Backend::kReference:
      return "reference";
    case Backend::kVm:
      return "vm";
    case Backend::kJit:
      return "jit";
    case Backend::kAuto:
      return "auto";
  }
  return "?";
}

bool IsBackendAvailable(Backend) {
  return true;
}

namespace {

// The tier an engine's code uses: the one asked for, or the CPU's best.
Result<Isa> ResolveIsa(Isa requested) {
  if (requested == Isa::kAuto) return BestIsa();
  if (!IsIsaSupported(requested)) {
    return UserError("this CPU cannot run the " + std::string(IsaName(requested)) +
                     " instruction set (the best it has is " + std::string(IsaName(BestIsa())) +
                     ")");
  }
  return requested;
}

// The one place a backend is chosen and built. `prepared` is the program of
// an engine for the same set and options, or nullptr to prepare it here.
// kAuto is the JIT, or the VM with the reason when the JIT cannot compile
// the set.
Result<std::shared_ptr<const internal::CompiledEngine>> Build(
    std::shared_ptr<const ir::EvalPlan> plan, const EngineOptions& options, Isa isa,
    std::shared_ptr<const internal::PreparedProgram> prepared) {
  if (options.backend == Backend::kReference) {
    return std::make_shared<const internal::CompiledEngine>(
        plan, Backend::kReference, Isa::kBaseline, backend::MakeReferenceExecutable(plan), nullptr);
  }
  if (prepared == nullptr) {
    Result<std::shared_ptr<const internal::PreparedProgram>> made =
        internal::Prepare(plan, options);
    if (!made.ok()) return made.status();
    prepared = std::move(made).value();
  }
  Backend backend = options.backend == Backend::kVm ? Backend::kVm : Backend::kJit;
  std::string note;
  Result<std::unique_ptr<backend::Executable>> executable =
      internal::CompileProgram(*prepared, backend, isa, options);
  if (!executable.ok() && options.backend == Backend::kAuto) {
    note = "served by the VM: " + executable.status().message();
    backend = Backend::kVm;
    executable = internal::CompileProgram(*prepared, backend, isa, options);
  }
  if (!executable.ok()) return executable.status();
  return std::make_shared<const internal::CompiledEngine>(std::move(plan), backend, isa,
                                                          std::move(executable).value(),
                                                          std::move(prepared), std::move(note));
}

// Whether two options make the same program (they may differ in backend,
// tier and code generation only).
bool SameProgram(const EngineOptions& a, const EngineOptions& b) {
  return a.outputs == b.outputs && a.disabled_passes == b.disabled_passes &&
         a.jit_piece_nodes == b.jit_piece_nodes;
}

}  // namespace

Result<Engine> Engine::Compile(const FeatureSet& set, const EngineOptions& options) {
  // Constant folding computes results: it runs in the contract's environment
  // too (round to nearest, no FTZ/DAZ, exceptions masked), not the caller's.
  const math::ScopedFpEnv fp_env;
  CALCJIT_RETURN_IF_ERROR(internal::CheckPassNames(options.disabled_passes));
  Result<Isa> isa = ResolveIsa(options.isa);
  if (!isa.ok()) return isa.status();
  const std::string key = EngineKey(set.loaded().set.get(), options, *isa);
  if (options.reuse_compiled) {
    if (std::shared_ptr<const internal::CompiledEngine> cached = EngineCache().Find(key)) {
      return Engine(std::move(cached));
    }
  }
  Result<ir::EvalPlan> plan = ir::MakePlan(set.loaded().set, options.outputs);
  if (!plan.ok()) return plan.status();
  Result<std::shared_ptr<const internal::CompiledEngine>> compiled =
      Build(std::make_shared<const ir::EvalPlan>(std::move(plan).value()), options, *isa, nullptr);
  if (!compiled.ok()) return compiled.status();
  if (options.reuse_compiled) EngineCache().Add(key, *compiled);
  return Engine(std::move(compiled).value());
}

Result<Engine> internal::CompileLike(const Engine& base, const EngineOptions& options) {
  const math::ScopedFpEnv fp_env;
  CALCJIT_RETURN_IF_ERROR(CheckPassNames(options.disabled_passes));
  Result<Isa> isa = ResolveIsa(options.isa);
  if (!isa.ok()) return isa.status();
  const CompiledEngine& compiled = base.compiled();
  const std::string key = EngineKey(compiled.plan().set.get(), options, *isa);
  if (options.reuse_compiled) {
    if (std::shared_ptr<const CompiledEngine> cached = EngineCache().Find(key)) {
      return Engine(std::move(cached));
    }
  }
  std::shared_ptr<const PreparedProgram> prepared = compiled.prepared();
  if (prepared != nullptr && !SameProgram(prepared->options, options)) prepared = nullptr;
  std::shared_ptr<const ir::EvalPlan> plan = compiled.shared_plan();
  if (prepared == nullptr) {
    Result<ir::EvalPlan> other = ir::MakePlan(compiled.plan().set, options.outputs);
    if (!other.ok()) return other.status();
    plan = std::make_shared<const ir::EvalPlan>(std::move(other).value());
  }
  Result<std::shared_ptr<const CompiledEngine>> made = Build(plan, options, *isa, prepared);
  if (!made.ok()) return made.status();
  if (options.reuse_compiled) EngineCache().Add(key, *made);
  return Engine(std::move(made).value());
}

std::future<Result<Engine>> Engine::CompileAsync(FeatureSet set, EngineOptions options) {
  return std::async(std::launch::async, [set = std::move(set), options = std::move(options)] {
    return Compile(set, options);
  });
}

const Schema& Engine::schema() const {
  return compiled_->schema();
}
Backend Engine::backend() const {
  return compiled_->backend();
}
Isa Engine::isa() const {
  return compiled_->isa();
}
const std::string& Engine::backend_note() const {
  return compiled_->note();
}

Status Engine::Evaluate(Batch& batch) const {
  internal::BatchState& state = *batch.state_;
  if (state.engine_ != compiled_) {
    return UserError("this batch was made for another engine; make a Batch for this one");
  }
  const Schema& schema = compiled_->schema();
  const std::size_t n = state.item_count_;

  // Validate everything before computing anything, so that on error the
  // caller's output buffers stay untouched.
  for (std::size_t slot = 0; slot < schema.inputs.size(); ++slot) {
    const InputInfo& input = schema.inputs[slot];
    backend::InputView& view = state.views_[slot];
    view.dimension = input.dimension;
    if (state.input_bound_[slot]) {
      const std::size_t expected = input.ValueCount(n);
      if (state.inputs_[slot].size() != expected) {
        return UserError("input '" + input.name + "' has " +
                             std::to_string(state.inputs_[slot].size()) + " floats, but " +
                             ShapeName(input) + " needs " + std::to_string(expected) + " for " +
                             std::to_string(n) + " items",
                         input.name);
      }
      view.data = state.inputs_[slot].data();
      view.layout = LayoutOf(input);
    } else if (input.default_value) {
      view.data = &*input.default_value;
      view.layout = backend::InputLayout::kBroadcast;
    } else {
      return UserError("input '" + input.name + "' is not bound and has no default value",
                       input.name);
    }
  }
  for (std::size_t k = 0; k < schema.outputs.size(); ++k) {
    if (state.output_bound_[k] && state.bound_outputs_[k].size() != n) {
      return UserError("output '" + schema.outputs[k] + "' is bound to " +
                           std::to_string(state.bound_outputs_[k].size()) +
                           " floats, but the batch has " + std::to_string(n) + " items",
                       schema.outputs[k]);
    }
  }
  if (Status overlap = CheckOutputsOverlapNothing(schema, state); !overlap.ok()) return overlap;
  for (std::size_t k = 0; k < schema.outputs.size(); ++k) {
    std::span<float> target = state.bound_outputs_[k];
    if (!state.output_bound_[k]) {
      std::vector<float>& owned = state.owned_outputs_[k];
      if (owned.size() != n) owned.resize(n);  // no allocation within the capacity
      target = owned;
    }
    state.output_pointers_[k] = target.data();
    state.results_[k] = target;
  }

  const math::ScopedFpEnv fp_env;
  backend::EvalArgs args;
  args.item_count = n;
  args.inputs = state.views_;
  args.outputs = state.output_pointers_;
  return compiled_->executable().Run(args, state.workspace_.get());
}

Batch::Batch(const Engine& engine)
    : state_(std::make_unique<internal::BatchState>(engine.compiled_)) {}
Batch::~Batch() = default;
Batch::Batch(Batch&&) noexcept = default;
Batch& Batch::operator=(Batch&&) noexcept = default;

void Batch::SetItemCount(std::size_t item_count) {
  state_->item_count_ = item_count;
}
std::size_t Batch::item_count() const {
  return state_->item_count_;
}

Status Batch::BindInput(std::string_view name, std::span<const float> values) {
  const std::optional<std::size_t> index = state_->engine_->schema().FindInput(name);
  if (!index) {
    return UserError(
        "unknown input '" + std::string(name) + "': the engine's outputs do not read it",
        std::string(name));
  }
  return BindInput(*index, values);
}

Status Batch::BindInput(std::size_t input_index, std::span<const float> values) {
  if (input_index >= state_->inputs_.size()) {
    return UserError("input index " + std::to_string(input_index) + " is out of range (" +
                     std::to_string(state_->inputs_.size()) + " inputs)");
  }
  state_->inputs_[input_index] = values;
  state_->input_bound_[input_index] = true;
  return Status::Ok();
}

void Batch::UnbindInput(std::size_t input_index) {
  if (input_index < state_->inputs_.size()) state_->input_bound_[input_index] = false;
}

Status Batch::BindOutput(std::string_view name, std::span<float> values) {
  const std::optional<std::size_t> index = state_->engine_->schema().FindOutput(name);
  if (!index) {
    return UserError("unknown output '" + std::string(name) + "': the engine does not compute it",
                     std::string(name));
  }
  return BindOutput(*index, values);
}

Status Batch::BindOutput(std::size_t output_index, std::span<float> values) {
  if (output_index >= state_->bound_outputs_.size()) {
    return UserError("output index " + std::to_string(output_index) + " is out of range (" +
                     std::to_string(state_->bound_outputs_.size()) + " outputs)");
  }
  state_->bound_outputs_[output_index] = values;
  state_->output_bound_[output_index] = true;
  return Status::Ok();
}

void Batch::Clear() {
  std::fill(state_->input_bound_.begin(), state_->input_bound_.end(), false);
  std::fill(state_->output_bound_.begin(), state_->output_bound_.end(), false);
}

std::span<const float> Batch::Output(std::size_t output_index) const {
  if (output_index >= state_->results_.size()) return {};
  return state_->results_[output_index];
}

Result<std::span<const float>> Batch::Output(std::string_view name) const {
  const std::optional<std::size_t> index = state_->engine_->schema().FindOutput(name);
  if (!index) return UserError("unknown output '" + std::string(name) + "'", std::string(name));
  return std::span<const float>(state_->results_[*index]);
}

}  // namespace calcjit
