// The LLVM JIT: one of the two region compilers of the shared program
// (backend/program). Each region becomes one native function with a single
// loop over the items, every intermediate in registers, vectorized for the
// tier's widest vectors, with the kernels inlined from the very source of
// src/math. Regions compile in parallel and are cached by content.
#ifndef CALCJIT_BACKEND_JIT_JIT_H_
#define CALCJIT_BACKEND_JIT_JIT_H_

#include <span>
#include <string>
#include <string_view>

#include "backend/jit/compiler.h"
#include "backend/program/program.h"
#include "backend/program/region_code.h"
#include "calcjit/cpu.h"
#include "calcjit/status.h"

namespace calcjit::jit {

struct JitOptions {
  Isa isa = Isa::kBaseline;  // a concrete tier (the runtime resolves kAuto)
  // Compile a program's regions on several threads (one per core).
  bool parallel = true;
  // Take code from the code cache and put new code in it.
  bool use_code_cache = true;
  // The "stage" step: cut pieces into stages around their calls (stages.h).
  bool stage = true;
};

// The JIT's steps EngineOptions::disabled_passes can switch off: "stage".
std::span<const std::string_view> JitStepNames();

Result<program::CompiledRegions> CompileRegions(const program::Program& program,
                                                const JitOptions& options);

// Each region's code at `stage`, after a header naming the region. Code is
// only generated, never run, so any tier can be shown on any host.
Result<std::string> DumpRegions(const program::Program& program, Isa isa, DumpStage stage);

}  // namespace calcjit::jit

#endif  // CALCJIT_BACKEND_JIT_JIT_H_
