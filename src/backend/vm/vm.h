// The block VM: one of the two region compilers of the shared program
// (backend/program). Each region becomes a flat list of instructions over
// blocks of items, each instruction a column kernel of the chosen
// instruction-set tier. Ready as soon as the set is scheduled (no code
// generation), so it serves a new version at once while the JIT compiles.
#ifndef CALCJIT_BACKEND_VM_VM_H_
#define CALCJIT_BACKEND_VM_VM_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "backend/program/program.h"
#include "backend/program/region_code.h"
#include "calcjit/cpu.h"

namespace calcjit::vm {

// The default block: 1,024 items. A block's scratch columns (4 KiB each, a few
// dozen live at once) then stay in L2, and the dispatch cost of an
// instruction is spread over enough items; 512 to 2,048 measure within 5% of
// each other, 64 to 256 up to 50% slower (docs/PERFORMANCE.md).
inline constexpr std::uint32_t kDefaultBlockSize = 1024;

struct VmOptions {
  Isa isa = Isa::kBaseline;  // a concrete tier (the runtime resolves kAuto)
  std::uint32_t block_size = kDefaultBlockSize;
  bool reuse_registers = true;  // the "reuse" step
  bool fuse = true;             // the "fuse" step
};

// The VM's own steps that EngineOptions::disabled_passes can switch off:
// "reuse" (block registers; with it the scheduler's column reuse) and "fuse"
// (a + s*b and chains of one operator as single instructions).
std::span<const std::string_view> VmStepNames();

// Never fails: every region the scheduler makes has VM code.
program::CompiledRegions CompileRegions(const program::Program& program, const VmOptions& options);

}  // namespace calcjit::vm

#endif  // CALCJIT_BACKEND_VM_VM_H_
