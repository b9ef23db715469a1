// The block VM backend: the optimized DAG as a flat program of typed
// instructions over blocks of items, with kernels for the best instruction
// set of the CPU. Ready as soon as the set is loaded (no code generation).
#ifndef CALCJIT_BACKEND_VM_VM_H_
#define CALCJIT_BACKEND_VM_VM_H_

#include <memory>
#include <string>
#include <vector>

#include "backend/executable.h"
#include "backend/vm/program.h"
#include "calcjit/engine.h"
#include "calcjit/status.h"
#include "ir/plan.h"
#include "opt/pipeline.h"

namespace calcjit::vm {

struct VmOptions {
  Isa isa = Isa::kAuto;          // a tier this CPU lacks is an error
  std::uint32_t block_size = 0;  // 0: the default
  // Optimizer passes (opt/pipeline.h) and VM lowering steps ("reuse",
  // "fuse") to switch off, by name.
  std::vector<std::string> disabled_passes;
  // For the JIT: native pieces instead of block instructions (lower.h).
  bool native = false;
  std::uint32_t max_piece_nodes = 0;  // 0: the default
};

// The optimizer's result and the program lowered from it.
struct PreparedProgram {
  opt::Optimized optimized;
  Program program;
};
Result<PreparedProgram> PrepareProgram(std::shared_ptr<const ir::EvalPlan> plan,
                                       const VmOptions& options, bool dump_passes);

// Runs `program` (whose native pieces, if any, are compiled) on the VM's
// executor; `keep_alive` holds what the program's code needs (compiled pieces).
std::unique_ptr<backend::Executable> MakeProgramExecutable(
    std::shared_ptr<const ir::EvalPlan> plan, Program program,
    std::vector<std::shared_ptr<const void>> keep_alive);

// The names of the VM's own lowering steps that can be switched off.
inline constexpr const char* kVmPassNames[] = {"reuse", "fuse"};

Result<std::unique_ptr<backend::Executable>> MakeVmExecutable(
    std::shared_ptr<const ir::EvalPlan> plan, const VmOptions& options);

// The optimized DAG and the VM program, as text (for `calcjit dump` and tests).
Result<std::string> DumpVmProgram(std::shared_ptr<const ir::EvalPlan> plan,
                                  const VmOptions& options, bool with_dag);

}  // namespace calcjit::vm

#endif  // CALCJIT_BACKEND_VM_VM_H_
