// How a piece's loop is cut into stages around its calls to the expensive
// kernels (issue 27, docs/PERFORMANCE.md run U3).
//
// Each call to a vector kernel (exp, log, log1p, sigmoid, tanh, pow) clobbers
// every vector register, so in one fused loop every value live across a call
// is spilled and reloaded around it: on the 1,000-feature set, with 290 such
// calls, that made the JIT slower than the VM. A staged piece runs blocks of
// kStageBlock items; within a block, compute stages and call stages
// alternate, each one loop over the block: a compute stage evaluates the
// nodes whose operands are known (fused, in registers, as before) and a call
// stage the calls whose arguments are, with nothing else live. A value used
// in a later stage goes through a block-sized buffer in the executor's
// scratch (L1 or L2), stored once and loaded where used. Compute stages are
// also cut every kMaxStageNodes nodes: a longer body outgrows the
// instruction caches (measured: run U3). Every column call's value
// (IsColumnCall) goes through a buffer, so that a call stage whose arguments
// are buffers or inputs is one call of the tier's column kernel per block
// (the VM's own loop, constants held across the block: codegen.cc) instead
// of a vector variant per 16 items, which cost one-kernel sets 6-11% against
// the VM (run U5). The kernels, and what each item's values are computed
// from, are the same, so are the bits. A piece without column calls of at
// most kMaxStageNodes nodes is one stage: the single fused loop of before.
#ifndef CALCJIT_BACKEND_JIT_STAGES_H_
#define CALCJIT_BACKEND_JIT_STAGES_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "backend/program/program.h"

namespace calcjit::jit {

// Items per block (a multiple of the 16-item chunk). Every piece runs in
// blocks (codegen.cc), a staged one with one loop per stage in each; its
// buffers hold one block.
// Smaller blocks, sized so that a piece's buffers stay in L1, were measured
// and not kept: they cost the large set up to 1.4x at 10,000 items and
// gained nothing beyond noise elsewhere (docs/PERFORMANCE.md, run U6).
inline constexpr std::int64_t kStageBlock = 512;
// Floats from one buffer's start to the next: a block and 64 bytes, so that
// the same item of two buffers is never a multiple of 4 KB apart (a load
// after a store 4 KB away waits for it: "4K aliasing").
inline constexpr std::int64_t kStageBufferStride = kStageBlock + 16;
// The most nodes one compute stage fuses: a longer loop body no longer fits
// the instruction caches, and runs once per 16 items.
inline constexpr std::uint32_t kMaxStageNodes = 32;

struct StagePlan {
  std::uint32_t stage_count = 1;
  // Per node: its stage and its buffer, or -1 when every use is in its own
  // stage. Values whose stages, from the one that stores them to the last
  // that reads them, do not meet share a buffer.
  std::vector<std::uint32_t> stage;
  std::vector<std::int32_t> buffer;
  std::uint32_t buffer_count = 0;

  bool calls = false;  // the piece has a column call (IsColumnCall): then staged

  bool staged() const { return stage_count > 1 || calls; }
  // The scratch a call of the piece needs for its buffers.
  std::size_t ScratchFloats() const {
    return static_cast<std::size_t>(buffer_count) * static_cast<std::size_t>(kStageBufferStride);
  }
};

// Whether node `v` of `piece` is a call a column kernel can run over a block:
// an expensive kernel whose operands are all nodes or input columns. A call
// with a constant or scalar operand (pow(x, 0.5)) stays a vector call per 16
// items, so its value needs no buffer of its own.
bool IsColumnCall(const program::Region& piece, std::uint32_t v);

// A call's stage is the earliest its operands allow: one after the last
// compute stage of its arguments. Anything else is computed as late as its
// users allow: in the compute stage of its first computing user, or the one
// before its first call (a value of inputs alone then needs no buffer across
// the calls in between). Compute stages are cut into runs of kMaxStageNodes.
// Buffers are reused as soon as the code of a stage allows (stages.cc).
// `allow` false (the "stage" step switched off): one stage.
StagePlan MakeStagePlan(const program::Region& piece, bool allow = true);

}  // namespace calcjit::jit

#endif  // CALCJIT_BACKEND_JIT_STAGES_H_
