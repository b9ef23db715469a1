// Engine: choosing a backend and compiling for it (Batch and evaluating are in
// batch.cc, the binding rules in bindings.cc).
#include "calcjit/engine.h"

#include <algorithm>
#include <future>
#include <string>

#include "backend/jit/jit.h"
#include "backend/reference/interpreter.h"
#include "backend/vm/isa.h"
#include "backend/vm/vm.h"
#include "math/fp_env.h"
#include "runtime/caches.h"
#include "runtime/internal.h"

namespace calcjit {

namespace {

std::size_t NodeCount(const ir::EvalPlan& plan) {
  std::size_t nodes = 0;
  for (std::uint32_t f : plan.features) {
    const ir::FeatureDef& def = plan.set->ir.features[f];
    nodes += def.root - def.first_node + 1;
  }
  return nodes;
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

Result<std::unique_ptr<backend::Executable>> MakeJit(std::shared_ptr<const ir::EvalPlan> plan,
                                                     const EngineOptions& options, Isa isa) {
  const std::size_t nodes = NodeCount(*plan);
  if (nodes > options.jit_node_limit) {
    return RuntimeError("the set has " + std::to_string(nodes) +
                        " expression nodes, more than the JIT's limit of " +
                        std::to_string(options.jit_node_limit));
  }
  jit::JitOptions jit_options;
  jit_options.isa = isa;
  jit_options.disabled_passes = options.disabled_passes;
  jit_options.parallel = options.jit_parallel;
  jit_options.max_piece_nodes = options.jit_piece_nodes;
  jit_options.use_code_cache = options.reuse_compiled;
  return jit::MakeJitExecutable(std::move(plan), jit_options);
}

Result<std::unique_ptr<backend::Executable>> MakeVm(std::shared_ptr<const ir::EvalPlan> plan,
                                                    const EngineOptions& options, Isa isa) {
  vm::VmOptions vm_options;
  vm_options.isa = isa;
  vm_options.block_size = options.block_size;
  vm_options.disabled_passes = options.disabled_passes;
  return vm::MakeVmExecutable(std::move(plan), vm_options);
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

bool IsIsaSupported(Isa isa) {
  return vm::CpuSupports(isa);
}

Result<Engine> Engine::Compile(const FeatureSet& set, const EngineOptions& options) {
  // Constant folding computes results: it runs in the contract's environment
  // too (round to nearest, no FTZ/DAZ, exceptions masked), not the caller's.
  const math::ScopedFpEnv fp_env;
  if (options.isa != Isa::kAuto && !IsIsaSupported(options.isa)) {
    return UserError("this CPU cannot run the " + std::string(IsaName(options.isa)) +
                     " instruction set (the best it has is " +
                     std::string(IsaName(vm::DetectIsa())) + ")");
  }
  const Isa isa = options.isa == Isa::kAuto ? vm::DetectIsa() : options.isa;
  const std::string key = EngineKey(set.loaded().set.get(), options, isa);
  if (options.reuse_compiled) {
    if (std::shared_ptr<const internal::CompiledEngine> cached = EngineCache().Find(key)) {
      return Engine(std::move(cached));
    }
  }
  Result<ir::EvalPlan> plan = ir::MakePlan(set.loaded().set, options.outputs);
  if (!plan.ok()) return plan.status();
  auto shared_plan = std::make_shared<const ir::EvalPlan>(std::move(plan).value());

  Backend backend = options.backend;
  std::string note;
  Result<std::unique_ptr<backend::Executable>> executable = InternalError("no backend");
  switch (backend) {
    case Backend::kReference:
      executable = backend::MakeReferenceExecutable(shared_plan);
      break;
    case Backend::kVm:
      executable = MakeVm(shared_plan, options, isa);
      break;
    case Backend::kJit:
      executable = MakeJit(shared_plan, options, isa);
      break;
    case Backend::kAuto:
      // The JIT when it can; the VM, with the reason, when it cannot.
      backend = Backend::kJit;
      executable = MakeJit(shared_plan, options, isa);
      if (!executable.ok()) {
        note = "served by the VM: " + executable.status().message();
        backend = Backend::kVm;
        executable = MakeVm(shared_plan, options, isa);
      }
      break;
  }
  if (!executable.ok()) return executable.status();
  auto compiled = std::make_shared<const internal::CompiledEngine>(
      std::move(shared_plan), backend, backend == Backend::kReference ? Isa::kBaseline : isa,
      std::move(executable).value(), std::move(note));
  if (options.reuse_compiled) EngineCache().Add(key, compiled);
  return Engine(std::move(compiled));
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
