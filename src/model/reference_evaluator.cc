#include "model/reference_evaluator.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "math/fp_env.h"

namespace calcjit::model {

namespace {

// XGBoost 1.7.4, common/categorical.h (Decision) and predictor/predict_fn.h
// (GetNextNode): a missing value takes the default child; a category below 0
// or at or above 2^24 (InvalidCat), or beyond the node's bitset, goes left;
// otherwise the truncated category goes right iff it is in the set.
bool XgboostGoesLeft(const TreeEnsemble& model, const TreeNode& node, float x) {
  if (std::isnan(x)) return node.default_left;
  if (node.kind == NodeKind::kNumerical) return x < static_cast<float>(node.value);
  if (x < 0.0f || x >= 16777216.0f) return true;
  const auto category = static_cast<std::uint64_t>(x);  // truncates toward zero
  return !model.CategoryInSet(node, category);
}

// LightGBM, Tree::NumericalDecision / CategoricalDecision on the value its
// predictor passes (|x| <= kZeroThreshold already 0), in float64.
bool LightgbmGoesLeft(const TreeEnsemble& model, const TreeNode& node, double v) {
  if (node.kind == NodeKind::kCategorical) {
    if (std::isnan(v)) return false;
    const double truncated = std::trunc(v);
    if (truncated < 0) return false;
    // Categories at or beyond 2^32 are beyond every bitset (at most 2^28
    // words); LightGBM's int conversion is undefined there, spec 6.3 says right.
    if (truncated >= 4294967296.0) return false;
    return model.CategoryInSet(node, static_cast<std::uint64_t>(truncated));
  }
  if (std::isnan(v) && node.missing != MissingType::kNan) v = 0.0;
  if ((node.missing == MissingType::kZero && v == 0.0) ||
      (node.missing == MissingType::kNan && std::isnan(v))) {
    return node.default_left;
  }
  return v <= node.value;
}

double LightgbmInput(float x) {
  const double v = x;
  return std::fabs(v) <= kLightgbmZeroThreshold ? 0.0 : v;  // NaN stays NaN
}

// `input(j)` is the item's model feature j; `visit(index)` hears every node
// on the path, the leaf last.
template <typename Input, typename Visit>
std::uint32_t Walk(const TreeEnsemble& model, const Tree& tree, Input input, Visit visit) {
  std::uint32_t index = 0;
  const bool xgboost = model.info.format == ModelFormat::kXgboostJson;
  for (;;) {
    visit(index);
    const TreeNode& node = model.node(tree, index);
    if (node.kind == NodeKind::kLeaf) return index;
    const float x = input(node.feature);
    const bool left =
        xgboost ? XgboostGoesLeft(model, node, x) : LightgbmGoesLeft(model, node, LightgbmInput(x));
    index = left ? node.left : node.right;
  }
}

}  // namespace

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
  const std::uint32_t outputs = model.info.num_outputs;
  if (model.info.format == ModelFormat::kXgboostJson) {
    // From the base margin, each tree's leaf added in float32, in order.
    for (std::uint32_t k = 0; k < outputs; ++k) out[k] = model.base_margin[k];
    for (const Tree& tree : model.trees) {
      out[tree.output] +=
          static_cast<float>(model.node(tree, ReferenceLeaf(model, tree, row)).value);
    }
    return;
  }
  // From +0 in float64, in order; averaged; rounded to float32 once.
  std::vector<double> sums(outputs, 0.0);
  for (const Tree& tree : model.trees) {
    sums[tree.output] += model.node(tree, ReferenceLeaf(model, tree, row)).value;
  }
  for (std::uint32_t k = 0; k < outputs; ++k) {
    double sum = sums[k];
    if (model.average_divisor != 0) sum /= static_cast<double>(model.average_divisor);
    out[k] = static_cast<float>(sum);
  }
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
