// The hand-written loops of the seed formulas: what a careful engineer writes
// for one formula over float arrays, with no intrinsics, the same operations
// in the same order as the contract (so the same bits). Written once and
// compiled twice (bench/manual.h): with the project's flags (no -march: the
// compiler vectorizes with SSE2) and for the host (-march=native), the real
// limit of a loop on this machine.
//
// Included by exactly one translation unit per build of the loops, each
// defining CALCJIT_MANUAL_NAMESPACE first: the two builds must not share
// symbols, or the linker would keep one of them for both.
#ifndef CALCJIT_MANUAL_NAMESPACE
#error "define CALCJIT_MANUAL_NAMESPACE before including manual_loops.h"
#endif

#include <cstddef>
#include <span>

#include "bench/manual.h"

namespace calcjit::bench::CALCJIT_MANUAL_NAMESPACE {

void Qux(std::span<const float* const> inputs, float* out, std::size_t n) {
  const float* foo = inputs[0];
  const float* bar = inputs[1];
  const float* baz = inputs[2];
  for (std::size_t i = 0; i < n; ++i) out[i] = foo[i] / (bar[i] + baz[i]);
}

// One pass over the ten columns, summed left to right as the contract's
// left-nested tree does (a column-at-a-time accumulation would read and
// write `out` ten times).
void Sum10(std::span<const float* const> x, float* out, std::size_t n) {
  const float* x0 = x[0];
  const float* x1 = x[1];
  const float* x2 = x[2];
  const float* x3 = x[3];
  const float* x4 = x[4];
  const float* x5 = x[5];
  const float* x6 = x[6];
  const float* x7 = x[7];
  const float* x8 = x[8];
  const float* x9 = x[9];
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = x0[i] + x1[i] + x2[i] + x3[i] + x4[i] + x5[i] + x6[i] + x7[i] + x8[i] + x9[i];
  }
}

}  // namespace calcjit::bench::CALCJIT_MANUAL_NAMESPACE
