// Lowering the optimized DAG to a VM program: scheduling into phases,
// choosing where each value lives, fusing common patterns, and reusing
// scratch columns by liveness.
#ifndef CALCJIT_BACKEND_VM_LOWER_H_
#define CALCJIT_BACKEND_VM_LOWER_H_

#include <cstdint>

#include "backend/vm/program.h"
#include "calcjit/status.h"
#include "opt/dag.h"

namespace calcjit::vm {

// The default block: 1,024 items. A block's scratch columns (4 KiB each, a few
// dozen live at once) then stay in L2, and the dispatch cost of an
// instruction is spread over enough items; 512 to 2,048 measure within 5% of
// each other, 64 to 256 up to 50% slower (docs/PERFORMANCE.md).
inline constexpr std::uint32_t kDefaultBlockSize = 1024;

struct LowerOptions {
  std::uint32_t block_size = kDefaultBlockSize;
  Isa isa = Isa::kBaseline;  // a concrete tier
  // Reuse a scratch column once its value is dead, and compute in place when
  // an operand dies at the instruction that consumes it.
  bool reuse_registers = true;
  // a + s*b (a weighted-sum step) as one instruction instead of two.
  bool fuse = true;
  // For the JIT: element-wise column values become native pieces (loops over
  // all items, one per group of features) instead of block instructions; the
  // JIT compiles them. A piece holds at most this many nodes, so a huge phase
  // is compiled as several functions (in parallel) and cached piece by piece.
  bool native = false;
  std::uint32_t max_piece_nodes = 1000;
};

Program Lower(const opt::Dag& dag, const LowerOptions& options);

}  // namespace calcjit::vm

#endif  // CALCJIT_BACKEND_VM_LOWER_H_
