// The bitvector and oblivious forms of the block evaluator (prepared_model.h,
// TreeForm), included by block_evaluator_impl.h inside its tier's namespace:
// compiled once per tier, internal linkage. Each function evaluates one tree
// for the items of one block (in_block <= kBlockItems; the block's keys past
// in_block are 0 and their results are never stored) and adds each item's
// leaf to out[i], in tree order like every form.
//
// This is the portable form, written over kVectorLanes items at a time in
// plain loops that every tier's compiler vectorizes as it can.

// Items whose bitvectors are computed together: two 32-bit words each.
constexpr std::size_t kVectorLanes = 16;

inline std::uint32_t KeyAt(const unsigned char* keys, std::uint32_t offset, std::size_t item) {
  std::uint32_t key;
  std::memcpy(&key, keys + offset + item * sizeof(std::uint32_t), sizeof key);
  return key;
}

// A tree of at most 64 leaves: every split compared for the group's items,
// the bitvectors of those that go right ANDed with its keep mask, the exit
// leaf the lowest bit left.
template <typename Sum, std::uint32_t kWords>
void BitvectorTree(const MaskNode* nodes, std::uint32_t splits, const Sum* leaves,
                   const unsigned char* keys, std::size_t in_block, Sum* out) {
  for (std::size_t g = 0; g < in_block; g += kVectorLanes) {
    std::uint32_t low[kVectorLanes];
    std::uint32_t high[kVectorLanes];
    for (std::size_t l = 0; l < kVectorLanes; ++l) low[l] = high[l] = ~0u;
    for (std::uint32_t s = 0; s < splits; ++s) {
      const MaskNode node = nodes[s];
      for (std::size_t l = 0; l < kVectorLanes; ++l) {
        const bool right = KeyAt(keys, node.key_offset, g + l) >= node.threshold_key;
        low[l] &= right ? node.keep[0] : ~0u;
        if constexpr (kWords == 2) high[l] &= right ? node.keep[1] : ~0u;
      }
    }
    const std::size_t lanes = in_block - g < kVectorLanes ? in_block - g : kVectorLanes;
    for (std::size_t l = 0; l < lanes; ++l) {
      // The exit leaf always survives, so one of the words is not 0.
      const std::uint32_t leaf = kWords == 1 || low[l] != 0
                                     ? static_cast<std::uint32_t>(std::countr_zero(low[l]))
                                     : 32 + static_cast<std::uint32_t>(std::countr_zero(high[l]));
      out[g + l] += leaves[leaf];
    }
  }
}

// A symmetric tree of `depth` levels: the leaf index is the decisions' bits.
template <typename Sum>
void ObliviousTree(const HeapNode* levels, std::uint32_t depth, const Sum* leaves,
                   const unsigned char* keys, std::size_t in_block, Sum* out) {
  for (std::size_t g = 0; g < in_block; g += kVectorLanes) {
    std::uint32_t index[kVectorLanes];
    for (std::size_t l = 0; l < kVectorLanes; ++l) index[l] = 0;
    for (std::uint32_t d = 0; d < depth; ++d) {
      const HeapNode level = levels[d];
      for (std::size_t l = 0; l < kVectorLanes; ++l) {
        index[l] = 2 * index[l] + static_cast<std::uint32_t>(KeyAt(keys, level.key_offset, g + l) >=
                                                             level.threshold_key);
      }
    }
    const std::size_t lanes = in_block - g < kVectorLanes ? in_block - g : kVectorLanes;
    for (std::size_t l = 0; l < lanes; ++l) out[g + l] += leaves[index[l]];
  }
}
