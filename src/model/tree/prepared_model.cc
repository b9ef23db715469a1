#include "model/tree/prepared_model.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <deque>
#include <map>
#include <new>
#include <tuple>
#include <utility>

#include "common/cpu_features.h"
#include "math/fp_env.h"
#include "model/tree/split_keys.h"
#include "model/tree/symmetric_tree.h"

namespace calcjit::model {

namespace {

constexpr std::size_t kChunkBytes = 16 * 1024;
constexpr std::size_t kPassBytes = 1024 * 1024;
constexpr std::uint32_t kMaxFastTreeNodes = 65535;

// Whether the reached nodes `order` of a tree have a categorical split and
// every one's set fits category codes (split_keys.h).
bool AllCategoriesAreCodes(const TreeEnsemble& model, const Tree& tree,
                           const std::vector<std::uint32_t>& order) {
  bool categorical = false;
  for (const std::uint32_t index : order) {
    const TreeNode& node = model.node(tree, index);
    if (node.kind != NodeKind::kCategorical) continue;
    if (!CategoryCodesFit(model, node)) return false;
    categorical = true;
  }
  return categorical;
}
constexpr std::uint32_t kMaxHeapDepth = 10;

// The bits of [lo, hi) (0 <= lo <= hi <= 32) in a 32-bit word: no shift by
// 32 when the range is the whole word.
std::uint32_t WordBits(std::uint32_t lo, std::uint32_t hi) {
  const std::uint32_t width = hi - lo;
  if (width == 0) return 0;
  const std::uint32_t ones = width >= 32 ? ~0u : (1u << width) - 1;
  return ones << lo;
}

}  // namespace

const char* TreeFormName(TreeForm form) {
  switch (form) {
    case TreeForm::kWalk:
      return "walk";
    case TreeForm::kHeap:
      return "heap walk";
    case TreeForm::kBitvector:
      return "bitvector";
    case TreeForm::kOblivious:
      return "oblivious";
    case TreeForm::kBinned:
      return "binned bitvector";
    case TreeForm::kReference:
      return "reference walk";
  }
  return "?";
}

std::uint32_t PreparedModel::AddLeaves(bool float64, std::size_t count) {
  if (float64) {
    const std::size_t first = double_leaves_.size();
    double_leaves_.resize(first + count, 0.0);
    return static_cast<std::uint32_t>(first);
  }
  const std::size_t first = float_leaves_.size();
  float_leaves_.resize(first + count, 0.0f);
  return static_cast<std::uint32_t>(first);
}

void PreparedModel::SetLeaf(bool float64, std::size_t at, double value) {
  if (float64) {
    double_leaves_[at] = value;
  } else {
    float_leaves_[at] = static_cast<float>(value);
  }
}

void PreparedModel::LayOutBitvector(const TreeEnsemble& model, const Tree& tree, bool float64,
                                    SlotTable* slots, PreparedModel* prepared, FastTree* fast) {
  const LeafOrder order = OrderLeaves(model, tree);
  const std::vector<std::uint32_t>& splits = order.splits;
  const std::vector<std::uint32_t>& leaves = order.leaves;
  const std::vector<std::uint32_t>& first_leaf = order.first_leaf;
  fast->form = TreeForm::kBitvector;
  fast->words = static_cast<std::uint32_t>((leaves.size() + 31) / 32);
  fast->first_node = static_cast<std::uint32_t>(prepared->mask_nodes_.size());
  fast->first_word = static_cast<std::uint32_t>(prepared->word_ends_.size());
  std::vector<FastNode> split_keys;
  for (std::uint32_t index : splits) {
    split_keys.push_back(SplitKey(model, model.node(tree, index), slots));
  }
  // Word by word, the splits whose left subtree's leaves meet the word.
  for (std::uint32_t w = 0; w < fast->words; ++w) {
    const std::uint32_t word_lo = 32 * w;
    const std::uint32_t word_hi = word_lo + 32;
    for (std::size_t s = 0; s < splits.size(); ++s) {
      const TreeNode& node = model.node(tree, splits[s]);
      const std::uint32_t lo = std::max(first_leaf[node.left], word_lo);
      const std::uint32_t hi = std::min(first_leaf[node.right], word_hi);
      if (lo >= hi) continue;
      prepared->mask_nodes_.push_back(MaskNode{split_keys[s].threshold_key ^ kKeyBias,
                                               std::uint32_t{split_keys[s].slot} << kSlotShift,
                                               ~WordBits(lo - word_lo, hi - word_lo)});
    }
    prepared->word_ends_.push_back(
        static_cast<std::uint32_t>(prepared->mask_nodes_.size() - fast->first_node));
  }
  fast->depth = static_cast<std::uint32_t>(prepared->mask_nodes_.size() - fast->first_node);
  fast->first_leaf = prepared->AddLeaves(float64, leaves.size());
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    prepared->SetLeaf(float64, fast->first_leaf + i, model.node(tree, leaves[i]).value);
  }
  fast->bytes = static_cast<std::uint32_t>(fast->depth * sizeof(MaskNode) +
                                           leaves.size() * (float64 ? 8 : 4));
}

void PreparedModel::LayOutOblivious(const TreeEnsemble& model, const Tree& tree,
                                    std::uint32_t depth, bool float64, SlotTable* slots,
                                    PreparedModel* prepared, FastTree* fast) {
  fast->form = TreeForm::kOblivious;
  fast->depth = depth;
  fast->first_node = static_cast<std::uint32_t>(prepared->heap_nodes_.size());
  // Level l's split is the first node of the level (all split alike): follow
  // the leftmost path.
  std::uint32_t index = 0;
  for (std::uint32_t l = 0; l < depth; ++l) {
    const TreeNode& node = model.node(tree, index);
    const FastNode split = SplitKey(model, node, slots);
    prepared->heap_nodes_.push_back(
        HeapNode{split.threshold_key ^ kKeyBias, std::uint32_t{split.slot} << kSlotShift});
    index = node.left;
  }
  // Leaf index i: its bits, highest first, are the decisions (1 = right).
  const std::size_t count = std::size_t{1} << depth;
  fast->first_leaf = prepared->AddLeaves(float64, count);
  for (std::size_t i = 0; i < count; ++i) {
    std::uint32_t at = 0;
    for (std::uint32_t l = 0; l < depth; ++l) {
      const TreeNode& node = model.node(tree, at);
      at = (i >> (depth - 1 - l)) & 1 ? node.right : node.left;
    }
    prepared->SetLeaf(float64, fast->first_leaf + i, model.node(tree, at).value);
  }
  fast->bytes = static_cast<std::uint32_t>(depth * sizeof(HeapNode) + count * (float64 ? 8 : 4));
}

void PreparedModel::LayOutHeap(const TreeEnsemble& model, const Tree& tree, bool float64,
                               SlotTable* slots, PreparedModel* prepared, FastTree* fast) {
  const std::uint32_t depth = fast->depth;
  const std::size_t size = std::size_t{1} << depth;
  fast->form = TreeForm::kHeap;
  fast->first_node = static_cast<std::uint32_t>(prepared->heap_nodes_.size());
  prepared->heap_nodes_.resize(prepared->heap_nodes_.size() + size, HeapNode{0, 0});
  if (float64) {
    fast->first_leaf = static_cast<std::uint32_t>(prepared->double_leaves_.size());
    prepared->double_leaves_.resize(prepared->double_leaves_.size() + size);
  } else {
    fast->first_leaf = static_cast<std::uint32_t>(prepared->float_leaves_.size());
    prepared->float_leaves_.resize(prepared->float_leaves_.size() + size);
  }
  // at[h]: the canonical node at heap position h (a leaf stands for all its
  // heap descendants).
  std::vector<std::uint32_t> at(2 * size, 0);
  for (std::size_t h = 1; h < 2 * size; ++h) {
    const TreeNode& node = model.node(tree, at[h]);
    if (h >= size) {
      if (float64) {
        prepared->double_leaves_[fast->first_leaf + h - size] = node.value;
      } else {
        prepared->float_leaves_[fast->first_leaf + h - size] = static_cast<float>(node.value);
      }
      continue;
    }
    if (h * 2 < 2 * size) {
      at[2 * h] = node.kind == NodeKind::kLeaf ? at[h] : node.right;
      at[2 * h + 1] = node.kind == NodeKind::kLeaf ? at[h] : node.left;
    }
    HeapNode& out = prepared->heap_nodes_[fast->first_node + h];
    if (node.kind == NodeKind::kLeaf) {
      out = HeapNode{0, 0};  // never less than 0: both children are this leaf
      continue;
    }
    const FastNode split = SplitKey(model, node, slots);
    out = HeapNode{split.threshold_key, std::uint32_t{split.slot} << kSlotShift};
  }
}

std::string TreePlan::Describe() const {
  std::string out;
  const char* separator = "";
  auto add = [&](std::uint64_t count, const char* what) {
    if (count == 0) return;
    out += separator + std::to_string(count) + " " + what;
    separator = ", ";
  };
  add(binned, gfni_split_step ? "binned bitvector (GFNI)" : "binned bitvector");
  add(bitvector, "bitvector");
  add(oblivious, "oblivious");
  const std::string many = max_bitvector_leaves == 0
                               ? "walk (no bitvector form on this tier)"
                               : "walk (over " + std::to_string(max_bitvector_leaves) + " leaves)";
  add(walk_many_leaves, many.c_str());
  add(walk_costly_bins, "walk (bins would cost more than the trees on this tier)");
  add(walk_too_deep_oblivious, "walk (symmetric, deeper than 12)");
  add(reference, "reference walk (past the layout's limits)");
  return out;
}

Result<PreparedModel> PreparedModel::Prepare(std::shared_ptr<const TreeEnsemble> model_ptr,
                                             const PrepareOptions& options) {
  const math::ScopedFpEnv fp_env;
  const TreeEnsemble& model = *model_ptr;
  PreparedModel prepared;
  prepared.ensemble_ = std::move(model_ptr);
  const bool float64 = model.rules.sum == TreeRules::Sum::kFloat64;
  // Slot 0 always exists: leaves read it (and ignore the key).
  const Slot first_slot{NumericalKind(model.rules.tiny_as_zero, false, true), false, 0, 0};
  try {
    SlotTable slots;
    slots.Get(first_slot);
    std::vector<std::uint32_t> position;  // canonical node -> breadth-first position
    std::deque<std::uint32_t> queue;
    // Tree t's bitvector form, where it has one (else form kWalk), and its
    // binned form (marked kBinned here, laid out after every tree's slots).
    std::vector<FastTree> candidates(model.trees.size());
    std::vector<FastTree> binned(model.trees.size());
    std::vector<std::uint32_t> binnable(model.trees.size(), 0);  // its leaves, if a candidate
    // Trees whose categorical splits read codes (split_keys.h) and that have
    // no other fast layout: binned on every tier whose limit of leaves they
    // fit, whatever the bins cost, else the reference walk.
    std::vector<bool> codes_only(model.trees.size(), false);
    for (std::size_t t = 0; t < model.trees.size(); ++t) {
      const Tree& tree = model.trees[t];
      FastTree fast;
      fast.output = tree.output;
      fast.depth = tree.depth;
      fast.first_node = static_cast<std::uint32_t>(prepared.nodes_.size());
      // Reached nodes (deleted XGBoost nodes are not) in breadth-first order:
      // a split at position p has its children at p + delta (right) and
      // p + delta + 1 (left).
      std::uint32_t count = 0;
      queue.assign(1, 0);
      std::vector<std::uint32_t> order;
      while (!queue.empty()) {
        const std::uint32_t index = queue.front();
        queue.pop_front();
        order.push_back(index);
        ++count;
        const TreeNode& node = model.node(tree, index);
        if (node.kind != NodeKind::kLeaf) {
          queue.push_back(node.right);
          queue.push_back(node.left);
        }
      }
      // A tree with categorical splits, all of whose sets fit category codes:
      // only the binned form, which reads codes. Every other form reads a
      // slot per category set (a key per item and block each: a categorical
      // XGBoost model of 500 trees of depth 8 has 46,000 such sets, which made
      // it 100x slower than its numerical twin, docs/PERFORMANCE.md run Q6).
      if (options.binned && (count + 1) / 2 <= kMaxBitvectorLeaves &&
          AllCategoriesAreCodes(model, tree, order)) {
        binned[t].form = TreeForm::kBinned;
        binned[t].output = tree.output;
        binnable[t] = (count + 1) / 2;
        codes_only[t] = true;
        fast.form = TreeForm::kReference;
        fast.reference_tree = static_cast<std::int64_t>(t);
        fast.depth = 0;
        prepared.trees_.push_back(fast);
        continue;
      }
      // The form of this tree (docs/DESIGN.md, "Tree evaluators"): oblivious
      // when symmetric, else bitvector up to kMaxBitvectorLeaves leaves, else a walk.
      const int symmetric =
          options.oblivious ? SymmetricDepth(model, tree, kMaxObliviousDepth) : -1;
      if (symmetric >= 0) {
        LayOutOblivious(model, tree, static_cast<std::uint32_t>(symmetric), float64, &slots,
                        &prepared, &fast);
        prepared.trees_.push_back(fast);
        continue;
      }
      // A tree small enough has both layouts: each tier's plan picks one
      // (below). A full binary tree has (count + 1) / 2 leaves.
      const std::uint32_t leaves = (count + 1) / 2;
      if (options.bitvector && leaves <= kMaxBitvectorLeaves) {
        FastTree bitvector = fast;
        LayOutBitvector(model, tree, float64, &slots, &prepared, &bitvector);
        bitvector.leaves = leaves;
        candidates[t] = bitvector;
      }
      if (options.binned && leaves <= kMaxBitvectorLeaves) {
        binned[t].form = TreeForm::kBinned;
        binned[t].output = tree.output;
        binnable[t] = leaves;
      }
      if (count > kMaxFastTreeNodes) {
        fast.form = TreeForm::kReference;
        fast.reference_tree = static_cast<std::int64_t>(t);
        fast.depth = 0;
        prepared.trees_.push_back(fast);
        continue;
      }
      const std::size_t leaf_bytes = float64 ? sizeof(double) : sizeof(float);
      if (fast.depth <= kMaxHeapDepth && (std::size_t{2} << fast.depth) <= 4 * count + 8) {
        LayOutHeap(model, tree, float64, &slots, &prepared, &fast);
        fast.bytes = static_cast<std::uint32_t>((std::size_t{1} << fast.depth) *
                                                (sizeof(HeapNode) + leaf_bytes));
        prepared.trees_.push_back(fast);
        continue;
      }
      fast.bytes = static_cast<std::uint32_t>(count * (sizeof(FastNode) + leaf_bytes));
      position.assign(tree.num_nodes, 0);
      for (std::uint32_t p = 0; p < count; ++p) position[order[p]] = p;
      const std::size_t base = prepared.nodes_.size();
      prepared.nodes_.resize(base + count);
      fast.first_leaf = static_cast<std::uint32_t>(float64 ? prepared.double_leaves_.size()
                                                           : prepared.float_leaves_.size());
      if (float64) {
        prepared.double_leaves_.resize(fast.first_leaf + count, 0.0);
      } else {
        prepared.float_leaves_.resize(fast.first_leaf + count, 0.0f);
      }
      for (std::uint32_t p = 0; p < count; ++p) {
        const TreeNode& node = model.node(tree, order[p]);
        FastNode& out = prepared.nodes_[base + p];
        if (node.kind == NodeKind::kLeaf) {
          out = FastNode{0, 0, 0};  // never less than 0: stays here
          if (float64) {
            prepared.double_leaves_[fast.first_leaf + p] = node.value;
          } else {
            prepared.float_leaves_[fast.first_leaf + p] = static_cast<float>(node.value);
          }
          continue;
        }
        out = SplitKey(model, node, &slots);
        // Breadth-first order puts the children next to each other after p.
        out.child_delta = static_cast<std::uint16_t>(position[node.right] - p);
      }
      prepared.trees_.push_back(fast);
    }
    // Bin slots per binned tree, for each tier's plan (below).
    double bin_slots_per_tree = 0.0;
    if (options.binned) {
      const double most = *std::max_element(std::begin(options.bin_slots_per_tree),
                                            std::end(options.bin_slots_per_tree));
      if (LayOutBinned(model, float64, most, &slots, &prepared, &binned)) {
        const auto trees = std::count_if(binned.begin(), binned.end(), [](const FastTree& tree) {
          return tree.form == TreeForm::kBinned;
        });
        // Code bin slots cost a copy each, not a search.
        const auto searched = std::count_if(prepared.bin_slots_.begin(), prepared.bin_slots_.end(),
                                            [](const BinSlot& slot) { return !slot.codes(); });
        bin_slots_per_tree =
            static_cast<double>(searched) / static_cast<double>(std::max<std::ptrdiff_t>(trees, 1));
      }
    }
    if (slots.overflow()) {
      // More (feature, treatment) pairs than 16-bit slots address: every
      // tree goes through the reference walk.
      prepared.reference_only_ = true;
      prepared.nodes_.clear();
      prepared.heap_nodes_.clear();
      prepared.mask_nodes_.clear();
      prepared.word_ends_.clear();
      prepared.bin_nodes_.clear();
      prepared.category_nodes_.clear();
      prepared.category_word_ends_.clear();
      prepared.bin_slots_.clear();
      prepared.bin_thresholds_.clear();
      prepared.float_leaves_.clear();
      prepared.double_leaves_.clear();
      for (std::size_t t = 0; t < prepared.trees_.size(); ++t) {
        prepared.trees_[t].reference_tree = static_cast<std::int64_t>(t);
        prepared.trees_[t].first_node = 0;
        prepared.trees_[t].depth = 0;
        prepared.trees_[t].form = TreeForm::kReference;
        prepared.trees_[t].bytes = 0;
      }
      slots = SlotTable();
      slots.Get(first_slot);
    }
    prepared.slots_ = slots.Take();
    if (prepared.reference_only_) {
      candidates.assign(candidates.size(), FastTree{});
      binned.assign(binned.size(), FastTree{});
    }
    // The bitvector and oblivious forms read the flipped copy of each slot's
    // keys, num_slots slots further (kKeyBias).
    const std::uint32_t flipped = static_cast<std::uint32_t>(prepared.slots_.size()) << kSlotShift;
    for (MaskNode& node : prepared.mask_nodes_) node.key_offset += flipped;
    for (const FastTree& tree : prepared.trees_) {
      if (tree.form != TreeForm::kOblivious) continue;
      for (std::uint32_t l = 0; l < tree.depth; ++l) {
        prepared.heap_nodes_[tree.first_node + l].key_offset += flipped;
      }
    }

    // Each tier's plan (the one selection point): a tree's binned form, else
    // its bitvector form, where the tier takes one of that many leaves, else
    // its walk form.
    for (int tier = 0; tier < kTiers; ++tier) {
      std::vector<FastTree>& trees = prepared.tier_trees_[tier];
      TreePlan& plan = prepared.plans_[tier];
      trees = prepared.trees_;
      for (std::size_t t = 0; t < trees.size(); ++t) {
        const FastTree& bitvector = candidates[t];
        const bool fits_binned = binnable[t] > 0 && binnable[t] <= options.max_binned_leaves[tier];
        if (fits_binned && binned[t].form == TreeForm::kBinned &&
            (codes_only[t] || bin_slots_per_tree <= options.bin_slots_per_tree[tier])) {
          trees[t] = binned[t];
        } else if (bitvector.form == TreeForm::kBitvector &&
                   bitvector.leaves <= options.max_bitvector_leaves[tier]) {
          trees[t] = bitvector;
        }
        switch (trees[t].form) {
          case TreeForm::kBitvector:
            ++plan.bitvector;
            break;
          case TreeForm::kBinned:
            ++plan.binned;
            break;
          case TreeForm::kOblivious:
            ++plan.oblivious;
            break;
          case TreeForm::kWalk:
          case TreeForm::kHeap:
            // Symmetric but past kMaxObliviousDepth, or too many leaves.
            if (options.oblivious && SymmetricDepth(model, model.trees[t]) >= 0) {
              ++plan.walk_too_deep_oblivious;
            } else if (fits_binned) {
              ++plan.walk_costly_bins;
            } else {
              ++plan.walk_many_leaves;
            }
            break;
          case TreeForm::kReference:
            ++plan.reference;
            break;
        }
      }
      plan.max_bitvector_leaves = std::max(options.max_bitvector_leaves[tier],
                                           options.binned ? options.max_binned_leaves[tier] : 0);
      plan.gfni_split_step = tier == TierIndex(Isa::kAvx512) && plan.binned > 0 && options.gfni &&
                             IsIsaSupported(Isa::kAvx512) && CpuHasGfni() && CpuHasVbmi();
      // Chunks of consecutive trees of about kChunkBytes.
      std::vector<std::uint32_t>& chunks = prepared.tier_chunks_[tier];
      std::size_t bytes = 0;
      chunks.push_back(0);
      for (std::size_t t = 0; t < trees.size(); ++t) {
        const std::size_t tree_bytes = trees[t].bytes;
        if (bytes > 0 && bytes + tree_bytes > kChunkBytes) {
          chunks.push_back(static_cast<std::uint32_t>(t));
          bytes = 0;
        }
        bytes += tree_bytes;
      }
      chunks.push_back(static_cast<std::uint32_t>(trees.size()));
    }
    prepared.trees_.clear();
    // The binned form reads a tree's float leaves 64 at a time, from its
    // first (binned_impl.h): the last tree's read stays inside.
    if (!float64) prepared.float_leaves_.resize(prepared.float_leaves_.size() + 64, 0.0f);

    // Items per pass: the keys and bins of every slot and (Sum::kFloat64)
    // the float64 sums of every output for that many items should take
    // about kPassBytes.
    ScratchLayout& layout = prepared.scratch_layout_;
    layout.bins_offset = kBlockItems * 2 * prepared.slots_.size() * sizeof(std::uint32_t);
    // Each bin slot's bins, then all of them complemented (prepared_binned.cc).
    layout.block_bytes = layout.bins_offset + 2 * kBlockItems * prepared.bin_slots_.size();
    const std::size_t per_block =
        layout.block_bytes + (float64 ? kBlockItems * model.info.num_outputs * sizeof(double) : 0);
    const std::size_t blocks = std::clamp<std::size_t>(kPassBytes / per_block, 1, 16);
    prepared.items_per_pass_ = blocks * PreparedModel::kBlockItems;
    auto round_up = [](std::size_t size) { return (size + 63) / 64 * 64; };
    layout.sums_offset = blocks * layout.block_bytes;
    layout.pointers_offset = round_up(
        layout.sums_offset +
        (float64 ? prepared.items_per_pass_ * model.info.num_outputs * sizeof(double) : 0));
    layout.total_bytes = round_up(layout.pointers_offset + model.info.num_outputs * sizeof(void*));
  } catch (const std::bad_alloc&) {
    return RuntimeError("out of memory preparing the model");
  }
  return prepared;
}

}  // namespace calcjit::model
