// Batch, and evaluating one with an Engine: the binding rules are in
// bindings.cc, the per-query loop in query_runner.cc.
#include <memory>
#include <string>

#include "calcjit/engine.h"
#include "runtime/bindings.h"
#include "runtime/internal.h"
#include "runtime/query_runner.h"

namespace calcjit {

namespace internal {

// Everything a Batch holds, sized for its engine once, so that evaluating
// again with the same or fewer items allocates nothing.
class BatchState {
 public:
  explicit BatchState(std::shared_ptr<const CompiledEngine> engine)
      : engine_(std::move(engine)),
        bindings_(engine_->schema()),
        plan_(engine_->schema()),
        workspace_(engine_->executable().NewWorkspace()) {}

  static constexpr BindingOwner kOwner{"batch", 0};

  std::shared_ptr<const CompiledEngine> engine_;
  std::size_t item_count_ = 0;
  BindingTable bindings_;
  // The last call: its outputs stay readable (a failed call changes none).
  CallPlan plan_;
  std::unique_ptr<Workspace> workspace_;
};

}  // namespace internal

namespace {

Status EvaluateBatch(const std::shared_ptr<const internal::CompiledEngine>& compiled,
                     internal::BatchState& state, std::span<const std::size_t> item_counts,
                     const CancelCheck* cancelled) {
  if (state.engine_ != compiled) {
    return UserError("this batch was made for another engine; make a Batch for this one");
  }
  CALCJIT_RETURN_IF_ERROR(internal::PrepareCall(compiled->schema(), state.bindings_, item_counts,
                                                internal::BatchState::kOwner, state.plan_));
  return internal::RunQueries(compiled->executable(), state.workspace_.get(), state.plan_,
                              cancelled);
}

}  // namespace

Status Engine::Evaluate(Batch& batch) const {
  return EvaluateBatch(compiled_, *batch.state_,
                       std::span<const std::size_t>(&batch.state_->item_count_, 1), nullptr);
}

Status Engine::EvaluateQueries(Batch& batch, std::span<const std::size_t> item_counts) const {
  return EvaluateBatch(compiled_, *batch.state_, item_counts, nullptr);
}

Status Engine::EvaluateQueries(Batch& batch, std::span<const std::size_t> item_counts,
                               const CancelCheck& cancelled) const {
  return EvaluateBatch(compiled_, *batch.state_, item_counts, &cancelled);
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

Status Batch::BindInput(std::string_view name, std::span<const float> values, Extent extent) {
  return state_->bindings_.BindInput(state_->engine_->schema(), name, values, extent,
                                     internal::BatchState::kOwner);
}

Status Batch::BindInput(std::size_t input_index, std::span<const float> values, Extent extent) {
  return state_->bindings_.BindInput(input_index, values, extent);
}

void Batch::UnbindInput(std::size_t input_index) {
  state_->bindings_.UnbindInput(input_index);
}

Status Batch::BindOutput(std::string_view name, std::span<float> values, Extent extent) {
  return state_->bindings_.BindOutput(state_->engine_->schema(), name, values, extent,
                                      internal::BatchState::kOwner);
}

Status Batch::BindOutput(std::size_t output_index, std::span<float> values, Extent extent) {
  return state_->bindings_.BindOutput(output_index, values, extent);
}

void Batch::Clear() {
  state_->bindings_.Clear();
}

std::span<const float> Batch::Output(std::size_t output_index) const {
  if (output_index >= state_->engine_->schema().outputs.size()) return {};
  return state_->plan_.output(output_index);
}

Result<std::span<const float>> Batch::Output(std::string_view name) const {
  const std::optional<std::size_t> index = state_->engine_->schema().FindOutput(name);
  if (!index) return internal::UnknownOutputError(name, internal::BatchState::kOwner);
  return std::span<const float>(state_->plan_.output(*index));
}

}  // namespace calcjit
