#include "math/rank_sort.h"

#include <hwy/base.h>
#include <hwy/contrib/sort/vqsort.h>
#include <hwy/targets.h>

#include <algorithm>

namespace calcjit::math {

namespace {

// hwy::Sorter owns a buffer that each sort writes, so a sorter serves one
// thread at a time: one per thread, made on the thread's first sort.
const hwy::Sorter& ThisThreadsSorter() {
  thread_local const hwy::Sorter sorter;
  return sorter;
}

}  // namespace

bool VqSortRightOn(std::int64_t targets) {
  // vqsort runs the best target it was built for: any AVX-512 one (HWY_AVX3
  // is set whenever a later one is) comes before AVX2.
  return (targets & HWY_AVX3) != 0 || (targets & HWY_AVX2) == 0;
}

bool VqSortRightHere() {
  static const bool right = VqSortRightOn(hwy::SupportedTargets());
  return right;
}

void VqSortByValue(std::uint64_t* keys, std::size_t n) {
  if (VqSortRightHere()) {
    HighwayVqSortByValue(keys, n);
  } else {
    // Whole keys: equal values then sort by item, which rank does not mind.
    std::sort(keys, keys + n);
  }
}

void HighwayVqSortByValue(std::uint64_t* keys, std::size_t n) {
  // K32V32 is {value, key} in memory, i.e. the key in the upper half of a
  // little-endian 64-bit word: our layout. It compares the keys only, which
  // lets vqsort stop recursing on runs of ties.
  static_assert(sizeof(hwy::K32V32) == sizeof(std::uint64_t));
  ThisThreadsSorter()(reinterpret_cast<hwy::K32V32*>(keys), n, hwy::SortAscending());
}

void PrepareVqSort() {
  if (VqSortRightHere()) (void)ThisThreadsSorter();
}

}  // namespace calcjit::math
