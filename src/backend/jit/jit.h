// The JIT backend: the VM's program with every phase's element-wise work
// compiled by LLVM into native loops over all items (one function per piece,
// each item's intermediates in registers, vectorized for the CPU's widest
// vectors), the kernels inlined from the very source of src/math.
#ifndef CALCJIT_BACKEND_JIT_JIT_H_
#define CALCJIT_BACKEND_JIT_JIT_H_

#include <memory>
#include <string>
#include <vector>

#include "backend/executable.h"
#include "backend/jit/compiler.h"
#include "backend/vm/vm.h"
#include "calcjit/status.h"
#include "ir/plan.h"

namespace calcjit::jit {

struct JitOptions {
  Isa isa = Isa::kAuto;
  std::vector<std::string> disabled_passes;
  std::uint32_t max_piece_nodes = 0;  // 0: the default (vm::LowerOptions)
  // Compile an engine's pieces on several threads (one per core).
  bool parallel = true;
  // Take pieces from the code cache and put new ones in it.
  bool use_code_cache = true;
};

Result<std::unique_ptr<backend::Executable>> MakeJitExecutable(
    std::shared_ptr<const ir::EvalPlan> plan, const JitOptions& options);

// The program (as the VM prints it, with its native pieces) and each piece's
// code at `stage`.
Result<std::string> DumpJit(std::shared_ptr<const ir::EvalPlan> plan, const JitOptions& options,
                            DumpStage stage);

}  // namespace calcjit::jit

#endif  // CALCJIT_BACKEND_JIT_JIT_H_
