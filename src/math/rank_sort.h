// The library sort behind RANK for the sizes where it beats the radix sort
// of aggregate.h (docs/PERFORMANCE.md, "Rank: sort choice and top-k"):
// Highway's vqsort, which picks the widest vector unit of the CPU at run
// time by itself, so every kernel tier calls the same compiled function.
#ifndef CALCJIT_MATH_RANK_SORT_H_
#define CALCJIT_MATH_RANK_SORT_H_

#include <cstddef>
#include <cstdint>

namespace calcjit::math {

// Sorts the keys ascending by their upper 32 bits (the order among equal
// upper halves is unspecified, which rank does not observe). Uses this
// thread's sorter: the first call on a thread allocates its buffer (a few
// kilobytes), later calls allocate nothing.
void VqSortByValue(std::uint64_t* keys, std::size_t n);

// Makes this thread's sorter now, so that its first RANK allocates nothing.
void PrepareVqSort();

}  // namespace calcjit::math

#endif  // CALCJIT_MATH_RANK_SORT_H_
