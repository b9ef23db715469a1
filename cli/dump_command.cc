// calcjit dump SET [--dag | --passes | --program | --ir [--optimized] | --asm]:
// what the optimizer, the VM and the JIT make of a set, for people reading it
// and for golden tests.
#include <iostream>

#include "backend/jit/jit.h"
#include "backend/vm/vm.h"
#include "cli/common.h"
#include "opt/pipeline.h"
#include "runtime/internal.h"

namespace calcjit::cli {

namespace {

Result<std::string> Render(const FeatureSet& set, const DumpOptions& options) {
  Result<ir::EvalPlan> plan = ir::MakePlan(set.loaded().set, options.outputs);
  if (!plan.ok()) return plan.status();
  auto shared_plan = std::make_shared<const ir::EvalPlan>(std::move(plan).value());
  const std::optional<Isa> isa = IsaFromName(options.isa);
  if (!isa) return UserError("unknown --isa '" + options.isa + "'");
  if (options.what == "ir" || options.what == "asm") {
    // Code is only generated here, never run, so any tier can be shown.
    jit::JitOptions jit_options;
    jit_options.isa = *isa;
    jit_options.disabled_passes = options.disabled_passes;
    const jit::DumpStage stage = options.what == "asm" ? jit::DumpStage::kAssembly
                                 : options.optimized   ? jit::DumpStage::kOptimizedIr
                                                       : jit::DumpStage::kIr;
    return jit::DumpJit(shared_plan, jit_options, stage);
  }
  if (options.optimized) return UserError("--optimized goes with --ir");
  if (options.what == "program") {
    vm::VmOptions vm_options;
    vm_options.isa = *isa;
    vm_options.block_size = options.block_size;
    vm_options.disabled_passes = options.disabled_passes;
    return vm::DumpVmProgram(shared_plan, vm_options, false);
  }
  opt::OptimizerOptions optimizer;
  optimizer.disabled_passes = options.disabled_passes;
  optimizer.dump_after_each = options.what == "passes";
  Result<opt::Optimized> optimized = opt::Optimize(shared_plan, optimizer);
  if (!optimized.ok()) return optimized.status();
  if (options.what == "dag") return optimized->dag.Dump();
  std::string out;
  for (const opt::PassReport& pass : optimized->passes) {
    char timing[64];
    std::snprintf(timing, sizeof timing, "%.3f ms", pass.milliseconds);
    out += "# " + pass.name + (pass.ran ? "" : " (switched off)") + ": " + timing + ", " +
           std::to_string(pass.nodes) + " nodes\n" + pass.dump;
  }
  return out;
}

}  // namespace

int RunDump(const DumpOptions& options) {
  const Result<FeatureSet> set = LoadSet(options.set);
  if (!set.ok()) {
    ReportError(set.status());
    return 1;
  }
  const Result<std::string> text = Render(*set, options);
  if (!text.ok()) {
    ReportError(text.status());
    return 1;
  }
  std::cout << *text;
  return 0;
}

}  // namespace calcjit::cli
