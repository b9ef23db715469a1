// The library sort behind RANK for the sizes where it beats the radix sort
// of aggregate.h (docs/PERFORMANCE.md, "Rank: sort choice and top-k"):
// Highway's vqsort, which picks the widest vector unit of the CPU at run
// time by itself, so every kernel tier calls the same compiled function.
//
// Except where it is wrong: Debian 12's Highway (1.0.3) loses and duplicates
// the values (our item numbers) of equal keys when it sorts key-value pairs
// with its AVX2 code, the code it runs on a CPU with AVX2 and without
// AVX-512. There RANK uses the radix sort, and VqSortByValue std::sort.
#ifndef CALCJIT_MATH_RANK_SORT_H_
#define CALCJIT_MATH_RANK_SORT_H_

#include <cstddef>
#include <cstdint>

namespace calcjit::math {

// Whether vqsort sorts key-value pairs right when Highway dispatches among
// `targets` (a mask of HWY_* targets): false when the best of them for
// vqsort is AVX2.
bool VqSortRightOn(std::int64_t targets);
// The same for this CPU, found once per process (Highway's detection runs
// CPUID, which is slow in a virtual machine).
bool VqSortRightHere();

// Sorts the keys ascending by their upper 32 bits (the order among equal
// upper halves is unspecified, which rank does not observe). Uses this
// thread's sorter: the first call on a thread allocates its buffer (a few
// kilobytes), later calls allocate nothing. Where vqsort is wrong, std::sort.
void VqSortByValue(std::uint64_t* keys, std::size_t n);

// Highway's vqsort on whatever target Highway dispatches to, right or not:
// what tests/kernels/rank_test.cc checks VqSortRightOn against.
void HighwayVqSortByValue(std::uint64_t* keys, std::size_t n);

// Makes this thread's sorter now, so that its first RANK allocates nothing.
void PrepareVqSort();

}  // namespace calcjit::math

#endif  // CALCJIT_MATH_RANK_SORT_H_
