#include "runtime/pipeline.h"

#include <algorithm>
#include <atomic>
#include <chrono>

#include "backend/jit/jit.h"
#include "backend/program/executor.h"
#include "backend/program/schedule.h"
#include "backend/vm/vm.h"
#include "opt/pipeline.h"

namespace calcjit::internal {

namespace {

std::atomic<std::uint64_t> prepare_count{0};

bool Disabled(const EngineOptions& options, std::string_view name) {
  return std::find(options.disabled_passes.begin(), options.disabled_passes.end(), name) !=
         options.disabled_passes.end();
}

// A step of the VM or of the scheduler rather than an optimizer pass.
bool IsBackendStep(std::string_view name) {
  const auto steps = vm::VmStepNames();
  const auto schedule = program::ScheduleStepNames();
  const auto jit = jit::JitStepNames();
  return std::find(steps.begin(), steps.end(), name) != steps.end() ||
         std::find(schedule.begin(), schedule.end(), name) != schedule.end() ||
         std::find(jit.begin(), jit.end(), name) != jit.end();
}

std::size_t NodeCount(const ir::EvalPlan& plan) {
  std::size_t nodes = 0;
  for (std::uint32_t f : plan.features) {
    const ir::FeatureDef& def = plan.set->ir.features[f];
    nodes += def.root - def.first_node + 1;
  }
  return nodes;
}

}  // namespace

Status CheckPassNames(const std::vector<std::string>& disabled_passes) {
  const auto passes = opt::OptimizerPasses();
  for (const std::string& name : disabled_passes) {
    // "build" always runs: it makes the DAG.
    const bool optimizer =
        std::any_of(passes.begin() + 1, passes.end(),
                    [&](const opt::PassDescription& p) { return p.name == name; });
    if (optimizer || IsBackendStep(name)) continue;
    std::string names;
    for (const opt::PassDescription& p : passes.subspan(1)) {
      names += (names.empty() ? "" : ", ") + std::string(p.name);
    }
    for (std::string_view step : vm::VmStepNames()) names += ", " + std::string(step);
    for (std::string_view step : program::ScheduleStepNames()) names += ", " + std::string(step);
    for (std::string_view step : jit::JitStepNames()) names += ", " + std::string(step);
    return UserError("unknown pass '" + name + "' (passes that can be switched off: " + names +
                     ")");
  }
  return Status::Ok();
}

Result<std::shared_ptr<const PreparedProgram>> Prepare(std::shared_ptr<const ir::EvalPlan> plan,
                                                       const EngineOptions& options, bool dump) {
  CALCJIT_RETURN_IF_ERROR(CheckPassNames(options.disabled_passes));
  opt::OptimizerOptions optimizer;
  for (const std::string& name : options.disabled_passes) {
    if (!IsBackendStep(name)) optimizer.disabled_passes.push_back(name);
  }
  optimizer.dump_after_each = dump;
  Result<opt::Optimized> optimized = opt::Optimize(plan, optimizer);
  if (!optimized.ok()) return optimized.status();

  auto prepared = std::make_shared<PreparedProgram>();
  prepared->plan = std::move(plan);
  prepared->options = options;
  for (opt::PassReport& pass : optimized->passes) {
    prepared->passes.push_back(
        PassTiming{pass.name, pass.ran, pass.milliseconds, pass.nodes, std::move(pass.dump)});
  }
  if (dump) prepared->dag = optimized->dag.Dump();

  const auto start = std::chrono::steady_clock::now();
  program::ScheduleOptions schedule;
  if (options.jit_piece_nodes != 0) schedule.max_region_nodes = options.jit_piece_nodes;
  // "reuse" switches off buffer reuse everywhere: columns and VM registers.
  schedule.reuse_columns = !Disabled(options, "reuse");
  schedule.share_statistics = !Disabled(options, "statistics");
  prepared->program =
      std::make_shared<const program::Program>(program::Schedule(optimized->dag, schedule));
  prepared->passes.push_back(PassTiming{
      "schedule", true,
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(),
      optimized->dag.size(), ""});
  prepare_count.fetch_add(1, std::memory_order_relaxed);
  return std::shared_ptr<const PreparedProgram>(std::move(prepared));
}

std::uint64_t PrepareCount() {
  return prepare_count.load(std::memory_order_relaxed);
}

Result<std::unique_ptr<backend::Executable>> CompileProgram(const PreparedProgram& prepared,
                                                            Backend backend, Isa isa,
                                                            const EngineOptions& options) {
  program::CompiledRegions regions;
  if (backend == Backend::kVm) {
    vm::VmOptions vm_options;
    vm_options.isa = isa;
    if (options.block_size != 0) vm_options.block_size = options.block_size;
    vm_options.reuse_registers = !Disabled(options, "reuse");
    vm_options.fuse = !Disabled(options, "fuse");
    regions = vm::CompileRegions(*prepared.program, vm_options);
  } else if (backend == Backend::kJit) {
    const std::size_t nodes = NodeCount(*prepared.plan);
    if (nodes > options.jit_node_limit) {
      return RuntimeError("the set has " + std::to_string(nodes) +
                          " expression nodes, more than the JIT's limit of " +
                          std::to_string(options.jit_node_limit));
    }
    jit::JitOptions jit_options;
    jit_options.isa = isa;
    jit_options.parallel = options.jit_parallel;
    jit_options.use_code_cache = options.reuse_compiled;
    jit_options.stage = !Disabled(options, "stage");
    Result<program::CompiledRegions> compiled = jit::CompileRegions(*prepared.program, jit_options);
    if (!compiled.ok()) return compiled.status();
    regions = std::move(compiled).value();
  } else {
    return InternalError("CompileProgram takes the VM or the JIT");
  }
  return program::MakeExecutable(prepared.program, std::move(regions), isa);
}

}  // namespace calcjit::internal
