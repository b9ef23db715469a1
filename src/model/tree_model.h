// A decoded tree ensemble (contract section 6): what the XGBoost and LightGBM
// readers produce, what the reference evaluator walks and what the fast block
// evaluator is prepared from. Immutable once read; shared by threads.
#ifndef CALCJIT_MODEL_TREE_MODEL_H_
#define CALCJIT_MODEL_TREE_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace calcjit::model {

enum class ModelFormat : std::uint8_t {
  kXgboostJson,   // spec 6.2: XGBoost save_model("*.json"), booster gbtree
  kLightgbmText,  // spec 6.3: LightGBM text model, version v3 or v4
};

// "xgboost" or "lightgbm".
const char* ModelFormatName(ModelFormat format);

// The limits of spec 6.1, checked by the readers. kMaxNodes is per model; the
// caller checks the sum over a set's models against the same bound.
inline constexpr std::uint64_t kMaxModelFileBytes = std::uint64_t{2} << 30;
inline constexpr std::uint64_t kMaxTrees = 1'000'000;
inline constexpr std::uint64_t kMaxNodes = std::uint64_t{1} << 28;
inline constexpr std::uint32_t kMaxDepth = 10'000;
inline constexpr std::uint32_t kMaxFeatures = 65'536;
inline constexpr std::uint32_t kMaxOutputs = 65'536;

// What `calcjit check` prints about a model, and what the checker needs.
struct ModelInfo {
  ModelFormat format = ModelFormat::kXgboostJson;
  // Model feature j is input j. Names from the file (learner.feature_names,
  // LightGBM's feature_names=), else "f0", "f1", ...
  std::vector<std::string> feature_names;
  bool names_from_file = false;
  std::uint32_t num_features = 0;
  std::uint32_t num_outputs = 1;  // output groups (XGBoost) or classes (LightGBM)
  std::uint64_t num_trees = 0;
  std::uint64_t num_nodes = 0;  // splits and leaves of every tree
  std::uint32_t max_depth = 0;  // splits on the longest root-to-leaf path
  std::string objective;        // e.g. "binary:logistic", "multiclass num_class:3"
};

// "xgboost: 500 trees, depth 8, 12 features, 1 output".
std::string DescribeModel(const ModelInfo& info);

enum class NodeKind : std::uint8_t { kLeaf, kNumerical, kCategorical };

// Which inputs a LightGBM numerical node sends to its default side
// ((decision_type >> 2) & 3). XGBoost nodes are always kNan.
enum class MissingType : std::uint8_t { kNone = 0, kZero = 1, kNan = 2 };

// One node. XGBoost keeps the file's node numbering; LightGBM's split i is
// node i and its leaf j is node (num_leaves - 1) + j.
struct TreeNode {
  // A split's threshold or a leaf's value. XGBoost: the file's number rounded
  // to float32 (held exactly); LightGBM: rounded to float64.
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
// (c % 32) of word c / 32 is set, for c < 32 * num_words. XGBoost sizes it to
// its largest category (its predictor sends larger ones left); LightGBM's is
// the file's cat_threshold words.
struct CategorySet {
  std::uint32_t first_word = 0;  // into TreeEnsemble::category_words
  std::uint32_t num_words = 0;
};

struct Tree {
  std::uint64_t first_node = 0;  // into TreeEnsemble::nodes; the root
  std::uint32_t num_nodes = 0;   // including nodes unreachable from the root (XGBoost's deleted)
  std::uint32_t output = 0;      // the output group the tree adds to
  std::uint32_t depth = 0;
};

struct TreeEnsemble {
  ModelInfo info;
  std::vector<Tree> trees;  // in the file's order: leaves are added in this order
  std::vector<TreeNode> nodes;
  std::vector<CategorySet> category_sets;
  std::vector<std::uint32_t> category_words;
  // XGBoost: the base margin of each output (the mapped base_score, spec
  // 6.2). Empty for LightGBM (its sums start at +0).
  std::vector<float> base_margin;
  // LightGBM average_output: the sums are divided by this many iterations;
  // 0 when the model does not average.
  std::uint32_t average_divisor = 0;

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

#endif  // CALCJIT_MODEL_TREE_MODEL_H_
