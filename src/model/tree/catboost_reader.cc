// The CatBoost format's reader (model::ReadCatboost, the format table's
// entry point) and the builder both of its files' readers hand their trees
// to (catboost_reader.h); the JSON export is catboost_json_reader.cc, the
// .cbm file catboost_cbm_reader.cc.
#include "model/tree/catboost_reader.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "model/tree/tree_check.h"

namespace calcjit::model {

namespace {

// Whether a NaN input goes left (the split is false) at a split on
// `border`: CatBoost replaces it by -inf (AsFalse) or +inf (AsTrue) and
// compares, or (AsIs) compares NaN itself, which is false. So NaN goes right
// only for AsTrue, and there not at a border of +inf.
bool NanGoesLeft(CatboostNan nan, float border) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  switch (nan) {
    case CatboostNan::kAsFalse:
      return !(-kInf > border);
    case CatboostNan::kAsTrue:
      return !(kInf > border);
    case CatboostNan::kAsIs:
      break;
  }
  return true;
}

std::string Plural(std::uint64_t n, const char* singular, const char* plural) {
  return std::to_string(n) + " " + (n == 1 ? singular : plural);
}

}  // namespace

Status CatboostModelBuilder::Error(std::string message, const std::string& path) const {
  std::string location(file_name_);
  if (!path.empty()) location += ": " + path;
  return UserError(std::move(message), std::move(location));
}

Status CatboostModelBuilder::SetFeatures(std::vector<CatboostFloatFeature> features) {
  if (features.empty()) {
    return Error(
        "the model has no float features (calcjit reads CatBoost models of float features)", "");
  }
  if (features.size() > kMaxFeatures) {
    return Error("more than " + std::to_string(kMaxFeatures) + " float features",
                 features[kMaxFeatures].where);
  }
  for (std::size_t i = 0; i < features.size(); ++i) {
    const CatboostFloatFeature& f = features[i];
    const auto index = static_cast<std::int64_t>(i);
    if (f.feature_index != index) {
      return Error("float feature " + std::to_string(i) + " has index " +
                       std::to_string(f.feature_index) + " (the float features must be listed " +
                       "in order)",
                   f.where);
    }
    if (f.flat_index != index) {
      return Error("float feature " + std::to_string(i) + " is feature " +
                       std::to_string(f.flat_index) +
                       " of the model: only models whose features are all float features are "
                       "supported (categorical, text and embedding features need CatBoost's own "
                       "processing)",
                   f.where);
    }
    for (std::size_t j = 0; j < f.borders.size(); ++j) {
      if (std::isnan(f.borders[j])) {
        return Error("border " + std::to_string(j) + " is NaN", f.where);
      }
      if (j > 0 && !(f.borders[j - 1] < f.borders[j])) {
        return Error("the borders must increase, and border " + std::to_string(j) +
                         " is not above border " + std::to_string(j - 1),
                     f.where);
      }
    }
  }
  features_ = std::move(features);
  has_features_ = true;
  return Status::Ok();
}

Status CatboostModelBuilder::CheckSplit(const CatboostSplit& split, const std::string& path) const {
  if (split.feature >= features_.size()) {
    return Error("float feature " + std::to_string(split.feature) +
                     " does not exist (the model has " +
                     Plural(features_.size(), "float feature", "float features") + ")",
                 path);
  }
  const std::vector<float>& borders = features_[split.feature].borders;
  if (!std::binary_search(borders.begin(), borders.end(), split.border)) {
    return Error("the border is not one of float feature " + std::to_string(split.feature) +
                     "'s borders (CatBoost compares with those only)",
                 path);
  }
  return Status::Ok();
}

Status CatboostModelBuilder::SetDimension(std::uint32_t dimension, const std::string& where) {
  if (dimension == 0 || dimension > kMaxOutputs) {
    return Error("expected 1 to " + std::to_string(kMaxOutputs) + " output dimensions, not " +
                     std::to_string(dimension),
                 where);
  }
  if (dimension_ && *dimension_ != dimension) {
    return Error("a tree of " + Plural(dimension, "output dimension", "output dimensions") +
                     " in a model of " + std::to_string(*dimension_),
                 where);
  }
  dimension_ = dimension;
  return Status::Ok();
}

Status CatboostModelBuilder::AddOblivious(std::span<const CatboostSplit> splits,
                                          std::span<const double> leaf_values,
                                          const std::string& where, const std::string& leaves_path,
                                          std::uint64_t leaves_first) {
  const std::size_t depth = splits.size();
  // 2^depth leaves and 2^depth - 1 splits per output: beyond the node limit
  // long before 2^depth overflows.
  if (depth >= 28 || (std::uint64_t{2} << depth) - 1 > NodeBudget()) {
    return Error("an oblivious tree of depth " + std::to_string(depth) +
                     " has more nodes than the model may have (" + std::to_string(kMaxNodes) + ")",
                 where);
  }
  const std::size_t leaves = std::size_t{1} << depth;
  if (leaf_values.empty() || leaf_values.size() % leaves != 0) {
    return Error("has " + Plural(leaf_values.size(), "value", "values") + " for " +
                     Plural(leaves, "leaf", "leaves") +
                     " (expected the leaves times the output dimensions)",
                 leaves_path);
  }
  const std::uint64_t dimension = leaf_values.size() / leaves;
  if (dimension > kMaxOutputs) return SetDimension(kMaxOutputs + 1, leaves_path);
  if (Status s = SetDimension(static_cast<std::uint32_t>(dimension), leaves_path); !s.ok()) {
    return s;
  }
  const std::uint64_t nodes = 2 * leaves - 1;
  if (nodes * dimension > NodeBudget()) {
    return Error("more than " + std::to_string(kMaxNodes) + " tree nodes in the model", where);
  }
  if (ensemble_.trees.size() + dimension > kMaxTrees) {
    return Error("more than " + std::to_string(kMaxTrees) +
                     " trees in the model (a tree counts once per output dimension)",
                 where);
  }
  for (std::size_t v = 0; v < leaf_values.size(); ++v) {
    if (std::isnan(leaf_values[v])) {
      return Error("leaf value is NaN", leaves_path + "[" + std::to_string(leaves_first + v) + "]");
    }
  }
  // Heap order (ensemble.h): node i has children 2i + 1 and 2i + 2; level l
  // splits on the file's split depth - 1 - l, so the leaf reached at
  // position leaves - 1 + j is the file's leaf j.
  for (std::uint64_t k = 0; k < dimension; ++k) {
    Tree tree;
    tree.first_node = ensemble_.nodes.size();
    tree.num_nodes = static_cast<std::uint32_t>(nodes);
    tree.output = static_cast<std::uint32_t>(k);
    tree.depth = static_cast<std::uint32_t>(depth);
    ensemble_.nodes.resize(ensemble_.nodes.size() + nodes);
    TreeNode* out = ensemble_.nodes.data() + tree.first_node;
    for (std::uint64_t i = 0; i + 1 < leaves; ++i) {
      const std::size_t level = static_cast<std::size_t>(std::bit_width(i + 1)) - 1;
      const CatboostSplit& split = splits[depth - 1 - level];
      TreeNode& node = out[i];
      node.kind = NodeKind::kNumerical;
      node.feature = split.feature;
      node.value = split.border;
      node.left = static_cast<std::uint32_t>(2 * i + 1);
      node.right = static_cast<std::uint32_t>(2 * i + 2);
      node.missing = MissingType::kNan;
      node.default_left = NanGoesLeft(features_[split.feature].nan, split.border);
    }
    for (std::uint64_t j = 0; j < leaves; ++j) {
      TreeNode& leaf = out[leaves - 1 + j];
      leaf.kind = NodeKind::kLeaf;
      leaf.value = leaf_values[j * dimension + k];
    }
    ensemble_.trees.push_back(tree);
  }
  ++file_trees_;
  return Status::Ok();
}

Status CatboostModelBuilder::AddNonSymmetric(std::span<const CatboostNode> nodes,
                                             std::span<const double> leaf_values,
                                             std::uint32_t dimension, const std::string& where) {
  if (Status s = SetDimension(dimension, where); !s.ok()) return s;
  if (nodes.empty()) return Error("a tree without nodes", where);
  if (static_cast<std::uint64_t>(nodes.size()) * dimension > NodeBudget()) {
    return Error("more than " + std::to_string(kMaxNodes) + " tree nodes in the model", where);
  }
  if (ensemble_.trees.size() + dimension > kMaxTrees) {
    return Error("more than " + std::to_string(kMaxTrees) +
                     " trees in the model (a tree counts once per output dimension)",
                 where);
  }
  const auto n = static_cast<std::uint32_t>(nodes.size());
  for (std::uint32_t i = 0; i < n; ++i) {
    const CatboostNode& node = nodes[i];
    if (!node.leaf) continue;
    if (node.leaf_offset > leaf_values.size() ||
        leaf_values.size() - node.leaf_offset < dimension) {
      return Error("leaf " + std::to_string(i) + " has no values", where);
    }
    for (std::uint32_t k = 0; k < dimension; ++k) {
      if (std::isnan(leaf_values[node.leaf_offset + k])) {
        return Error("leaf value is NaN", where);
      }
    }
  }
  const std::size_t first_tree = ensemble_.trees.size();
  for (std::uint32_t k = 0; k < dimension; ++k) {
    Tree tree;
    tree.first_node = ensemble_.nodes.size();
    tree.num_nodes = n;
    tree.output = k;
    ensemble_.nodes.resize(ensemble_.nodes.size() + n);
    TreeNode* out = ensemble_.nodes.data() + tree.first_node;
    for (std::uint32_t i = 0; i < n; ++i) {
      const CatboostNode& node = nodes[i];
      TreeNode& made = out[i];
      if (node.leaf) {
        made.kind = NodeKind::kLeaf;
        made.value = leaf_values[node.leaf_offset + k];
        continue;
      }
      made.kind = NodeKind::kNumerical;
      made.feature = node.split.feature;
      made.value = node.split.border;
      made.left = node.left;
      made.right = node.right;
      made.missing = MissingType::kNan;
      made.default_left = NanGoesLeft(features_[node.split.feature].nan, node.split.border);
    }
    if (k == 0) {
      // The readers build trees, so this holds; checked all the same, and it
      // measures the depth.
      Status shape =
          CheckTreeShape(out, n, TreeCheckNames{where, "left", "right"}, &reached_, &tree.depth);
      if (!shape.ok()) return Error(shape.message(), shape.location());
      if (std::find(reached_.begin(), reached_.end(), 0) != reached_.end()) {
        return Error("a node is not reached from the root", where);
      }
    } else {
      tree.depth = ensemble_.trees[first_tree].depth;
    }
    ensemble_.trees.push_back(tree);
  }
  ++file_trees_;
  return Status::Ok();
}

Result<TreeEnsemble> CatboostModelBuilder::Finish(double scale, std::vector<double> bias,
                                                  const std::string& bias_where,
                                                  std::optional<std::uint32_t> dimension) {
  if (!has_features_) return Error("the model has no float features", "");
  if (dimension) {
    if (*dimension == 0 || *dimension > kMaxOutputs) {
      return SetDimension(*dimension, "the model's output dimension");
    }
    if (dimension_ && *dimension_ != *dimension) {
      return Error("the trees have " + std::to_string(*dimension_) +
                       " output dimensions, the model " + std::to_string(*dimension),
                   "");
    }
    dimension_ = dimension;
  }
  if (!dimension_) {
    // No trees: the bias says how many outputs.
    if (bias.size() > kMaxOutputs) return SetDimension(kMaxOutputs + 1, bias_where);
    dimension_ = bias.empty() ? 1 : static_cast<std::uint32_t>(bias.size());
  }
  const std::uint32_t outputs = *dimension_;
  if (bias.empty()) bias.assign(outputs, 0.0);
  if (bias.size() != outputs) {
    return Error("has " + Plural(bias.size(), "bias", "biases") + " for " +
                     Plural(outputs, "output dimension", "output dimensions"),
                 bias_where);
  }
  if (!std::isfinite(scale)) return Error("the scale is not a finite number", bias_where);
  bool all_zero = true;
  for (std::size_t k = 0; k < bias.size(); ++k) {
    if (!std::isfinite(bias[k])) {
      return Error("bias " + std::to_string(k) + " is not a finite number", bias_where);
    }
    all_zero = all_zero && bias[k] == 0.0;
  }
  // CatBoost 1.2.10 adds the biases only when one of them is not zero. When
  // it leaves them out, a sum of +0 scaled by a negative scale stays -0,
  // where adding +0 would give +0. Adding -0 changes no value (x + -0 is x
  // for every x, zeros included), so that is what the rules add.
  if (all_zero) bias.assign(outputs, -0.0);

  TreeEnsemble ensemble = std::move(ensemble_);
  ModelInfo& info = ensemble.info;
  info.format = ModelFormat::kCatboost;
  info.num_features = static_cast<std::uint32_t>(features_.size());
  info.num_outputs = outputs;
  info.num_trees = ensemble.trees.size();
  info.num_nodes = ensemble.nodes.size();
  info.max_depth = 0;
  for (const Tree& tree : ensemble.trees) info.max_depth = std::max(info.max_depth, tree.depth);
  info.names_from_file = false;
  info.feature_names.reserve(features_.size());
  for (std::size_t j = 0; j < features_.size(); ++j) {
    // CatBoost names an unnamed feature by its index; the contract says f0,
    // f1, ... (spec 6.1), as for XGBoost.
    if (features_[j].name.empty()) {
      info.feature_names.push_back("f" + std::to_string(j));
    } else {
      info.feature_names.push_back(std::move(features_[j].name));
      info.names_from_file = true;
    }
  }
  // Spec 6.5: right iff x > border in float32, so left iff x <= border; NaN
  // per node (default_left, set from the feature's treatment); float64 sums
  // from +0, scaled and biased, rounded once.
  TreeRules& rules = ensemble.rules;
  rules.compare = TreeRules::Compare::kLessOrEqual;
  rules.tiny_as_zero = false;
  rules.categories = TreeRules::Categories::kNone;
  rules.sum = TreeRules::Sum::kFloat64;
  rules.average_divisor = 0;
  rules.scale_and_bias = true;
  rules.scale = scale;
  rules.bias = std::move(bias);
  return ensemble;
}

Result<TreeEnsemble> ReadCatboost(std::string_view bytes, std::string_view file_name) {
  if (bytes.starts_with("CBM1")) return ReadCatboostCbm(bytes, file_name);
  return ReadCatboostJson(bytes, file_name);
}

}  // namespace calcjit::model
