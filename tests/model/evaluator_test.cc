// The block evaluator against the reference evaluator on random ensembles
// (random shapes, thresholds from a small pool so that inputs hit them,
// every missing type, categorical sets) and inputs drawn from the values that
// matter: NaN, +-0, +-inf, subnormals, +-1e-35f, huge, thresholds and their
// neighbours; n = 0 and n not a multiple of the lanes or blocks; large trees
// and models past the slot limit (the reference-walk paths).
#include <bit>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/cpu_features.h"
#include "model/tree/block_evaluator.h"
#include "model/tree/prepared_model.h"
#include "model/tree/reference_evaluator.h"
#include "model/tree/tree_model.h"

namespace calcjit::model {
namespace {

// The rules the reader of `format` fills (spec 6.2, 6.3), for hand-built ensembles.
TreeRules RulesLike(ModelFormat format, std::uint32_t outputs) {
  TreeRules rules;
  if (format == ModelFormat::kXgboostJson) {
    rules.compare = TreeRules::Compare::kLess;
    rules.categories = TreeRules::Categories::kInSetGoesRight;
    rules.sum = TreeRules::Sum::kFloat32;
    for (std::uint32_t k = 0; k < outputs; ++k) rules.base_margin.push_back(0.5f * k - 0.25f);
  } else {
    rules.compare = TreeRules::Compare::kLessOrEqual;
    rules.tiny_as_zero = true;
    rules.categories = TreeRules::Categories::kInSetGoesLeft;
    rules.sum = TreeRules::Sum::kFloat64;
  }
  return rules;
}

struct Builder {
  std::mt19937_64 rng;
  std::uint32_t num_features;
  std::vector<float> pool;  // thresholds and input values
  TreeEnsemble model;
  // Every numerical node's missing type is kNan (XGBoost's, CatBoost's), else random.
  bool nan_missing_only = false;
  // Splits may be categorical (one in five); their sets hold only
  // categories below 254 (split_keys.h, CategoryCodesFit) with codes_fit.
  bool categorical = true;
  bool codes_fit = false;
  // Sets of up to 10 words (categories past 253 likely), without codes_fit.
  bool wide_sets = false;

  Builder(std::uint64_t seed, ModelFormat f, std::uint32_t features, std::uint32_t outputs)
      : rng(seed), num_features(features) {
    model.info.format = f;
    model.info.num_features = features;
    model.info.num_outputs = outputs;
    for (std::uint32_t j = 0; j < features; ++j)
      model.info.feature_names.push_back("f" + std::to_string(j));
    model.rules = RulesLike(f, outputs);
    nan_missing_only = f == ModelFormat::kXgboostJson;
    const float specials[] = {0.0f, -0.0f, 1e-35f, -1e-35f, std::nextafter(1e-35f, 1.0f), 1e-45f,
                              -1e-45f, 1.5f, -2.25f, 3.0f, 1e30f, -3.4e38f, 7.0f, 33.0f,
                              std::nextafter(1.5f, 0.0f),
                              // Category codes' edges (split_keys.h).
                              61.0f, 62.0f, 63.0f, 200.0f, 253.0f, 253.5f, 254.0f, 255.0f, 256.0f,
                              -0.5f, 16777216.0f, 4294967296.0f};
    pool.assign(std::begin(specials), std::end(specials));
  }

  std::uint32_t Uniform(std::uint32_t n) { return static_cast<std::uint32_t>(rng() % n); }

  // A random categorical set of up to 3 words.
  std::uint32_t AddSet() {
    CategorySet set;
    set.first_word = static_cast<std::uint32_t>(model.category_words.size());
    // Up to 3 words (10 with wide_sets), or with codes_fit up to the 8 that
    // hold categories 0-253.
    set.num_words = 1 + Uniform(codes_fit ? 8 : wide_sets ? 10 : 3);
    for (std::uint32_t w = 0; w < set.num_words; ++w) {
      std::uint32_t word = static_cast<std::uint32_t>(rng());
      if (codes_fit && w == 7) word &= (1u << 30) - 1;  // categories 224-253
      model.category_words.push_back(word);
    }
    model.category_sets.push_back(set);
    return static_cast<std::uint32_t>(model.category_sets.size() - 1);
  }

  // A random split (children not set).
  TreeNode RandomSplit() {
    TreeNode node;
    node.feature = Uniform(num_features);
    node.default_left = Uniform(2) == 1;
    node.missing = nan_missing_only ? MissingType::kNan : static_cast<MissingType>(Uniform(3));
    const bool make_categorical = Uniform(5) == 0;
    if (categorical && make_categorical) {
      node.kind = NodeKind::kCategorical;
      node.category_set = AddSet();
    } else {
      node.kind = NodeKind::kNumerical;
      const float t = pool[Uniform(static_cast<std::uint32_t>(pool.size()))];
      // A float64 threshold between two float32 values, half the time.
      node.value = Uniform(2) ? static_cast<double>(t) : static_cast<double>(t) * (1 + 1e-12);
    }
    return node;
  }

  double RandomLeaf() {
    return model.rules.sum == TreeRules::Sum::kFloat32
               ? static_cast<double>(static_cast<float>(std::normal_distribution<>(0, 1)(rng)))
               : std::normal_distribution<>(0, 1)(rng) * (Uniform(8) == 0 ? 1e17 : 1.0);
  }

  // A symmetric tree of `depth` levels: one random split per level, its
  // nodes numbered in preorder (not heap order: the layout must not care).
  void AddSymmetricTree(std::uint32_t depth, std::uint32_t output) {
    std::vector<TreeNode> levels;
    for (std::uint32_t l = 0; l < depth; ++l) levels.push_back(RandomSplit());
    Tree tree;
    tree.first_node = model.nodes.size();
    tree.output = output;
    tree.depth = depth;
    std::uint32_t count = 0;
    // (node index, level), preorder.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> stack = {{count++, 0}};
    model.nodes.emplace_back();
    while (!stack.empty()) {
      auto [index, level] = stack.back();
      stack.pop_back();
      TreeNode node;
      if (level == depth) {
        node.value = RandomLeaf();
      } else {
        node = levels[level];
        node.right = count++;
        node.left = count++;
        model.nodes.emplace_back();
        model.nodes.emplace_back();
        stack.emplace_back(node.right, level + 1);
        stack.emplace_back(node.left, level + 1);
      }
      model.nodes[tree.first_node + index] = node;
    }
    tree.num_nodes = count;
    model.trees.push_back(tree);
  }

  // A random tree of at most `max_depth` levels, nodes in creation order.
  void AddTree(std::uint32_t max_depth, double split_probability, std::uint32_t output) {
    Tree tree;
    tree.first_node = model.nodes.size();
    tree.output = output;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> stack = {{0, 0}};
    model.nodes.push_back(TreeNode{});
    std::uint32_t count = 1;
    while (!stack.empty()) {
      auto [index, depth] = stack.back();
      stack.pop_back();
      TreeNode node;
      const bool split = depth < max_depth && (depth == 0 || std::uniform_real_distribution<>(
                                                                 0, 1)(rng) < split_probability);
      if (!split) {
        node.kind = NodeKind::kLeaf;
        node.value =
            model.rules.sum == TreeRules::Sum::kFloat32
                ? static_cast<double>(static_cast<float>(std::normal_distribution<>(0, 1)(rng)))
                : std::normal_distribution<>(0, 1)(rng) * (Uniform(8) == 0 ? 1e17 : 1.0);
        model.nodes[tree.first_node + index] = node;
        tree.depth = std::max(tree.depth, depth);
        continue;
      }
      node = RandomSplit();
      node.left = count++;
      node.right = count++;
      model.nodes.push_back(TreeNode{});
      model.nodes.push_back(TreeNode{});
      model.nodes[tree.first_node + index] = node;
      stack.emplace_back(node.left, depth + 1);
      stack.emplace_back(node.right, depth + 1);
    }
    tree.num_nodes = count;
    model.trees.push_back(tree);
  }

  float RandomInput() {
    switch (Uniform(6)) {
      case 0:
        return NAN;
      case 1:
        return Uniform(2) ? INFINITY : -INFINITY;
      case 2: {
        const float p = pool[Uniform(static_cast<std::uint32_t>(pool.size()))];
        return Uniform(2) ? std::nextafter(p, INFINITY) : std::nextafter(p, -INFINITY);
      }
      case 3:
        return static_cast<float>(Uniform(100)) - 3.5f * static_cast<float>(Uniform(2));
      default:
        return pool[Uniform(static_cast<std::uint32_t>(pool.size()))];
    }
  }
};

void Finish(TreeEnsemble* model) {
  model->info.num_trees = model->trees.size();
  model->info.num_nodes = model->nodes.size();
  for (const Tree& t : model->trees)
    model->info.max_depth = std::max(model->info.max_depth, t.depth);
}

// Reference and block evaluator (every tier, several n) on `rows` random rows.
void ExpectSameBits(const std::shared_ptr<const TreeEnsemble>& model, Builder* b, std::size_t rows,
                    const PrepareOptions& options = {}) {
  Result<PreparedModel> prepared = PreparedModel::Prepare(model, options);
  ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
  const std::uint32_t features = model->info.num_features;
  const std::uint32_t outputs = model->info.num_outputs;
  std::vector<std::vector<float>> in(features, std::vector<float>(rows));
  for (auto& column : in) {
    for (float& v : column) v = b->RandomInput();
  }
  std::vector<const float*> in_ptr;
  for (auto& c : in) in_ptr.push_back(c.data());
  std::vector<std::vector<float>> expected(outputs, std::vector<float>(rows));
  std::vector<float*> expected_ptr;
  for (auto& c : expected) expected_ptr.push_back(c.data());
  EvaluateReference(*model, in_ptr.data(), rows, expected_ptr.data());

  std::vector<unsigned char> storage(EvaluateScratchBytes(*prepared, rows) + 64);
  void* scratch =
      storage.data() + (64 - reinterpret_cast<std::uintptr_t>(storage.data()) % 64) % 64;
  for (Isa isa : {Isa::kBaseline, Isa::kAvx2, Isa::kAvx512}) {
    if (BestIsa() < isa) continue;
    // 129, 191 and 255: groups of three and four blocks (kBinnedGroup), the
    // last one short.
    for (std::size_t n : {rows, std::size_t{0}, std::size_t{1}, std::size_t{9}, std::size_t{63},
                          std::size_t{65}, std::size_t{129}, std::size_t{191}, std::size_t{255}}) {
      if (n > rows) continue;
      std::vector<std::vector<float>> got(outputs, std::vector<float>(rows, -7.0f));
      std::vector<float*> got_ptr;
      for (auto& c : got) got_ptr.push_back(c.data());
      Evaluate(*prepared, in_ptr.data(), n, got_ptr.data(), scratch, isa);
      for (std::uint32_t k = 0; k < outputs; ++k) {
        for (std::size_t i = 0; i < rows; ++i) {
          const std::uint32_t want = i < n ? std::bit_cast<std::uint32_t>(expected[k][i])
                                           : std::bit_cast<std::uint32_t>(-7.0f);
          ASSERT_EQ(std::bit_cast<std::uint32_t>(got[k][i]), want)
              << "tier " << static_cast<int>(isa) << " n " << n << " item " << i << " output " << k
              << ": expected " << expected[k][i] << ", got " << got[k][i];
        }
      }
    }
  }
}

// The binned form for every tree of at most 256 leaves on every tier, the
// baseline's portable code included, whatever its bin slots cost.
PrepareOptions BinnedEverywhere() {
  PrepareOptions options;
  for (std::uint32_t& limit : options.max_binned_leaves) limit = PreparedModel::kMaxBitvectorLeaves;
  for (double& limit : options.bin_slots_per_tree) limit = 1e9;
  return options;
}

class RandomEnsembleTest : public ::testing::TestWithParam<int> {};

// Every combination of the rules a reader may fill (not only those of the
// formats of today): the block evaluator follows the data, not the format.
TEST_P(RandomEnsembleTest, BlockEvaluatorGivesTheReferenceBits) {
  const int seed = GetParam();
  const std::uint32_t outputs = 1 + seed % 3;
  Builder b(static_cast<std::uint64_t>(seed), ModelFormat::kLightgbmText, 1 + seed % 7, outputs);
  TreeRules& rules = b.model.rules;
  rules.compare = seed % 2 ? TreeRules::Compare::kLessOrEqual : TreeRules::Compare::kLess;
  rules.tiny_as_zero = seed % 3 == 0;
  rules.categories =
      seed % 5 < 3 ? TreeRules::Categories::kInSetGoesLeft : TreeRules::Categories::kInSetGoesRight;
  rules.sum = (seed / 2) % 2 ? TreeRules::Sum::kFloat32 : TreeRules::Sum::kFloat64;
  b.nan_missing_only = seed % 7 == 0;
  b.codes_fit = seed % 2 == 1;
  b.wide_sets = seed % 4 == 0;
  const int trees = 1 + (seed * 7) % 40;
  if (rules.sum == TreeRules::Sum::kFloat32) {
    rules.base_margin.clear();
    for (std::uint32_t k = 0; k < outputs; ++k) rules.base_margin.push_back(0.5f * k - 0.25f);
  } else if (seed % 4 == 1) {
    rules.average_divisor = static_cast<std::uint32_t>(trees) / outputs + 1;
  } else if (seed % 4 == 2) {
    rules.scale_and_bias = true;  // CatBoost's scale_and_bias
    rules.scale = 0.37;
    for (std::uint32_t k = 0; k < outputs; ++k) rules.bias.push_back(1.0 / 3.0 - k);
  }
  for (int t = 0; t < trees; ++t) {
    b.AddTree(b.Uniform(12), 0.3 + 0.6 * (t % 3) / 2.0, static_cast<std::uint32_t>(t) % outputs);
  }
  Finish(&b.model);
  ExpectSameBits(std::make_shared<const TreeEnsemble>(b.model), &b, 300);
  // And with the bitvector form on every tier wherever a tree fits (the
  // default plans walk on baseline and past 64 leaves on AVX2).
  PrepareOptions everywhere;
  for (std::uint32_t& limit : everywhere.max_bitvector_leaves) {
    limit = PreparedModel::kMaxBitvectorLeaves;
  }
  everywhere.binned = false;
  ExpectSameBits(std::make_shared<const TreeEnsemble>(b.model), &b, 300, everywhere);
  // And with the binned form on every tier wherever a tree fits, however
  // many bin slots it takes.
  ExpectSameBits(std::make_shared<const TreeEnsemble>(b.model), &b, 300, BinnedEverywhere());
  // And the same with AVX-512's portable split step where the CPU has GFNI
  // (the step is GFNI's by default there).
  PrepareOptions portable_step = BinnedEverywhere();
  portable_step.gfni = false;
  ExpectSameBits(std::make_shared<const TreeEnsemble>(b.model), &b, 300, portable_step);
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomEnsembleTest, ::testing::Range(0, 84));

TEST(BlockEvaluatorTest, DeepChainTrees) {
  // A tree of depth 3,000 (a chain) and a shallow one after it.
  Builder b(7, ModelFormat::kXgboostJson, 3, 1);
  b.AddTree(3000, 0.0, 0);  // only the root splits
  Tree chain;
  chain.first_node = b.model.nodes.size();
  const std::uint32_t depth = 3000;
  for (std::uint32_t i = 0; i < depth; ++i) {
    TreeNode split;
    split.kind = NodeKind::kNumerical;
    split.feature = i % 3;
    split.value = static_cast<double>(static_cast<float>(i % 5) - 2.0f);
    split.default_left = i % 2 == 0;
    split.left = 2 * i + 1;   // a leaf
    split.right = 2 * i + 2;  // the next split (or the last leaf)
    b.model.nodes.push_back(split);
    TreeNode leaf;
    leaf.value = static_cast<float>(i) * 0.001f;
    b.model.nodes.push_back(leaf);
  }
  TreeNode last;
  last.value = -1.0;
  b.model.nodes.push_back(last);
  // Fix the node order: split i at 2i, its leaf at 2i + 1, the next split at 2i + 2.
  for (std::uint32_t i = 0; i < depth; ++i) {
    TreeNode& split = b.model.nodes[chain.first_node + 2 * i];
    split.left = 2 * i + 1;
    split.right = 2 * i + 2;
  }
  chain.num_nodes = 2 * depth + 1;
  chain.depth = depth;
  b.model.trees.push_back(chain);
  b.AddTree(4, 0.9, 0);
  Finish(&b.model);
  ExpectSameBits(std::make_shared<const TreeEnsemble>(b.model), &b, 130);
}

TEST(BlockEvaluatorTest, TreesTooLargeForTheLayoutUseTheReferenceWalk) {
  // 70,000 splits in a chain: more nodes than 16-bit offsets address.
  Builder b(11, ModelFormat::kLightgbmText, 2, 2);
  b.AddTree(5, 0.8, 0);
  Tree big;
  big.first_node = b.model.nodes.size();
  const std::uint32_t splits = 70000;
  for (std::uint32_t i = 0; i < splits; ++i) {
    TreeNode split;
    split.kind = NodeKind::kNumerical;
    split.feature = i % 2;
    split.value = (i % 7) - 3.0;
    split.missing = static_cast<MissingType>(i % 3);
    split.left = 2 * i + 1;
    split.right = 2 * i + 2;
    b.model.nodes.push_back(split);
    TreeNode leaf;
    leaf.value = i * 1e-3;
    b.model.nodes.push_back(leaf);
  }
  TreeNode last;
  last.value = 5.0;
  b.model.nodes.push_back(last);
  big.num_nodes = 2 * splits + 1;
  big.depth = splits;
  big.output = 1;
  b.model.trees.push_back(big);
  b.AddTree(6, 0.7, 1);
  Finish(&b.model);
  auto model = std::make_shared<const TreeEnsemble>(b.model);
  Result<PreparedModel> prepared = PreparedModel::Prepare(model);
  ASSERT_TRUE(prepared.ok());
  EXPECT_EQ(prepared->trees()[1].reference_tree, 1);
  EXPECT_FALSE(prepared->reference_only());
  ExpectSameBits(model, &b, 70);
}

TEST(BlockEvaluatorTest, MoreSlotsThanTheLayoutAddressesUseTheReferenceWalk) {
  // 40,000 features split both ways: 80,000 slots.
  const std::uint32_t features = 40000;
  Builder b(13, ModelFormat::kXgboostJson, features, 1);
  for (std::uint32_t t = 0; t < 2 * features; ++t) {
    Tree tree;
    tree.first_node = b.model.nodes.size();
    TreeNode split;
    split.kind = NodeKind::kNumerical;
    split.feature = t % features;
    split.default_left = t >= features;
    split.value = 0.5;
    split.left = 1;
    split.right = 2;
    b.model.nodes.push_back(split);
    TreeNode left, right;
    left.value = 1.0;
    right.value = static_cast<double>(t % 3);
    b.model.nodes.push_back(left);
    b.model.nodes.push_back(right);
    tree.num_nodes = 3;
    tree.depth = 1;
    b.model.trees.push_back(tree);
  }
  Finish(&b.model);
  auto model = std::make_shared<const TreeEnsemble>(b.model);
  Result<PreparedModel> prepared = PreparedModel::Prepare(model);
  ASSERT_TRUE(prepared.ok());
  EXPECT_TRUE(prepared->reference_only());
  ExpectSameBits(model, &b, 20);
}

TEST(BlockEvaluatorTest, OnePreparedModelSharedByThreads) {
  Builder b(29, ModelFormat::kXgboostJson, 5, 2);
  for (int t = 0; t < 60; ++t) b.AddTree(8, 0.8, static_cast<std::uint32_t>(t) % 2);
  Finish(&b.model);
  auto model = std::make_shared<const TreeEnsemble>(b.model);
  Result<PreparedModel> prepared = PreparedModel::Prepare(model);
  ASSERT_TRUE(prepared.ok());
  const std::size_t n = 777;
  std::vector<std::vector<float>> in(5, std::vector<float>(n));
  for (auto& column : in) {
    for (float& v : column) v = b.RandomInput();
  }
  std::vector<const float*> in_ptr;
  for (auto& c : in) in_ptr.push_back(c.data());
  std::vector<std::vector<float>> expected(2, std::vector<float>(n));
  std::vector<float*> expected_ptr = {expected[0].data(), expected[1].data()};
  EvaluateReference(*model, in_ptr.data(), n, expected_ptr.data());
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::vector<unsigned char> storage(EvaluateScratchBytes(*prepared, n) + 64);
      void* scratch =
          storage.data() + (64 - reinterpret_cast<std::uintptr_t>(storage.data()) % 64) % 64;
      std::vector<std::vector<float>> got(2, std::vector<float>(n));
      std::vector<float*> got_ptr = {got[0].data(), got[1].data()};
      for (int round = 0; round < 20; ++round) {
        Evaluate(*prepared, in_ptr.data(), n, got_ptr.data(), scratch);
        for (int k = 0; k < 2; ++k) {
          for (std::size_t i = 0; i < n; ++i) {
            mismatches[t] += std::bit_cast<std::uint32_t>(got[k][i]) !=
                             std::bit_cast<std::uint32_t>(expected[k][i]);
          }
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(mismatches, std::vector<int>(4, 0));
}

TEST(BlockEvaluatorTest, OrderKeysOrderFloats) {
  const float values[] = {-INFINITY, -3.4e38f, -1.0f, -1e-45f, -0.0f,   0.0f,
                          1e-45f,    1e-35f,   1.0f,  3.4e38f, INFINITY};
  for (std::size_t i = 0; i + 1 < std::size(values); ++i) {
    const std::uint32_t a = OrderKey(std::bit_cast<std::uint32_t>(values[i]));
    const std::uint32_t c = OrderKey(std::bit_cast<std::uint32_t>(values[i + 1]));
    if (values[i] == values[i + 1]) {
      EXPECT_EQ(a, c) << values[i];  // -0 and +0
    } else {
      EXPECT_LT(a, c) << values[i];
    }
    EXPECT_GT(a, 0u);  // 0 is NaN's
  }
  EXPECT_EQ(OrderKey(std::bit_cast<std::uint32_t>(INFINITY)), 0xFF800000u);
}

}  // namespace
}  // namespace calcjit::model

namespace calcjit::model {
namespace {

// A complete tree in heap order whose levels split alike (CatBoost's
// oblivious trees, as ensemble.h lays them out): `explain` names the leaf
// index, counted along the last level; in any other tree it names none.
TEST(TreeModelTest, ExplainNamesTheLeafIndexOfASymmetricTree) {
  TreeEnsemble model;
  model.info.format = ModelFormat::kLightgbmText;
  model.info.num_features = 2;
  model.info.num_outputs = 1;
  model.info.feature_names = {"a", "b"};
  model.rules = RulesLike(ModelFormat::kLightgbmText, 1);
  auto split = [](std::uint32_t feature, double value, std::uint32_t i) {
    TreeNode node;
    node.kind = NodeKind::kNumerical;
    node.feature = feature;
    node.value = value;
    node.left = 2 * i + 1;
    node.right = 2 * i + 2;
    node.missing = MissingType::kNan;
    node.default_left = true;
    return node;
  };
  auto leaf = [](double value) {
    TreeNode node;
    node.value = value;
    return node;
  };
  // Tree 0: level 0 on a <= 1, level 1 on b <= 2; tree 1: the same shape
  // but its level 1 splits differently on each side.
  for (const double right_threshold : {2.0, 3.0}) {
    Tree tree;
    tree.first_node = model.nodes.size();
    tree.num_nodes = 7;
    tree.depth = 2;
    model.nodes.push_back(split(0, 1.0, 0));
    model.nodes.push_back(split(1, 2.0, 1));
    model.nodes.push_back(split(1, right_threshold, 2));
    for (double v : {0.5, 1.5, 2.5, 3.5}) model.nodes.push_back(leaf(v));
    model.trees.push_back(tree);
  }
  Finish(&model);
  auto made = MakeTreeModel(std::move(model), ContentHash{}, "m");
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  const float row[] = {5.0f, -1.0f};  // a > 1 (right), b <= 2 (left): position 5
  EXPECT_EQ((*made)->Explain(row, 10),
            "tree 0 (output 0): a=5 > 1->right, b=-1 <= 2->left, leaf 2.5 (symmetric tree: leaf "
            "index 2 of 4)\n"
            "tree 1 (output 0): a=5 > 1->right, b=-1 <= 3->left, leaf 2.5\n");
}

}  // namespace
}  // namespace calcjit::model

namespace calcjit::model {
namespace {

// A complete tree of `depth` levels with random splits, in heap order.
void AddCompleteTree(Builder* b, std::uint32_t depth, std::uint32_t output) {
  Tree tree;
  tree.first_node = b->model.nodes.size();
  tree.output = output;
  tree.depth = depth;
  const std::uint32_t splits = (1u << depth) - 1;
  for (std::uint32_t i = 0; i < 2 * splits + 1; ++i) {
    TreeNode node;
    if (i < splits) {
      node = b->RandomSplit();
      node.left = 2 * i + 1;
      node.right = 2 * i + 2;
    } else {
      node.value = b->RandomLeaf();
    }
    b->model.nodes.push_back(node);
  }
  tree.num_nodes = 2 * splits + 1;
  b->model.trees.push_back(tree);
}

std::uint32_t CountForm(const PreparedModel& prepared, TreeForm form) {
  std::uint32_t count = 0;
  for (const FastTree& tree : prepared.trees(Isa::kBaseline)) count += tree.form == form;
  return count;
}

// Each form chosen where it should be, and every tier's bits the reference's:
// trees of exactly 64 and 256 leaves (every bit of the bitvector used), 32
// and 33 (one word and two), 512 (a walk), symmetric trees of every depth up to the
// limit and past it, and ordinary random trees between them.
class TreeFormsTest : public ::testing::TestWithParam<int> {};

TEST_P(TreeFormsTest, EveryFormGivesTheReferenceBits) {
  const int seed = GetParam();
  const std::uint32_t outputs = 1 + seed % 2;
  Builder b(static_cast<std::uint64_t>(seed) + 1000, ModelFormat::kLightgbmText, 1 + seed % 5,
            outputs);
  TreeRules& rules = b.model.rules;
  rules.compare = seed % 2 ? TreeRules::Compare::kLessOrEqual : TreeRules::Compare::kLess;
  rules.tiny_as_zero = seed % 3 == 0;
  rules.categories =
      seed % 4 < 2 ? TreeRules::Categories::kInSetGoesLeft : TreeRules::Categories::kInSetGoesRight;
  rules.sum = (seed / 2) % 2 ? TreeRules::Sum::kFloat32 : TreeRules::Sum::kFloat64;
  if (rules.sum == TreeRules::Sum::kFloat32) {
    rules.base_margin.clear();
    for (std::uint32_t k = 0; k < outputs; ++k) rules.base_margin.push_back(0.75f - k);
  } else if (seed % 3 == 1) {
    rules.scale_and_bias = true;
    rules.scale = 1.7;
    for (std::uint32_t k = 0; k < outputs; ++k) rules.bias.push_back(-0.1 * k);
  }
  std::uint32_t t = 0;
  AddCompleteTree(&b, 6, t++ % outputs);  // 64 leaves, if not symmetric
  AddCompleteTree(&b, 5, t++ % outputs);  // 32 leaves
  AddCompleteTree(&b, 9, t++ % outputs);  // 512 leaves: a walk
  AddCompleteTree(&b, 8, t++ % outputs);  // 256 leaves: eight words
  for (std::uint32_t depth = 0; depth <= PreparedModel::kMaxObliviousDepth + 1; ++depth) {
    b.AddSymmetricTree(depth, t++ % outputs);
  }
  for (int i = 0; i < 20; ++i) b.AddTree(1 + b.Uniform(10), 0.7, t++ % outputs);
  Finish(&b.model);
  auto model = std::make_shared<const TreeEnsemble>(b.model);
  // Every tier takes the bitvector form wherever it can: the forms' bits on
  // every tier (the default plans are tested below).
  PrepareOptions everywhere;
  everywhere.binned = false;
  for (std::uint32_t& limit : everywhere.max_bitvector_leaves) {
    limit = PreparedModel::kMaxBitvectorLeaves;
  }
  Result<PreparedModel> prepared = PreparedModel::Prepare(model, everywhere);
  ASSERT_TRUE(prepared.ok());
  const auto& trees = prepared->trees(Isa::kBaseline);
  // A complete random tree is symmetric only by chance (depth 0 or equal
  // random splits): these seeds' are not.
  EXPECT_EQ(trees[0].form, TreeForm::kBitvector);
  EXPECT_EQ(trees[0].words, 2u);
  EXPECT_GE(trees[0].depth, 63u);  // MaskNodes: each split once per word it meets
  EXPECT_EQ(trees[1].form, TreeForm::kBitvector);
  EXPECT_EQ(trees[1].words, 1u);
  EXPECT_NE(trees[2].form, TreeForm::kBitvector);
  EXPECT_EQ(trees[3].form, TreeForm::kBitvector);
  EXPECT_EQ(trees[3].words, 8u);
  for (std::uint32_t depth = 0; depth <= PreparedModel::kMaxObliviousDepth; ++depth) {
    EXPECT_EQ(trees[4 + depth].form, TreeForm::kOblivious) << depth;
    EXPECT_EQ(trees[4 + depth].depth, depth);
  }
  // Past the oblivious limit: a walk (more leaves than the bitvector's).
  EXPECT_EQ(trees[5 + PreparedModel::kMaxObliviousDepth].form, TreeForm::kWalk);
  EXPECT_GT(CountForm(*prepared, TreeForm::kBitvector), 2u);
  ExpectSameBits(model, &b, 200, everywhere);
  ExpectSameBits(model, &b, 200);
  // The binned form where the bitvector was: 8-leaf words.
  Result<PreparedModel> binned = PreparedModel::Prepare(model, BinnedEverywhere());
  ASSERT_TRUE(binned.ok());
  const auto& binned_trees = binned->trees(Isa::kBaseline);
  EXPECT_EQ(binned_trees[0].form, TreeForm::kBinned);
  EXPECT_EQ(binned_trees[0].words, 8u);
  EXPECT_EQ(binned_trees[1].form, TreeForm::kBinned);
  EXPECT_EQ(binned_trees[1].words, 4u);
  EXPECT_EQ(binned_trees[2].form, trees[2].form);
  EXPECT_EQ(binned_trees[3].form, TreeForm::kBinned);
  EXPECT_EQ(binned_trees[3].words, 32u);
  EXPECT_EQ(binned_trees[4].form, TreeForm::kOblivious);
  ExpectSameBits(model, &b, 200, BinnedEverywhere());
  PrepareOptions portable_step = BinnedEverywhere();
  portable_step.gfni = false;
  ExpectSameBits(model, &b, 200, portable_step);
}

// A slot with more distinct thresholds than a byte counts takes several bin
// slots (255 thresholds each); inputs at, just above and just below every
// threshold, and the specials (NaN, +-0, +-inf, subnormals), on every tier.
TEST(BinnedFormTest, ManyThresholdsTakeSeveralBinSlots) {
  for (const bool xgboost : {true, false}) {
    Builder b(77, xgboost ? ModelFormat::kXgboostJson : ModelFormat::kLightgbmText, 2, 1);
    std::uniform_real_distribution<float> value(-1000.0f, 1000.0f);
    for (int i = 0; i < 700; ++i) b.pool.push_back(value(b.rng));
    for (int i = 0; i < 10; ++i) b.pool.push_back(std::ldexp(1.0f + i, -140));  // subnormal
    for (int t = 0; t < 120; ++t) AddCompleteTree(&b, 3 + t % 4, 0);
    Finish(&b.model);
    auto model = std::make_shared<const TreeEnsemble>(b.model);
    Result<PreparedModel> prepared = PreparedModel::Prepare(model, BinnedEverywhere());
    ASSERT_TRUE(prepared.ok());
    std::map<std::uint16_t, int> per_slot;
    for (const BinSlot& bin_slot : prepared->bin_slots()) {
      EXPECT_LE(bin_slot.count, PreparedModel::kMaxBinThresholds);
      EXPECT_EQ(bin_slot.depth, std::bit_width(static_cast<unsigned>(bin_slot.count)));
      ++per_slot[bin_slot.slot];
    }
    int most = 0;
    for (const auto& [slot, count] : per_slot) most = std::max(most, count);
    EXPECT_GE(most, 2) << "no slot took two bin slots";
    EXPECT_EQ(CountForm(*prepared, TreeForm::kBinned), 120u);
    ExpectSameBits(model, &b, 3000, BinnedEverywhere());
    PrepareOptions portable_step = BinnedEverywhere();
    portable_step.gfni = false;
    ExpectSameBits(model, &b, 3000, portable_step);
  }
}

bool HasCategoricalSplit(const TreeEnsemble& model, const Tree& tree) {
  for (std::uint32_t i = 0; i < tree.num_nodes; ++i) {
    if (model.node(tree, i).kind == NodeKind::kCategorical) return true;
  }
  return false;
}

bool HasSlotPerCategorySet(const PreparedModel& prepared) {
  for (const Slot& slot : prepared.slots()) {
    if (slot.kind == SlotKind::kCategoryInSetLeft || slot.kind == SlotKind::kCategoryInSetRight) {
      return true;
    }
  }
  return false;
}

// Trees whose categorical sets all fit category codes (split_keys.h) take
// the binned form on every tier, symmetric ones too, whatever their bins
// cost: one code slot per feature, no slot per category set (a categorical
// XGBoost model had 46,000, docs/PERFORMANCE.md run Q6). The inputs cross
// every code's edges (the builder's pool: 253, 254, 255, -0.5, 2^24, 2^32,
// tiny values, NaN, +-inf), on every tier and both split steps; with the
// binned form off, such trees take the reference walk.
TEST(CategoricalFormTest, CodesTakeTheBinnedFormOnEveryTier) {
  for (const bool xgboost : {true, false}) {
    Builder b(xgboost ? 80 : 81, xgboost ? ModelFormat::kXgboostJson : ModelFormat::kLightgbmText,
              3, 2);
    b.codes_fit = true;
    for (std::uint32_t t = 0; t < 40; ++t) AddCompleteTree(&b, 2 + t % 7, t % 2);
    b.AddSymmetricTree(4, 0);
    b.AddSymmetricTree(6, 1);
    Finish(&b.model);
    auto model = std::make_shared<const TreeEnsemble>(b.model);
    Result<PreparedModel> prepared = PreparedModel::Prepare(model);
    ASSERT_TRUE(prepared.ok());
    EXPECT_FALSE(HasSlotPerCategorySet(*prepared));
    std::size_t categorical = 0;
    for (std::size_t t = 0; t < model->trees.size(); ++t) {
      if (!HasCategoricalSplit(*model, model->trees[t])) continue;
      ++categorical;
      for (Isa tier : {Isa::kBaseline, Isa::kAvx2, Isa::kAvx512}) {
        EXPECT_EQ(prepared->trees(tier)[t].form, TreeForm::kBinned) << IsaName(tier) << " " << t;
        EXPECT_TRUE(prepared->trees(tier)[t].categorical) << IsaName(tier) << " " << t;
      }
    }
    EXPECT_GE(categorical, 20u);
    ExpectSameBits(model, &b, 3000);
    PrepareOptions portable_step;
    portable_step.gfni = false;
    ExpectSameBits(model, &b, 3000, portable_step);
    PrepareOptions no_binned;
    no_binned.binned = false;
    Result<PreparedModel> walked = PreparedModel::Prepare(model, no_binned);
    ASSERT_TRUE(walked.ok());
    EXPECT_TRUE(HasSlotPerCategorySet(*walked));
    ExpectSameBits(model, &b, 500, no_binned);
  }
}

// A set with a category past 253 does not fit codes: its tree keeps the
// other forms, with a slot for that set.
TEST(CategoricalFormTest, SetsPastTheCodesKeepASlotPerSet) {
  Builder b(82, ModelFormat::kXgboostJson, 3, 1);
  b.wide_sets = true;
  for (std::uint32_t t = 0; t < 20; ++t) AddCompleteTree(&b, 3 + t % 4, 0);
  Finish(&b.model);
  auto model = std::make_shared<const TreeEnsemble>(b.model);
  Result<PreparedModel> prepared = PreparedModel::Prepare(model);
  ASSERT_TRUE(prepared.ok());
  EXPECT_TRUE(HasSlotPerCategorySet(*prepared));
  ExpectSameBits(model, &b, 3000);
  ExpectSameBits(model, &b, 3000, BinnedEverywhere());
}

// AVX-512's binned trees take GFNI's split step where the CPU has it, and
// only there and on that tier; PrepareOptions::gfni turns it off, and
// `check` shows it (TreePlan::Describe).
TEST(BinnedFormTest, GfniSplitStepWhereTheCpuHasIt) {
  Builder b(79, ModelFormat::kXgboostJson, 3, 1);
  for (int t = 0; t < 20; ++t) AddCompleteTree(&b, 3 + t % 5, 0);
  Finish(&b.model);
  auto model = std::make_shared<const TreeEnsemble>(b.model);
  PrepareOptions options = BinnedEverywhere();
  for (const bool gfni : {true, false}) {
    options.gfni = gfni;
    Result<PreparedModel> prepared = PreparedModel::Prepare(model, options);
    ASSERT_TRUE(prepared.ok());
    for (Isa tier : {Isa::kBaseline, Isa::kAvx2, Isa::kAvx512}) {
      const TreePlan& plan = prepared->plan(tier);
      ASSERT_EQ(plan.binned, 20u) << IsaName(tier);
      const bool expected = gfni && tier == Isa::kAvx512 && IsIsaSupported(Isa::kAvx512) &&
                            CpuHasGfni() && CpuHasVbmi();
      EXPECT_EQ(plan.gfni_split_step, expected) << IsaName(tier);
      EXPECT_EQ(plan.Describe(), expected ? "20 binned bitvector (GFNI)" : "20 binned bitvector");
    }
    ExpectSameBits(model, &b, 500, options);
  }
}

// The default plan takes the binned form only where its bin slots are not
// more than its trees (PrepareOptions::bin_slots_per_tree).
TEST(BinnedFormTest, TooManyBinSlotsKeepTheOtherForms) {
  Builder b(78, ModelFormat::kXgboostJson, 40, 1);
  b.categorical = false;  // trees that read category codes take the binned form whatever it costs
  std::uniform_real_distribution<float> value(-1000.0f, 1000.0f);
  for (int i = 0; i < 700; ++i) b.pool.push_back(value(b.rng));
  // Two trees of 63 splits over 40 features: far more bin slots than trees.
  AddCompleteTree(&b, 6, 0);
  AddCompleteTree(&b, 6, 0);
  Finish(&b.model);
  auto model = std::make_shared<const TreeEnsemble>(b.model);
  Result<PreparedModel> prepared = PreparedModel::Prepare(model);
  ASSERT_TRUE(prepared.ok());
  for (Isa tier : {Isa::kBaseline, Isa::kAvx2, Isa::kAvx512}) {
    EXPECT_EQ(prepared->plan(tier).binned, 0u) << IsaName(tier);
  }
  EXPECT_TRUE(prepared->bin_slots().empty());
  EXPECT_EQ(prepared->plan(Isa::kAvx512).bitvector, 2u);
  ExpectSameBits(model, &b, 300);
}

INSTANTIATE_TEST_SUITE_P(Seeds, TreeFormsTest, ::testing::Range(0, 24));

TEST(BitvectorFormTest, ThirtyThreeLeavesTakeTwoWords) {
  // A chain of 32 splits: 33 leaves, the last one bit 32 (the second word).
  Builder b(5, ModelFormat::kXgboostJson, 2, 1);
  Tree chain;
  chain.first_node = 0;
  for (std::uint32_t i = 0; i < 32; ++i) {
    TreeNode split;
    split.kind = NodeKind::kNumerical;
    split.feature = i % 2;
    split.value = static_cast<double>(static_cast<float>(i % 9) - 4.0f);
    split.default_left = i % 3 == 0;
    split.left = 2 * i + 1;
    split.right = 2 * i + 2;
    b.model.nodes.push_back(split);
    TreeNode leaf;
    leaf.value = static_cast<float>(i) + 0.5f;
    b.model.nodes.push_back(leaf);
  }
  TreeNode last;
  last.value = -100.0;
  b.model.nodes.push_back(last);
  chain.num_nodes = 65;
  chain.depth = 32;
  b.model.trees.push_back(chain);
  Finish(&b.model);
  auto model = std::make_shared<const TreeEnsemble>(b.model);
  PrepareOptions everywhere;
  for (std::uint32_t& limit : everywhere.max_bitvector_leaves) limit = 64;
  Result<PreparedModel> prepared = PreparedModel::Prepare(model, everywhere);
  ASSERT_TRUE(prepared.ok());
  for (Isa tier : {Isa::kBaseline, Isa::kAvx2, Isa::kAvx512}) {
    EXPECT_EQ(prepared->trees(tier)[0].form, TreeForm::kBitvector);
    EXPECT_EQ(prepared->trees(tier)[0].words, 2u);
  }
  ExpectSameBits(model, &b, 300, everywhere);
}

// The default plans: the walk on baseline, bitvectors up to the tier's
// number of leaves, oblivious trees everywhere.
TEST(BitvectorFormTest, EachTierHasItsPlan) {
  Builder b(17, ModelFormat::kXgboostJson, 4, 1);
  b.categorical = false;      // CategoricalFormTest has those
  AddCompleteTree(&b, 6, 0);  // 64 leaves
  AddCompleteTree(&b, 7, 0);  // 128 leaves
  b.AddSymmetricTree(5, 0);
  Finish(&b.model);
  auto model = std::make_shared<const TreeEnsemble>(b.model);
  Result<PreparedModel> prepared = PreparedModel::Prepare(model);
  ASSERT_TRUE(prepared.ok());
  const PrepareOptions defaults;
  for (Isa tier : {Isa::kBaseline, Isa::kAvx2, Isa::kAvx512}) {
    const auto& trees = prepared->trees(tier);
    const std::uint32_t limit = defaults.max_bitvector_leaves[static_cast<int>(tier) - 1];
    EXPECT_EQ(trees[0].form == TreeForm::kBitvector, limit >= 64) << IsaName(tier);
    EXPECT_EQ(trees[1].form == TreeForm::kBitvector, limit >= 128) << IsaName(tier);
    EXPECT_EQ(trees[2].form, TreeForm::kOblivious);
    EXPECT_EQ(prepared->plan(tier).oblivious, 1u);
    EXPECT_EQ(prepared->plan(tier).bitvector, (limit >= 64) + (limit >= 128));
  }
  ExpectSameBits(model, &b, 100);
}

}  // namespace
}  // namespace calcjit::model
