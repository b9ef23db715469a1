// What the optimizer, the scheduler and the backends make of a set, as text:
// for people reading it (`calcjit dump`, Python's calcjit.dump) and for the
// golden tests. Code is only generated, never run, so machine code for any
// instruction-set tier can be shown on any host.
#ifndef CALCJIT_DUMP_H_
#define CALCJIT_DUMP_H_

#include "calcjit/cxx20.h"

#include <optional>
#include <string>
#include <string_view>

#include "calcjit/engine.h"
#include "calcjit/feature_set.h"
#include "calcjit/status.h"

namespace calcjit {

enum class DumpKind : unsigned char {
  kDag,          // the optimized DAG, one node per line
  kPasses,       // each optimizer pass with its time and the DAG it leaves
  kProgram,      // the shared program (phases, steps, regions) and the VM's code per region
  kIr,           // the program and each region's LLVM IR as generated
  kOptimizedIr,  // ... after LLVM's optimizer, the kernels inlined
  kAssembly,     // ... the machine code
};

// "dag", "passes", "program", "ir", "optimized-ir", "asm".
std::optional<DumpKind> DumpKindFromName(std::string_view name);
std::string_view DumpKindName(DumpKind kind);

// `options` as for Engine::Compile (outputs, isa, disabled_passes, block_size,
// jit_piece_nodes; the backend is ignored). Isa::kAuto is the host's best
// tier; a named tier is used whether or not this CPU has it.
Result<std::string> Dump(const FeatureSet& set, DumpKind kind, const EngineOptions& options = {});

}  // namespace calcjit

#endif  // CALCJIT_DUMP_H_
