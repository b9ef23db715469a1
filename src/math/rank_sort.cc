#include "math/rank_sort.h"

#include <hwy/base.h>
#include <hwy/contrib/sort/vqsort.h>

namespace calcjit::math {

namespace {

// hwy::Sorter owns a buffer that each sort writes, so a sorter serves one
// thread at a time: one per thread, made on the thread's first sort.
const hwy::Sorter& ThisThreadsSorter() {
  thread_local const hwy::Sorter sorter;
  return sorter;
}

}  // namespace

void VqSortByValue(std::uint64_t* keys, std::size_t n) {
  // K32V32 is {value, key} in memory, i.e. the key in the upper half of a
  // little-endian 64-bit word: our layout. It compares the keys only, which
  // lets vqsort stop recursing on runs of ties.
  static_assert(sizeof(hwy::K32V32) == sizeof(std::uint64_t));
  ThisThreadsSorter()(reinterpret_cast<hwy::K32V32*>(keys), n, hwy::SortAscending());
}

void PrepareVqSort() {
  (void)ThisThreadsSorter();
}

}  // namespace calcjit::math
