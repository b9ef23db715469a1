// A decoded tree ensemble (contract section 6): what every tree reader
// produces, what the reference evaluator walks and what the fast evaluators
// are prepared from. What a format means (how a split compares, where a
// missing value goes, how leaves are summed) is data here, in TreeRules and
// in each node: no evaluator asks which library wrote the file. Immutable once
// read; shared by threads.
#ifndef CALCJIT_MODEL_TREE_ENSEMBLE_H_
#define CALCJIT_MODEL_TREE_ENSEMBLE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "calcjit/model_format.h"

namespace calcjit::model {

// The limits of spec 6.1, checked by the readers. kMaxNodes is per model; the
// caller checks the sum over a set's models against the same bound.
inline constexpr std::uint64_t kMaxModelFileBytes = std::uint64_t{2} << 30;
inline constexpr std::uint64_t kMaxTrees = 1'000'000;
inline constexpr std::uint64_t kMaxNodes = std::uint64_t{1} << 28;
inline constexpr std::uint32_t kMaxDepth = 10'000;
inline constexpr std::uint32_t kMaxFeatures = 65'536;
inline constexpr std::uint32_t kMaxOutputs = 65'536;
// The categorical bitsets of one model at most, in 32-bit words (64 MiB). An
// XGBoost node's bitset has a bit per category up to its largest (below
// 2^24, so up to 2 MiB), and a file of a few bytes per node could otherwise
// ask for gigabytes; a reader refuses a model beyond this budget.
inline constexpr std::uint64_t kMaxCategoryWords = std::uint64_t{1} << 24;

// LightGBM's kZeroThreshold, the float literal 1e-35f widened to double
// (1.0000000180025095e-35): with TreeRules::tiny_as_zero, |x| <= this is 0.
inline constexpr double kTinyAsZeroBound = static_cast<double>(1e-35f);

// How the library that wrote the model decides and sums: filled by the
// reader, read by the preparation, every evaluator and `explain`.
struct TreeRules {
  // A numerical split sends an input x (after the rules below) left iff
  // x < t (XGBoost) or x <= t (LightGBM; CatBoost, whose split "x > border"
  // is true to the right), compared in float64: a float32 threshold is held
  // exactly, so this is the float32 comparison where the library makes one.
  enum class Compare : std::uint8_t { kLess, kLessOrEqual };
  Compare compare = Compare::kLess;
  // |x| <= kTinyAsZeroBound counts as +0 before any decision (LightGBM's
  // predictor drops such values); NaN is not tiny.
  bool tiny_as_zero = false;

  // What a categorical split means (NodeKind::kCategorical), with `c` the
  // input truncated toward zero:
  enum class Categories : std::uint8_t {
    kNone,            // the format has none
    kInSetGoesRight,  // XGBoost 1.7.4: NaN to the default side; x < 0 or
                      // x >= 2^24, or c beyond the set, left; else right iff
                      // c is in the set
    kInSetGoesLeft,   // LightGBM: NaN, c < 0 or c beyond the set right; else
                      // left iff c is in the set
  };
  Categories categories = Categories::kNone;

  // How output k sums its trees' leaves, in the file's tree order.
  enum class Sum : std::uint8_t {
    kFloat32,  // from base_margin[k], each leaf added with float32 `+` (XGBoost)
    kFloat64,  // from +0.0 in float64, then the steps below, rounded to float32 once
  };
  Sum sum = Sum::kFloat32;
  std::vector<float> base_margin;  // kFloat32: one per output
  // kFloat64, in this order: divide by average_divisor when it is not 0
  // (LightGBM's average_output: the number of iterations), then
  // scale * sum + bias[k] when scale_and_bias (CatBoost), each in float64.
  std::uint32_t average_divisor = 0;
  bool scale_and_bias = false;
  double scale = 1.0;
  std::vector<double> bias;  // one per output

  // Output k of Sum::kFloat64 from its sum of leaves: every evaluator's last
  // step, written once.
  float FinishFloat64(double leaves, std::uint32_t k) const {
    if (average_divisor != 0) leaves /= static_cast<double>(average_divisor);
    if (scale_and_bias) leaves = scale * leaves + bias[k];
    return static_cast<float>(leaves);
  }
};

// What `calcjit check` prints about a model, and what the checker needs.
struct ModelInfo {
  ModelFormat format = ModelFormat::kXgboostJson;
  // Model feature j is input j. Names from the file (learner.feature_names,
  // LightGBM's feature_names=, ...), else the format's defaults "f0", "f1", ...
  std::vector<std::string> feature_names;
  bool names_from_file = false;
  std::uint32_t num_features = 0;
  std::uint32_t num_outputs = 1;  // output groups (XGBoost), classes (LightGBM), dimensions
  std::uint64_t num_trees = 0;
  std::uint64_t num_nodes = 0;  // splits and leaves of every tree
  std::uint32_t max_depth = 0;  // splits on the longest root-to-leaf path
  std::string objective;        // e.g. "binary:logistic", "multiclass num_class:3"
};

// "xgboost: 500 trees, depth 8, 12 features, 1 output".
std::string DescribeModel(const ModelInfo& info);

enum class NodeKind : std::uint8_t { kLeaf, kNumerical, kCategorical };

// Which inputs a numerical node sends to its default side: kNan for NaN only
// (XGBoost, CatBoost, LightGBM's missing type NaN); kZero for NaN and 0, NaN
// counting as 0 (LightGBM's zero); kNone for none, NaN counting as 0
// (LightGBM's none). LightGBM's (decision_type >> 2) & 3.
enum class MissingType : std::uint8_t { kNone = 0, kZero = 1, kNan = 2 };

// One node. XGBoost keeps the file's node numbering; LightGBM's split i is
// node i and its leaf j is node (num_leaves - 1) + j; an oblivious CatBoost
// tree of depth d is a complete tree in heap order (node i has children
// 2i + 1 and 2i + 2), its level l splitting on the file's split d - 1 - l, so
// that the leaf reached is the file's leaf index.
struct TreeNode {
  // A split's threshold or a leaf's value, as a float64 that holds the file's
  // number rounded as its format says (to float32 for XGBoost and CatBoost
  // thresholds and XGBoost leaves, to float64 otherwise).
  double value = 0;
  std::uint32_t left = 0;  // child node indices within the tree (splits only)
  std::uint32_t right = 0;
  std::uint32_t feature = 0;       // model feature of a split
  std::uint32_t category_set = 0;  // kCategorical: index into TreeEnsemble::category_sets
  NodeKind kind = NodeKind::kLeaf;
  MissingType missing = MissingType::kNan;
  bool default_left = false;  // where a missing input goes
};

// A categorical split's set as a bitset: category c is in the set iff bit
// (c % 32) of word c / 32 is set, for c < 32 * num_words.
struct CategorySet {
  std::uint32_t first_word = 0;  // into TreeEnsemble::category_words
  std::uint32_t num_words = 0;
};

struct Tree {
  std::uint64_t first_node = 0;  // into TreeEnsemble::nodes; the root
  std::uint32_t num_nodes = 0;   // including nodes unreachable from the root (XGBoost's deleted)
  std::uint32_t output = 0;      // the output the tree adds to
  std::uint32_t depth = 0;
};

struct TreeEnsemble {
  ModelInfo info;
  TreeRules rules;
  std::vector<Tree> trees;  // in the file's order: leaves are added in this order
  std::vector<TreeNode> nodes;
  std::vector<CategorySet> category_sets;
  std::vector<std::uint32_t> category_words;

  const TreeNode& node(const Tree& tree, std::uint32_t index) const {
    return nodes[tree.first_node + index];
  }
  bool CategoryInSet(const TreeNode& node, std::uint64_t category) const {
    const CategorySet& set = category_sets[node.category_set];
    if (category >= std::uint64_t{32} * set.num_words) return false;
    return (category_words[set.first_word + category / 32] >> (category % 32)) & 1u;
  }
};

}  // namespace calcjit::model

#endif  // CALCJIT_MODEL_TREE_ENSEMBLE_H_
