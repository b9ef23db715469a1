// calcjit::Dump: the one entry to every dump, for the CLI, Python and the
// golden tests.
#include "calcjit/dump.h"

#include <cstdio>

#include "backend/jit/jit.h"
#include "backend/vm/vm.h"
#include "math/fp_env.h"
#include "runtime/internal.h"
#include "runtime/pipeline.h"

namespace calcjit {

namespace {

constexpr std::pair<DumpKind, std::string_view> kNames[] = {
    {DumpKind::kDag, "dag"},
    {DumpKind::kPasses, "passes"},
    {DumpKind::kProgram, "program"},
    {DumpKind::kIr, "ir"},
    {DumpKind::kOptimizedIr, "optimized-ir"},
    {DumpKind::kAssembly, "asm"},
};

std::string PassReport(const internal::PreparedProgram& prepared) {
  std::string out;
  for (const internal::PassTiming& pass : prepared.passes) {
    char timing[64];
    std::snprintf(timing, sizeof timing, "%.3f ms", pass.milliseconds);
    out += "# " + pass.name + (pass.ran ? "" : " (switched off)") + ": " + timing + ", " +
           std::to_string(pass.nodes) + " nodes\n" + pass.dump;
  }
  return out;
}

// The program, then each region's VM instructions.
std::string VmCode(const internal::PreparedProgram& prepared, const EngineOptions& options) {
  vm::VmOptions vm_options;
  vm_options.isa = Isa::kBaseline;  // the instructions are the same on every tier
  if (options.block_size != 0) vm_options.block_size = options.block_size;
  for (const std::string& pass : options.disabled_passes) {
    if (pass == "reuse") vm_options.reuse_registers = false;
    if (pass == "fuse") vm_options.fuse = false;
  }
  const program::CompiledRegions code = vm::CompileRegions(*prepared.program, vm_options);
  std::string out = prepared.program->Dump() + "vm code, blocks of " +
                    std::to_string(vm_options.block_size) + " items:\n";
  const std::vector<const program::Region*> regions = prepared.program->Regions();
  for (std::size_t r = 0; r < regions.size(); ++r) {
    out += "  region '" + regions[r]->name + "'\n" + code.code[r]->Dump();
  }
  return out;
}

}  // namespace

std::optional<DumpKind> DumpKindFromName(std::string_view name) {
  for (const auto& [kind, kind_name] : kNames) {
    if (kind_name == name) return kind;
  }
  return std::nullopt;
}

std::string_view DumpKindName(DumpKind kind) {
  for (const auto& [k, name] : kNames) {
    if (k == kind) return name;
  }
  return "?";
}

Result<std::string> Dump(const FeatureSet& set, DumpKind kind, const EngineOptions& options) {
  // Folding computes values: in the contract's floating-point environment.
  const math::ScopedFpEnv fp_env;
  Result<ir::EvalPlan> plan = ir::MakePlan(set.loaded().set, options.outputs);
  if (!plan.ok()) return plan.status();
  const bool dag = kind == DumpKind::kDag || kind == DumpKind::kPasses;
  Result<std::shared_ptr<const internal::PreparedProgram>> prepared = internal::Prepare(
      std::make_shared<const ir::EvalPlan>(std::move(plan).value()), options, dag);
  if (!prepared.ok()) return prepared.status();
  const internal::PreparedProgram& program = **prepared;
  switch (kind) {
    case DumpKind::kDag:
      return program.dag;
    case DumpKind::kPasses:
      return PassReport(program);
    case DumpKind::kProgram:
      return VmCode(program, options);
    case DumpKind::kIr:
    case DumpKind::kOptimizedIr:
    case DumpKind::kAssembly: {
      const Isa isa = options.isa == Isa::kAuto ? BestIsa() : options.isa;
      const jit::DumpStage stage = kind == DumpKind::kIr            ? jit::DumpStage::kIr
                                   : kind == DumpKind::kOptimizedIr ? jit::DumpStage::kOptimizedIr
                                                                    : jit::DumpStage::kAssembly;
      Result<std::string> code = jit::DumpRegions(*program.program, isa, stage);
      if (!code.ok()) return code.status();
      return program.program->Dump() + *code;
    }
  }
  return InternalError("unknown dump kind");
}

}  // namespace calcjit
