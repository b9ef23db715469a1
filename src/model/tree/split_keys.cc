#include "model/tree/split_keys.h"

#include <bit>
#include <cmath>
#include <limits>

#include "model/tree/reference_evaluator.h"

namespace calcjit::model {

namespace {

std::uint32_t FloatKey(float x) {
  return OrderKey(std::bit_cast<std::uint32_t>(x));
}

// The largest float32 at or below t, and the smallest at or above it (t is
// not NaN).
float RoundDownToFloat(double t) {
  float f = static_cast<float>(t);
  if (static_cast<double>(f) > t) f = std::nextafter(f, -INFINITY);
  return f;
}
float RoundUpToFloat(double t) {
  float f = static_cast<float>(t);
  if (static_cast<double>(f) < t) f = std::nextafter(f, INFINITY);
  return f;
}

}  // namespace

SlotKind NumericalKind(bool tiny_as_zero, bool zero_missing, bool nan_left) {
  static constexpr SlotKind kKinds[2][2][2] = {
      {{SlotKind::kNanHigh, SlotKind::kNanLow},
       {SlotKind::kZeroMissingHigh, SlotKind::kZeroMissingLow}},
      {{SlotKind::kTinyNanHigh, SlotKind::kTinyNanLow},
       {SlotKind::kTinyZeroMissingHigh, SlotKind::kTinyZeroMissingLow}}};
  return kKinds[tiny_as_zero][zero_missing][nan_left];
}

std::uint16_t SlotTable::Get(const Slot& slot) {
  const auto key = std::make_tuple(static_cast<int>(slot.kind), slot.default_left, slot.feature,
                                   slot.category_set);
  auto it = index_.find(key);
  if (it != index_.end()) return it->second;
  const std::size_t index = slots_.size();
  if (index > UINT16_MAX) {
    overflow_ = true;
    return 0;
  }
  slots_.push_back(slot);
  index_.emplace(key, static_cast<std::uint16_t>(index));
  return static_cast<std::uint16_t>(index);
}

bool CategoryCodesFit(const TreeEnsemble& model, const TreeNode& node) {
  const CategorySet& set = model.category_sets[node.category_set];
  // Word w holds categories 32w to 32w + 31; those from kCodeNan on are past.
  constexpr std::uint32_t kLastWord = kCodeNan / 32;
  for (std::uint32_t w = 0; w < set.num_words; ++w) {
    const std::uint32_t word = model.category_words[set.first_word + w];
    const std::uint32_t past = w < kLastWord    ? 0u
                               : w == kLastWord ? ~((1u << (kCodeNan % 32)) - 1)
                                                : 0xFFFFFFFFu;
    if ((word & past) != 0) return false;
  }
  return true;
}

CodeSides CategoryCodeSides(const TreeEnsemble& model, const TreeNode& node, bool left_second) {
  CodeSides sides{};
  for (std::uint32_t code = 0; code <= kCodeOther; ++code) {
    const float value = code < kCodeNan    ? static_cast<float>(code)
                        : code == kCodeNan ? std::numeric_limits<float>::quiet_NaN()
                                           : static_cast<float>(kCodeNan);
    if (GoesLeft(model, node, value) == left_second) {
      sides[code / 8] = static_cast<std::uint8_t>(sides[code / 8] | 1u << (code % 8));
    }
  }
  return sides;
}

FastNode SplitKey(const TreeEnsemble& model, const TreeNode& node, SlotTable* slots) {
  const TreeRules& rules = model.rules;
  FastNode out{};
  Slot slot;
  slot.feature = node.feature;
  if (node.kind == NodeKind::kCategorical) {
    const bool in_set_right = rules.categories == TreeRules::Categories::kInSetGoesRight;
    slot.kind = in_set_right ? SlotKind::kCategoryInSetRight : SlotKind::kCategoryInSetLeft;
    slot.category_set = node.category_set;
    // kInSetGoesLeft sends NaN right whatever default_left says.
    slot.default_left = in_set_right && node.default_left;
    out.slot = slots->Get(slot);
    out.threshold_key = 1;  // key 0: left
    return out;
  }
  // left iff key < threshold key. For x <= t: key(RoundDown(t)) + 1; the
  // largest key of a non-NaN float is key(+inf) = 0xFF800000, so no wrap.
  const bool less = rules.compare == TreeRules::Compare::kLess;
  const std::uint32_t key =
      less ? FloatKey(RoundUpToFloat(node.value)) : FloatKey(RoundDownToFloat(node.value)) + 1;
  const bool zero_goes_left = less ? 0.0 < node.value : 0.0 <= node.value;
  bool nan_left = false;
  bool zero_missing = false;
  switch (node.missing) {
    case MissingType::kNone:  // NaN as 0
      nan_left = zero_goes_left;
      break;
    case MissingType::kNan:
      nan_left = node.default_left;
      break;
    case MissingType::kZero:  // NaN as 0, and 0 to the default side
      nan_left = node.default_left;
      zero_missing = zero_goes_left != node.default_left;
      break;
  }
  slot.kind = NumericalKind(rules.tiny_as_zero, zero_missing, nan_left);
  out.threshold_key = nan_left ? key : key - 1;
  out.slot = slots->Get(slot);
  return out;
}

LeafOrder OrderLeaves(const TreeEnsemble& model, const Tree& tree,
                      const std::vector<bool>* right_first) {
  LeafOrder order;
  order.first_leaf.assign(tree.num_nodes, 0);
  std::vector<std::uint32_t> stack = {0};
  while (!stack.empty()) {
    const std::uint32_t index = stack.back();
    stack.pop_back();
    const TreeNode& node = model.node(tree, index);
    order.first_leaf[index] = static_cast<std::uint32_t>(order.leaves.size());
    if (node.kind == NodeKind::kLeaf) {
      order.leaves.push_back(index);
      continue;
    }
    order.splits.push_back(index);
    const bool swap = right_first != nullptr && (*right_first)[index];
    stack.push_back(swap ? node.left : node.right);
    stack.push_back(swap ? node.right : node.left);
  }
  return order;
}

}  // namespace calcjit::model
