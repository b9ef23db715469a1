#include "model/tree/reference_evaluator.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "math/fp_env.h"

namespace calcjit::model {

namespace {

// The category a categorical split reads from `x` (not NaN), or nothing when
// `x` names none the split can hold: a truncation below 0 or at or beyond
// `limit`.
bool Category(double x, double limit, std::uint64_t* category) {
  const double truncated = std::trunc(x);
  if (!(truncated >= 0 && truncated < limit)) return false;
  *category = static_cast<std::uint64_t>(truncated);
  return true;
}

bool CategoricalGoesLeft(const TreeEnsemble& model, const TreeNode& node, double x) {
  std::uint64_t category = 0;
  switch (model.rules.categories) {
    case TreeRules::Categories::kInSetGoesRight:
      // XGBoost 1.7.4, common/categorical.h (Decision) and
      // predictor/predict_fn.h (GetNextNode): a category below 0 or at or
      // above 2^24 (InvalidCat), or beyond the set, goes left.
      if (std::isnan(x)) return node.default_left;
      if (x < 0.0) return true;
      if (!Category(x, 16777216.0, &category)) return true;
      return !model.CategoryInSet(node, category);
    case TreeRules::Categories::kInSetGoesLeft:
      // LightGBM's CategoricalDecision: NaN or a negative category right;
      // categories at or beyond 2^32 are beyond every bitset (at most 2^28
      // words), where LightGBM's int conversion is undefined: spec 6.3 says
      // right.
      if (std::isnan(x)) return false;
      if (!Category(x, 4294967296.0, &category)) return false;
      return model.CategoryInSet(node, category);
    case TreeRules::Categories::kNone:
      break;
  }
  return false;  // the readers make no categorical split for such a format
}

// `input(j)` is the item's model feature j; `visit(index)` hears every node
// on the path, the leaf last.
template <typename Input, typename Visit>
std::uint32_t Walk(const TreeEnsemble& model, const Tree& tree, Input input, Visit visit) {
  std::uint32_t index = 0;
  for (;;) {
    visit(index);
    const TreeNode& node = model.node(tree, index);
    if (node.kind == NodeKind::kLeaf) return index;
    index = GoesLeft(model, node, input(node.feature)) ? node.left : node.right;
  }
}

}  // namespace

bool GoesLeft(const TreeEnsemble& model, const TreeNode& node, float input) {
  const TreeRules& rules = model.rules;
  double x = input;
  if (rules.tiny_as_zero && std::fabs(x) <= kTinyAsZeroBound) x = 0.0;  // NaN stays NaN
  if (node.kind == NodeKind::kCategorical) return CategoricalGoesLeft(model, node, x);
  if (std::isnan(x) && node.missing != MissingType::kNan) x = 0.0;
  if ((node.missing == MissingType::kZero && x == 0.0) ||
      (node.missing == MissingType::kNan && std::isnan(x))) {
    return node.default_left;
  }
  return rules.compare == TreeRules::Compare::kLess ? x < node.value : x <= node.value;
}

std::uint32_t ReferenceLeaf(const TreeEnsemble& model, const Tree& tree, const float* row) {
  return Walk(
      model, tree, [row](std::uint32_t j) { return row[j]; }, [](std::uint32_t) {});
}

std::uint32_t ReferenceLeaf(const TreeEnsemble& model, const Tree& tree,
                            const float* const* columns, std::size_t item) {
  return Walk(
      model, tree, [columns, item](std::uint32_t j) { return columns[j][item]; },
      [](std::uint32_t) {});
}

std::vector<std::uint32_t> ReferencePath(const TreeEnsemble& model, const Tree& tree,
                                         const float* row) {
  std::vector<std::uint32_t> path;
  Walk(
      model, tree, [row](std::uint32_t j) { return row[j]; },
      [&path](std::uint32_t index) { path.push_back(index); });
  return path;
}

void EvaluateReferenceRow(const TreeEnsemble& model, const float* row, float* out) {
  const TreeRules& rules = model.rules;
  const std::uint32_t outputs = model.info.num_outputs;
  if (rules.sum == TreeRules::Sum::kFloat32) {
    // From the base margin, each tree's leaf added in float32, in order.
    for (std::uint32_t k = 0; k < outputs; ++k) out[k] = rules.base_margin[k];
    for (const Tree& tree : model.trees) {
      out[tree.output] +=
          static_cast<float>(model.node(tree, ReferenceLeaf(model, tree, row)).value);
    }
    return;
  }
  // From +0 in float64, in order; averaged; scaled and biased; rounded to
  // float32 once.
  std::vector<double> sums(outputs, 0.0);
  for (const Tree& tree : model.trees) {
    sums[tree.output] += model.node(tree, ReferenceLeaf(model, tree, row)).value;
  }
  for (std::uint32_t k = 0; k < outputs; ++k) out[k] = rules.FinishFloat64(sums[k], k);
}

void EvaluateReference(const TreeEnsemble& model, const float* const* feature_columns,
                       std::size_t n, float* const* output_columns) {
  const math::ScopedFpEnv fp_env;
  std::vector<float> row(model.info.num_features);
  std::vector<float> out(model.info.num_outputs);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::uint32_t j = 0; j < model.info.num_features; ++j) row[j] = feature_columns[j][i];
    EvaluateReferenceRow(model, row.data(), out.data());
    for (std::uint32_t k = 0; k < model.info.num_outputs; ++k) output_columns[k][i] = out[k];
  }
}

}  // namespace calcjit::model
