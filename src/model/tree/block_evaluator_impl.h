// The block evaluator, written once and compiled once per tier: each
// block_evaluator_<tier>.cc defines CALCJIT_MODEL_TIER (the namespace) and
// includes this file with its own -march flags (src/model/CMakeLists.txt).
// Everything here has internal linkage, so the linker never mixes tiers.
#ifndef CALCJIT_MODEL_TIER
#error "define CALCJIT_MODEL_TIER before including block_evaluator_impl.h"
#endif

// GCC 12's intrinsics start from _mm512_undefined_*(), which
// -Wmaybe-uninitialized reports after inlining (GCC bug 105593, as
// math/transcendental_avx512.h): silenced for the intrinsic headers only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#ifndef __clang__  // a GCC-only warning (clang: "unknown warning group")
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#pragma GCC diagnostic pop

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "model/tree/block_evaluator.h"
#include "model/tree/reference_evaluator.h"
#include "model/tree/split_keys.h"

namespace calcjit::model::CALCJIT_MODEL_TIER {

namespace {

constexpr std::size_t kBlock = PreparedModel::kBlockItems;
// This tier's plan (PreparedModel::trees), by the compile flags that make it.
#if defined(__AVX512F__)
constexpr Isa kTier = Isa::kAvx512;
#elif defined(__AVX2__)
constexpr Isa kTier = Isa::kAvx2;
#else
constexpr Isa kTier = Isa::kBaseline;
#endif
// Items walked together through one tree: eight chains of dependent loads
// that the CPU overlaps (measured: four leave latency exposed, sixteen spill
// the indices out of the sixteen integer registers).
constexpr std::size_t kLanes = 8;
constexpr std::uint32_t kNanLowKey = 0;
constexpr std::uint32_t kNanHighKey = 0xFFFFFFFFu;
// 1e-35f, TreeRules::tiny_as_zero's bound (kTinyAsZeroBound) as float32 bits.
constexpr std::uint32_t kTinyBits = std::bit_cast<std::uint32_t>(1e-35f);
constexpr std::uint32_t kPositiveZeroKey = 0x80000000u;

#include "model/tree/bitvector_impl.h"
// After bitvector_impl.h, whose AddLeaves and lane counts it uses.
#include "model/tree/binned_impl.h"

inline std::uint32_t Bits(float x) {
  return std::bit_cast<std::uint32_t>(x);
}
inline bool IsNanBits(std::uint32_t bits) {
  return (bits & 0x7FFFFFFFu) > 0x7F800000u;
}

// The keys of a numerical slot (SlotKind's first eight): tiny values as +0
// (kTiny), +-0 as missing (kZeroMissing), missing at the top of the key range
// and the others shifted down by one (kHigh) or at 0.
template <bool kTiny, bool kZeroMissing, bool kHigh>
void MakeNumericalKeys(const float* column, std::size_t count, std::uint32_t* keys) {
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint32_t b = Bits(column[i]);
    std::uint32_t key = OrderKey(b);
    if constexpr (kTiny) key = (b & 0x7FFFFFFFu) <= kTinyBits ? kPositiveZeroKey : key;
    bool missing = IsNanBits(b);
    if constexpr (kZeroMissing) missing = missing || key == kPositiveZeroKey;
    if constexpr (kHigh) {
      keys[i] = missing ? kNanHighKey : key - 1;
    } else {
      keys[i] = missing ? kNanLowKey : key;
    }
  }
}

// The keys of one slot for the items of one block (count <= kBlock; the rest
// of the block's keys are 0).
void MakeKeys(const TreeEnsemble& model, const Slot& slot, const float* column, std::size_t count,
              std::uint32_t* keys) {
  switch (slot.kind) {
    case SlotKind::kNanLow:
      MakeNumericalKeys<false, false, false>(column, count, keys);
      break;
    case SlotKind::kNanHigh:
      MakeNumericalKeys<false, false, true>(column, count, keys);
      break;
    case SlotKind::kZeroMissingLow:
      MakeNumericalKeys<false, true, false>(column, count, keys);
      break;
    case SlotKind::kZeroMissingHigh:
      MakeNumericalKeys<false, true, true>(column, count, keys);
      break;
    case SlotKind::kTinyNanLow:
      MakeNumericalKeys<true, false, false>(column, count, keys);
      break;
    case SlotKind::kTinyNanHigh:
      MakeNumericalKeys<true, false, true>(column, count, keys);
      break;
    case SlotKind::kTinyZeroMissingLow:
      MakeNumericalKeys<true, true, false>(column, count, keys);
      break;
    case SlotKind::kTinyZeroMissingHigh:
      MakeNumericalKeys<true, true, true>(column, count, keys);
      break;
    case SlotKind::kCategoryInSetRight: {
      // TreeRules::Categories::kInSetGoesRight, as reference_evaluator.cc
      // (after tiny values count as +0, where a rule says so: -1e-36 is then
      // category 0, not a negative one).
      TreeNode node;
      node.category_set = slot.category_set;
      const bool tiny_as_zero = model.rules.tiny_as_zero;
      for (std::size_t i = 0; i < count; ++i) {
        float x = column[i];
        if (tiny_as_zero && (Bits(x) & 0x7FFFFFFFu) <= kTinyBits) x = 0.0f;
        bool left;
        if (x != x) {
          left = slot.default_left;
        } else if (x < 0.0f || x >= 16777216.0f) {
          left = true;
        } else {
          left = !model.CategoryInSet(node, static_cast<std::uint64_t>(x));
        }
        keys[i] = left ? 0 : 1;
      }
      break;
    }
    case SlotKind::kCategoryCode:
      for (std::size_t i = 0; i < count; ++i) keys[i] = CategoryCode(model.rules, column[i]);
      break;
    case SlotKind::kCategoryInSetLeft: {
      // Tiny values truncate to category 0 whether or not they count as +0.
      TreeNode node;
      node.category_set = slot.category_set;
      for (std::size_t i = 0; i < count; ++i) {
        const float x = column[i];
        bool left = false;
        // NaN, a negative truncation, or a category beyond 2^32: right.
        if (x == x && x > -1.0f && x < 4294967296.0f) {
          left = model.CategoryInSet(node, static_cast<std::uint64_t>(x));
        }
        keys[i] = left ? 0 : 1;
      }
      break;
    }
  }
  for (std::size_t i = count; i < kBlock; ++i) keys[i] = 0;
}

// The leaf positions (relative to the tree's first node) that kLanes items
// reach: `keys` is the block's key area at the group's first item.
inline void WalkLanes(const FastNode* nodes, std::uint32_t depth, const unsigned char* keys,
                      std::uint32_t* leaf) {
  std::uint32_t index[kLanes];
  for (std::size_t l = 0; l < kLanes; ++l) index[l] = 0;
  for (std::uint32_t d = 0; d < depth; ++d) {
#pragma GCC unroll 8
    for (std::size_t l = 0; l < kLanes; ++l) {
      const FastNode node = nodes[index[l]];
      std::uint32_t key;
      std::memcpy(&key, keys + (std::size_t{node.slot} << PreparedModel::kSlotShift) + l * 4,
                  sizeof key);
      index[l] += node.child_delta + static_cast<std::uint32_t>(key < node.threshold_key);
    }
  }
  for (std::size_t l = 0; l < kLanes; ++l) leaf[l] = index[l];
}

// The same for a tree in heap order: from position 1, `depth` steps; returns
// the leaf index (position - 2^depth).
inline void WalkHeap(const HeapNode* nodes, std::uint32_t depth, const unsigned char* keys,
                     std::uint32_t* leaf) {
  // 64-bit positions, so that none is zero-extended before it addresses a
  // node: each step is two loads of the node, a compare with the key in
  // memory, and setb/movzx/lea (six instructions in the x86-64-v3 build).
  std::size_t index[kLanes];
  for (std::size_t l = 0; l < kLanes; ++l) index[l] = 1;
  for (std::uint32_t d = 0; d < depth; ++d) {
#pragma GCC unroll 8
    for (std::size_t l = 0; l < kLanes; ++l) {
      const HeapNode node = nodes[index[l]];
      std::uint32_t key;
      std::memcpy(&key, keys + node.key_offset + l * 4, sizeof key);
      index[l] += index[l] + static_cast<std::size_t>(key < node.threshold_key);
    }
  }
  for (std::size_t l = 0; l < kLanes; ++l) {
    leaf[l] = static_cast<std::uint32_t>(index[l] - (std::size_t{1} << depth));
  }
}

// The model's leaves of the sum's type.
template <typename Sum>
const Sum* Leaves(const PreparedModel& prepared) {
  if constexpr (sizeof(Sum) == sizeof(float)) {
    return prepared.float_leaves().data();
  } else {
    return prepared.double_leaves().data();
  }
}

// A walked tree's leaves added for the items of a block, kLanes at a time
// (`walk` is WalkLanes or WalkHeap).
template <typename Node, typename Sum>
void AddWalkedLeaves(void (*walk)(const Node*, std::uint32_t, const unsigned char*, std::uint32_t*),
                     const Node* nodes, std::uint32_t depth, const unsigned char* block_keys,
                     std::size_t in_block, const Sum* leaves, Sum* out) {
  for (std::size_t g = 0; g < in_block; g += kLanes) {
    std::uint32_t leaf[kLanes];
    walk(nodes, depth, block_keys + g * sizeof(std::uint32_t), leaf);
    const std::size_t lanes = in_block - g < kLanes ? in_block - g : kLanes;
    for (std::size_t l = 0; l < lanes; ++l) out[g + l] += leaves[leaf[l]];
  }
}

// One tree (any form but kBinned) for one block of a pass.
template <typename Sum>
void RunTree(const PreparedModel& prepared, const FastTree& tree, const float* const* columns,
             std::size_t item, std::size_t in_block, const unsigned char* block_keys, Sum* out) {
  const TreeEnsemble& model = prepared.ensemble();
  if (tree.form == TreeForm::kReference) {
    const Tree& big = model.trees[static_cast<std::size_t>(tree.reference_tree)];
    for (std::size_t i = 0; i < in_block; ++i) {
      const std::uint32_t leaf = ReferenceLeaf(model, big, columns, item + i);
      out[i] += static_cast<Sum>(model.node(big, leaf).value);
    }
    return;
  }
  const Sum* leaves = Leaves<Sum>(prepared) + tree.first_leaf;
  if (tree.form == TreeForm::kBitvector) {
    BitvectorTree<Sum>(prepared.mask_nodes().data() + tree.first_node,
                       prepared.word_ends().data() + tree.first_word, tree.words, leaves,
                       block_keys, in_block, out);
    return;
  }
  if (tree.form == TreeForm::kOblivious) {
    ObliviousTree<Sum>(prepared.heap_nodes().data() + tree.first_node, tree.depth, leaves,
                       block_keys, in_block, out);
    return;
  }
  if (tree.form == TreeForm::kHeap) {
    AddWalkedLeaves(WalkHeap, prepared.heap_nodes().data() + tree.first_node, tree.depth,
                    block_keys, in_block, leaves, out);
    return;
  }
  AddWalkedLeaves(WalkLanes, prepared.nodes().data() + tree.first_node, tree.depth, block_keys,
                  in_block, leaves, out);
}

// Blocks whose binned trees run together, each split's loads shared: four
// on AVX2 and AVX-512 (7% and 3% faster than two on 500 trees of depth 8,
// run Q4: a word's loop exit, mispredicted, is paid once for more items),
// two on the baseline, whose sixteen SSE registers hold two blocks' words.
#if defined(__AVX2__)
constexpr std::size_t kBinnedGroup = 4;
#else
constexpr std::size_t kBinnedGroup = 2;
#endif

// One binned tree for the `group` blocks of a pass whose bins start at
// `bins` (at most kBinnedGroup blocks; the last one has in_last items).
template <bool kGfni, bool kCategorical, typename Sum>
void RunBinnedTree(const BinnedWords& words, const Sum* leaves, std::uint32_t count,
                   std::size_t group, std::size_t in_last, Sum* out) {
  switch (group) {
    case 4:
      if constexpr (kBinnedGroup == 4) {
        BinnedTree<4, kGfni, kCategorical, Sum>(words, leaves, count, in_last, out);
        return;
      }
      break;
    case 3:
      if constexpr (kBinnedGroup == 4) {
        BinnedTree<3, kGfni, kCategorical, Sum>(words, leaves, count, in_last, out);
        return;
      }
      break;
    case 2:
      BinnedTree<2, kGfni, kCategorical, Sum>(words, leaves, count, in_last, out);
      return;
    default:
      break;
  }
  BinnedTree<1, kGfni, kCategorical, Sum>(words, leaves, count, in_last, out);
}

// Every tree, chunk by chunk, for the blocks of a pass, kBinnedGroup blocks
// at a time; kGfni: the binned form's split step by GFNI (binned_impl.h).
template <bool kGfni, typename Sum>
void RunPass(const PreparedModel& prepared, const float* const* columns, std::size_t first,
             std::size_t count, Sum* const* sums, const unsigned char* keys) {
  const std::size_t block_bytes = prepared.scratch_layout().block_bytes;
  const std::size_t bins_offset = prepared.scratch_layout().bins_offset;
  // A code bin slot's bit row is its complemented copy's.
  const std::size_t bit_rows = prepared.bin_slots().size() * kBlock;
  const std::size_t blocks = (count + kBlock - 1) / kBlock;
  const auto& chunks = prepared.chunk_starts(kTier);
  const FastTree* trees = prepared.trees(kTier).data();
  const Sum* all_leaves = Leaves<Sum>(prepared);
  for (std::size_t c = 0; c + 1 < chunks.size(); ++c) {
    for (std::size_t b = 0; b < blocks; b += kBinnedGroup) {
      const std::size_t group = blocks - b < kBinnedGroup ? blocks - b : kBinnedGroup;
      const std::size_t block_first = b * kBlock;
      // Items in the last block of the group.
      const std::size_t last_first = (b + group - 1) * kBlock;
      const std::size_t in_last = count - last_first < kBlock ? count - last_first : kBlock;
      const unsigned char* block_keys = keys + b * block_bytes;
      for (std::uint32_t t = chunks[c]; t < chunks[c + 1]; ++t) {
        const FastTree& tree = trees[t];
        Sum* out = sums[tree.output] + block_first;
        if (tree.form == TreeForm::kBinned) {
          const BinnedWords words{prepared.bin_nodes().data() + tree.first_node,
                                  prepared.word_ends().data() + tree.first_word,
                                  prepared.category_nodes().data() + tree.first_category_node,
                                  prepared.category_word_ends().data() + tree.first_word,
                                  tree.words,
                                  block_keys + bins_offset,
                                  block_bytes,
                                  bit_rows};
          const Sum* leaves = all_leaves + tree.first_leaf;
          if (tree.categorical) {
            RunBinnedTree<kGfni, true, Sum>(words, leaves, tree.leaves, group, in_last, out);
          } else {
            RunBinnedTree<kGfni, false, Sum>(words, leaves, tree.leaves, group, in_last, out);
          }
          continue;
        }
        for (std::size_t k = 0; k < group; ++k) {
          RunTree<Sum>(prepared, tree, columns, first + block_first + k * kBlock,
                       k + 1 < group ? kBlock : in_last, block_keys + k * block_bytes,
                       out + k * kBlock);
        }
      }
    }
  }
}

// RunPass with the split step this tier's plan chose: GFNI's only on
// AVX-512 (TreePlan::gfni_split_step).
template <typename Sum>
void RunPassAsPrepared(const PreparedModel& prepared, const float* const* columns,
                       std::size_t first, std::size_t count, Sum* const* sums,
                       const unsigned char* keys) {
#if defined(__AVX512F__)
  if (prepared.plan(kTier).gfni_split_step) {
    RunPass<true, Sum>(prepared, columns, first, count, sums, keys);
    return;
  }
#endif
  RunPass<false, Sum>(prepared, columns, first, count, sums, keys);
}

}  // namespace

void Evaluate(const PreparedModel& prepared, const float* const* columns, std::size_t n,
              float* const* outputs, void* scratch) {
  const TreeEnsemble& model = prepared.ensemble();
  const std::size_t pass_items = prepared.items_per_pass();
  const std::size_t num_slots = prepared.slots().size();
  const std::uint32_t num_outputs = model.info.num_outputs;
  const bool float64 = prepared.sums_float64();
  const TreePlan& plan = prepared.plan(kTier);
  const bool flipped_keys = plan.bitvector + plan.oblivious > 0;
  const ScratchLayout& layout = prepared.scratch_layout();
  auto* keys = static_cast<unsigned char*>(scratch);
  double* double_sums = reinterpret_cast<double*>(keys + layout.sums_offset);
  void* pointer_area = keys + layout.pointers_offset;

  for (std::size_t first = 0; first < n; first += pass_items) {
    const std::size_t count = n - first < pass_items ? n - first : pass_items;
    const std::size_t blocks = (count + kBlock - 1) / kBlock;
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::size_t block_first = b * kBlock;
      const std::size_t in_block = count - block_first < kBlock ? count - block_first : kBlock;
      unsigned char* block_keys = keys + b * layout.block_bytes;
      for (std::size_t s = 0; s < num_slots; ++s) {
        const Slot& slot = prepared.slots()[s];
        auto* slot_keys =
            reinterpret_cast<std::uint32_t*>(block_keys + s * kBlock * sizeof(std::uint32_t));
        MakeKeys(model, slot, columns[slot.feature] + first + block_first, in_block, slot_keys);
        // The flipped copy the bitvector and oblivious forms compare as
        // signed (kKeyBias), num_slots slots further: only where this tier's
        // plan has such trees.
        if (!flipped_keys) continue;
        std::uint32_t* flipped = slot_keys + num_slots * kBlock;
        for (std::size_t i = 0; i < kBlock; ++i) flipped[i] = slot_keys[i] ^ kKeyBias;
      }
      // The bins of the binned form's trees, where this tier's plan has any.
      if (plan.binned == 0) continue;
      auto* bins = reinterpret_cast<std::int8_t*>(block_keys + layout.bins_offset);
      const std::size_t complemented = prepared.bin_slots().size() * kBlock;
      const std::uint32_t* tables = prepared.bin_thresholds().data();
      for (const BinSlot& bin_slot : prepared.bin_slots()) {
        const auto* slot_keys =
            reinterpret_cast<const std::uint32_t*>(block_keys) + bin_slot.slot * kBlock;
        if (bin_slot.codes()) {
          MakeCodeBins(slot_keys, plan.gfni_split_step, bins, bins + complemented);
        } else {
          MakeBins(bin_slot, tables + bin_slot.first_threshold, slot_keys, bins,
                   bins + complemented);
        }
        bins += kBlock;
      }
    }
    if (float64) {
      double** sums = static_cast<double**>(pointer_area);
      for (std::uint32_t k = 0; k < num_outputs; ++k) {
        sums[k] = double_sums + std::size_t{k} * pass_items;
        for (std::size_t i = 0; i < count; ++i) sums[k][i] = 0.0;
      }
      RunPassAsPrepared<double>(prepared, columns, first, count, sums, keys);
      for (std::uint32_t k = 0; k < num_outputs; ++k) {
        for (std::size_t i = 0; i < count; ++i) {
          outputs[k][first + i] = model.rules.FinishFloat64(sums[k][i], k);
        }
      }
    } else {
      float** sums = static_cast<float**>(pointer_area);
      for (std::uint32_t k = 0; k < num_outputs; ++k) {
        sums[k] = outputs[k] + first;
        const float base = model.rules.base_margin[k];
        for (std::size_t i = 0; i < count; ++i) sums[k][i] = base;
      }
      RunPassAsPrepared<float>(prepared, columns, first, count, sums, keys);
    }
  }
}

}  // namespace calcjit::model::CALCJIT_MODEL_TIER
