#include "backend/vm/vm.h"

#include <algorithm>

#include "backend/vm/executor.h"
#include "backend/vm/isa.h"
#include "backend/vm/lower.h"
#include "opt/pipeline.h"

namespace calcjit::vm {

namespace {

class VmExecutable final : public backend::Executable {
 public:
  VmExecutable(std::shared_ptr<const ir::EvalPlan> plan, Program program,
               std::vector<std::shared_ptr<const void>> keep_alive)
      : plan_(std::move(plan)), program_(std::move(program)), keep_alive_(std::move(keep_alive)) {}

  std::unique_ptr<internal::Workspace> NewWorkspace() const override {
    return std::make_unique<VmWorkspace>(program_, plan_->schema.inputs.size());
  }

  Status Run(const backend::EvalArgs& args, internal::Workspace* workspace) const override {
    RunProgram(program_, args, *static_cast<VmWorkspace*>(workspace));
    return Status::Ok();
  }

 private:
  std::shared_ptr<const ir::EvalPlan> plan_;
  Program program_;
  std::vector<std::shared_ptr<const void>> keep_alive_;
};

}  // namespace

Result<PreparedProgram> PrepareProgram(std::shared_ptr<const ir::EvalPlan> plan,
                                       const VmOptions& options, bool dump_passes) {
  LowerOptions lower;
  lower.isa = options.isa == Isa::kAuto ? DetectIsa() : options.isa;
  if (!CpuSupports(lower.isa)) {
    return UserError("this CPU cannot run the " + std::string(IsaName(lower.isa)) +
                     " instruction set (it has " + std::string(IsaName(DetectIsa())) + ")");
  }
  if (options.block_size != 0) lower.block_size = options.block_size;
  lower.native = options.native;
  if (options.max_piece_nodes != 0) lower.max_piece_nodes = options.max_piece_nodes;
  opt::OptimizerOptions optimizer;
  optimizer.dump_after_each = dump_passes;
  for (const std::string& name : options.disabled_passes) {
    if (name == "reuse") {
      lower.reuse_registers = false;
    } else if (name == "fuse") {
      lower.fuse = false;
    } else {
      optimizer.disabled_passes.push_back(name);
    }
  }
  Result<opt::Optimized> optimized = opt::Optimize(std::move(plan), optimizer);
  if (!optimized.ok()) {
    return UserError(optimized.status().message() + "; the VM's own: reuse, fuse");
  }
  Program program = Lower(optimized->dag, lower);
  return PreparedProgram{std::move(optimized).value(), std::move(program)};
}

std::unique_ptr<backend::Executable> MakeProgramExecutable(
    std::shared_ptr<const ir::EvalPlan> plan, Program program,
    std::vector<std::shared_ptr<const void>> keep_alive) {
  return std::make_unique<VmExecutable>(std::move(plan), std::move(program), std::move(keep_alive));
}

Result<std::unique_ptr<backend::Executable>> MakeVmExecutable(
    std::shared_ptr<const ir::EvalPlan> plan, const VmOptions& options) {
  Result<PreparedProgram> prepared = PrepareProgram(plan, options, false);
  if (!prepared.ok()) return prepared.status();
  return MakeProgramExecutable(std::move(plan), std::move(prepared->program), {});
}

Result<std::string> DumpVmProgram(std::shared_ptr<const ir::EvalPlan> plan,
                                  const VmOptions& options, bool with_dag) {
  Result<PreparedProgram> prepared = PrepareProgram(std::move(plan), options, with_dag);
  if (!prepared.ok()) return prepared.status();
  std::string out;
  if (with_dag) {
    for (const opt::PassReport& pass : prepared->optimized.passes) {
      out += "# after " + pass.name + (pass.ran ? "" : " (off)") + ": " +
             std::to_string(pass.nodes) + " nodes\n" + pass.dump;
    }
  }
  return out + prepared->program.Dump();
}

}  // namespace calcjit::vm
