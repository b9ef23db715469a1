// Engine and Batch: choosing a backend, validating bindings, evaluating.
#include "calcjit/engine.h"

#include <string>

#include "backend/reference/interpreter.h"
#include "backend/vm/isa.h"
#include "backend/vm/vm.h"
#include "math/fp_env.h"
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
        workspace_(engine_->executable().NewWorkspace()) {}

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
};

}  // namespace internal

namespace {

std::string ShapeName(const InputInfo& input) {
  std::string shape = input.scope == Scope::kQuery ? "a query " : "an item ";
  shape += input.dimension > 0 ? "vector of dimension " + std::to_string(input.dimension)
                               : "scalar";
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

// The backend `auto` picks: the fastest one this build can run.
Backend BestAvailableBackend() { return Backend::kVm; }

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

bool IsBackendAvailable(Backend backend) { return backend != Backend::kJit; }

std::optional<Isa> IsaFromName(std::string_view name) {
  if (name == "auto") return Isa::kAuto;
  if (name == "x86-64" || name == "baseline") return Isa::kBaseline;
  if (name == "avx2" || name == "x86-64-v3") return Isa::kAvx2;
  if (name == "avx512" || name == "x86-64-v4") return Isa::kAvx512;
  return std::nullopt;
}

std::string_view IsaName(Isa isa) {
  switch (isa) {
    case Isa::kAuto:
      return "auto";
    case Isa::kBaseline:
      return "x86-64";
    case Isa::kAvx2:
      return "avx2";
    case Isa::kAvx512:
      return "avx512";
  }
  return "?";
}

bool IsIsaSupported(Isa isa) { return vm::CpuSupports(isa); }

Result<Engine> Engine::Compile(const FeatureSet& set, const EngineOptions& options) {
  // Constant folding computes results: it runs in the contract's environment
  // too (round to nearest, no FTZ/DAZ, exceptions masked), not the caller's.
  const math::ScopedFpEnv fp_env;
  Backend backend = options.backend;
  if (backend == Backend::kAuto) backend = BestAvailableBackend();
  if (!IsBackendAvailable(backend)) {
    return RuntimeError("backend '" + std::string(BackendName(backend)) +
                        "' is not available in this build (available: reference, vm)");
  }
  if (options.isa != Isa::kAuto && !IsIsaSupported(options.isa)) {
    return UserError("this CPU cannot run the " + std::string(IsaName(options.isa)) +
                     " instruction set (the best it has is " +
                     std::string(IsaName(vm::DetectIsa())) + ")");
  }
  Result<ir::EvalPlan> plan = ir::MakePlan(set.loaded().set, options.outputs);
  if (!plan.ok()) return plan.status();
  auto shared_plan = std::make_shared<const ir::EvalPlan>(std::move(plan).value());
  std::unique_ptr<backend::Executable> executable;
  Isa isa = Isa::kBaseline;
  if (backend == Backend::kVm) {
    vm::VmOptions vm_options;
    vm_options.isa = isa = options.isa == Isa::kAuto ? vm::DetectIsa() : options.isa;
    vm_options.block_size = options.block_size;
    vm_options.disabled_passes = options.disabled_passes;
    Result<std::unique_ptr<backend::Executable>> made =
        vm::MakeVmExecutable(shared_plan, vm_options);
    if (!made.ok()) return made.status();
    executable = std::move(made).value();
  } else {
    executable = backend::MakeReferenceExecutable(shared_plan);
  }
  return Engine(std::make_shared<const internal::CompiledEngine>(std::move(shared_plan), backend,
                                                                 isa, std::move(executable)));
}

const Schema& Engine::schema() const { return compiled_->schema(); }
Backend Engine::backend() const { return compiled_->backend(); }
Isa Engine::isa() const { return compiled_->isa(); }

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
                             ShapeName(input) + " needs " + std::to_string(expected) +
                             " for " + std::to_string(n) + " items",
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

void Batch::SetItemCount(std::size_t item_count) { state_->item_count_ = item_count; }
std::size_t Batch::item_count() const { return state_->item_count_; }

Status Batch::BindInput(std::string_view name, std::span<const float> values) {
  const std::optional<std::size_t> index = state_->engine_->schema().FindInput(name);
  if (!index) {
    return UserError("unknown input '" + std::string(name) +
                         "': the engine's outputs do not read it",
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
