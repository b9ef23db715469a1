// The binned bitvector form (prepared_model.h, TreeForm::kBinned): the bin
// slots of the model's candidate trees and their BinNodes.
#include <algorithm>
#include <bit>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "model/tree/prepared_model.h"
#include "model/tree/split_keys.h"

namespace calcjit::model {

namespace {

constexpr std::uint32_t kWordLeaves = 8;

// Where a (slot, threshold key) went: its bin slot and the byte a bin is
// compared with (rank within the bin slot + 1, biased: kByteBias).
struct BinnedThreshold {
  std::uint32_t bin_slot;
  std::uint8_t threshold;
};

// A byte four times over (BinNode).
std::uint32_t FourTimes(std::uint32_t byte) {
  return byte * 0x01010101u;
}

// The sorted thresholds[0, count) as a complete search tree of `depth`
// levels in breadth-first order from tree[1] (BinSlot): in-order position p
// of the 2^depth - 1 holds thresholds[p], or 0xFFFFFFFF past count.
void FillSearchTree(const std::uint32_t* thresholds, std::size_t count, std::uint32_t depth,
                    std::uint32_t* tree) {
  std::size_t next = 0;  // in-order position
  // In-order walk of the implicit tree, iteratively: go left as far as
  // possible, take the node, go right.
  std::vector<std::size_t> stack;
  std::size_t node = 1;
  const std::size_t size = std::size_t{1} << depth;
  while (node < size || !stack.empty()) {
    if (node < size) {
      stack.push_back(node);
      node = 2 * node;
      continue;
    }
    node = stack.back();
    stack.pop_back();
    tree[node] = next < count ? thresholds[next] : 0xFFFFFFFFu;
    ++next;
    node = 2 * node + 1;
  }
}

// Which splits lay out their right subtree first, so that the tree's
// (split, word) pairs are fewest: a split costs one compare per 8-leaf word
// its first subtree's leaves meet (the leaves it clears when the item goes
// to the other side), and which subtree comes first moves every leaf after
// it. Exact, by dynamic programming over (node, first leaf mod 8): 17% fewer
// pairs on 64-leaf trees, 9% on 500 trees of depth 8 (run Q3).
class ChildOrder {
 public:
  ChildOrder(const TreeEnsemble& model, const Tree& tree)
      : model_(model),
        tree_(tree),
        leaves_(tree.num_nodes, 0),
        cost_(std::size_t{tree.num_nodes} * kWordLeaves, -1),
        right_first_(tree.num_nodes, false) {
    CountLeaves(0);
    Choose(0, 0);
  }
  const std::vector<bool>& right_first() const { return right_first_; }

 private:
  std::uint32_t CountLeaves(std::uint32_t index) {
    const TreeNode& node = model_.node(tree_, index);
    leaves_[index] =
        node.kind == NodeKind::kLeaf ? 1 : CountLeaves(node.left) + CountLeaves(node.right);
    return leaves_[index];
  }
  // Words the leaves [offset, offset + count) meet (offset mod 8).
  static std::int64_t Words(std::uint32_t offset, std::uint32_t count) {
    return (offset + count - 1) / kWordLeaves - offset / kWordLeaves + 1;
  }
  // The fewest pairs of the subtree at `index` whose first leaf is at
  // `offset` mod 8, and with which child first (memoized).
  std::int64_t Cost(std::uint32_t index, std::uint32_t offset) {
    const TreeNode& node = model_.node(tree_, index);
    if (node.kind == NodeKind::kLeaf) return 0;
    std::int64_t& memo = cost_[std::size_t{index} * kWordLeaves + offset];
    if (memo >= 0) return memo;
    memo = std::min(Cost(node, offset, false), Cost(node, offset, true));
    return memo;
  }
  std::int64_t Cost(const TreeNode& node, std::uint32_t offset, bool swap) {
    const std::uint32_t first = swap ? node.right : node.left;
    const std::uint32_t second = swap ? node.left : node.right;
    return Words(offset, leaves_[first]) + Cost(first, offset) +
           Cost(second, (offset + leaves_[first]) % kWordLeaves);
  }
  // Records the best choice along the layout actually made.
  void Choose(std::uint32_t index, std::uint32_t offset) {
    const TreeNode& node = model_.node(tree_, index);
    if (node.kind == NodeKind::kLeaf) return;
    const bool swap = Cost(node, offset, true) < Cost(node, offset, false);
    right_first_[index] = swap;
    const std::uint32_t first = swap ? node.right : node.left;
    const std::uint32_t second = swap ? node.left : node.right;
    Choose(first, offset);
    Choose(second, (offset + leaves_[first]) % kWordLeaves);
  }

  const TreeEnsemble& model_;
  const Tree& tree_;
  std::vector<std::uint32_t> leaves_;
  std::vector<std::int64_t> cost_;
  std::vector<bool> right_first_;
};

}  // namespace

bool PreparedModel::LayOutBinned(const TreeEnsemble& model, bool float64,
                                 double max_bin_slots_per_tree, SlotTable* slots,
                                 PreparedModel* prepared, std::vector<FastTree>* trees) {
  // Every candidate's splits as keys, and each slot's thresholds.
  std::vector<LeafOrder> orders(trees->size());
  std::vector<std::vector<bool>> right_first(trees->size());
  std::vector<std::vector<FastNode>> keys(trees->size());
  // Per candidate's split: whether it reads a category code (its key's slot
  // is then the feature's kCategoryCode slot, its threshold unused).
  std::vector<std::vector<bool>> reads_code(trees->size());
  std::map<std::uint16_t, std::vector<std::uint32_t>> thresholds;
  std::map<std::uint16_t, std::uint32_t> code_bin_slot;  // kCategoryCode slot -> its bin slot
  std::size_t candidates = 0;
  for (std::size_t t = 0; t < trees->size(); ++t) {
    if ((*trees)[t].form != TreeForm::kBinned) continue;
    ++candidates;
    const Tree& tree = model.trees[t];
    const ChildOrder child_order(model, tree);
    orders[t] = OrderLeaves(model, tree, &child_order.right_first());
    right_first[t] = child_order.right_first();
    for (std::uint32_t index : orders[t].splits) {
      const TreeNode& node = model.node(tree, index);
      if (node.kind == NodeKind::kCategorical && CategoryCodesFit(model, node)) {
        const std::uint16_t slot =
            slots->Get(Slot{SlotKind::kCategoryCode, false, node.feature, 0});
        keys[t].push_back(FastNode{0, slot, 0});
        reads_code[t].push_back(true);
        code_bin_slot.emplace(slot, 0);
        continue;
      }
      const FastNode key = SplitKey(model, node, slots);
      keys[t].push_back(key);
      reads_code[t].push_back(false);
      thresholds[key.slot].push_back(key.threshold_key);
    }
  }
  // Each slot's distinct thresholds, sorted, kMaxBinThresholds per bin slot.
  std::map<std::pair<std::uint16_t, std::uint32_t>, BinnedThreshold> binned;
  std::vector<BinSlot> bin_slots;
  std::vector<std::uint32_t> tables;
  for (auto& [slot, list] : thresholds) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    for (std::size_t first = 0; first < list.size(); first += kMaxBinThresholds) {
      const std::size_t count = std::min<std::size_t>(kMaxBinThresholds, list.size() - first);
      BinSlot bin_slot;
      bin_slot.slot = slot;
      bin_slot.count = static_cast<std::uint8_t>(count);
      bin_slot.depth = static_cast<std::uint8_t>(std::bit_width(count));
      bin_slot.first_threshold = static_cast<std::uint32_t>(tables.size());
      tables.resize(tables.size() + kBinTableSize, 0xFFFFFFFFu);
      FillSearchTree(list.data() + first, count, bin_slot.depth,
                     tables.data() + bin_slot.first_threshold);
      for (std::size_t j = 0; j < count; ++j) {
        const std::uint32_t byte = static_cast<std::uint32_t>(j + 1) ^ kByteBias;
        binned[{slot, list[first + j]}] = BinnedThreshold{
            static_cast<std::uint32_t>(bin_slots.size()), static_cast<std::uint8_t>(byte)};
      }
      bin_slots.push_back(bin_slot);
    }
  }
  // PrepareOptions::bin_slots_per_tree (the most any tier takes): past it,
  // the walk or the 32-bit bitvector is cheaper than making the bins. Not
  // when a tree reads category codes: it has no other fast form.
  if (code_bin_slot.empty() && static_cast<double>(bin_slots.size()) >
                                   max_bin_slots_per_tree * static_cast<double>(candidates)) {
    for (FastTree& tree : *trees) tree.form = TreeForm::kWalk;
    return false;
  }
  // A bin slot per kCategoryCode slot, after the searched ones: its bins
  // are the code's byte and bit (BinSlot::codes).
  for (auto& [slot, bin_slot] : code_bin_slot) {
    bin_slot = static_cast<std::uint32_t>(bin_slots.size());
    BinSlot codes;
    codes.slot = slot;
    bin_slots.push_back(codes);
  }
  prepared->bin_slots_ = std::move(bin_slots);
  prepared->bin_thresholds_ = std::move(tables);

  for (std::size_t t = 0; t < trees->size(); ++t) {
    FastTree& fast = (*trees)[t];
    if (fast.form != TreeForm::kBinned) continue;
    const Tree& tree = model.trees[t];
    const LeafOrder& order = orders[t];
    const std::uint32_t leaves = static_cast<std::uint32_t>(order.leaves.size());
    fast.leaves = leaves;
    fast.words = (leaves + kWordLeaves - 1) / kWordLeaves;
    fast.first_node = static_cast<std::uint32_t>(prepared->bin_nodes_.size());
    fast.first_word = static_cast<std::uint32_t>(prepared->word_ends_.size());
    fast.first_category_node = static_cast<std::uint32_t>(prepared->category_nodes_.size());
    // category_word_ends() runs beside word_ends(), whose first entries may
    // be the 32-bit bitvector form's.
    prepared->category_word_ends_.resize(fast.first_word, 0);
    // Word by word, the splits whose first subtree's leaves meet the word,
    // each cleared where the item goes to its second subtree: `bin >=
    // threshold` for a split laid out left first; for one laid out right
    // first (cleared where `bin < t`), the same test of the complemented bins
    // (~bin >= -t, bitwise not reversing the order), so that a word is one
    // run, ending at word_ends()[first_word + w].
    const std::uint32_t complemented = static_cast<std::uint32_t>(prepared->bin_slots_.size());
    for (std::uint32_t w = 0; w < fast.words; ++w) {
      const std::uint32_t word_lo = kWordLeaves * w;
      const std::uint32_t word_hi = word_lo + kWordLeaves;
      // The keep mask of a split in this word: every bit but its first
      // subtree's leaves (those it clears when the item goes to the second);
      // nothing when they do not meet the word.
      const auto keep_in_word = [&](const TreeNode& node,
                                    bool swapped) -> std::optional<std::uint32_t> {
        const std::uint32_t first = swapped ? node.right : node.left;
        const std::uint32_t second = swapped ? node.left : node.right;
        const std::uint32_t lo = std::max(order.first_leaf[first], word_lo);
        const std::uint32_t hi = std::min(order.first_leaf[second], word_hi);
        if (lo >= hi) return std::nullopt;
        const std::uint32_t cleared = ((1u << (hi - lo)) - 1) << (lo - word_lo);
        return FourTimes(~cleared & 0xFFu);
      };
      for (const bool swapped : {false, true}) {
        for (std::size_t s = 0; s < order.splits.size(); ++s) {
          const std::uint32_t index = order.splits[s];
          if (right_first[t][index] != swapped || reads_code[t][s]) continue;
          const std::optional<std::uint32_t> keep = keep_in_word(model.node(tree, index), swapped);
          if (!keep) continue;
          const BinnedThreshold& at = binned.at({keys[t][s].slot, keys[t][s].threshold_key});
          // A biased threshold is rank + 1 - 128, in [-127, 127]: its
          // negation is a byte too.
          const auto threshold = static_cast<std::int8_t>(at.threshold);
          const auto negated = static_cast<std::uint8_t>(-threshold);
          const std::uint32_t row = swapped ? complemented + at.bin_slot : at.bin_slot;
          prepared->bin_nodes_.push_back(BinNode{static_cast<std::uint32_t>(row * kBlockItems),
                                                 FourTimes(swapped ? negated : at.threshold),
                                                 *keep});
        }
      }
      prepared->word_ends_.push_back(
          static_cast<std::uint32_t>(prepared->bin_nodes_.size() - fast.first_node));
      // Then the word's categorical splits that read codes, each cleared
      // where the item's code goes to its second subtree.
      for (std::size_t s = 0; s < order.splits.size(); ++s) {
        if (!reads_code[t][s]) continue;
        const std::uint32_t index = order.splits[s];
        const bool swapped = right_first[t][index];
        const TreeNode& node = model.node(tree, index);
        const std::optional<std::uint32_t> keep = keep_in_word(node, swapped);
        if (!keep) continue;
        CategoryNode category{
            code_bin_slot.at(keys[t][s].slot) * static_cast<std::uint32_t>(kBlockItems), *keep, {}};
        const CodeSides sides = CategoryCodeSides(model, node, swapped);
        std::copy(sides.begin(), sides.end(), category.second);
        prepared->category_nodes_.push_back(category);
        fast.categorical = true;
      }
      prepared->category_word_ends_.push_back(
          static_cast<std::uint32_t>(prepared->category_nodes_.size() - fast.first_category_node));
    }
    fast.depth = static_cast<std::uint32_t>(prepared->bin_nodes_.size() - fast.first_node);
    fast.first_leaf = prepared->AddLeaves(float64, leaves);
    for (std::uint32_t i = 0; i < leaves; ++i) {
      prepared->SetLeaf(float64, fast.first_leaf + i, model.node(tree, order.leaves[i]).value);
    }
    fast.bytes = static_cast<std::uint32_t>(
        fast.depth * sizeof(BinNode) +
        (prepared->category_nodes_.size() - fast.first_category_node) * sizeof(CategoryNode) +
        leaves * (float64 ? sizeof(double) : sizeof(float)));
  }
  return true;
}

}  // namespace calcjit::model
