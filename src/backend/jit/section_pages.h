// The pages a loaded piece's sections occupy, and the two rules the JIT keeps
// about them (docs/PERFORMANCE.md, run U):
//
// - No page holds both code and writable data: a store to a page the CPU
//   also executes from is a self-modifying-code machine clear, on every
//   store. RuntimeDyld's SectionMemoryManager maps code and data in separate
//   blocks, so this holds by construction; it is checked on every load
//   anyway, since a change of memory manager could break it silently.
// - Every page of a piece's data (its constant pool and the kernels' tables)
//   is touched by an ordinary load before each call of the piece. The
//   piece's masked loads (a blend from a constant, a gather from a table)
//   may leave every lane off; on a page the kernel has taken out of the page
//   table (reclaim, migration, NUMA hinting) such a load does not fault the
//   page back in but takes a microcode assist, every time, for the life of
//   the code: 25-70x slower pieces, with bit-exact results. One load per
//   page per call puts the page back.
#ifndef CALCJIT_BACKEND_JIT_SECTION_PAGES_H_
#define CALCJIT_BACKEND_JIT_SECTION_PAGES_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "calcjit/status.h"

namespace calcjit::jit {

enum class SectionKind : unsigned char { kCode, kReadOnlyData, kWritableData };

struct SectionRange {
  std::uintptr_t start = 0;
  std::size_t bytes = 0;
  SectionKind kind = SectionKind::kCode;
};

// An error naming the page when a page holds code and writable data.
Status CheckCodeApartFromWritableData(std::span<const SectionRange> sections);

// The first byte of every page that holds data (read-only or writable),
// each page once, in address order.
std::vector<const volatile char*> DataPages(std::span<const SectionRange> sections);

// One ordinary load from each page (see above).
inline void TouchPages(std::span<const volatile char* const> pages) {
  for (const volatile char* page : pages) static_cast<void>(*page);
}

}  // namespace calcjit::jit

#endif  // CALCJIT_BACKEND_JIT_SECTION_PAGES_H_
