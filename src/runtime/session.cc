// Session: one thread's bindings for a ServingEngine, evaluated on the version
// serving when a call starts. The binding rules are in bindings.cc, the
// per-query loop in query_runner.cc.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "calcjit/serving.h"
#include "runtime/bindings.h"
#include "runtime/internal.h"
#include "runtime/query_runner.h"
#include "runtime/serving_state.h"

namespace calcjit {

namespace internal {

class SessionState {
 public:
  explicit SessionState(std::shared_ptr<ServingState> serving) : serving_(std::move(serving)) {
    const std::shared_ptr<const Version> version = serving_->Current();
    TakeSchema(*version);
    bindings_ = BindingTable(schema_);
  }

  // Bindings by index in `version`'s schema (nothing bound yet, or remapped).
  void TakeSchema(const Version& version) {
    schema_ = version.schema;
    schema_version_ = version.id;
    plan_ = CallPlan(schema_);
  }

  BindingOwner owner() const { return BindingOwner{"session", schema_version_}; }
  // Session::Evaluate and EvaluateQueries.
  Status Evaluate(std::span<const std::size_t> item_counts, const CancelCheck* cancelled);

  std::shared_ptr<ServingState> serving_;
  Schema schema_;
  std::uint64_t schema_version_ = 0;
  std::size_t item_count_ = 0;
  BindingTable bindings_;
  // The last call: its outputs stay readable (a failed call changes none).
  CallPlan plan_;
  // The engine the scratch memory is for, and the version the last
  // evaluation ran on.
  std::shared_ptr<const Engine> engine_;
  std::unique_ptr<Workspace> workspace_;
  std::uint64_t last_version_ = 0;
};

namespace {

bool SameSchema(const Schema& a, const Schema& b) {
  if (a.outputs != b.outputs || a.inputs.size() != b.inputs.size()) return false;
  for (std::size_t k = 0; k < a.inputs.size(); ++k) {
    const InputInfo& x = a.inputs[k];
    const InputInfo& y = b.inputs[k];
    if (x.name != y.name || x.scope != y.scope || x.dimension != y.dimension ||
        x.default_value.has_value() != y.default_value.has_value()) {
      return false;
    }
  }
  return true;
}

// Copies one query of a sampled call for the shadow worker.
void SubmitShadow(ServingState& serving, const std::shared_ptr<const Version>& version,
                  std::shared_ptr<const ShadowOptions> options, const CallPlan& plan,
                  std::size_t query, std::size_t first_item) {
  ShadowWorker* worker = serving.worker();
  if (worker == nullptr) return;
  const std::size_t items = plan.item_counts()[query];
  ShadowJob job;
  job.version = version;
  job.options = std::move(options);
  job.item_count = items;
  for (std::size_t slot = 0; slot < plan.inputs().size(); ++slot) {
    if (!plan.inputs()[slot].bound) {
      job.inputs.emplace_back(std::nullopt);
      continue;
    }
    const std::span<const float> values = plan.QueryInput(slot, query, first_item, items);
    job.inputs.emplace_back(std::in_place, values.begin(), values.end());
  }
  for (std::size_t k = 0; k < version->schema.outputs.size(); ++k) {
    const std::span<const float> out = plan.output(k).subspan(first_item, items);
    job.outputs.emplace_back(out.begin(), out.end());
  }
  const Version& stats = *version;
  if (worker->Submit(std::move(job))) {
    stats.shadow_evaluations.fetch_add(1, std::memory_order_relaxed);
  } else {
    stats.shadow_dropped.fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace

}  // namespace internal

Session::Session(const ServingEngine& engine)
    : state_(std::make_unique<internal::SessionState>(engine.state_)) {}
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;
Session::~Session() = default;

void Session::SetItemCount(std::size_t item_count) {
  state_->item_count_ = item_count;
}

Status Session::BindInput(std::string_view name, std::span<const float> values, Extent extent) {
  return state_->bindings_.BindInput(state_->schema_, name, values, extent, state_->owner());
}

Status Session::BindInput(std::size_t input_index, std::span<const float> values, Extent extent) {
  return state_->bindings_.BindInput(input_index, values, extent);
}

Status Session::BindOutput(std::string_view name, std::span<float> values, Extent extent) {
  return state_->bindings_.BindOutput(state_->schema_, name, values, extent, state_->owner());
}

Status Session::BindOutput(std::size_t output_index, std::span<float> values, Extent extent) {
  return state_->bindings_.BindOutput(output_index, values, extent);
}

void Session::Clear() {
  state_->bindings_.Clear();
}

void Session::Rebind() {
  internal::SessionState& s = *state_;
  const std::shared_ptr<const internal::Version> version = s.serving_->Current();
  s.bindings_.Remap(s.schema_, version->schema);
  s.TakeSchema(*version);
  s.engine_.reset();
  s.workspace_.reset();
}

const Schema& Session::schema() const {
  return state_->schema_;
}

Status Session::Evaluate() {
  return state_->Evaluate(std::span<const std::size_t>(&state_->item_count_, 1), nullptr);
}

Status Session::EvaluateQueries(std::span<const std::size_t> item_counts) {
  return state_->Evaluate(item_counts, nullptr);
}

Status Session::EvaluateQueries(std::span<const std::size_t> item_counts,
                                const CancelCheck& cancelled) {
  return state_->Evaluate(item_counts, &cancelled);
}

namespace internal {

Status SessionState::Evaluate(std::span<const std::size_t> item_counts,
                              const CancelCheck* cancelled) {
  SessionState& s = *this;
  // The version, and its engine, are loaded once: every query of the call
  // runs on them, whatever reloads happen meanwhile.
  const std::shared_ptr<const internal::Version> version = s.serving_->Current();
  const internal::Version& stats = *version;
  if (version->id != s.schema_version_) {
    if (!internal::SameSchema(version->schema, s.schema_)) {
      stats.errors.fetch_add(1, std::memory_order_relaxed);
      return UserError("the set was reloaded with a different schema (bindings are for version " +
                       std::to_string(s.schema_version_) + ", serving version " +
                       std::to_string(version->id) + "): rebind the session and bind again");
    }
    s.schema_ = version->schema;  // the same shape, perhaps other defaults
    s.schema_version_ = version->id;
  }
  std::shared_ptr<const Engine> engine = version->engine.load();
  if (engine != s.engine_) {
    // A new version or a new tier: scratch memory for its engine (the one
    // allocation of a version change).
    s.workspace_ = engine->compiled().executable().NewWorkspace();
    s.engine_ = std::move(engine);
  }
  if (Status prepared =
          internal::PrepareCall(version->schema, s.bindings_, item_counts, s.owner(), s.plan_);
      !prepared.ok()) {
    stats.errors.fetch_add(1, std::memory_order_relaxed);
    return prepared;
  }
  s.last_version_ = version->id;
  if (Status ran = internal::RunQueries(s.engine_->compiled().executable(), s.workspace_.get(),
                                        s.plan_, cancelled);
      !ran.ok()) {
    stats.errors.fetch_add(1, std::memory_order_relaxed);
    return ran;
  }
  stats.evaluations.fetch_add(item_counts.size(), std::memory_order_relaxed);
  stats.items.fetch_add(s.plan_.total_items(), std::memory_order_relaxed);
  if (s.serving_->ShadowOn()) {
    // Sampled query by query, as if each query were a call of its own.
    std::size_t first_item = 0;
    for (std::size_t query = 0; query < item_counts.size(); ++query) {
      if (std::shared_ptr<const ShadowOptions> shadow = s.serving_->Shadow()) {
        if (s.serving_->Sample(shadow->fraction)) {
          internal::SubmitShadow(*s.serving_, version, std::move(shadow), s.plan_, query,
                                 first_item);
        }
      }
      first_item += item_counts[query];
    }
  }
  return Status::Ok();
}

}  // namespace internal

std::uint64_t Session::version() const {
  return state_->last_version_;
}

Result<std::span<const float>> Session::Output(std::string_view name) const {
  const std::optional<std::size_t> index = state_->schema_.FindOutput(name);
  if (!index) return internal::UnknownOutputError(name, state_->owner());
  return Output(*index);
}

std::span<const float> Session::Output(std::size_t output_index) const {
  if (output_index >= state_->schema_.outputs.size()) return {};
  return state_->plan_.output(output_index);
}

}  // namespace calcjit
