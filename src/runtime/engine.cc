// Engine: choosing a backend and compiling for it (Batch and evaluating are in
// batch.cc, the binding rules in bindings.cc).
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

namespace {

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

}  // namespace calcjit
