// The shadow worker: recomputes sampled evaluations with another backend (or
// a candidate set) on its own thread and records every value that differs.
#include <cstring>

#include "runtime/serving_state.h"

namespace calcjit::internal {

namespace {

std::uint32_t Bits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

}  // namespace

Result<Engine> CompileShadow(const Version& version, const ShadowOptions& options) {
  const FeatureSet& set = options.candidate != nullptr ? *options.candidate : version.set;
  EngineOptions engine;
  engine.backend = options.backend;
  for (const std::string& output : version.schema.outputs) {
    if (set.schema().FindOutput(output)) engine.outputs.push_back(output);
  }
  // (No outputs would mean every definition.)
  if (engine.outputs.empty()) {
    return UserError("the shadow computes none of the outputs version " +
                     std::to_string(version.id) + " serves");
  }
  return Engine::Compile(set, engine);
}

Status ShadowFits(const Version& version, const Schema& shadow) {
  const std::string served = "version " + std::to_string(version.id);
  for (const InputInfo& input : shadow.inputs) {
    const std::optional<std::size_t> k = version.schema.FindInput(input.name);
    if (!k) {
      if (input.default_value) continue;  // the shadow uses its default
      return UserError("the shadow needs input '" + input.name + "', which " + served +
                           " does not read, and it has no default value",
                       input.name);
    }
    const InputInfo& bound = version.schema.inputs[*k];
    if (bound.scope != input.scope || bound.dimension != input.dimension) {
      auto shape = [](const InputInfo& i) {
        return std::string(i.scope == Scope::kQuery ? "a query " : "an item ") +
               (i.dimension > 0 ? "vector of dimension " + std::to_string(i.dimension)
                                : std::string("scalar"));
      };
      return UserError("input '" + input.name + "' is " + shape(bound) + " in " + served + " but " +
                           shape(input) + " in the shadow",
                       input.name);
    }
  }
  return Status::Ok();
}

ShadowWorker::ShadowWorker() : thread_([this] { Loop(); }) {}

ShadowWorker::~ShadowWorker() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

bool ShadowWorker::Submit(ShadowJob job) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (queue_.size() >= kQueueLimit) return false;
    queue_.push_back(std::move(job));
  }
  wake_.notify_one();
  return true;
}

void ShadowWorker::Drain() {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [&] { return queue_.empty() && !busy_; });
}

std::vector<Mismatch> ShadowWorker::Mismatches() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return recorded_;
}

void ShadowWorker::ClearMismatches() {
  const std::lock_guard<std::mutex> lock(mutex_);
  recorded_.clear();
}

void ShadowWorker::Loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    wake_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    ShadowJob job = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    Process(job);
    lock.lock();
    busy_ = false;
    if (queue_.empty()) idle_.notify_all();
  }
}

void ShadowWorker::Process(const ShadowJob& job) {
  const Version& version = *job.version;
  if (!engine_ || engine_version_ != version.id || engine_options_ != job.options) {
    engine_.reset();
    Result<Engine> compiled = CompileShadow(version, *job.options);
    const Status fits = compiled.ok() ? ShadowFits(version, compiled->schema()) : compiled.status();
    if (!fits.ok()) {
      // Counted as dropped (nothing was compared), and said in the stats: a
      // reload made the shadow unable to run against the served inputs.
      version.shadow_dropped.fetch_add(1, std::memory_order_relaxed);
      const std::lock_guard<std::mutex> note(version.note_mutex);
      version.shadow_note =
          "shadow off for version " + std::to_string(version.id) + ": " + fits.message();
      return;
    }
    engine_ = std::move(compiled).value();
    engine_version_ = version.id;
    engine_options_ = job.options;
  }
  Batch batch(*engine_);
  batch.SetItemCount(job.item_count);
  for (std::size_t k = 0; k < job.inputs.size(); ++k) {
    if (!job.inputs[k]) continue;
    const std::string& name = version.schema.inputs[k].name;
    if (engine_->schema().FindInput(name)) {
      if (!batch.BindInput(name, *job.inputs[k]).ok()) {
        version.shadow_dropped.fetch_add(1, std::memory_order_relaxed);
        return;
      }
    }
  }
  if (!engine_->Evaluate(batch).ok()) {
    version.shadow_dropped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  const Schema& shadow = engine_->schema();
  for (std::size_t k = 0; k < shadow.outputs.size(); ++k) {
    const std::optional<std::size_t> served = version.schema.FindOutput(shadow.outputs[k]);
    if (!served) continue;
    const std::vector<float>& mine = job.outputs[*served];
    const std::span<const float> theirs = batch.Output(k);
    for (std::size_t i = 0; i < mine.size() && i < theirs.size(); ++i) {
      if (Bits(mine[i]) == Bits(theirs[i])) continue;
      version.mismatches.fetch_add(1, std::memory_order_relaxed);
      const std::lock_guard<std::mutex> lock(mutex_);
      if (recorded_.size() < job.options->max_recorded) {
        recorded_.push_back(
            Mismatch{version.id, shadow.outputs[k], i, Bits(mine[i]), Bits(theirs[i])});
      }
    }
  }
}

}  // namespace calcjit::internal
