// ServingEngine: versions, reload, tiering. Session: one thread's bindings.
#include "calcjit/serving.h"

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "runtime/internal.h"
#include "runtime/serving_state.h"

namespace calcjit {

namespace internal {

namespace {

double MillisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

ServingState::~ServingState() {
  std::vector<Compilation> threads;
  {
    const std::lock_guard<std::mutex> lock(jit_mutex_);
    threads.swap(jit_threads_);
  }
  for (Compilation& compilation : threads) compilation.thread.join();
  const std::lock_guard<std::mutex> lock(worker_mutex_);
  worker_.reset();
}

Result<std::uint64_t> ServingState::Load(const FeatureSet& set, double parse_ms) {
  const std::lock_guard<std::mutex> reload(reload_mutex_);
  const bool tiered = options_.engine.backend == Backend::kAuto;
  EngineOptions first = options_.engine;
  if (tiered) first.backend = Backend::kVm;
  const auto start = std::chrono::steady_clock::now();
  Result<Engine> engine = Engine::Compile(set, first);
  if (!engine.ok()) return engine.status();
  const double compile_ms = MillisecondsSince(start);
  auto version = std::make_shared<Version>(next_version_++, set, std::move(engine).value());
  version->parse_ms = parse_ms;
  const Backend backend = version->engine.load()->backend();
  if (backend == Backend::kJit) {
    version->jit_compile_ms = compile_ms;
  } else if (backend == Backend::kVm) {
    version->vm_compile_ms = compile_ms;
  }
  version->note = version->engine.load()->backend_note();
  if (tiered) {
    version->jit_pending = true;
    CompileJitInBackground(version);
  }
  current_.store(version);
  return version->id;
}

// The version serves from the VM meanwhile; the JIT's engine gives the same
// bits, so evaluations may switch at any moment. The thread holds the version
// weakly: a version replaced before its JIT is ready is not kept alive.
void ServingState::CompileJitInBackground(const std::shared_ptr<Version>& version) {
  EngineOptions jit = options_.engine;
  jit.backend = Backend::kJit;
  std::weak_ptr<Version> weak = version;
  // The JIT compiles the VM engine's program: the version is optimized and
  // scheduled once.
  std::shared_ptr<const Engine> vm = version->engine.load();
  auto done = std::make_shared<std::atomic<bool>>(false);
  const std::lock_guard<std::mutex> lock(jit_mutex_);
  std::erase_if(jit_threads_, [](Compilation& compilation) {
    if (!compilation.done->load()) return false;
    compilation.thread.join();
    return true;
  });
  std::thread thread([this, weak, done, vm = std::move(vm), jit = std::move(jit)] {
    const auto start = std::chrono::steady_clock::now();
    Result<Engine> engine = CompileLike(*vm, jit);
    const double ms = MillisecondsSince(start);
    if (const std::shared_ptr<Version> live = weak.lock()) {
      if (engine.ok()) {
        live->jit_compile_ms = ms;
        live->engine.store(std::make_shared<const Engine>(std::move(engine).value()));
      } else {
        const std::lock_guard<std::mutex> note(live->note_mutex);
        live->note = "served by the VM: " + engine.status().message();
      }
      live->jit_pending = false;
    }
    const std::lock_guard<std::mutex> finished(jit_mutex_);
    done->store(true);
    jit_done_.notify_all();
  });
  jit_threads_.push_back(Compilation{std::move(thread), std::move(done)});
}

void ServingState::WaitForJit() const {
  std::unique_lock<std::mutex> lock(jit_mutex_);
  jit_done_.wait(lock, [&] { return !current_.load()->jit_pending.load(); });
}

Status ServingState::SetShadow(const ShadowOptions& options) {
  if (!(options.fraction >= 0.0 && options.fraction <= 1.0)) {
    return UserError("the shadow fraction must be between 0 and 1");
  }
  if (options.fraction > 0.0) {
    // A shadow that cannot run against the served inputs would be dropped on
    // every sample and compare nothing: refuse it now, saying why.
    const std::shared_ptr<const Version> version = current_.load();
    Result<Engine> shadow = CompileShadow(*version, options);
    if (!shadow.ok()) return shadow.status();
    CALCJIT_RETURN_IF_ERROR(ShadowFits(*version, shadow->schema()));
  }
  if (options.fraction > 0.0) {
    const std::lock_guard<std::mutex> lock(worker_mutex_);
    if (worker_ == nullptr) worker_ = std::make_unique<ShadowWorker>();
  }
  shadow_.store(options.fraction > 0.0 ? std::make_shared<const ShadowOptions>(options) : nullptr);
  shadow_on_.store(options.fraction > 0.0, std::memory_order_relaxed);
  return Status::Ok();
}

bool ServingState::Sample(double fraction) {
  // Evaluation k is sampled when floor((k + 1) f) > floor(k f): exactly a
  // fraction f of them, spread evenly, without a random generator.
  const std::uint64_t k = sampled_.fetch_add(1, std::memory_order_relaxed);
  return static_cast<std::uint64_t>(static_cast<double>(k + 1) * fraction) >
         static_cast<std::uint64_t>(static_cast<double>(k) * fraction);
}

ShadowWorker* ServingState::worker() const {
  const std::lock_guard<std::mutex> lock(worker_mutex_);
  return worker_.get();
}

// ---------------------------------------------------------------------------

class SessionState {
 public:
  explicit SessionState(std::shared_ptr<ServingState> serving) : serving_(std::move(serving)) {
    const std::shared_ptr<const Version> version = serving_->Current();
    schema_ = version->schema;
    schema_version_ = version->id;
    inputs_.resize(schema_.inputs.size());
    outputs_.resize(schema_.outputs.size());
  }

  std::shared_ptr<ServingState> serving_;
  Schema schema_;
  std::uint64_t schema_version_ = 0;
  std::size_t item_count_ = 0;
  std::vector<std::optional<std::span<const float>>> inputs_;
  std::vector<std::optional<std::span<float>>> outputs_;
  // The engine the batch is for, and the version the last evaluation ran on.
  std::shared_ptr<const Engine> engine_;
  std::optional<Batch> batch_;
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

// Copies a sampled evaluation for the shadow worker.
void SubmitShadow(ServingState& serving, const std::shared_ptr<const Version>& version,
                  std::shared_ptr<const ShadowOptions> options, const SessionState& session,
                  const Batch& batch) {
  ShadowWorker* worker = serving.worker();
  if (worker == nullptr) return;
  ShadowJob job;
  job.version = version;
  job.options = std::move(options);
  job.item_count = session.item_count_;
  for (const auto& input : session.inputs_) {
    job.inputs.push_back(
        input ? std::optional<std::vector<float>>(std::in_place, input->begin(), input->end())
              : std::nullopt);
  }
  for (std::size_t k = 0; k < session.schema_.outputs.size(); ++k) {
    const std::span<const float> out = batch.Output(k);
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

// ---------------------------------------------------------------------------
// ServingEngine

ServingEngine::ServingEngine(std::shared_ptr<internal::ServingState> state)
    : state_(std::move(state)) {}
ServingEngine::ServingEngine(ServingEngine&&) noexcept = default;
ServingEngine& ServingEngine::operator=(ServingEngine&&) noexcept = default;
ServingEngine::~ServingEngine() = default;

Result<ServingEngine> ServingEngine::Create(const FeatureSet& set, const ServingOptions& options) {
  auto state = std::make_shared<internal::ServingState>(options);
  Result<std::uint64_t> loaded = state->Load(set, 0.0);
  if (!loaded.ok()) return loaded.status();
  return ServingEngine(std::move(state));
}

Result<ServingEngine> ServingEngine::Load(std::string_view bytes, Format format,
                                          const ServingOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  Result<FeatureSet> set = FeatureSet::Parse(bytes, format);
  if (!set.ok()) return set.status();
  auto state = std::make_shared<internal::ServingState>(options);
  Result<std::uint64_t> loaded = state->Load(*set, internal::MillisecondsSince(start));
  if (!loaded.ok()) return loaded.status();
  return ServingEngine(std::move(state));
}

Result<std::uint64_t> ServingEngine::Reload(const FeatureSet& set) {
  return state_->Load(set, 0.0);
}

Result<std::uint64_t> ServingEngine::Reload(std::string_view bytes, Format format) {
  const auto start = std::chrono::steady_clock::now();
  Result<FeatureSet> set = FeatureSet::Parse(bytes, format);
  if (!set.ok()) return set.status();
  return state_->Load(*set, internal::MillisecondsSince(start));
}

std::uint64_t ServingEngine::version() const {
  return state_->Current()->id;
}
Schema ServingEngine::schema() const {
  return state_->Current()->schema;
}

VersionStats ServingEngine::Stats() const {
  const std::shared_ptr<const internal::Version> version = state_->Current();
  VersionStats stats;
  stats.version = version->id;
  stats.backend = version->engine.load()->backend();
  {
    const std::lock_guard<std::mutex> lock(version->note_mutex);
    stats.backend_note = version->note;
    stats.shadow_note = version->shadow_note;
  }
  stats.jit_pending = version->jit_pending.load();
  stats.parse_ms = version->parse_ms;
  stats.vm_compile_ms = version->vm_compile_ms;
  stats.jit_compile_ms = version->jit_compile_ms.load();
  stats.evaluations = version->evaluations.load();
  stats.items = version->items.load();
  stats.errors = version->errors.load();
  stats.shadow_evaluations = version->shadow_evaluations.load();
  stats.shadow_dropped = version->shadow_dropped.load();
  stats.mismatches = version->mismatches.load();
  return stats;
}

void ServingEngine::WaitForJit() const {
  state_->WaitForJit();
}

Status ServingEngine::SetShadow(const ShadowOptions& options) {
  return state_->SetShadow(options);
}

void ServingEngine::DrainShadow() const {
  if (internal::ShadowWorker* worker = state_->worker()) worker->Drain();
}

std::vector<Mismatch> ServingEngine::Mismatches() const {
  internal::ShadowWorker* worker = state_->worker();
  return worker != nullptr ? worker->Mismatches() : std::vector<Mismatch>();
}

std::string Mismatch::ToString() const {
  char text[128];
  std::snprintf(text, sizeof text,
                "[%zu]: served 0x%08" PRIX32 ", shadow 0x%08" PRIX32 " (version %" PRIu64 ")", item,
                served_bits, shadow_bits, version);
  return output + text;
}

// ---------------------------------------------------------------------------
// Session

Session::Session(const ServingEngine& engine)
    : state_(std::make_unique<internal::SessionState>(engine.state_)) {}
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;
Session::~Session() = default;

void Session::SetItemCount(std::size_t item_count) {
  state_->item_count_ = item_count;
}

Status Session::BindInput(std::string_view name, std::span<const float> values) {
  const std::optional<std::size_t> index = state_->schema_.FindInput(name);
  if (!index) {
    return UserError("unknown input '" + std::string(name) + "' (version " +
                         std::to_string(state_->schema_version_) + " does not read it)",
                     std::string(name));
  }
  return BindInput(*index, values);
}

Status Session::BindInput(std::size_t input_index, std::span<const float> values) {
  if (input_index >= state_->inputs_.size()) {
    return UserError("input index " + std::to_string(input_index) + " is out of range (" +
                     std::to_string(state_->inputs_.size()) + " inputs)");
  }
  state_->inputs_[input_index] = values;
  if (state_->batch_) return state_->batch_->BindInput(input_index, values);
  return Status::Ok();
}

Status Session::BindOutput(std::string_view name, std::span<float> values) {
  const std::optional<std::size_t> index = state_->schema_.FindOutput(name);
  if (!index) {
    return UserError("unknown output '" + std::string(name) + "' (version " +
                         std::to_string(state_->schema_version_) + " does not compute it)",
                     std::string(name));
  }
  return BindOutput(*index, values);
}

Status Session::BindOutput(std::size_t output_index, std::span<float> values) {
  if (output_index >= state_->outputs_.size()) {
    return UserError("output index " + std::to_string(output_index) + " is out of range (" +
                     std::to_string(state_->outputs_.size()) + " outputs)");
  }
  state_->outputs_[output_index] = values;
  if (state_->batch_) return state_->batch_->BindOutput(output_index, values);
  return Status::Ok();
}

void Session::Clear() {
  internal::SessionState& s = *state_;
  for (auto& input : s.inputs_) input.reset();
  for (auto& output : s.outputs_) output.reset();
  if (s.batch_) s.batch_->Clear();
}

void Session::Rebind() {
  internal::SessionState& s = *state_;
  const std::shared_ptr<const internal::Version> version = s.serving_->Current();
  std::vector<std::optional<std::span<const float>>> inputs(version->schema.inputs.size());
  std::vector<std::optional<std::span<float>>> outputs(version->schema.outputs.size());
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const std::optional<std::size_t> old = s.schema_.FindInput(version->schema.inputs[k].name);
    if (old) inputs[k] = s.inputs_[*old];
  }
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    const std::optional<std::size_t> old = s.schema_.FindOutput(version->schema.outputs[k]);
    if (old) outputs[k] = s.outputs_[*old];
  }
  s.schema_ = version->schema;
  s.schema_version_ = version->id;
  s.inputs_ = std::move(inputs);
  s.outputs_ = std::move(outputs);
  s.batch_.reset();
  s.engine_.reset();
}

const Schema& Session::schema() const {
  return state_->schema_;
}

Status Session::Evaluate() {
  internal::SessionState& s = *state_;
  const std::shared_ptr<const internal::Version> version = s.serving_->Current();
  if (version->id != s.schema_version_) {
    if (!internal::SameSchema(version->schema, s.schema_)) {
      version->errors.fetch_add(1, std::memory_order_relaxed);
      return UserError("the set was reloaded with a different schema (bindings are for version " +
                       std::to_string(s.schema_version_) + ", serving version " +
                       std::to_string(version->id) + "): rebind the session and bind again");
    }
    s.schema_ = version->schema;  // the same shape, perhaps other defaults
    s.schema_version_ = version->id;
  }
  std::shared_ptr<const Engine> engine = version->engine.load();
  if (engine != s.engine_) {
    // A new version or a new tier: a batch for its engine (the one allocation
    // of a version change), with the session's bindings.
    s.batch_.reset();
    s.batch_.emplace(*engine);
    for (std::size_t k = 0; k < s.inputs_.size(); ++k) {
      if (s.inputs_[k]) CALCJIT_RETURN_IF_ERROR(s.batch_->BindInput(k, *s.inputs_[k]));
    }
    for (std::size_t k = 0; k < s.outputs_.size(); ++k) {
      if (s.outputs_[k]) CALCJIT_RETURN_IF_ERROR(s.batch_->BindOutput(k, *s.outputs_[k]));
    }
    s.engine_ = std::move(engine);
  }
  s.batch_->SetItemCount(s.item_count_);
  s.last_version_ = version->id;
  const internal::Version& stats = *version;
  const Status status = s.engine_->Evaluate(*s.batch_);
  if (!status.ok()) {
    stats.errors.fetch_add(1, std::memory_order_relaxed);
    return status;
  }
  stats.evaluations.fetch_add(1, std::memory_order_relaxed);
  stats.items.fetch_add(s.item_count_, std::memory_order_relaxed);
  if (s.serving_->ShadowOn()) {
    if (std::shared_ptr<const ShadowOptions> shadow = s.serving_->Shadow()) {
      if (s.serving_->Sample(shadow->fraction)) {
        internal::SubmitShadow(*s.serving_, version, std::move(shadow), s, *s.batch_);
      }
    }
  }
  return Status::Ok();
}

std::uint64_t Session::version() const {
  return state_->last_version_;
}

Result<std::span<const float>> Session::Output(std::string_view name) const {
  const std::optional<std::size_t> index = state_->schema_.FindOutput(name);
  if (!index) return UserError("unknown output '" + std::string(name) + "'", std::string(name));
  return Output(*index);
}

std::span<const float> Session::Output(std::size_t output_index) const {
  if (!state_->batch_ || output_index >= state_->outputs_.size()) return {};
  return state_->batch_->Output(output_index);
}

}  // namespace calcjit
