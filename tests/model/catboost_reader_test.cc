// The CatBoost readers (spec 6.5): the JSON export and the .cbm file, what
// they read (the leaf index's bit order, NaN treatments, equality at a
// border, several output dimensions, non-symmetric trees, scale and bias),
// that a .cbm and its JSON export read as the same ensemble, and that every
// hostile file gets a clear error naming the file and where in it. Parity
// with CatBoost itself is parity_test (tests/model/data/catboost_*) and the
// CTest model_parity_catboost (catboost_models.py fresh).
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "model/tree/catboost_reader.h"
#include "model/tree/reference_evaluator.h"

namespace calcjit::model {
namespace {

using ::testing::HasSubstr;

// Two float features; tree 0 splits f0 at 0.5 (bit 0) then f1 at 2 (bit 1),
// tree 1 splits f0 at -1; output = 2 * (leaves) + 0.25.
const char kModel[] = R"({
  "features_info": {"float_features": [
    {"borders": [-1, 0.5], "feature_id": "", "feature_index": 0, "flat_feature_index": 0,
     "has_nans": true, "nan_value_treatment": "AsFalse"},
    {"borders": [2], "feature_id": "", "feature_index": 1, "flat_feature_index": 1,
     "has_nans": true, "nan_value_treatment": "AsTrue"}]},
  "model_info": {"params": {"loss_function": {"type": "RMSE"}, "deep": [[[{"a": [1]}]]]}},
  "oblivious_trees": [
    {"leaf_values": [1, 2, 4, 8], "leaf_weights": [1, 1, 1, 1],
     "splits": [{"border": 0.5, "float_feature_index": 0, "split_index": 1,
                 "split_type": "FloatFeature"},
                {"border": 2, "float_feature_index": 1, "split_index": 2,
                 "split_type": "FloatFeature"}]},
    {"leaf_values": [16, 32], "leaf_weights": [1, 1],
     "splits": [{"border": -1, "float_feature_index": 0, "split_index": 0,
                 "split_type": "FloatFeature"}]}],
  "scale_and_bias": [2, [0.25]]
})";

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string ModelWith(const std::string& from, const std::string& to) {
  return Replace(kModel, from, to);
}

// The error of reading `bytes`, as "location: message".
std::string Error(const std::string& bytes, const char* name = "ranker.json") {
  Result<TreeEnsemble> model = ReadCatboost(bytes, name);
  if (model.ok()) return "no error";
  return model.status().ToString();
}

std::vector<float> Outputs(const TreeEnsemble& model, std::vector<float> row) {
  std::vector<float> out(model.info.num_outputs);
  EvaluateReferenceRow(model, row.data(), out.data());
  return out;
}
float Output(const TreeEnsemble& model, float x0, float x1) {
  return Outputs(model, {x0, x1})[0];
}

TEST(CatboostJsonTest, ReadsAnObliviousModel) {
  Result<TreeEnsemble> model = ReadCatboost(kModel, "ranker.json");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ(DescribeModel(model->info), "catboost: 2 trees, depth 2, 2 features, 1 output");
  EXPECT_THAT(model->info.feature_names, ::testing::ElementsAre("f0", "f1"));
  EXPECT_FALSE(model->info.names_from_file);
  EXPECT_EQ(Output(*model, 0, 0), 2 * (1 + 32) + 0.25f);
  // Equality is false (x > border is the split): the leaf stays.
  EXPECT_EQ(Output(*model, 0.5f, 0), 2 * (1 + 32) + 0.25f);
  // Split 0 is bit 0 of the leaf index, split 1 bit 1.
  EXPECT_EQ(Output(*model, std::nextafter(0.5f, 1.0f), 0), 2 * (2 + 32) + 0.25f);
  EXPECT_EQ(Output(*model, 0, 3), 2 * (4 + 32) + 0.25f);
  EXPECT_EQ(Output(*model, 1, 3), 2 * (8 + 32) + 0.25f);
  EXPECT_EQ(Output(*model, -1, 0), 2 * (1 + 16) + 0.25f);
  // NaN: AsFalse below every border, AsTrue above.
  EXPECT_EQ(Output(*model, NAN, NAN), 2 * (4 + 16) + 0.25f);
  EXPECT_EQ(Output(*model, INFINITY, -INFINITY), 2 * (2 + 32) + 0.25f);
}

TEST(CatboostJsonTest, HeapOrderedCompleteTrees) {
  // ensemble.h: level l splits on the file's split d - 1 - l, so the leaf
  // reached is at position 2^d - 1 + the file's leaf index.
  Result<TreeEnsemble> model = ReadCatboost(kModel, "ranker.json");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const Tree& tree = model->trees[0];
  ASSERT_EQ(tree.num_nodes, 7u);
  EXPECT_EQ(model->node(tree, 0).feature, 1u);  // the file's split 1 at the root
  EXPECT_EQ(model->node(tree, 0).value, 2.0);
  for (std::uint32_t i = 1; i <= 2; ++i) {
    EXPECT_EQ(model->node(tree, i).feature, 0u);
    EXPECT_EQ(model->node(tree, i).left, 2 * i + 1);
    EXPECT_EQ(model->node(tree, i).right, 2 * i + 2);
  }
  const float row[] = {1.0f, 0.0f};  // leaf index 1
  EXPECT_EQ(ReferenceLeaf(*model, tree, row), 3u + 1u);
  EXPECT_TRUE(model->node(tree, 1).default_left);   // AsFalse
  EXPECT_FALSE(model->node(tree, 0).default_left);  // AsTrue
}

TEST(CatboostJsonTest, NamesDimensionsAndBias) {
  // Two output dimensions: leaf_values[leaf * 2 + k]; names from the file.
  std::string text =
      ModelWith(R"("leaf_values": [1, 2, 4, 8])", R"("leaf_values": [1, 10, 2, 20, 4, 40, 8, 80])");
  text = Replace(text, R"("leaf_values": [16, 32])", R"("leaf_values": [16, 160, 32, 320])");
  text = Replace(text, R"("scale_and_bias": [2, [0.25]])", R"("scale_and_bias": [1, [0.5, -0.5]])");
  text = Replace(text, R"("feature_id": "", "feature_index": 1)",
                 R"("feature_id": "clicks", "feature_index": 1)");
  Result<TreeEnsemble> model = ReadCatboost(text, "ranker.json");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ(model->info.num_outputs, 2u);
  EXPECT_EQ(model->trees.size(), 4u);  // one per tree and dimension, in the file's order
  EXPECT_THAT(model->info.feature_names, ::testing::ElementsAre("f0", "clicks"));
  EXPECT_TRUE(model->info.names_from_file);
  EXPECT_THAT(Outputs(*model, {1, 3}), ::testing::ElementsAre(8 + 32 + 0.5f, 80 + 320 - 0.5f));
  // No scale_and_bias: scale 1, no bias.
  const std::string plain = Replace(kModel, R"(,
  "scale_and_bias": [2, [0.25]])",
                                    "");
  Result<TreeEnsemble> unbiased = ReadCatboost(plain, "ranker.json");
  ASSERT_TRUE(unbiased.ok()) << unbiased.status().ToString();
  EXPECT_EQ(Output(*unbiased, 0, 0), 33.0f);
}

TEST(CatboostJsonTest, AllZeroBiasIsLeftOut) {
  // CatBoost adds no bias when all are zero: +0 scaled by -1 stays -0.
  std::string text =
      ModelWith(R"("scale_and_bias": [2, [0.25]])", R"("scale_and_bias": [-1, [0]])");
  text = Replace(text, R"("leaf_values": [16, 32])", R"("leaf_values": [-1, -2])");
  Result<TreeEnsemble> model = ReadCatboost(text, "ranker.json");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const float zero = Output(*model, 0, 0);  // 1 + -2 ... not zero
  EXPECT_EQ(zero, 1.0f);
  const float minus_zero = Output(*model, 2, 0);  // 2 + -2 = +0, times -1
  EXPECT_EQ(std::bit_cast<std::uint32_t>(minus_zero), 0x80000000u);
}

TEST(CatboostJsonTest, DepthZeroTreesAndNullSplits) {
  // CatBoost writes the splits of a tree without splits as null.
  const std::string text = ModelWith(
      R"({"leaf_values": [16, 32], "leaf_weights": [1, 1],
     "splits": [{"border": -1, "float_feature_index": 0, "split_index": 0,
                 "split_type": "FloatFeature"}]})",
      R"({"leaf_values": [16], "leaf_weights": [1], "splits": null})");
  Result<TreeEnsemble> model = ReadCatboost(text, "ranker.json");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ(model->trees[1].num_nodes, 1u);
  EXPECT_EQ(Output(*model, 0, 0), 2 * (1 + 16) + 0.25f);
}

const char kNonSymmetric[] = R"({
  "features_info": {"float_features": [
    {"borders": [0.5], "feature_id": "", "feature_index": 0, "flat_feature_index": 0,
     "has_nans": true, "nan_value_treatment": "AsTrue"},
    {"borders": [2], "feature_id": "", "feature_index": 1, "flat_feature_index": 1,
     "has_nans": false, "nan_value_treatment": "AsIs"}]},
  "trees": [
    {"left": {"value": 1, "weight": 1},
     "right": {"left": {"value": 2, "weight": 1}, "right": {"value": 4, "weight": 1},
               "split": {"border": 2, "float_feature_index": 1, "split_index": 1,
                         "split_type": "FloatFeature"}},
     "split": {"border": 0.5, "float_feature_index": 0, "split_index": 0,
               "split_type": "FloatFeature"}},
    {"value": 8, "weight": 1}],
  "scale_and_bias": [1, [0]]
})";

TEST(CatboostJsonTest, ReadsNonSymmetricTrees) {
  Result<TreeEnsemble> model = ReadCatboost(kNonSymmetric, "ranker.json");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ(DescribeModel(model->info), "catboost: 2 trees, depth 2, 2 features, 1 output");
  EXPECT_EQ(Output(*model, 0, 5), 9.0f);
  EXPECT_EQ(Output(*model, 1, 2), 10.0f);
  EXPECT_EQ(Output(*model, 1, 3), 12.0f);
  EXPECT_EQ(Output(*model, NAN, NAN), 10.0f);  // AsTrue right, AsIs false
}

TEST(CatboostJsonTest, MalformedJsonAndWrongTypes) {
  const std::string model = kModel;
  EXPECT_THAT(Error(model.substr(0, model.size() / 2)), HasSubstr("ranker.json: malformed JSON"));
  EXPECT_THAT(Error("[]"), HasSubstr("ranker.json: the top level is not an object"));
  EXPECT_THAT(Error("{}"),
              HasSubstr("ranker.json: features_info: missing features_info.float_features"));
  EXPECT_THAT(Error(ModelWith(R"("features_info": {)", R"("features_info": [1], "x": {)")),
              HasSubstr("ranker.json: features_info: expected an object"));
  EXPECT_THAT(Error(ModelWith(R"("leaf_values": [1, 2, 4, 8])", R"("leaf_values": "1248")")),
              HasSubstr("ranker.json: oblivious_trees[0].leaf_values: expected an array"));
  EXPECT_THAT(
      Error(ModelWith(R"("leaf_values": [1, 2, 4, 8])", R"("leaf_values": [1, 2, "4", 8])")),
      HasSubstr("oblivious_trees[0].leaf_values[2]: expected a number"));
  EXPECT_THAT(Error(ModelWith(R"({"border": 0.5,)", R"({"border": "0.5",)")),
              HasSubstr("oblivious_trees[0].splits[0].border: expected a number"));
  EXPECT_THAT(Error(ModelWith(R"("float_feature_index": 1,)", R"("float_feature_index": 1.0,)")),
              HasSubstr("oblivious_trees[0].splits[1].float_feature_index: expected an integer"));
  EXPECT_THAT(
      Error(ModelWith(R"("nan_value_treatment": "AsFalse")", R"("nan_value_treatment": "Min")")),
      HasSubstr("features_info.float_features[0].nan_value_treatment: unknown "
                "nan_value_treatment 'Min'"));
  EXPECT_THAT(Error(ModelWith(R"("borders": [2],)", R"("borders": [2], "borders": [3],)")),
              HasSubstr("features_info.float_features[1].borders: duplicate field"));
  EXPECT_THAT(Error(ModelWith(R"("flat_feature_index": 1,)", "")),
              HasSubstr("features_info.float_features[1]: missing feature_index or "
                        "flat_feature_index"));
  EXPECT_THAT(Error(ModelWith(R"("split_type": "FloatFeature"}]},)", R"("split_type": 3}]},)")),
              HasSubstr("splits[1].split_type: expected a string"));
  EXPECT_THAT(
      Error(ModelWith(R"("scale_and_bias": [2, [0.25]])", R"("scale_and_bias": [2, 0.25])")),
      HasSubstr("scale_and_bias[1]: expected an array of biases"));
  EXPECT_THAT(Error(ModelWith(R"("scale_and_bias": [2, [0.25]])", R"("scale_and_bias": [2])")),
              HasSubstr("scale_and_bias: expected [scale, [bias, ...]]"));
  EXPECT_THAT(
      Error(ModelWith(R"("scale_and_bias": [2, [0.25]])", R"("scale_and_bias": [[2], [0.25]])")),
      HasSubstr("scale_and_bias[0]: expected a number (the scale)"));
}

TEST(CatboostJsonTest, BadTreesAndFeatures) {
  EXPECT_THAT(Error(ModelWith("[1, 2, 4, 8]", "[1, 2, 4]")),
              HasSubstr("ranker.json: oblivious_trees[0].leaf_values: has 3 values for 4 leaves"));
  EXPECT_THAT(Error(ModelWith("[16, 32]", "[16, 32, 64, 128]")),
              HasSubstr("oblivious_trees[1].leaf_values: a tree of 2 output dimensions in a "
                        "model of 1"));
  EXPECT_THAT(Error(ModelWith("[1, 2, 4, 8]", "[]")),
              HasSubstr("oblivious_trees[0].leaf_values: has 0 values for 4 leaves"));
  EXPECT_THAT(
      Error(ModelWith(R"("scale_and_bias": [2, [0.25]])", R"("scale_and_bias": [2, [0.25, 1]])")),
      HasSubstr("scale_and_bias[1]: has 2 biases for 1 output dimension"));
  EXPECT_THAT(Error(ModelWith(R"({"border": 0.5,)", R"({"border": 0.75,)")),
              HasSubstr("oblivious_trees[0].splits[0]: the border is not one of float feature 0's "
                        "borders"));
  EXPECT_THAT(Error(ModelWith(R"("float_feature_index": 1,)", R"("float_feature_index": 2,)")),
              HasSubstr("oblivious_trees[0].splits[1]: float feature 2 does not exist (the model "
                        "has 2 float features)"));
  EXPECT_THAT(Error(ModelWith("[-1, 0.5]", "[0.5, -1]")),
              HasSubstr("features_info.float_features[0]: the borders must increase"));
  EXPECT_THAT(Error(ModelWith(R"("feature_index": 1, "flat_feature_index": 1)",
                              R"("feature_index": 1, "flat_feature_index": 2)")),
              HasSubstr("float feature 1 is feature 2 of the model: only models whose features "
                        "are all float features are supported"));
  EXPECT_THAT(Error(ModelWith(R"("feature_index": 1,)", R"("feature_index": 0,)")),
              HasSubstr("float feature 1 has index 0"));
  // The features must come first, as CatBoost writes them.
  std::string late = kModel;
  const std::size_t features = late.find(R"("features_info")");
  const std::size_t info = late.find(R"("model_info")");
  const std::size_t features_end = late.rfind("},", info) + 1;
  late = "{" + late.substr(info, late.rfind('}') - info) + ", " +
         late.substr(features, features_end - features) + "}";
  EXPECT_THAT(Error(late), HasSubstr("oblivious_trees[0]: the trees come before "
                                     "features_info.float_features"));
}

TEST(CatboostJsonTest, LimitsAreCheckedBeforeAllocating) {
  // An oblivious tree of depth 28 would have 2^29 - 1 nodes.
  std::string splits;
  for (int j = 0; j < 28; ++j) {
    splits += std::string(j ? "," : "") +
              R"({"border": 2, "float_feature_index": 1, "split_type": "FloatFeature"})";
  }
  EXPECT_THAT(Error(ModelWith(R"([{"border": -1, "float_feature_index": 0, "split_index": 0,
                 "split_type": "FloatFeature"}])",
                              "[" + splits + "]")),
              HasSubstr("oblivious_trees[1].splits[27]: an oblivious tree with more than 27 splits "
                        "has more nodes than the model may have"));
  // A non-symmetric tree deeper than 10,000 levels.
  std::string deep;
  for (int level = 0; level < 10001; ++level) deep += R"({"left": {"value": 1}, "right": )";
  deep += R"({"value": 1})";
  for (int level = 0; level < 10001; ++level) {
    deep += R"(, "split": {"border": 2, "float_feature_index": 1, "split_type": "FloatFeature"}})";
  }
  EXPECT_THAT(Error(Replace(kNonSymmetric, R"({"value": 8, "weight": 1})", deep)),
              HasSubstr("the tree is deeper than 10000 levels"));
  // JSON nested beyond any model's shape, where nothing is read.
  const std::string nested = std::string(20000, '[') + std::string(20000, ']');
  EXPECT_THAT(Error(ModelWith(R"("deep": [[[{"a": [1]}]]])", R"("deep": )" + nested)),
              HasSubstr("JSON nested deeper than 10016 levels"));
  std::string borders = "[0";
  for (int k = 1; k <= 65536; ++k) borders += "," + std::to_string(k);
  EXPECT_THAT(Error(ModelWith("[-1, 0.5]", borders + "]")),
              HasSubstr("features_info.float_features[0].borders[65536]: more than 65536 borders "
                        "in a feature"));
  std::string biases = "[0";
  for (int k = 0; k < 65536; ++k) biases += ",1";
  EXPECT_THAT(Error(ModelWith("[0.25]", biases + "]")),
              HasSubstr("scale_and_bias[1][65536]: more than 65536 biases"));
}

TEST(CatboostJsonTest, BadNonSymmetricNodes) {
  EXPECT_THAT(
      Error(Replace(kNonSymmetric, R"("trees": [)", R"("oblivious_trees": [], "trees": [)")),
      HasSubstr("ranker.json: trees: a model with both oblivious_trees and trees"));
  EXPECT_THAT(Error(Replace(kNonSymmetric, R"("right": {"value": 4, "weight": 1},)", "")),
              HasSubstr("trees[0].right: a node needs a split with a left and a right child, or "
                        "a value"));
  EXPECT_THAT(Error(Replace(kNonSymmetric, R"({"value": 8, "weight": 1})",
                            R"({"value": 8, "left": {"value": 1}})")),
              HasSubstr("trees[1]: a node needs a split"));
  EXPECT_THAT(Error(Replace(kNonSymmetric, R"({"value": 8, "weight": 1})",
                            R"({"value": [8, 9], "weight": 1})")),
              HasSubstr("trees[1]: a tree of 2 output dimensions in a model of 1"));
  EXPECT_THAT(Error(Replace(kNonSymmetric, R"("left": {"value": 2, "weight": 1})",
                            R"("left": {"value": [], "weight": 1})")),
              HasSubstr("trees[0].right.left.value: a leaf without values"));
  EXPECT_THAT(Error(Replace(kNonSymmetric, R"("left": {"value": 1, "weight": 1})",
                            R"("left": {"value": 1, "weight": 1}, "left": {"value": 1})")),
              HasSubstr("trees[0].left: duplicate field"));
}

// --- the refused models, as CatBoost writes them (catboost_models.py) -------

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
std::string DataFile(const std::string& name) {
  return ReadFile(std::filesystem::path(CALCJIT_MODEL_DATA_DIR) / name);
}

TEST(CatboostReaderTest, OtherFeaturesThanFloatOnesAreRefusedWithWhy) {
  EXPECT_THAT(Error(DataFile("catboost_refused_onehot.json"), "m.json"),
              HasSubstr("m.json: features_info.categorical_features[0]: the model has "
                        "categorical features: they need CatBoost's own hashing and CTR tables"));
  EXPECT_THAT(Error(DataFile("catboost_refused_ctr.json"), "m.json"),
              HasSubstr("m.json: ctr_data: the model has CTR data of categorical features"));
  EXPECT_THAT(Error(DataFile("catboost_refused_onehot.cbm"), "m.cbm"),
              HasSubstr("m.cbm: ModelTrees.CatFeatures: the model has categorical features"));
  EXPECT_THAT(Error(DataFile("catboost_refused_ctr.cbm"), "m.cbm"),
              HasSubstr("m.cbm: ModelTrees.CatFeatures: the model has categorical features"));
  EXPECT_THAT(Error(DataFile("catboost_refused_text.cbm"), "m.cbm"),
              HasSubstr("m.cbm: ModelTrees.TextFeatures: the model has text features: they need "
                        "CatBoost's own tokenizers"));
  EXPECT_THAT(Error(DataFile("catboost_refused_embedding.cbm"), "m.cbm"),
              HasSubstr("m.cbm: ModelTrees.EmbeddingFeatures: the model has embedding features"));
  EXPECT_THAT(Error(ModelWith(R"("split_type": "FloatFeature"}]},)",
                              R"("split_type": "OneHotFeature"}]},)")),
              HasSubstr("splits[1].split_type: split type 'OneHotFeature': only splits on float "
                        "features are supported"));
}

// --- a .cbm and the JSON export of the same model ----------------------------

void ExpectSameEnsemble(const TreeEnsemble& a, const TreeEnsemble& b, const std::string& what) {
  EXPECT_EQ(DescribeModel(a.info), DescribeModel(b.info)) << what;
  EXPECT_EQ(a.info.feature_names, b.info.feature_names) << what;
  EXPECT_EQ(a.info.names_from_file, b.info.names_from_file) << what;
  ASSERT_EQ(a.trees.size(), b.trees.size()) << what;
  ASSERT_EQ(a.nodes.size(), b.nodes.size()) << what;
  for (std::size_t t = 0; t < a.trees.size(); ++t) {
    EXPECT_EQ(a.trees[t].output, b.trees[t].output) << what;
    EXPECT_EQ(a.trees[t].depth, b.trees[t].depth) << what;
  }
  // Tree by tree from the root, as the readers may number nodes differently.
  for (std::size_t t = 0; t < a.trees.size(); ++t) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> stack = {{0, 0}};
    while (!stack.empty()) {
      const auto [i, j] = stack.back();
      stack.pop_back();
      const TreeNode& x = a.node(a.trees[t], i);
      const TreeNode& y = b.node(b.trees[t], j);
      ASSERT_EQ(x.kind, y.kind) << what << " tree " << t;
      EXPECT_EQ(std::bit_cast<std::uint64_t>(x.value), std::bit_cast<std::uint64_t>(y.value))
          << what << " tree " << t;
      if (x.kind == NodeKind::kLeaf) continue;
      EXPECT_EQ(x.feature, y.feature) << what << " tree " << t;
      EXPECT_EQ(x.default_left, y.default_left) << what << " tree " << t;
      stack.emplace_back(x.left, y.left);
      stack.emplace_back(x.right, y.right);
    }
  }
  EXPECT_EQ(a.rules.scale, b.rules.scale) << what;
  ASSERT_EQ(a.rules.bias.size(), b.rules.bias.size()) << what;
  for (std::size_t k = 0; k < a.rules.bias.size(); ++k) {
    EXPECT_EQ(std::bit_cast<std::uint64_t>(a.rules.bias[k]),
              std::bit_cast<std::uint64_t>(b.rules.bias[k]))
        << what;
  }
}

TEST(CatboostReaderTest, ACbmAndItsJsonExportReadAlike) {
  int pairs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(CALCJIT_MODEL_DATA_DIR)) {
    const std::filesystem::path cbm = entry.path();
    if (cbm.extension() != ".cbm" || cbm.stem().string().find("refused") != std::string::npos) {
      continue;
    }
    std::filesystem::path json = cbm;
    json.replace_extension(".json");
    if (!std::filesystem::exists(json)) continue;
    Result<TreeEnsemble> from_cbm = ReadCatboost(ReadFile(cbm), cbm.string());
    Result<TreeEnsemble> from_json = ReadCatboost(ReadFile(json), json.string());
    ASSERT_TRUE(from_cbm.ok()) << from_cbm.status().ToString();
    ASSERT_TRUE(from_json.ok()) << from_json.status().ToString();
    ExpectSameEnsemble(*from_cbm, *from_json, cbm.filename().string());
    // Every tree evaluates alike on rows of each feature's borders.
    std::mt19937 rng(7);
    for (int r = 0; r < 200; ++r) {
      std::vector<float> row(from_json->info.num_features);
      for (float& x : row) {
        const TreeNode& node = from_json->nodes[rng() % from_json->nodes.size()];
        x = node.kind == NodeKind::kLeaf ? NAN : static_cast<float>(node.value);
        if (rng() % 3 == 0) x = std::nextafter(x, rng() % 2 ? INFINITY : -INFINITY);
      }
      const std::vector<float> a = Outputs(*from_cbm, row), b = Outputs(*from_json, row);
      for (std::size_t k = 0; k < a.size(); ++k) {
        EXPECT_EQ(std::bit_cast<std::uint32_t>(a[k]), std::bit_cast<std::uint32_t>(b[k]));
      }
    }
    ++pairs;
  }
  EXPECT_GE(pairs, 3);
}

// --- hand-built .cbm files ---------------------------------------------------

// A flatbuffer written front to back (every reference points forward, as the
// format requires), from a tree of tables, vectors and strings: enough of a
// writer to build the .cbm files CatBoost would never write.
struct Flat {
  enum class Kind { kTable, kRawVector, kRefVector, kString } kind = Kind::kTable;
  std::vector<std::pair<int, std::string>> scalars;         // table: field, little-endian bytes
  std::vector<std::pair<int, std::shared_ptr<Flat>>> refs;  // table: field, what it refers to
  std::string raw;                              // raw vector: elements; string: characters
  std::uint32_t count = 0;                      // raw vector: elements
  std::vector<std::shared_ptr<Flat>> elements;  // reference vector
};
using FlatPtr = std::shared_ptr<Flat>;

template <typename T>
std::string Bytes(T value) {
  std::string out(sizeof(T), '\0');
  std::memcpy(out.data(), &value, sizeof(T));
  return out;
}
template <typename T>
FlatPtr Raw(const std::vector<T>& values) {
  auto flat = std::make_shared<Flat>();
  flat->kind = Flat::Kind::kRawVector;
  for (const T& v : values) flat->raw += Bytes(v);
  flat->count = static_cast<std::uint32_t>(values.size());
  return flat;
}
FlatPtr String(const std::string& text) {
  auto flat = std::make_shared<Flat>();
  flat->kind = Flat::Kind::kString;
  flat->raw = text;
  return flat;
}
FlatPtr Refs(std::vector<FlatPtr> elements) {
  auto flat = std::make_shared<Flat>();
  flat->kind = Flat::Kind::kRefVector;
  flat->elements = std::move(elements);
  return flat;
}

void Patch(std::string* out, std::size_t at, std::uint32_t value) {
  std::memcpy(out->data() + at, &value, 4);
}

std::size_t Write(const Flat& flat, std::string* out) {
  const std::size_t start = out->size();
  switch (flat.kind) {
    case Flat::Kind::kRawVector:
    case Flat::Kind::kString:
      *out += Bytes<std::uint32_t>(flat.kind == Flat::Kind::kString
                                       ? static_cast<std::uint32_t>(flat.raw.size())
                                       : flat.count);
      *out += flat.raw;
      if (flat.kind == Flat::Kind::kString) *out += '\0';
      return start;
    case Flat::Kind::kRefVector: {
      *out += Bytes<std::uint32_t>(static_cast<std::uint32_t>(flat.elements.size()));
      const std::size_t slots = out->size();
      out->append(4 * flat.elements.size(), '\0');
      for (std::size_t i = 0; i < flat.elements.size(); ++i) {
        const std::size_t at = Write(*flat.elements[i], out);
        Patch(out, slots + 4 * i, static_cast<std::uint32_t>(at - (slots + 4 * i)));
      }
      return start;
    }
    case Flat::Kind::kTable:
      break;
  }
  int fields = 0;
  for (const auto& [index, bytes] : flat.scalars) fields = std::max(fields, index + 1);
  for (const auto& [index, ref] : flat.refs) fields = std::max(fields, index + 1);
  std::vector<std::uint16_t> offsets(static_cast<std::size_t>(fields), 0);
  std::uint16_t table_bytes = 4;
  for (const auto& [index, bytes] : flat.scalars) {
    offsets[index] = table_bytes;
    table_bytes = static_cast<std::uint16_t>(table_bytes + bytes.size());
  }
  for (const auto& [index, ref] : flat.refs) {
    offsets[index] = table_bytes;
    table_bytes = static_cast<std::uint16_t>(table_bytes + 4);
  }
  const std::size_t vtable = out->size();
  *out += Bytes<std::uint16_t>(static_cast<std::uint16_t>(4 + 2 * fields));
  *out += Bytes<std::uint16_t>(table_bytes);
  for (std::uint16_t offset : offsets) *out += Bytes(offset);
  const std::size_t table = out->size();
  *out += Bytes<std::int32_t>(static_cast<std::int32_t>(table - vtable));
  for (const auto& [index, bytes] : flat.scalars) *out += bytes;
  out->append(4 * flat.refs.size(), '\0');
  for (const auto& [index, ref] : flat.refs) {
    const std::size_t slot = table + offsets[index];
    const std::size_t at = Write(*ref, out);
    Patch(out, slot, static_cast<std::uint32_t>(at - slot));
  }
  return table;
}

// The pieces of a .cbm file; a valid model by default: two float features,
// two oblivious trees as kModel's.
struct CbmSpec {
  std::int32_t dimension = 1;
  std::vector<std::int32_t> splits = {1, 2, 0};
  std::vector<std::int32_t> sizes = {2, 1};
  std::vector<std::int32_t> starts = {0, 2};
  std::vector<double> leaves = {1, 2, 4, 8, 16, 32};
  std::vector<std::vector<float>> borders = {{-1, 0.5}, {2}};
  std::vector<std::int8_t> nan = {1, 2};
  std::vector<std::int32_t> flat_index = {0, 1};
  std::vector<std::pair<std::uint16_t, std::uint16_t>> steps;
  std::vector<std::uint32_t> leaf_ids;
  std::vector<double> bias = {0.25};
  double scale = 2;
  std::vector<std::pair<int, FlatPtr>> extra;  // more TModelTrees fields
  std::vector<std::string> parts;
};

std::string Cbm(const CbmSpec& spec) {
  std::vector<FlatPtr> features;
  for (std::size_t j = 0; j < spec.borders.size(); ++j) {
    auto feature = std::make_shared<Flat>();
    feature->scalars = {{0, Bytes<std::uint8_t>(1)},
                        {1, Bytes<std::int32_t>(static_cast<std::int32_t>(j))},
                        {2, Bytes<std::int32_t>(spec.flat_index[j])},
                        {5, Bytes<std::int8_t>(spec.nan[j])}};
    feature->refs = {{3, Raw(spec.borders[j])}};
    features.push_back(feature);
  }
  auto trees = std::make_shared<Flat>();
  trees->scalars = {{0, Bytes(spec.dimension)}, {14, Bytes(spec.scale)}};
  trees->refs = {{1, Raw(spec.splits)}, {2, Raw(spec.sizes)},  {3, Raw(spec.starts)},
                 {5, Refs(features)},   {8, Raw(spec.leaves)}, {16, Raw(spec.bias)},
                 {4, Refs({})}};
  if (!spec.steps.empty()) {
    std::vector<std::uint32_t> packed;
    for (auto [left, right] : spec.steps) packed.push_back(left | (std::uint32_t{right} << 16));
    trees->refs.emplace_back(10, Raw(packed));
    trees->refs.emplace_back(11, Raw(spec.leaf_ids));
  }
  for (const auto& field : spec.extra) trees->refs.push_back(field);
  auto core = std::make_shared<Flat>();
  std::vector<FlatPtr> parts;
  for (const std::string& part : spec.parts) parts.push_back(String(part));
  core->refs = {{0, String("FlabuffersModel_v1")}, {1, trees}, {3, Refs(parts)}};
  std::string buffer(4, '\0');
  const std::size_t root = Write(*core, &buffer);
  Patch(&buffer, 0, static_cast<std::uint32_t>(root));
  return "CBM1" + Bytes<std::uint32_t>(static_cast<std::uint32_t>(buffer.size())) + buffer;
}

TEST(CatboostCbmTest, ReadsAHandBuiltModel) {
  Result<TreeEnsemble> model = ReadCatboost(Cbm(CbmSpec{}), "ranker.cbm");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  Result<TreeEnsemble> json = ReadCatboost(kModel, "ranker.json");
  ASSERT_TRUE(json.ok());
  ExpectSameEnsemble(*model, *json, "hand-built");
  EXPECT_EQ(Output(*model, NAN, NAN), 2 * (4 + 16) + 0.25f);
}

TEST(CatboostCbmTest, ReadsHandBuiltNonSymmetricTrees) {
  // kNonSymmetric: node 0 splits f0 at 0.5, its left the leaf 1 (diff 0),
  // right node 1, which splits f1 at 2 into leaves 2 and 4 (nodes 2, 3);
  // then a tree of one leaf, 8.
  CbmSpec spec;
  spec.borders = {{0.5}, {2}};
  spec.nan = {2, 0};
  spec.splits = {0, 1, 0, 0, 0};
  spec.sizes = {4, 1};
  spec.starts = {0, 4};
  spec.steps = {{0, 1}, {1, 2}, {0, 0}, {0, 0}, {0, 0}};
  spec.leaf_ids = {0, 0xFFFFFFFF, 1, 2, 3};
  spec.leaves = {1, 2, 4, 8};
  spec.bias = {0};
  spec.scale = 1;
  Result<TreeEnsemble> model = ReadCatboost(Cbm(spec), "ranker.cbm");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  Result<TreeEnsemble> json = ReadCatboost(kNonSymmetric, "ranker.json");
  ASSERT_TRUE(json.ok());
  for (float x0 : {0.0f, 0.5f, 1.0f, NAN}) {
    for (float x1 : {0.0f, 2.0f, 3.0f, NAN}) {
      EXPECT_EQ(Output(*model, x0, x1), Output(*json, x0, x1)) << x0 << " " << x1;
    }
  }
  // A node reached twice (both sides step to node 2) is not a tree.
  CbmSpec shared = spec;
  shared.steps[1] = {1, 1};
  EXPECT_THAT(Error(Cbm(shared), "m.cbm"),
              HasSubstr("m.cbm: ModelTrees.NonSymmetricStepNodes[2]: node 2 is reached twice "
                        "from the root (not a tree)"));
  CbmSpec outside = spec;
  outside.steps[1] = {1, 7};
  EXPECT_THAT(Error(Cbm(outside), "m.cbm"),
              HasSubstr("NonSymmetricStepNodes[1]: node 1 steps to node 8, outside its tree"));
  CbmSpec unreached = spec;
  unreached.steps[1] = {1, 0};
  unreached.leaf_ids[1] = 0;
  EXPECT_THAT(Error(Cbm(unreached), "m.cbm"),
              HasSubstr("ModelTrees.TreeSizes[0]: node 3 is not reached from its tree's root"));
  CbmSpec bad_leaf = spec;
  bad_leaf.leaf_ids[3] = 4;
  EXPECT_THAT(Error(Cbm(bad_leaf), "m.cbm"),
              HasSubstr("NonSymmetricNodeIdToLeafId[3]: leaf offset 4 is not in LeafValues"));
  CbmSpec short_ids = spec;
  short_ids.leaf_ids.pop_back();
  EXPECT_THAT(Error(Cbm(short_ids), "m.cbm"), HasSubstr("must have an entry per split (5)"));
}

TEST(CatboostCbmTest, HostileHandBuiltFiles) {
  auto error = [](auto change) {
    CbmSpec spec;
    change(spec);
    return Error(Cbm(spec), "m.cbm");
  };
  EXPECT_THAT(error([](CbmSpec& s) { s.starts[1] = 1; }),
              HasSubstr("m.cbm: ModelTrees.TreeStartOffsets[1]: tree 1 starts at split 1, not "
                        "after the previous tree (2)"));
  EXPECT_THAT(error([](CbmSpec& s) {
                s.sizes = {2, 30};
              }),
              HasSubstr("ModelTrees.TreeSizes[1]: an oblivious tree of depth 30"));
  EXPECT_THAT(error([](CbmSpec& s) { s.leaves.pop_back(); }),
              HasSubstr("ModelTrees.TreeSizes[1]: the trees need more leaf values than "
                        "LeafValues has (5)"));
  EXPECT_THAT(error([](CbmSpec& s) { s.leaves.push_back(64); }),
              HasSubstr("ModelTrees: the trees use 3 of 3 splits and 6 of 7 leaf values"));
  EXPECT_THAT(error([](CbmSpec& s) { s.splits[1] = 3; }),
              HasSubstr("ModelTrees.TreeSplits[1]: binary feature 3 is not a border of a float "
                        "feature (the model has 3)"));
  EXPECT_THAT(error([](CbmSpec& s) { s.dimension = 0; }),
              HasSubstr("ModelTrees.ApproxDimension: expected 1 to 65536 output dimensions"));
  EXPECT_THAT(error([](CbmSpec& s) { s.dimension = 2; }),
              HasSubstr("the trees need more leaf values"));
  EXPECT_THAT(error([](CbmSpec& s) { s.nan[0] = 7; }),
              HasSubstr("ModelTrees.FloatFeatures[0].NanValueTreatment: unknown "
                        "NanValueTreatment 7"));
  EXPECT_THAT(error([](CbmSpec& s) { s.flat_index[1] = 3; }),
              HasSubstr("ModelTrees.FloatFeatures[1]: float feature 1 is feature 3 of the model"));
  EXPECT_THAT(error([](CbmSpec& s) {
                s.borders[0] = {0.5, -1};
              }),
              HasSubstr("ModelTrees.FloatFeatures[0]: the borders must increase"));
  EXPECT_THAT(error([](CbmSpec& s) { s.borders[1].assign(65537, 2.0f); }),
              HasSubstr("ModelTrees.FloatFeatures[1].Borders: more than 65536 borders in a "
                        "feature"));
  EXPECT_THAT(error([](CbmSpec& s) {
                s.bias = {1, 2};
              }),
              HasSubstr("ModelTrees.MultiBias: has 2 biases for 1 output dimension"));
  EXPECT_THAT(error([](CbmSpec& s) { s.leaves[3] = NAN; }),
              HasSubstr("ModelTrees.LeafValues[3]: leaf value is NaN"));
  EXPECT_THAT(error([](CbmSpec& s) { s.scale = INFINITY; }),
              HasSubstr("the scale is not a finite number"));
  EXPECT_THAT(error([](CbmSpec& s) { s.parts = {"static_provider_v1"}; }),
              HasSubstr("ModelPartIds[0]: the model has a part 'static_provider_v1'"));
  EXPECT_THAT(error([](CbmSpec& s) {
                s.extra = {{6, Refs({std::make_shared<Flat>()})}};
              }),
              HasSubstr("ModelTrees.OneHotFeatures: the model has one-hot categorical features"));
  EXPECT_THAT(error([](CbmSpec& s) {
                s.extra = {{13, Refs({std::make_shared<Flat>()})}};
              }),
              HasSubstr("ModelTrees.EstimatedFeatures: the model has features estimated"));
  EXPECT_THAT(error([](CbmSpec& s) {
                s.borders.clear();
                s.flat_index.clear();
                s.nan.clear();
              }),
              HasSubstr("the model has no float features"));
  // Counts beyond the file: refused before anything is allocated.
  std::string huge = Cbm(CbmSpec{});
  const std::string leaves_count = Bytes<std::uint32_t>(6) + Bytes<double>(1);
  const std::size_t at = huge.find(leaves_count);
  ASSERT_NE(at, std::string::npos);
  Patch(&huge, at, 0xFFFFFFFFu);
  EXPECT_THAT(Error(huge, "m.cbm"),
              HasSubstr("ModelTrees.LeafValues: a vector of 4294967295 elements beyond the end of "
                        "the model"));
  // The header's size.
  std::string header = Cbm(CbmSpec{});
  Patch(&header, 4, static_cast<std::uint32_t>(header.size()));
  EXPECT_THAT(Error(header, "m.cbm"), HasSubstr("m.cbm: byte 4: the model part claims"));
  EXPECT_THAT(Error("CBM1", "m.cbm"), HasSubstr("m.cbm: not a CatBoost binary model"));
}

// Every prefix of a hand-built .cbm, and every committed CatBoost file cut
// short and with random bytes (and 32-bit words) changed: a model or an error
// naming the file, never a crash (run under scripts/sanitize.sh for memory
// errors); a model accepted evaluates.
TEST(CatboostReaderTest, TruncatedAndCorruptedFilesGiveErrorsNotCrashes) {
  const std::string cbm = Cbm(CbmSpec{});
  for (std::size_t size = 0; size < cbm.size(); ++size) {
    Result<TreeEnsemble> model = ReadCatboost(cbm.substr(0, size), "cut.cbm");
    EXPECT_FALSE(model.ok()) << size;
  }
  std::mt19937_64 rng(2026);
  int files = 0, errors = 0;
  for (const auto& entry : std::filesystem::directory_iterator(CALCJIT_MODEL_DATA_DIR)) {
    const std::string stem = entry.path().stem().string();
    const std::string extension = entry.path().extension().string();
    if (stem.rfind("catboost_", 0) != 0 || (extension != ".json" && extension != ".cbm")) continue;
    const std::string good = ReadFile(entry.path());
    ++files;
    for (int round = 0; round < 80; ++round) {
      std::string bad = good;
      if (round % 4 == 0) {
        bad.resize(rng() % bad.size());
      } else if (round % 4 == 1 && extension == ".cbm") {
        const std::uint32_t words[] = {0xFFFFFFFFu, 0x7FFFFFFFu, 0x80000000u, 0x10000u, 30u};
        for (int c = 0; c < 3; ++c) {
          const std::size_t at = (rng() % (bad.size() / 4)) * 4;
          if (at + 4 <= bad.size()) Patch(&bad, at, words[rng() % std::size(words)]);
        }
      } else {
        const int changes = 1 + static_cast<int>(rng() % 4);
        for (int c = 0; c < changes; ++c) {
          static constexpr char kBytes[] = "0123456789-.eE,[]{}\":nul \n\x00\xff";
          bad[rng() % bad.size()] = kBytes[rng() % (sizeof kBytes - 1)];
        }
      }
      Result<TreeEnsemble> model = ReadCatboost(bad, "bad" + extension);
      if (!model.ok()) {
        ++errors;
        EXPECT_EQ(model.status().location().rfind("bad" + extension, 0), 0u)
            << model.status().ToString();
        continue;
      }
      std::vector<float> row(model->info.num_features, 0.5f);
      std::vector<float> out(model->info.num_outputs);
      EvaluateReferenceRow(*model, row.data(), out.data());
    }
  }
  EXPECT_GT(files, 15);
  EXPECT_GT(errors, files * 20);
}

}  // namespace
}  // namespace calcjit::model
