// libFuzzer target, structure-aware: the bytes choose a VALID tree ensemble
// (TreeEnsemble, as the readers make them: 1-3 outputs, 1-8 features, 1-40
// trees of random, complete, symmetric, nearly symmetric and chain shapes up
// to depth 16, numbered in any order, with unreachable nodes; thresholds at
// the values where keys are hard to get right; categorical splits; every
// combination of TreeRules), its inputs (0-300 rows of NaN, +-0, +-inf,
// subnormals, thresholds and their neighbours, categories) and how it is
// prepared (the default plans; the binned form forced everywhere; the 32-bit
// bitvector forced everywhere; walks only; and a mix the bytes choose).
// Then the block evaluator (block_evaluator.h) on every tier this CPU has,
// for n of 0, 1, 63, 64, 65, 129, one the bytes choose and all rows, must
// give the reference evaluator's bits for every item and output, NaNs
// included, and leave the outputs past n untouched, whatever the caller's
// MXCSR (flush to zero, other rounding). On a mismatch it prints what
// differs and traps, so libFuzzer keeps the input.
//
// The input columns are copies of exactly n floats and the scratch exactly
// EvaluateScratchBytes(model, n) bytes, filled with garbage, so that ASan
// sees any read past them and a read of scratch before it is written shows
// as a wrong result.
#include <fuzzer/FuzzedDataProvider.h>
#include <xmmintrin.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "calcjit/cpu.h"
#include "model/tree/block_evaluator.h"
#include "model/tree/ensemble.h"
#include "model/tree/prepared_model.h"
#include "model/tree/reference_evaluator.h"

namespace calcjit::fuzz {
namespace {

using model::CategorySet;
using model::MissingType;
using model::NodeKind;
using model::PreparedModel;
using model::PrepareOptions;
using model::Tree;
using model::TreeEnsemble;
using model::TreeNode;
using model::TreeRules;

constexpr std::uint32_t kMaxFeatures = 8;
constexpr std::uint32_t kMaxOutputs = 3;
constexpr std::uint32_t kMaxTrees = 40;
constexpr std::uint32_t kMaxRows = 300;
// Reached nodes of the whole model at most: every form compares each split
// for each item (under ASan), so this bounds the time of one input.
constexpr std::uint32_t kNodeBudget = 2048;
constexpr std::uint32_t kSentinel = 0x7FA5A5A5u;  // a signaling NaN no output may be

constexpr float kFloatMax = std::numeric_limits<float>::max();
constexpr float kDenormMin = std::numeric_limits<float>::denorm_min();
constexpr float kFloatMin = std::numeric_limits<float>::min();
constexpr double kInf = std::numeric_limits<double>::infinity();

float FromBits(std::uint32_t bits) {
  return std::bit_cast<float>(bits);
}
std::uint32_t Bits(float value) {
  return std::bit_cast<std::uint32_t>(value);
}

// Thresholds where the order-preserving keys, the rounding of a float64
// threshold to the float32 on either side, tiny values and the ends of the
// float32 range meet.
const double kThresholdSpecials[] = {
    0.0,
    -0.0,
    1e-35f,
    -1e-35f,
    std::nextafter(1e-35f, 0.0f),
    std::nextafter(1e-35f, 1.0f),
    model::kTinyAsZeroBound*(1 + 1e-12),
    kDenormMin,
    -kDenormMin,
    2 * kDenormMin,
    kFloatMin,
    std::nextafter(kFloatMin, 0.0f),  // the largest subnormal
    1e-50,                            // between +0 and the smallest subnormal
    -1e-50,
    kFloatMax,
    -kFloatMax,
    std::nextafter(kFloatMax, 0.0f),
    static_cast<double>(kFloatMax) * (1 + 0x1p-30),  // between FLT_MAX and inf
    -static_cast<double>(kFloatMax) * (1 + 0x1p-30),
    1e300,
    -1e300,
    kInf,
    -kInf,
    1.5,
    std::nextafter(1.5f, 0.0f),
    std::nextafter(1.5f, 2.0f),
    -2.25,
    0.5,
    -0.5,
    1.0,
    3.0,
    7.0,
    33.0,
    16777216.0,
    16777217.0,
    4294967296.0,
};

// Inputs: NaNs of several payloads and signs, infinities, zeros, subnormals,
// the float32 range's ends and categories at word boundaries and at the
// binned form's last category code, truncating
// toward zero, negative and past XGBoost's 2^24 and LightGBM's 2^32.
const std::uint32_t kInputSpecialBits[] = {
    0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0x7FFFFFFFu, 0x7F800000u, 0xFF800000u,
    0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u, 0x007FFFFFu, 0x807FFFFFu,
    0x00800000u, 0x7F7FFFFFu, 0xFF7FFFFFu, 0x0A12CE0Bu /* ~1e-35 */};
const float kCategoryInputs[] = {0.0f, 1.0f, 2.0f, 3.0f, 5.0f, 7.0f, 31.0f, 31.9f, 32.0f, 63.0f,
                                 64.0f, 95.0f, 96.0f, 3.7f, -0.5f, -0.9f, -1.0f, 16777215.0f, 1e9f,
                                 2e9f, 16777216.0f, 4294967296.0f, 2147483648.0f,
                                 // The binned form's category codes end at 61 (split_keys.h).
                                 253.0f, 253.5f, 254.0f, 255.0f};

// A uniform choice in [0, n): from the bytes while they last, then from a
// generator seeded by them, so that a short input still makes a full model.
class Source {
 public:
  explicit Source(FuzzedDataProvider* p) : p_(p), state_(p->ConsumeIntegral<std::uint64_t>()) {}
  std::uint32_t Below(std::uint32_t n) {
    if (n <= 1) return 0;
    if (p_->remaining_bytes() > 0) return p_->ConsumeIntegralInRange<std::uint32_t>(0, n - 1);
    return static_cast<std::uint32_t>(Next() % n);
  }
  bool Flag() { return Below(2) == 1; }
  std::uint32_t Word() {
    if (p_->remaining_bytes() >= 4) return p_->ConsumeIntegral<std::uint32_t>();
    return static_cast<std::uint32_t>(Next() >> 32);
  }
  std::uint64_t Word64() { return (std::uint64_t{Word()} << 32) | Word(); }

 private:
  std::uint64_t Next() {  // splitmix64
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  FuzzedDataProvider* p_;
  std::uint64_t state_;
};

// A tree before its nodes are numbered: node 0 is the root.
struct Shape {
  struct Node {
    TreeNode node;
    int left = -1;
    int right = -1;
  };
  std::vector<Node> nodes;
};

class Generator {
 public:
  Generator(Source* s, std::uint32_t features, std::uint32_t outputs) : s_(*s) {
    model_.info.format = ModelFormat::kLightgbmText;
    model_.info.num_features = features;
    model_.info.num_outputs = outputs;
    for (std::uint32_t j = 0; j < features; ++j) {
      model_.info.feature_names.push_back("f" + std::to_string(j));
    }
  }

  void ChooseRules() {
    TreeRules& rules = model_.rules;
    const std::uint32_t outputs = model_.info.num_outputs;
    rules.compare = s_.Flag() ? TreeRules::Compare::kLessOrEqual : TreeRules::Compare::kLess;
    rules.tiny_as_zero = s_.Flag();
    rules.categories = static_cast<TreeRules::Categories>(s_.Below(3));
    rules.sum = s_.Flag() ? TreeRules::Sum::kFloat64 : TreeRules::Sum::kFloat32;
    if (rules.sum == TreeRules::Sum::kFloat32) {
      const float margins[] = {0.0f, -0.0f, 0.5f, -0.25f, 1e-45f, 3e38f, -1.0f, 0.1f};
      for (std::uint32_t k = 0; k < outputs; ++k) {
        rules.base_margin.push_back(margins[s_.Below(std::size(margins))]);
      }
      return;
    }
    rules.average_divisor = s_.Below(4) == 0 ? 1 + s_.Below(100) : 0;
    if (s_.Flag()) {
      const double scales[] = {1.0, 0.37, -1.7, 1e-300, 0.0, 3.0};
      const double biases[] = {0.0, -0.0, 1.0 / 3.0, -2.5, 1e17, 1e-310};
      rules.scale_and_bias = true;
      rules.scale = scales[s_.Below(std::size(scales))];
      for (std::uint32_t k = 0; k < outputs; ++k) {
        rules.bias.push_back(biases[s_.Below(std::size(biases))]);
      }
    }
    nan_missing_only_ = s_.Below(4) == 0;
  }

  // Half the models treat missing values one way per feature, as trained
  // models mostly do: fewer slots, so that the default plans take the
  // binned form (its bin slots per tree within PrepareOptions' limits).
  void ChooseMissing() {
    one_way_per_feature_ = s_.Flag();
    for (std::uint32_t j = 0; j < model_.info.num_features; ++j) {
      feature_missing_.push_back(nan_missing_only_ ? MissingType::kNan
                                                   : static_cast<MissingType>(s_.Below(3)));
      feature_default_left_.push_back(s_.Flag());
    }
  }

  // A few thresholds many splits share (ties between trees and features,
  // several thresholds in one bin slot).
  void ChooseSharedThresholds() {
    const std::uint32_t count = 1 + s_.Below(6);
    for (std::uint32_t i = 0; i < count; ++i) shared_.push_back(FreshThreshold());
  }

  // Adds trees within the node budget.
  void AddTrees(std::uint32_t count) {
    std::uint32_t budget = kNodeBudget;
    for (std::uint32_t t = 0; t < count && budget > 0; ++t) {
      Shape shape = RandomShape(budget);
      budget -= std::min<std::uint32_t>(budget, static_cast<std::uint32_t>(shape.nodes.size()));
      AddTree(shape, s_.Below(model_.info.num_outputs));
    }
    TreeEnsemble& m = model_;
    m.info.num_trees = m.trees.size();
    m.info.num_nodes = m.nodes.size();
    for (const Tree& tree : m.trees) m.info.max_depth = std::max(m.info.max_depth, tree.depth);
  }

  float Input(std::uint32_t feature_kind) {
    switch (s_.Below(feature_kind == 1 ? 10 : 8)) {
      case 0:
        return FromBits(kInputSpecialBits[s_.Below(std::size(kInputSpecialBits))]);
      case 1:
        return FromBits(s_.Word());
      case 2:
      case 3: {
        // A threshold, as a float32 either side of it.
        if (thresholds_.empty()) return 0.0f;
        const double t = thresholds_[s_.Below(static_cast<std::uint32_t>(thresholds_.size()))];
        const float near = static_cast<float>(t);
        switch (s_.Below(4)) {
          case 0:
            return near;
          case 1:
            return std::nextafter(near, std::numeric_limits<float>::infinity());
          case 2:
            return std::nextafter(near, -std::numeric_limits<float>::infinity());
          default:
            return -near;
        }
      }
      case 4:
        return static_cast<float>(static_cast<int>(s_.Below(40)) - 8) * 0.5f;
      case 5:
        return FromBits(Bits(kDenormMin) + s_.Below(4)) * (s_.Flag() ? 1.0f : -1.0f);
      default:
        return kCategoryInputs[s_.Below(std::size(kCategoryInputs))];
    }
  }

  const TreeEnsemble& model() const { return model_; }

 private:
  double FreshThreshold() {
    switch (s_.Below(4)) {
      case 0: {
        const float t = FromBits(s_.Word());
        return std::isnan(t) ? 0.0 : t;
      }
      case 1: {
        const double t = std::bit_cast<double>(s_.Word64());
        return std::isnan(t) ? 1.0 : t;
      }
      case 2:
        return static_cast<double>(static_cast<int>(s_.Below(80)) - 16) * 0.5;
      default:
        return kThresholdSpecials[s_.Below(std::size(kThresholdSpecials))];
    }
  }

  // A float64 threshold between float32s, or on one, from `t`.
  double Nudge(double t) {
    switch (s_.Below(6)) {
      case 0:
        return t * (1 + 1e-12);
      case 1:
        return std::nextafter(t, kInf);
      case 2:
        return std::nextafter(t, -kInf);
      case 3: {  // halfway to the next float32 up: held exactly in float64
        const float f = static_cast<float>(t);
        if (!std::isfinite(f)) return t;
        const float up = std::nextafter(f, std::numeric_limits<float>::infinity());
        return std::isfinite(up) ? (static_cast<double>(f) + static_cast<double>(up)) / 2 : t;
      }
      default:
        return static_cast<double>(static_cast<float>(t));  // on a float32
    }
  }

  std::uint32_t AddCategorySet() {
    CategorySet set;
    set.first_word = static_cast<std::uint32_t>(model_.category_words.size());
    set.num_words = s_.Below(4);  // LightGBM may give a split no words
    for (std::uint32_t w = 0; w < set.num_words; ++w) {
      std::uint32_t word = 0;
      switch (s_.Below(4)) {
        case 0:
          word = 0;
          break;
        case 1:
          word = ~0u;
          break;
        case 2:
          word = 1u << s_.Below(32);
          break;
        default:
          word = s_.Word();
      }
      model_.category_words.push_back(word);
    }
    model_.category_sets.push_back(set);
    return static_cast<std::uint32_t>(model_.category_sets.size() - 1);
  }

  TreeNode RandomSplit() {
    TreeNode node;
    node.feature = s_.Below(model_.info.num_features);
    node.default_left = s_.Flag();
    node.missing = nan_missing_only_ ? MissingType::kNan : static_cast<MissingType>(s_.Below(3));
    if (one_way_per_feature_) {
      node.default_left = feature_default_left_[node.feature];
      node.missing = feature_missing_[node.feature];
    }
    if (model_.rules.categories != TreeRules::Categories::kNone && s_.Below(8) == 0) {
      node.kind = NodeKind::kCategorical;
      // Splits may share a set, as they would share a threshold.
      node.category_set = !model_.category_sets.empty() && s_.Below(4) != 0
                              ? s_.Below(static_cast<std::uint32_t>(model_.category_sets.size()))
                              : AddCategorySet();
      return node;
    }
    node.kind = NodeKind::kNumerical;
    double t = s_.Below(3) != 0 ? shared_[s_.Below(static_cast<std::uint32_t>(shared_.size()))]
                                : FreshThreshold();
    if (s_.Flag()) t = Nudge(t);
    node.value = t;
    thresholds_.push_back(t);
    return node;
  }

  double Leaf() {
    const bool float32 = model_.rules.sum == TreeRules::Sum::kFloat32;
    double v = 0.0;
    switch (s_.Below(8)) {
      case 0:
        v = s_.Flag() ? -0.0 : 0.0;
        break;
      case 1:
        // Sums that overflow, and rarely an infinity (the readers refuse
        // only NaN leaves).
        v = s_.Below(4) == 0 ? (s_.Flag() ? kInf : -kInf) : (s_.Flag() ? 3e38 : -1e308);
        break;
      case 2:
        v = float32 ? static_cast<double>(FromBits(s_.Word())) : std::bit_cast<double>(s_.Word64());
        if (std::isnan(v)) v = 1.0;
        break;
      case 3:
        v = static_cast<double>(kDenormMin) * (s_.Flag() ? 1 : -1);
        break;
      default:
        v = (static_cast<int>(s_.Below(64)) - 32) * 0.0625 + 1e-9 * s_.Below(3);
    }
    // Float32 sums read float32 leaves (XGBoost's): the readers round them.
    return float32 ? static_cast<double>(static_cast<float>(v)) : v;
  }

  int AddNode(Shape* shape, const TreeNode& node) {
    shape->nodes.push_back({node, -1, -1});
    return static_cast<int>(shape->nodes.size() - 1);
  }
  TreeNode LeafNode() {
    TreeNode leaf;
    leaf.kind = NodeKind::kLeaf;
    leaf.value = Leaf();
    return leaf;
  }

  // Splits node `at` of `shape` into two new leaves.
  void Split(Shape* shape, int at, const TreeNode& split) {
    const int left = AddNode(shape, LeafNode());
    const int right = AddNode(shape, LeafNode());
    shape->nodes[at].node = split;
    shape->nodes[at].left = left;
    shape->nodes[at].right = right;
  }

  // A tree of at most `budget` nodes: random (depth-wise or leaf-wise),
  // complete, symmetric (CatBoost's, or any tree's by chance), symmetric but
  // for one split, a chain (deep and sparse: the breadth-first walk), or
  // one leaf.
  Shape RandomShape(std::uint32_t budget) {
    Shape shape;
    AddNode(&shape, LeafNode());
    const std::uint32_t kind = s_.Below(6);
    if (kind == 5 || budget < 3) return shape;
    std::uint32_t depth = s_.Below(11);
    while (depth > 0 && (std::uint32_t{2} << depth) > budget) --depth;
    if (kind == 0) {
      // Random: each leaf at depth < `depth` split with a probability the
      // bytes choose, within the budget.
      const std::uint32_t per_mille = 300 + s_.Below(700);
      std::vector<std::pair<int, std::uint32_t>> open = {{0, 0}};
      while (!open.empty()) {
        const std::size_t pick = s_.Below(static_cast<std::uint32_t>(open.size()));
        const auto [at, level] = open[pick];
        open.erase(open.begin() + static_cast<std::ptrdiff_t>(pick));
        if (level >= depth || shape.nodes.size() + 2 > budget) continue;
        if (level > 0 && s_.Below(1000) >= per_mille) continue;
        Split(&shape, at, RandomSplit());
        open.emplace_back(shape.nodes[at].left, level + 1);
        open.emplace_back(shape.nodes[at].right, level + 1);
      }
      return shape;
    }
    if (kind == 4) {
      // A chain: one side a leaf at each level, up to 16 levels.
      std::uint32_t length = 1 + s_.Below(16);
      length = std::min(length, (budget - 1) / 2);
      int at = 0;
      for (std::uint32_t l = 0; l < length; ++l) {
        Split(&shape, at, RandomSplit());
        at = s_.Flag() ? shape.nodes[at].left : shape.nodes[at].right;
      }
      return shape;
    }
    // Complete (kind 1) or symmetric (2) or nearly so (3): level by level.
    std::vector<TreeNode> levels;
    for (std::uint32_t l = 0; l < depth; ++l) levels.push_back(RandomSplit());
    std::vector<int> frontier = {0};
    const std::uint32_t odd_level = depth > 0 ? s_.Below(depth) : 0;
    for (std::uint32_t l = 0; l < depth; ++l) {
      std::vector<int> next;
      const std::size_t odd_one = s_.Below(static_cast<std::uint32_t>(frontier.size()));
      for (std::size_t i = 0; i < frontier.size(); ++i) {
        TreeNode split = kind == 1 ? RandomSplit() : levels[l];
        if (kind == 3 && l == odd_level && i == odd_one) split = RandomSplit();
        Split(&shape, frontier[i], split);
        next.push_back(shape.nodes[frontier[i]].left);
        next.push_back(shape.nodes[frontier[i]].right);
      }
      frontier = std::move(next);
    }
    return shape;
  }

  // Numbers `shape`'s nodes (root 0; the rest in creation, breadth-first,
  // right-first preorder or shuffled order, with up to 3 unreachable leaves
  // among them as XGBoost's deleted nodes are) and appends the tree.
  void AddTree(const Shape& shape, std::uint32_t output) {
    const std::size_t reached = shape.nodes.size();
    std::vector<int> order;  // shape nodes in numbering order
    switch (s_.Below(4)) {
      case 0:
        for (std::size_t i = 0; i < reached; ++i) order.push_back(static_cast<int>(i));
        break;
      case 1:
        order.push_back(0);
        for (std::size_t i = 0; i < order.size(); ++i) {
          const Shape::Node& n = shape.nodes[order[i]];
          if (n.left >= 0) {
            order.push_back(n.left);
            order.push_back(n.right);
          }
        }
        break;
      case 2: {
        std::vector<int> stack = {0};
        while (!stack.empty()) {
          const int at = stack.back();
          stack.pop_back();
          order.push_back(at);
          if (shape.nodes[at].left >= 0) {
            stack.push_back(shape.nodes[at].left);
            stack.push_back(shape.nodes[at].right);  // visited first
          }
        }
        break;
      }
      default:
        for (std::size_t i = 0; i < reached; ++i) order.push_back(static_cast<int>(i));
        for (std::size_t i = reached - 1; i > 1; --i) {
          std::swap(order[i], order[1 + s_.Below(static_cast<std::uint32_t>(i))]);
        }
    }
    // Unreachable nodes go at positions past the root.
    const std::uint32_t unreachable = s_.Below(8) == 0 ? 1 + s_.Below(3) : 0;
    for (std::uint32_t u = 0; u < unreachable; ++u) {
      const std::size_t at = 1 + s_.Below(static_cast<std::uint32_t>(order.size()));
      order.insert(order.begin() + static_cast<std::ptrdiff_t>(at), -1);
    }
    std::vector<std::uint32_t> index(reached);
    for (std::size_t i = 0; i < order.size(); ++i) {
      if (order[i] >= 0) index[order[i]] = static_cast<std::uint32_t>(i);
    }
    Tree tree;
    tree.first_node = model_.nodes.size();
    tree.num_nodes = static_cast<std::uint32_t>(order.size());
    tree.output = output;
    std::vector<std::uint32_t> depth(reached, 0);
    for (const int at : order) {
      if (at < 0) {
        model_.nodes.push_back(LeafNode());
        continue;
      }
      const Shape::Node& n = shape.nodes[at];
      TreeNode node = n.node;
      if (n.left >= 0) {
        node.left = index[n.left];
        node.right = index[n.right];
      }
      model_.nodes.push_back(node);
    }
    // Depths: shape nodes are created after their parents.
    for (std::size_t i = 0; i < reached; ++i) {
      const Shape::Node& n = shape.nodes[i];
      if (n.left >= 0) {
        depth[n.left] = depth[n.right] = depth[i] + 1;
      }
      tree.depth = std::max(tree.depth, depth[i]);
    }
    model_.trees.push_back(tree);
  }

  Source& s_;
  TreeEnsemble model_;
  bool nan_missing_only_ = false;
  bool one_way_per_feature_ = false;
  std::vector<MissingType> feature_missing_;
  std::vector<bool> feature_default_left_;
  std::vector<double> shared_;
  std::vector<double> thresholds_;  // of every numerical split, for the inputs
};

// The plans compared, by name.
struct NamedOptions {
  std::string name;
  PrepareOptions options;
  // Differs from the plan before it only for symmetric trees: skipped when
  // that plan made none oblivious.
  bool only_after_oblivious = false;
};

std::vector<NamedOptions> ChooseOptions(Source* s) {
  std::vector<NamedOptions> all;
  all.push_back({"default", PrepareOptions{}});
  PrepareOptions binned;
  for (std::uint32_t& limit : binned.max_binned_leaves) limit = PreparedModel::kMaxBitvectorLeaves;
  for (double& limit : binned.bin_slots_per_tree) limit = 1e9;
  all.push_back({"binned everywhere", binned});
  binned.oblivious = false;
  all.push_back({"binned everywhere, no oblivious", binned, true});
  PrepareOptions bitvector;
  bitvector.binned = false;
  for (std::uint32_t& limit : bitvector.max_bitvector_leaves) {
    limit = PreparedModel::kMaxBitvectorLeaves;
  }
  all.push_back({"bitvector everywhere, binned off", bitvector});
  PrepareOptions walk;
  walk.binned = false;
  walk.bitvector = false;
  walk.oblivious = false;
  all.push_back({"walk only", walk});
  // A mix: each tier's limits as the bytes say.
  const std::uint32_t leaves[] = {0, 1, 2, 8, 9, 32, 33, 64, 65, 256};
  const double slots[] = {0.0, 0.125, 0.5, 1.0, 1e9};
  PrepareOptions mixed;
  mixed.bitvector = s->Flag();
  mixed.binned = s->Flag();
  mixed.oblivious = s->Flag();
  mixed.gfni = s->Flag();
  std::string name = "mixed: bitvector " + std::to_string(mixed.bitvector) + " binned " +
                     std::to_string(mixed.binned) + " oblivious " +
                     std::to_string(mixed.oblivious) + " gfni " + std::to_string(mixed.gfni);
  for (int tier = 0; tier < 3; ++tier) {
    mixed.max_bitvector_leaves[tier] = leaves[s->Below(std::size(leaves))];
    mixed.max_binned_leaves[tier] = leaves[s->Below(std::size(leaves))];
    mixed.bin_slots_per_tree[tier] = slots[s->Below(std::size(slots))];
    name += " | tier " + std::to_string(tier) + ": bitvector leaves " +
            std::to_string(mixed.max_bitvector_leaves[tier]) + ", binned leaves " +
            std::to_string(mixed.max_binned_leaves[tier]) + ", bin slots per tree " +
            std::to_string(mixed.bin_slots_per_tree[tier]);
  }
  all.push_back({name, mixed});
  return all;
}

// The caller's floating-point environment the evaluator must not depend on.
constexpr std::uint32_t kCallerMxcsr[] = {
    0x1F80u,  // the default
    0x9FC0u,  // flush to zero, denormals are zero
    0x5F80u,  // round up
    0x3F80u,  // round down
    0x7F80u,  // round toward zero
};

struct AlignedFree {
  void operator()(void* p) const { std::free(p); }
};

std::string Describe(float v) {
  char text[64];
  std::snprintf(text, sizeof text, "%a (0x%08X)", static_cast<double>(v), Bits(v));
  return text;
}

[[noreturn]] void Mismatch(const std::string& what, Isa isa, const NamedOptions& options,
                           std::uint32_t mxcsr, std::size_t n, std::size_t item,
                           std::uint32_t output, float want, float got,
                           const std::vector<std::vector<float>>& columns) {
  std::fprintf(stderr,
               "fuzz check failed: tree evaluator: %s\n  tier %.*s, options \"%s\", caller "
               "MXCSR 0x%04X, n %zu, item %zu, output %u: expected %s, got %s\n",
               what.c_str(), static_cast<int>(IsaName(isa).size()), IsaName(isa).data(),
               options.name.c_str(), mxcsr, n, item, output, Describe(want).c_str(),
               Describe(got).c_str());
  if (item < (columns.empty() ? 0 : columns[0].size())) {
    for (std::size_t j = 0; j < columns.size(); ++j) {
      std::fprintf(stderr, "  feature %zu: %s\n", j, Describe(columns[j][item]).c_str());
    }
  }
  __builtin_trap();
}

// CALCJIT_FUZZ_TREE_FORMS=1: print each plan's trees per tier and form, to
// see which forms a corpus reaches.
void PrintForms(const PreparedModel& prepared, const NamedOptions& options, Isa isa) {
  static const bool enabled = [] {
    const char* value = std::getenv("CALCJIT_FUZZ_TREE_FORMS");
    return value != nullptr && std::string(value) == "1";
  }();
  if (!enabled) return;
  std::size_t count[6] = {};
  for (const model::FastTree& tree : prepared.trees(isa)) ++count[static_cast<int>(tree.form)];
  std::string line = "forms: " + std::string(IsaName(isa)) + " \"" + options.name + "\"";
  for (int form = 0; form < 6; ++form) {
    line += std::string(form == 0 ? " " : ", ") +
            model::TreeFormName(static_cast<model::TreeForm>(form)) + "=" +
            std::to_string(count[form]);
  }
  std::fprintf(stderr, "%s\n", line.c_str());
}

// Checks one plan on every tier; returns whether it made any tree oblivious.
bool CheckPlan(const std::shared_ptr<const TreeEnsemble>& ensemble, const NamedOptions& options,
               const std::vector<std::vector<float>>& columns,
               const std::vector<std::vector<float>>& expected, std::span<const std::size_t> counts,
               std::uint32_t mxcsr, std::uint8_t scratch_fill) {
  Result<PreparedModel> prepared = PreparedModel::Prepare(ensemble, options.options);
  if (!prepared.ok()) {
    std::fprintf(stderr,
                 "fuzz check failed: tree evaluator: a valid ensemble does not prepare "
                 "(options \"%s\"): %s\n",
                 options.name.c_str(), prepared.status().ToString().c_str());
    __builtin_trap();
  }
  const std::uint32_t features = ensemble->info.num_features;
  const std::uint32_t outputs = ensemble->info.num_outputs;
  constexpr std::size_t kGuard = 17;  // outputs past n that must keep the sentinel
  bool oblivious = false;
  for (const Isa isa : {Isa::kBaseline, Isa::kAvx2, Isa::kAvx512}) {
    if (!IsIsaSupported(isa)) continue;
    oblivious = oblivious || prepared->plan(isa).oblivious > 0;
    PrintForms(*prepared, options, isa);
    for (const std::size_t n : counts) {
      // Exactly n floats per column: ASan sees a read past them.
      std::vector<std::unique_ptr<float[]>> in(features);
      std::vector<const float*> in_ptr(features);
      for (std::uint32_t j = 0; j < features; ++j) {
        in[j].reset(new float[n]);
        std::copy_n(columns[j].begin(), n, in[j].get());
        in_ptr[j] = in[j].get();
      }
      std::vector<std::vector<float>> out(outputs,
                                          std::vector<float>(n + kGuard, FromBits(kSentinel)));
      std::vector<float*> out_ptr;
      for (auto& column : out) out_ptr.push_back(column.data());
      const std::size_t bytes = std::max<std::size_t>(model::EvaluateScratchBytes(*prepared, n), 1);
      void* raw = nullptr;
      if (posix_memalign(&raw, 64, bytes) != 0) std::abort();
      const std::unique_ptr<void, AlignedFree> scratch(raw);
      std::memset(raw, scratch_fill, bytes);
      const std::uint32_t saved = _mm_getcsr();
      _mm_setcsr(mxcsr);
      model::Evaluate(*prepared, in_ptr.data(), n, out_ptr.data(), raw, isa);
      _mm_setcsr(saved);
      for (std::uint32_t k = 0; k < outputs; ++k) {
        for (std::size_t i = 0; i < n + kGuard; ++i) {
          const float want = i < n ? expected[k][i] : FromBits(kSentinel);
          if (Bits(out[k][i]) != Bits(want)) {
            Mismatch(i < n ? "the block evaluator differs from the reference"
                           : "an output past n was written",
                     isa, options, mxcsr, n, i, k, want, out[k][i], columns);
          }
        }
      }
    }
  }
  return oblivious;
}

}  // namespace
}  // namespace calcjit::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace calcjit::fuzz;
  FuzzedDataProvider p(data, size);
  Source s(&p);
  const std::uint32_t features = 1 + s.Below(kMaxFeatures);
  const std::uint32_t outputs = 1 + s.Below(kMaxOutputs);
  const std::uint32_t trees = 1 + s.Below(kMaxTrees);
  const std::size_t rows = s.Below(kMaxRows + 1);
  Generator g(&s, features, outputs);
  g.ChooseRules();
  g.ChooseMissing();
  g.ChooseSharedThresholds();
  g.AddTrees(trees);
  auto ensemble = std::make_shared<const calcjit::model::TreeEnsemble>(g.model());

  // Each feature is numerical-looking or category-looking, for its inputs.
  std::vector<std::vector<float>> columns(features, std::vector<float>(rows));
  for (auto& column : columns) {
    const std::uint32_t kind = s.Below(2);
    for (float& v : column) v = g.Input(kind);
  }
  std::vector<std::vector<float>> expected(outputs, std::vector<float>(rows));
  {
    std::vector<const float*> in_ptr;
    for (auto& column : columns) in_ptr.push_back(column.data());
    std::vector<float*> out_ptr;
    for (auto& column : expected) out_ptr.push_back(column.data());
    calcjit::model::EvaluateReference(*ensemble, in_ptr.data(), rows, out_ptr.data());
  }

  std::vector<std::size_t> counts = {0,  1,   63,   64,
                                     65, 129, rows, s.Below(static_cast<std::uint32_t>(rows) + 1)};
  counts.erase(
      std::remove_if(counts.begin(), counts.end(), [&](std::size_t n) { return n > rows; }),
      counts.end());
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  const std::vector<NamedOptions> plans = ChooseOptions(&s);
  const std::uint32_t mxcsr = kCallerMxcsr[s.Below(std::size(kCallerMxcsr))];
  const std::uint8_t fills[] = {0x00, 0xFF, 0xA5, 0x80};
  const std::uint8_t fill = fills[s.Below(std::size(fills))];
  bool oblivious = true;
  for (const NamedOptions& plan : plans) {
    if (plan.only_after_oblivious && !oblivious) continue;
    oblivious = CheckPlan(ensemble, plan, columns, expected, counts, mxcsr, fill);
  }
  return 0;
}
