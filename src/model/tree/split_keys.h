// The pieces every fast tree layout shares (prepared_model.cc and
// prepared_binned.cc): the table of slots (a feature and a way of treating
// NaN and zero, prepared_model.h) and the slot and threshold key of a
// split, and the left-to-right numbering of a tree's leaves.
#ifndef CALCJIT_MODEL_TREE_SPLIT_KEYS_H_
#define CALCJIT_MODEL_TREE_SPLIT_KEYS_H_

#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "model/tree/ensemble.h"
#include "model/tree/prepared_model.h"

namespace calcjit::model {

// The slot kind of a numerical split's keys: where NaN goes (nan_left),
// whether +-0 goes to the other side of where its value would (zero_missing),
// and whether tiny values count as 0.
SlotKind NumericalKind(bool tiny_as_zero, bool zero_missing, bool nan_left);

// The model's slots, each once, numbered in the order first asked for.
class SlotTable {
 public:
  // The slot's number (0 once more than 65,536 are asked for: overflow()).
  std::uint16_t Get(const Slot& slot);
  bool overflow() const { return overflow_; }
  std::vector<Slot> Take() { return std::move(slots_); }

 private:
  std::map<std::tuple<int, bool, std::uint32_t, std::uint32_t>, std::uint16_t> index_;
  std::vector<Slot> slots_;
  bool overflow_ = false;
};

// The slot and threshold key of one split (see prepared_model.h); the
// caller fills child_delta.
FastNode SplitKey(const TreeEnsemble& model, const TreeNode& node, SlotTable* slots);

// The binned form reads a categorical split's feature as a category code, a
// byte, one per feature (SlotKind::kCategoryCode): categories 0 to 253 as
// themselves, NaN as kCodeNan, anything else as kCodeOther (a category past
// 253, or a value that names none: negative, or too large). A split takes
// that way only if its set holds no category past 253 (CategoryCodesFit),
// so that every input of kCodeOther goes where category 254 goes.
inline constexpr std::uint32_t kCodeNan = 254;
inline constexpr std::uint32_t kCodeOther = 255;

// Bit c of byte c / 8 set where an item of code c goes to a split's second
// subtree (CategoryNode).
using CodeSides = std::array<std::uint8_t, 32>;

bool CategoryCodesFit(const TreeEnsemble& model, const TreeNode& node);

// The code of `input` under the ensemble's rules: the category that
// reference_evaluator.cc's walk reads (tiny values as 0 where the rules say
// so; for kInSetGoesRight a negative value names none, for kInSetGoesLeft
// one above -1 truncates to 0).
inline std::uint32_t CategoryCode(const TreeRules& rules, float input) {
  double x = input;
  if (rules.tiny_as_zero && std::fabs(x) <= kTinyAsZeroBound) x = 0.0;
  if (std::isnan(x)) return kCodeNan;
  if (rules.categories == TreeRules::Categories::kInSetGoesRight && x < 0.0) return kCodeOther;
  const double category = std::trunc(x);
  if (!(category >= 0.0 && category < static_cast<double>(kCodeNan))) return kCodeOther;
  return static_cast<std::uint32_t>(category);
}

// Where each code goes: to the subtree laid out second (the left one when
// `left_second`) as the reference's GoesLeft decides for a value of that
// code.
CodeSides CategoryCodeSides(const TreeEnsemble& model, const TreeNode& node, bool left_second);

// A tree's splits and leaves in preorder, left subtree first: leaf i is the
// i-th leaf from the left, and a split's left subtree holds the leaves
// [first_leaf[left], first_leaf[right]). With `right_first` (per node
// index), a split marked lays out its right subtree first instead.
struct LeafOrder {
  std::vector<std::uint32_t> splits;      // node indices
  std::vector<std::uint32_t> leaves;      // node indices
  std::vector<std::uint32_t> first_leaf;  // per node index
};
LeafOrder OrderLeaves(const TreeEnsemble& model, const Tree& tree,
                      const std::vector<bool>* right_first = nullptr);

}  // namespace calcjit::model

#endif  // CALCJIT_MODEL_TREE_SPLIT_KEYS_H_
