// The items of a batch of fewer than kChunk in and out of a padded block of
// kChunk floats (JitCode runs such a batch through the compiled function as
// one whole chunk; a larger batch's last n % kChunk items need no copy:
// codegen.h). Per tier, because this is a fixed cost of every evaluation of
// fewer than 16 items: with AVX-512 or AVX2 one masked load or store per
// column (masked lanes are not read, so nothing past the caller's buffer is
// touched), instead of a fill and a memcpy call. Masked only when the
// masked-off lanes stay on the pages of the active ones
// (math/masked_lanes.h: a masked-off lane on a page not in the page table
// costs a microcode assist on every call).
#ifndef CALCJIT_BACKEND_JIT_TAIL_BLOCKS_H_
#define CALCJIT_BACKEND_JIT_TAIL_BLOCKS_H_

#include <cstddef>

#include "backend/jit/codegen.h"
#include "calcjit/cpu.h"

namespace calcjit::jit {

struct TailBlocks {
  // block[0, n) = src[0, n), block[n, kChunk) = +0; n <= kChunk.
  void (*load)(const float* src, std::size_t n, float* block);
  // dst[0, n) = block[0, n); n <= kChunk.
  void (*store)(const float* block, std::size_t n, float* dst);
};

// The functions of a concrete tier (the caller checked the CPU has it).
TailBlocks TailBlocksFor(Isa isa);

}  // namespace calcjit::jit

#endif  // CALCJIT_BACKEND_JIT_TAIL_BLOCKS_H_
