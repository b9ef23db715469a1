// ServingEngine: versions, reload, tiering (Session is in session.cc).
#include "calcjit/serving.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <optional>

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

namespace {

// The items per query the version has served so far (0: none yet), for the
// tier measurement's batch: timed at the traffic's own size, read from the
// counters evaluations keep anyway.
std::size_t MeanItemsPerQuery(const Version& version) {
  const std::uint64_t evaluations = version.evaluations.load(std::memory_order_relaxed);
  if (evaluations == 0) return 0;
  const std::uint64_t mean = version.items.load(std::memory_order_relaxed) / evaluations;
  return static_cast<std::size_t>(std::clamp<std::uint64_t>(mean, 1, kMaxTierMeasurementItems));
}

// The version's tier once its JIT compiled (and, with tier choice, was
// timed): the JIT's engine, or the VM kept with the reason in its note.
void PublishJit(const Version& version, Result<Engine> engine, double compile_ms,
                const std::optional<Result<TierMeasurement>>& tiers) {
  const std::lock_guard<std::mutex> note(version.note_mutex);
  if (!engine.ok()) {
    version.note = "served by the VM: " + engine.status().message();
    return;
  }
  version.jit_compile_ms = compile_ms;
  if (tiers.has_value() && !tiers->ok()) {
    version.tiers.note = tiers->status().message();
    version.note = "served by the VM: timing the VM and the JIT failed: " + version.tiers.note;
    return;
  }
  if (tiers.has_value()) {
    version.tiers = **tiers;
    if (version.tiers.chosen != Backend::kJit) {
      version.note = "served by the VM: " + version.tiers.note;
      return;
    }
  }
  version.engine.store(std::make_shared<const Engine>(std::move(engine).value()));
}

}  // namespace

// The version serves from the VM meanwhile; the JIT's engine gives the same
// bits, so evaluations may switch at any moment. With measure_tiers the JIT
// replaces the VM only if it was timed faster (MeasureTiers, on this thread,
// never on a caller's). The thread holds the version weakly: a version
// replaced before its JIT is ready is not kept alive.
void ServingState::CompileJitInBackground(const std::shared_ptr<Version>& version) {
  EngineOptions jit = options_.engine;
  jit.backend = Backend::kJit;
  const bool measure = options_.measure_tiers;
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
  std::thread thread([this, weak, done, measure, vm = std::move(vm), jit = std::move(jit)] {
    const auto start = std::chrono::steady_clock::now();
    Result<Engine> engine = CompileLike(*vm, jit);
    const double ms = MillisecondsSince(start);
    std::optional<Result<TierMeasurement>> tiers;
    if (engine.ok() && measure) {
      if (const std::shared_ptr<Version> live = weak.lock()) {
        const std::size_t items = MeanItemsPerQuery(*live);
        tiers.emplace(MeasureTiers(*vm, *engine, items));
      }
    }
    if (const std::shared_ptr<Version> live = weak.lock()) {
      PublishJit(*live, std::move(engine), ms, tiers);
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
    char shown[32];
    std::snprintf(shown, sizeof shown, "%g", options.fraction);
    return UserError(std::string("the shadow fraction is ") + shown + ": it must be from 0 to 1");
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
                                          const ServingOptions& options, const LoadOptions& load) {
  const auto start = std::chrono::steady_clock::now();
  Result<FeatureSet> set = FeatureSet::Parse(bytes, format, load);
  if (!set.ok()) return set.status();
  auto state = std::make_shared<internal::ServingState>(options);
  Result<std::uint64_t> loaded = state->Load(*set, internal::MillisecondsSince(start));
  if (!loaded.ok()) return loaded.status();
  return ServingEngine(std::move(state));
}

Result<std::uint64_t> ServingEngine::Reload(const FeatureSet& set) {
  return state_->Load(set, 0.0);
}

Result<std::uint64_t> ServingEngine::Reload(std::string_view bytes, Format format,
                                            const LoadOptions& load) {
  const auto start = std::chrono::steady_clock::now();
  Result<FeatureSet> set = FeatureSet::Parse(bytes, format, load);
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
  {
    const std::lock_guard<std::mutex> lock(version->note_mutex);
    stats.tiers = version->tiers;
  }
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

}  // namespace calcjit
