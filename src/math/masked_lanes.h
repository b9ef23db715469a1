// Where a masked vector access may go: never onto a page that none of its
// active lanes touches.
//
// A masked load or store whose masked-off lanes reach a page that is not in
// the page table (never touched, or taken out by the kernel: reclaim,
// migration, NUMA hinting) does not fault: the CPU takes a microcode assist
// instead, 100 to 1,000 ns on the machines of docs/PERFORMANCE.md (run U),
// and nothing ever faults the page back in, so the assist repeats on every
// call for the life of the buffer. When an active lane is on the page, a
// missing page faults in once like for any load. The column tails of the
// VM's and the JIT's AVX-512 and AVX2 code ask this before they go masked.
#ifndef CALCJIT_MATH_MASKED_LANES_H_
#define CALCJIT_MATH_MASKED_LANES_H_

#include <cstddef>
#include <cstdint>

namespace calcjit::math {

inline constexpr std::uintptr_t kPageBytes = 4096;

// Whether a `span_floats`-wide access at `first` whose first `active`
// floats are active (1 <= active <= span_floats) stays on the pages those
// active floats are on. The span starts at an active lane, so only its end
// can stray onto another page.
inline bool MaskedLanesStayOnActivePages(const float* first, std::size_t active,
                                         std::size_t span_floats) {
  const auto start = reinterpret_cast<std::uintptr_t>(first);
  const std::uintptr_t last_active = start + active * sizeof(float) - 1;
  const std::uintptr_t last_spanned = start + span_floats * sizeof(float) - 1;
  return last_active / kPageBytes == last_spanned / kPageBytes;
}

}  // namespace calcjit::math

#endif  // CALCJIT_MATH_MASKED_LANES_H_
