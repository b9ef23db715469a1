// The XGBoost JSON and LightGBM text readers: what they accept, and that
// every hostile file gets a clear error naming the file and where in it.
#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "model/tree/lightgbm_reader.h"
#include "model/tree/reference_evaluator.h"
#include "model/tree/xgboost_reader.h"

namespace calcjit::model {
namespace {

using ::testing::HasSubstr;

// A small valid XGBoost 1.7 model: tree 0 splits feature 1 at 0.5 (NaN
// left) into leaves -1 and 2.
const char kTree[] =
    R"({"base_weights":[0,0,0],"categories":[],"categories_nodes":[],)"
    R"("categories_segments":[],"categories_sizes":[],"default_left":[1,0,0],"id":0,)"
    R"("left_children":[1,-1,-1],"loss_changes":[0,0,0],"parents":[2147483647,0,0],)"
    R"("right_children":[2,-1,-1],"split_conditions":[5E-1,-1E0,2E0],)"
    R"("split_indices":[1,0,0],"split_type":[0,0,0],"sum_hessian":[0,0,0],)"
    R"("tree_param":{"num_deleted":"0","num_feature":"2","num_nodes":"3","size_leaf_vector":"0"}})";

std::string Model(const std::string& trees = std::string("[") + kTree + "]",
                  const std::string& tree_info = "[0]",
                  const std::string& objective = "reg:squarederror",
                  const std::string& base_score = R"("5E-1")",
                  const std::string& booster = "gbtree", const std::string& num_trees = "1",
                  const std::string& version = "[1,7,4]", const std::string& names = "[]") {
  return R"({"learner":{"attributes":{},"feature_names":)" + names +
         R"(,"feature_types":[],"gradient_booster":{"model":{"gbtree_model_param":{"num_parallel_tree":"1","num_trees":")" +
         num_trees + R"(","size_leaf_vector":"0"},"tree_info":)" + tree_info + R"(,"trees":)" +
         trees + R"(},"name":")" + booster + R"("},"learner_model_param":{"base_score":)" +
         base_score +
         R"(,"boost_from_average":"1","num_class":"0","num_feature":"2","num_target":"1"},"objective":{"name":")" +
         objective + R"(","reg_loss_param":{"scale_pos_weight":"1"}}},"version":)" + version + "}";
}

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string TreeWith(const std::string& from, const std::string& to) {
  return "[" + Replace(kTree, from, to) + "]";
}

// The error of reading `json`, as "location: message".
std::string XgboostError(const std::string& json) {
  Result<TreeEnsemble> model = ReadXgboostJson(json, "ranker.json");
  if (model.ok()) return "no error";
  return model.status().ToString();
}

float Margin(const TreeEnsemble& model, float x0, float x1) {
  const float row[2] = {x0, x1};
  float out = 0;
  EvaluateReferenceRow(model, row, &out);
  return out;
}

TEST(XgboostReaderTest, ReadsAValidModel) {
  Result<TreeEnsemble> model = ReadXgboostJson(Model(), "ranker.json");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ(DescribeModel(model->info), "xgboost: 1 tree, depth 1, 2 features, 1 output");
  EXPECT_THAT(model->info.feature_names, ::testing::ElementsAre("f0", "f1"));
  EXPECT_FALSE(model->info.names_from_file);
  EXPECT_EQ(model->rules.base_margin, std::vector<float>{0.5f});
  EXPECT_EQ(Margin(*model, 0, 0.25f), -0.5f);
  EXPECT_EQ(Margin(*model, 0, 0.5f), 2.5f);  // equality goes right
  EXPECT_EQ(Margin(*model, 0, NAN), -0.5f);  // default left
}

TEST(XgboostReaderTest, FeatureNamesAndBaseScoreForms) {
  Result<TreeEnsemble> named =
      ReadXgboostJson(Model(std::string("[") + kTree + "]", "[0]", "reg:squarederror",
                            R"("[5E-1]")", "gbtree", "1", "[2,0,3]", R"(["price","clicks"])"),
                      "ranker.json");
  ASSERT_TRUE(named.ok()) << named.status().ToString();
  EXPECT_THAT(named->info.feature_names, ::testing::ElementsAre("price", "clicks"));
  EXPECT_EQ(named->rules.base_margin, std::vector<float>{0.5f});
  Result<TreeEnsemble> array = ReadXgboostJson(
      Model(std::string("[") + kTree + "]", "[0]", "reg:squarederror", R"(["2.5E-1"])"),
      "ranker.json");
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  EXPECT_EQ(array->rules.base_margin, std::vector<float>{0.25f});
  EXPECT_THAT(XgboostError(
                  Model(std::string("[") + kTree + "]", "[0]", "reg:squarederror", R"(["1","2"])")),
              HasSubstr("learner.learner_model_param.base_score: has 2 base scores for 1 outputs "
                        "(one, or one per output)"));
  EXPECT_THAT(XgboostError(Model(std::string("[") + kTree + "]", "[0]", "reg:squarederror",
                                 R"("[5E-1,x]")")),
              HasSubstr("base_score '[5E-1,x]' is not a number or a list of numbers"));
}

// XGBoost 3.x writes one base score per output group (the intercept of each
// class or target), as a list in a string; each is mapped by the objective.
TEST(XgboostReaderTest, OneBaseScorePerOutput) {
  std::string json = Model(std::string("[") + kTree + "," + kTree + "]", "[0,1]", "binary:logistic",
                           R"("[5E-1,2.5E-1]")", "gbtree", "2", "[3,4,1]");
  json = Replace(json, R"("num_target":"1")", R"("num_target":"2")");
  Result<TreeEnsemble> model = ReadXgboostJson(json, "ranker.json");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ(model->info.num_outputs, 2u);
  ASSERT_EQ(model->rules.base_margin.size(), 2u);
  EXPECT_EQ(model->rules.base_margin[0], 0.0f);
  EXPECT_EQ(model->rules.base_margin[1], -std::log(3.0f));
  EXPECT_THAT(XgboostError(Replace(json, R"("[5E-1,2.5E-1]")", R"("[5E-1,2.5E-1,1E-1]")")),
              HasSubstr("has 3 base scores for 2 outputs"));
}

// XGBoost maps the base score with the C library's logf, which is not
// correctly rounded: for b = 0.47437313 its logf(1/b - 1) is one ulp below
// the correctly rounded LOG (models trained by XGBoost 1.7.4 and 3.4.1 with
// this base score start from 0xbdd21e87; tests/model/data/binary_logistic_logf).
TEST(XgboostReaderTest, BaseMarginUsesTheLogfXgboostUses) {
  const float margin = *XgboostBaseMargin("binary:logistic", 0.47437313f);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(margin), 0xbdd21e87u);
}

TEST(XgboostReaderTest, BaseMarginByObjective) {
  // The contract's float32 operations: b = 0.5 gives -0 for logistic models.
  EXPECT_EQ(std::signbit(*XgboostBaseMargin("binary:logistic", 0.5f)), true);
  EXPECT_EQ(*XgboostBaseMargin("binary:logistic", 0.5f), 0.0f);
  EXPECT_EQ(*XgboostBaseMargin("reg:logistic", 0.25f), -std::log(3.0f));
  EXPECT_EQ(*XgboostBaseMargin("count:poisson", 1.0f), 0.0f);
  EXPECT_EQ(*XgboostBaseMargin("binary:logitraw", 0.8f), 0.8f);  // as XGBoost 1.7.4
  EXPECT_EQ(*XgboostBaseMargin("rank:pairwise", 0.3f), 0.3f);
  EXPECT_THAT(XgboostBaseMargin("survival:cox", 0.5f).status().message(),
              HasSubstr("objective 'survival:cox' is not supported"));
  EXPECT_THAT(XgboostError(Model(std::string("[") + kTree + "]", "[0]", "survival:cox")),
              HasSubstr("ranker.json: learner.objective.name: objective 'survival:cox'"));
  EXPECT_THAT(
      XgboostError(Model(std::string("[") + kTree + "]", "[0]", "binary:logistic", R"("1")")),
      HasSubstr("gives a base margin of inf"));
}

TEST(XgboostReaderTest, SignedZeroAndInfinityTokens) {
  // "-0" is lexed as an integer; the leaf must stay -0 (binary:logistic
  // starts at -0, so -0 + -0 = -0 and -0 + 0 = +0 tell them apart).
  Result<TreeEnsemble> model = ReadXgboostJson(
      Model(TreeWith("[5E-1,-1E0,2E0]", "[-Infinity,-0,Infinity]"), "[0]", "binary:logistic"),
      "ranker.json");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  // Split at -inf, NaN to the left leaf -0, everything else right (+inf).
  EXPECT_TRUE(std::signbit(Margin(*model, 0, NAN)));
  EXPECT_EQ(Margin(*model, 0, NAN), 0.0f);
  EXPECT_EQ(Margin(*model, 0, 1.0f), INFINITY);
  EXPECT_EQ(Margin(*model, 0, -INFINITY), INFINITY);  // -inf < -inf is false
}

TEST(XgboostReaderTest, UnneededArraysAreSkippedOnlyWhenTheyHoldNumbers) {
  // base_weights is skipped unread when it holds numbers; anything else in it
  // is parsed as usual, so skipping never changes how the rest reads.
  EXPECT_EQ(XgboostError(Model(TreeWith("\"base_weights\":[0,0,0]",
                                        "\"base_weights\":[1E0, -2.5E-1,NaN,-Infinity]"))),
            "no error");
  EXPECT_EQ(XgboostError(Model(TreeWith("\"base_weights\":[0,0,0]",
                                        "\"base_weights\":[\"]\", [1], {\"a\": \"]\"}]"))),
            "no error");
  EXPECT_THAT(XgboostError(Model(TreeWith("\"base_weights\":[0,0,0]", "\"base_weights\":[0,0"))),
              HasSubstr("malformed JSON"));
}

TEST(XgboostReaderTest, RefusesOtherBoosters) {
  EXPECT_THAT(XgboostError(Model(std::string("[") + kTree + "]", "[0]", "reg:squarederror",
                                 R"("5E-1")", "gblinear")),
              HasSubstr("ranker.json: learner.gradient_booster.name: booster 'gblinear' is not "
                        "supported (only gbtree is)"));
  EXPECT_THAT(XgboostError(Model(std::string("[") + kTree + "]", "[0]", "reg:squarederror",
                                 R"("5E-1")", "dart")),
              HasSubstr("booster 'dart' is not supported"));
  EXPECT_THAT(
      XgboostError(Model(TreeWith(R"("size_leaf_vector":"0")", R"("size_leaf_vector":"3")"))),
      HasSubstr("trees[0].tree_param.size_leaf_vector: multi-output trees"));
  EXPECT_EQ(XgboostError(Model(std::string("[") + kTree + "]", "[0]", "reg:squarederror",
                               R"("5E-1")", "gbtree", "1", "[3,4,1]")),
            "no error");
  EXPECT_THAT(XgboostError(Model(std::string("[") + kTree + "]", "[0]", "reg:squarederror",
                                 R"("5E-1")", "gbtree", "1", "[4,0,0]")),
              HasSubstr("ranker.json: version: XGBoost 4.x model files are not supported (1.x, "
                        "2.x and 3.x are)"));
}

// The same document as UBJSON (what save_model("*.ubj") writes, the default
// since XGBoost 2.1) reads to the same model; its encoding is recognized by
// content, whatever the file is called.
TEST(XgboostReaderTest, UbjsonReadsAsTheSameModel) {
  const std::string json = Model();
  const std::vector<std::uint8_t> ubj = nlohmann::json::to_ubjson(nlohmann::json::parse(json));
  const std::string bytes(ubj.begin(), ubj.end());
  EXPECT_EQ(XgboostEncodingOf(bytes), XgboostEncoding::kUbjson);
  EXPECT_EQ(XgboostEncodingOf(json), XgboostEncoding::kJson);
  Result<TreeEnsemble> model = ReadXgboostJson(bytes, "ranker.json");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ(DescribeModel(model->info), "xgboost: 1 tree, depth 1, 2 features, 1 output");
  EXPECT_EQ(Margin(*model, 0, 0.25f), -0.5f);
  EXPECT_EQ(Margin(*model, 0, 0.5f), 2.5f);
  EXPECT_EQ(Margin(*model, 0, NAN), -0.5f);
  // Optimized containers (a type and a count), as XGBoost writes its arrays.
  const std::vector<std::uint8_t> typed =
      nlohmann::json::to_ubjson(nlohmann::json::parse(json), /*use_size=*/true, /*use_type=*/true);
  Result<TreeEnsemble> sized = ReadXgboostJson(std::string(typed.begin(), typed.end()), "m.ubj");
  ASSERT_TRUE(sized.ok()) << sized.status().ToString();
  EXPECT_EQ(Margin(*sized, 0, 0.5f), 2.5f);
}

std::string UbjsonError(const std::string& bytes) {
  return XgboostError(bytes);
}

TEST(XgboostReaderTest, HostileUbjson) {
  const std::vector<std::uint8_t> ubj = nlohmann::json::to_ubjson(nlohmann::json::parse(Model()));
  const std::string bytes(ubj.begin(), ubj.end());
  EXPECT_THAT(UbjsonError(bytes.substr(0, bytes.size() / 2)),
              HasSubstr("ranker.json: malformed UBJSON: parse error"));
  // An array of a billion nulls in nine bytes: refused at once, not looped over.
  EXPECT_THAT(UbjsonError(std::string("{i\x01"
                                      "a[$Z#l\x40\x00\x00\x00}",
                                      14)),
              HasSubstr("a container declares 1073741824 elements in a file of 14 bytes"));
  // Arrays of nulls nested, each within the file's size: the callbacks are
  // counted.
  std::string nested =
      "{i\x01"
      "a[";
  for (int i = 0; i < 200; ++i) nested += "[$Z#I\x03\xe8";  // 1,000 nulls each
  nested += "]}";
  EXPECT_THAT(UbjsonError(nested), HasSubstr("more values than the file has bytes"));
  EXPECT_THAT(UbjsonError("{i\x07learner[$i#i\x03\x01\x02\x03}"), HasSubstr("expected an object"));
  // UBJSON strings are bytes: a feature name must still be UTF-8.
  nlohmann::json document = nlohmann::json::parse(Model());
  document["learner"]["feature_names"] = {"a", "b"};
  std::vector<std::uint8_t> named = nlohmann::json::to_ubjson(document);
  const std::string good(named.begin(), named.end());
  EXPECT_EQ(UbjsonError(good), "no error");
  std::string bad = good;
  bad[bad.find("\x01"
               "b") +
      1] = '\xff';
  EXPECT_THAT(UbjsonError(bad),
              HasSubstr("learner.feature_names[1]: a feature name that is not valid UTF-8"));
}

// The legacy binary format (XGBoost before 3.1): refused with how to convert it.
TEST(XgboostReaderTest, LegacyBinaryIsRefusedWithHowToConvertIt) {
  std::string header(136, '\0');
  const std::string name = "binary:logistic";
  std::string length(8, '\0');
  length[0] = static_cast<char>(name.size());
  const std::string legacy = "binf" + header + length + name + std::string(8, '\0') + "gbtree";
  EXPECT_EQ(XgboostEncodingOf(legacy), XgboostEncoding::kLegacyBinary);
  EXPECT_EQ(XgboostEncodingOf(legacy.substr(4)), XgboostEncoding::kLegacyBinary);  // no "binf"
  EXPECT_THAT(XgboostError(legacy),
              HasSubstr("ranker.json: an XGBoost model in the legacy binary format (removed in "
                        "XGBoost 3.1), which calcjit does not read; convert it with XGBoost 3.0 "
                        "or older: xgboost.Booster(model_file=\"ranker.json\").save_model("));
  EXPECT_EQ(DetectModelFormat("model.bin", legacy), ModelFormat::kXgboostJson);
}

TEST(XgboostReaderTest, MalformedJson) {
  const std::string json = Model();
  EXPECT_THAT(XgboostError(json.substr(0, json.size() / 2)),
              HasSubstr("ranker.json: malformed JSON: parse error"));
  EXPECT_THAT(XgboostError(json.substr(0, json.size() / 2)), HasSubstr("unexpected end of input"));
  EXPECT_THAT(XgboostError("[1,2]"), HasSubstr("expected an object"));
  EXPECT_THAT(XgboostError(""), HasSubstr("malformed JSON"));
  EXPECT_THAT(XgboostError("{\"a\":" + std::string(100, '[') + std::string(100, ']') + "}"),
              HasSubstr("nested deeper than 64 levels"));
  EXPECT_THAT(
      XgboostError(R"({"learner":{"gradient_booster":{"model":{"trees":[{"left_children":)" +
                   std::string(100, '[')),
      HasSubstr("expected a number"));
}

TEST(XgboostReaderTest, WrongTypes) {
  EXPECT_THAT(XgboostError(Model(TreeWith("\"split_conditions\":[5E-1,-1E0,2E0]",
                                          "\"split_conditions\":\"0.5\""))),
              HasSubstr("ranker.json: learner.gradient_booster.model.trees[0].split_conditions: "
                        "expected an array"));
  EXPECT_THAT(XgboostError(Model(TreeWith("[1,-1,-1]", "[\"1\",-1,-1]"))),
              HasSubstr("trees[0].left_children[0]: expected an integer"));
  EXPECT_THAT(XgboostError(Model(TreeWith("[1,-1,-1]", "[1.5,-1,-1]"))),
              HasSubstr("trees[0].left_children[0]: expected an integer"));
  EXPECT_THAT(XgboostError(Model(TreeWith("[1,-1,-1]", "[1,-1,-1,-1]"))),
              HasSubstr("trees[0].left_children: has 4 entries for 3 nodes"));
  EXPECT_THAT(XgboostError(Model(TreeWith("\"default_left\":[1,0,0]", "\"default_left\":[2,0,0]"))),
              HasSubstr("trees[0].default_left[0]: expected 0 or 1"));
  EXPECT_THAT(XgboostError(Model(TreeWith("\"split_type\":[0,0,0]", "\"split_type\":[2,0,0]"))),
              HasSubstr("trees[0].split_type[0]: split type 2"));
  EXPECT_THAT(XgboostError(Model("{}")), HasSubstr("model.trees: expected an array"));
  EXPECT_THAT(XgboostError(Replace(Model(), "\"num_feature\":\"2\",\"num_target\"",
                                   "\"num_feature\":2,\"num_target\"")),
              HasSubstr("learner.learner_model_param.num_feature: expected a string"));
}

TEST(XgboostReaderTest, BadTreeStructure) {
  EXPECT_THAT(XgboostError(Model(TreeWith("[1,-1,-1]", "[5,-1,-1]"))),
              HasSubstr("trees[0].left_children[0]: child 5 of node 0 is not a node of the tree "
                        "(it has 3)"));
  EXPECT_THAT(XgboostError(Model(TreeWith("[1,-1,-1]", "[-7,-1,-1]"))),
              HasSubstr("is not a node of the tree"));
  // Node 1 points back to the root: a cycle.
  const std::string cycle =
      Replace(Replace(kTree, "\"left_children\":[1,-1,-1]", "\"left_children\":[1,0,-1]"),
              "\"right_children\":[2,-1,-1]", "\"right_children\":[2,2,-1]");
  EXPECT_THAT(XgboostError(Model("[" + cycle + "]")),
              HasSubstr("trees[0].left_children[1]: node 0 is reached twice from the root"));
  EXPECT_THAT(
      XgboostError(Model(TreeWith("\"right_children\":[2,-1,-1]", "\"right_children\":[1,-1,-1]"))),
      HasSubstr("trees[0].right_children[0]: node 1 is reached twice"));
  // Node 2 unreached and not marked deleted.
  const std::string unreached =
      Replace(Replace(kTree, "\"right_children\":[2,-1,-1]", "\"right_children\":[-1,-1,-1]"),
              "\"left_children\":[1,-1,-1]", "\"left_children\":[-1,-1,-1]");
  EXPECT_THAT(XgboostError(Model("[" + unreached + "]")),
              HasSubstr("trees[0].left_children: node 1 is not reached from the root"));
  // Marked deleted (split index 2147483647) they are accepted, if counted.
  const std::string deleted = Replace(Replace(unreached, "\"split_indices\":[1,0,0]",
                                              "\"split_indices\":[1,2147483647,2147483647]"),
                                      "\"num_deleted\":\"0\"", "\"num_deleted\":\"2\"");
  EXPECT_EQ(XgboostError(Model("[" + deleted + "]")), "no error");
  EXPECT_THAT(XgboostError(Model(
                  "[" + Replace(deleted, "\"num_deleted\":\"2\"", "\"num_deleted\":\"1\"") + "]")),
              HasSubstr("num_deleted is 1 but 2 nodes are not reached"));
}

TEST(XgboostReaderTest, OutOfRangeValues) {
  EXPECT_THAT(
      XgboostError(Model(TreeWith("\"split_indices\":[1,0,0]", "\"split_indices\":[7,0,0]"))),
      HasSubstr("trees[0].split_indices[0]: split feature 7 out of range (the model has 2 "
                "features)"));
  EXPECT_THAT(XgboostError(Model(TreeWith("[5E-1,-1E0,2E0]", "[NaN,-1E0,2E0]"))),
              HasSubstr("trees[0].split_conditions[0]: split threshold is NaN"));
  EXPECT_THAT(XgboostError(Model(TreeWith("[5E-1,-1E0,2E0]", "[5E-1,NaN,2E0]"))),
              HasSubstr("trees[0].split_conditions[1]: leaf value is NaN"));
  EXPECT_THAT(XgboostError(Model(TreeWith("\"num_nodes\":\"3\"", "\"num_nodes\":\"1000000000\""))),
              HasSubstr("more than 268435456 tree nodes"));
  EXPECT_THAT(XgboostError(Model(std::string("[") + kTree + "]", "[0]", "reg:squarederror",
                                 R"("5E-1")", "gbtree", "5")),
              HasSubstr("num_trees is '5' but the model has 1 trees"));
  EXPECT_THAT(XgboostError(Model(std::string("[") + kTree + "]", "[0,0]")),
              HasSubstr("model.tree_info: has 2 entries for 1 trees"));
  EXPECT_THAT(XgboostError(Model(std::string("[") + kTree + "]", "[1]")),
              HasSubstr("tree_info[0]: tree 0 adds to output group 1 of a model with 1"));
  EXPECT_THAT(XgboostError(Model(std::string("[") + kTree + "]", "[0]", "reg:squarederror",
                                 R"("5E-1")", "gbtree", "1", "[1,7,4]", R"(["a"])")),
              HasSubstr("learner.feature_names: has 1 names for 2 features"));
  const std::string huge(16, 'x');
  EXPECT_THAT(ReadXgboostJson(std::string_view(huge.data(), kMaxModelFileBytes + 1), "big.json")
                  .status()
                  .ToString(),
              HasSubstr("big.json: model file larger than 2 GiB"));
}

// Node 0 splits feature 0 by categories {1, 3, 40} (right), NaN left.
std::string CategoricalTree(const std::string& categories = "[1,3,40]",
                            const std::string& segments = "[0]", const std::string& sizes = "[3]") {
  std::string tree = Replace(kTree, "\"split_type\":[0,0,0]", "\"split_type\":[1,0,0]");
  tree = Replace(tree, "\"split_indices\":[1,0,0]", "\"split_indices\":[0,0,0]");
  tree = Replace(tree, "\"categories\":[]", "\"categories\":" + categories);
  tree = Replace(tree, "\"categories_nodes\":[]", "\"categories_nodes\":[0]");
  tree = Replace(tree, "\"categories_segments\":[]", "\"categories_segments\":" + segments);
  tree = Replace(tree, "\"categories_sizes\":[]", "\"categories_sizes\":" + sizes);
  return Replace(tree, "[5E-1,-1E0,2E0]", "[NaN,-1E0,2E0]");
}

TEST(XgboostReaderTest, CategoricalSplitsAsXgboost174) {
  Result<TreeEnsemble> model = ReadXgboostJson(Model("[" + CategoricalTree() + "]"), "c.json");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  // In the set: right (2 + 0.5); not in the set, negative, >= 2^24, beyond
  // the bitset: left (-1 + 0.5); NaN: default left.
  EXPECT_EQ(Margin(*model, 1.0f, 0), 2.5f);
  EXPECT_EQ(Margin(*model, 1.9f, 0), 2.5f);  // truncated to 1
  EXPECT_EQ(Margin(*model, 40.5f, 0), 2.5f);
  EXPECT_EQ(Margin(*model, 2.0f, 0), -0.5f);
  EXPECT_EQ(Margin(*model, -0.5f, 0), -0.5f);
  EXPECT_EQ(Margin(*model, -0.0f, 0), -0.5f);  // category 0, not in the set
  EXPECT_EQ(Margin(*model, 64.0f, 0), -0.5f);  // beyond the two words
  EXPECT_EQ(Margin(*model, 16777216.0f, 0), -0.5f);
  EXPECT_EQ(Margin(*model, INFINITY, 0), -0.5f);
  EXPECT_EQ(Margin(*model, NAN, 0), -0.5f);
}

// Issue 26, cause 5: a category near 2^24 asks for a 2 MiB bitset; a file of
// a few bytes per split could ask for gigabytes. The model's bitsets have a
// budget (kMaxCategoryWords, 64 MiB).
TEST(XgboostReaderTest, CategoryBitsetsHaveABudgetPerModel) {
  const std::string tree = CategoricalTree("[16777215]", "[0]", "[1]");
  std::string trees = "[", info = "[";
  for (int t = 0; t < 40; ++t) {
    trees += (t > 0 ? "," : "") + tree;
    info += t > 0 ? ",0" : "0";
  }
  trees += "]";
  info += "]";
  EXPECT_THAT(XgboostError(Model(trees, info, "reg:squarederror", R"("5E-1")", "gbtree", "40")),
              HasSubstr("categories: the model's categorical splits need more than 64 MiB of "
                        "category bitsets"));
  // Within the budget, a large category still works.
  Result<TreeEnsemble> one = ReadXgboostJson(Model("[" + tree + "]"), "c.json");
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(Margin(*one, 16777215.0f, 0), 2.5f);
  EXPECT_EQ(Margin(*one, 16777214.0f, 0), -0.5f);
}

TEST(XgboostReaderTest, BadCategoricalSets) {
  EXPECT_THAT(XgboostError(Model("[" + CategoricalTree("[1,16777216,40]") + "]")),
              HasSubstr("trees[0].categories[1]: category 16777216 out of range (0 to 16777215)"));
  EXPECT_THAT(XgboostError(Model("[" + CategoricalTree("[1,-3,40]") + "]")),
              HasSubstr("category -3 out of range"));
  EXPECT_THAT(
      XgboostError(Model("[" + CategoricalTree("[1,3,40]", "[2]") + "]")),
      HasSubstr("trees[0].categories_segments[0]: segment [2, 5) is not a non-empty range"));
  EXPECT_THAT(XgboostError(Model("[" + CategoricalTree("[1,3,40]", "[0]", "[0]") + "]")),
              HasSubstr("is not a non-empty range"));
  EXPECT_THAT(XgboostError(Model("[" + CategoricalTree("[1,3,40]", "[0,0]") + "]")),
              HasSubstr("differ in length"));
  EXPECT_THAT(
      XgboostError(Model(
          "[" + Replace(CategoricalTree(), "\"categories_nodes\":[0]", "\"categories_nodes\":[1]") +
          "]")),
      HasSubstr("categorical split 0 has no entry"));
}

// --- LightGBM ---

const char kLightgbm[] =
    "tree\nversion=v3\nnum_class=1\nnum_tree_per_iteration=1\nlabel_index=0\n"
    "max_feature_idx=1\nobjective=regression\nfeature_names=a b\nfeature_infos=none none\n\n"
    "Tree=0\nnum_leaves=3\nnum_cat=0\nsplit_feature=0 1\nsplit_gain=1 1\n"
    "threshold=0.5 -1\ndecision_type=2 8\nleft_child=1 -1\nright_child=-3 -2\n"
    "leaf_value=0.25 -0.5 1\nis_linear=0\nshrinkage=1\n\n\nend of trees\n\n"
    "feature_importances:\na=1\n";

std::string LightgbmError(const std::string& text) {
  Result<TreeEnsemble> model = ReadLightgbmText(text, "ranker.txt");
  if (model.ok()) return "no error";
  return model.status().ToString();
}

TEST(LightgbmReaderTest, ReadsAValidModel) {
  Result<TreeEnsemble> model = ReadLightgbmText(kLightgbm, "ranker.txt");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ(DescribeModel(model->info), "lightgbm: 1 tree, depth 2, 2 features, 1 output");
  EXPECT_THAT(model->info.feature_names, ::testing::ElementsAre("a", "b"));
  EXPECT_EQ(Margin(*model, 0.5f, -1.0f), 0.25f);  // <= goes left
  EXPECT_EQ(Margin(*model, 0.5f, -0.5f), -0.5f);
  EXPECT_EQ(Margin(*model, 0.5f, NAN), -0.5f);  // NaN missing, default right
  EXPECT_EQ(Margin(*model, 0.75f, 0), 1.0f);
  EXPECT_EQ(Margin(*model, NAN, -2.0f), 0.25f);  // missing none: NaN as 0
  // CRLF line ends read the same.
  std::string crlf;
  for (char c : std::string(kLightgbm)) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  EXPECT_EQ(LightgbmError(crlf), "no error");
}

TEST(LightgbmReaderTest, HostileFiles) {
  const std::string good = kLightgbm;
  EXPECT_THAT(LightgbmError("{\"not\": 1}"), HasSubstr("ranker.txt:1: not a LightGBM text model"));
  EXPECT_THAT(LightgbmError(Replace(good, "version=v3", "version=v2")),
              HasSubstr("ranker.txt:2: version 'v2' is not supported (v3 and v4 are)"));
  EXPECT_THAT(LightgbmError(good.substr(0, good.find("end of trees"))),
              HasSubstr("the file ends before 'end of trees' (truncated?)"));
  EXPECT_THAT(LightgbmError(good.substr(0, good.find("shrinkage"))),
              HasSubstr("the file ends before 'end of trees'"));
  EXPECT_THAT(LightgbmError(Replace(good, "threshold=0.5 -1", "threshold=0.5")),
              HasSubstr("ranker.txt:16: threshold has 1 entries, expected 2"));
  EXPECT_THAT(LightgbmError(Replace(good, "threshold=0.5 -1", "threshold=0.5x -1")),
              HasSubstr("threshold[0]: '0.5x' is not a valid number"));
  EXPECT_THAT(LightgbmError(Replace(good, "threshold=0.5 -1", "threshold=nan -1")),
              HasSubstr("Tree=0 threshold[0] is NaN"));
  EXPECT_THAT(LightgbmError(Replace(good, "left_child=1 -1", "left_child=4 -1")),
              HasSubstr("ranker.txt:18: Tree=0 left_child[0]: 4 is neither a split nor a leaf"));
  EXPECT_THAT(LightgbmError(Replace(good, "left_child=1 -1", "left_child=1 -9")),
              HasSubstr("left_child[1]: -9 is neither"));
  EXPECT_THAT(LightgbmError(Replace(good, "left_child=1 -1", "left_child=1 0")),
              HasSubstr("node 0 is reached twice from the root"));
  EXPECT_THAT(LightgbmError(Replace(good, "right_child=-3 -2", "right_child=-3 -1")),
              HasSubstr("leaf 0 is reached twice"));
  EXPECT_THAT(LightgbmError(Replace(good, "left_child=1 -1", "left_child=-2 -1")),
              HasSubstr("is not reached from the root"));
  EXPECT_THAT(LightgbmError(Replace(good, "decision_type=2 8", "decision_type=2 12")),
              HasSubstr("decision_type[1]: 12 is not a decision type"));
  EXPECT_THAT(LightgbmError(Replace(good, "split_feature=0 1", "split_feature=0 2")),
              HasSubstr("split_feature[1]: feature 2 out of range (the model has 2)"));
  EXPECT_THAT(LightgbmError(Replace(good, "is_linear=0", "is_linear=1")),
              HasSubstr("ranker.txt:21: Tree=0 is a linear tree (a model trained with "
                        "linear_tree=true), which calcjit does not evaluate"));
  EXPECT_THAT(LightgbmError(Replace(good, "num_tree_per_iteration=1", "num_tree_per_iteration=2")),
              HasSubstr("1 trees is not a multiple of num_tree_per_iteration 2"));
  EXPECT_THAT(LightgbmError(Replace(good, "feature_names=a b", "feature_names=a \xff")),
              HasSubstr("ranker.txt:8: feature_names[1] is not valid UTF-8"));
  EXPECT_THAT(LightgbmError(Replace(good, "feature_names=a b", "feature_names=a")),
              HasSubstr("feature_names has 1 names for 2 features"));
  EXPECT_THAT(LightgbmError(Replace(good, "num_leaves=3", "num_leaves=300000000")),
              HasSubstr("more than 268435456 tree nodes"));
  EXPECT_THAT(LightgbmError(Replace(good, "Tree=0", "Tree=1")), HasSubstr("expected 'Tree=0'"));
  EXPECT_THAT(LightgbmError(Replace(good, "leaf_value=0.25 -0.5 1", "leaf_value=0.25 nan 1")),
              HasSubstr("leaf_value[1] is NaN"));
}

// Issue 26, cause 6: a key given twice keeps its last value, in the header
// and in a tree, as LightGBM 4.7.0 does (tried on a model with a second
// feature_names= line, whose names LightGBM then reports, and a second
// leaf_value= line, whose values it then predicts).
TEST(LightgbmReaderTest, AKeyGivenTwiceKeepsItsLastValueAsInLightgbm) {
  const std::string twice =
      Replace(Replace(kLightgbm, "feature_names=a b\n", "feature_names=a b\nfeature_names=p q\n"),
              "leaf_value=0.25 -0.5 1\n", "leaf_value=0.25 -0.5 1\nleaf_value=4 5 6\n");
  Result<TreeEnsemble> model = ReadLightgbmText(twice, "ranker.txt");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_THAT(model->info.feature_names, ::testing::ElementsAre("p", "q"));
  EXPECT_EQ(Margin(*model, 0.5f, -1.0f), 4.0f);
  EXPECT_EQ(Margin(*model, 0.75f, 0), 6.0f);
  const std::string classes = Replace(kLightgbm, "num_tree_per_iteration=1\n",
                                      "num_tree_per_iteration=1\nnum_tree_per_iteration=2\n");
  EXPECT_THAT(LightgbmError(classes), HasSubstr("1 trees is not a multiple of "
                                                "num_tree_per_iteration 2"));
}

// LightGBM finds each tree at the offsets tree_sizes= gives and reads as many
// trees as it lists; a line that does not match the trees is refused.
TEST(LightgbmReaderTest, TreeSizesMustMatchTheTrees) {
  const std::size_t tree = std::string(kLightgbm).find("Tree=0");
  const std::size_t end = std::string(kLightgbm).find("end of trees");
  const std::string size = std::to_string(end - tree);
  const auto with_sizes = [](const std::string& sizes) {
    return Replace(kLightgbm, "feature_infos=none none\n",
                   "feature_infos=none none\ntree_sizes=" + sizes + "\n");
  };
  EXPECT_EQ(LightgbmError(with_sizes(size)), "no error");
  EXPECT_THAT(LightgbmError(with_sizes("0")),
              HasSubstr("ranker.txt:10: tree_sizes[0] is '0' but Tree=0 takes " + size +
                        " bytes (LightGBM finds each tree where tree_sizes says"));
  EXPECT_THAT(LightgbmError(with_sizes(size + " " + size)),
              HasSubstr("tree_sizes lists 2 trees but the file has 1 (LightGBM would read only "
                        "the trees tree_sizes lists)"));
}

// A real linear-tree model of LightGBM 4.7.0 (make_lightgbm_models.py).
TEST(LightgbmReaderTest, LinearTreesAreRefused) {
  const std::string path = std::string(CALCJIT_MODEL_DATA_DIR) + "/refused/lgb4_linear_tree.txt";
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(text.empty()) << path;
  EXPECT_THAT(LightgbmError(text), HasSubstr("Tree=0 is a linear tree"));
}

TEST(LightgbmReaderTest, CategoricalSplits) {
  std::string text = Replace(kLightgbm, "num_cat=0", "num_cat=1");
  text = Replace(text, "decision_type=2 8", "decision_type=1 8");
  text = Replace(text, "threshold=0.5 -1", "threshold=0 -1");
  text = Replace(text, "is_linear=0", "cat_boundaries=0 2\ncat_threshold=5 1\nis_linear=0");
  Result<TreeEnsemble> model = ReadLightgbmText(text, "cat.txt");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  // Categories {0, 2, 32} go left (to split 1, then leaf -0.5 for b = 0);
  // NaN, negatives, others and beyond: right (leaf 1).
  EXPECT_EQ(Margin(*model, 0.0f, 0), -0.5f);
  EXPECT_EQ(Margin(*model, -0.5f, 0), -0.5f);  // truncates to 0
  EXPECT_EQ(Margin(*model, 2.9f, 0), -0.5f);
  EXPECT_EQ(Margin(*model, 32.0f, 0), -0.5f);
  EXPECT_EQ(Margin(*model, 1.0f, 0), 1.0f);
  EXPECT_EQ(Margin(*model, -1.0f, 0), 1.0f);
  EXPECT_EQ(Margin(*model, 64.0f, 0), 1.0f);
  EXPECT_EQ(Margin(*model, 1e20f, 0), 1.0f);
  EXPECT_EQ(Margin(*model, NAN, 0), 1.0f);
  EXPECT_THAT(LightgbmError(Replace(text, "threshold=0 -1", "threshold=1 -1")),
              HasSubstr("a categorical split's threshold must be a bitset index from 0 to 0"));
  EXPECT_THAT(LightgbmError(Replace(text, "cat_boundaries=0 2", "cat_boundaries=1 2")),
              HasSubstr("cat_boundaries[0] must be 0"));
  EXPECT_THAT(LightgbmError(Replace(text, "cat_threshold=5 1", "cat_threshold=5")),
              HasSubstr("cat_threshold has 1 entries, expected 2"));
  EXPECT_THAT(LightgbmError(Replace(text, "cat_boundaries=0 2\n", "")),
              HasSubstr("Tree=0 has no cat_boundaries"));
}

// Every committed model cut short at random places and with random bytes
// changed: the readers return a model or an error naming the file, never
// crash (run under scripts/sanitize.sh for memory errors), and a model they
// accept evaluates.
TEST(HostileFilesTest, TruncatedAndCorruptedModelsGiveErrorsNotCrashes) {
  std::mt19937_64 rng(2026);
  int files = 0, errors = 0;
  for (const auto& entry : std::filesystem::directory_iterator(CALCJIT_MODEL_DATA_DIR)) {
    const bool ubjson = entry.path().extension() == ".ubj";
    const bool xgboost = ubjson || entry.path().extension() == ".json";
    if (!xgboost && entry.path().extension() != ".txt") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string good((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ++files;
    for (int round = 0; round < 60; ++round) {
      std::string bad = good;
      if (round % 3 == 0) {
        bad.resize(rng() % bad.size());
      } else {
        const int changes = 1 + static_cast<int>(rng() % 4);
        for (int c = 0; c < changes; ++c) {
          static constexpr char kBytes[] = "0123456789-.eE,[]{}\":NaInfity \n=";
          // UBJSON: any byte (markers, lengths, counts, float bits).
          bad[rng() % bad.size()] =
              ubjson ? static_cast<char>(rng()) : kBytes[rng() % (sizeof kBytes - 1)];
        }
      }
      Result<TreeEnsemble> model =
          xgboost ? ReadXgboostJson(bad, "bad.json") : ReadLightgbmText(bad, "bad.txt");
      if (!model.ok()) {
        ++errors;
        EXPECT_EQ(model.status().location().rfind(xgboost ? "bad.json" : "bad.txt", 0), 0u)
            << model.status().ToString();
        continue;
      }
      std::vector<float> row(model->info.num_features, 0.5f);
      std::vector<float> out(model->info.num_outputs);
      EvaluateReferenceRow(*model, row.data(), out.data());
    }
  }
  EXPECT_GT(files, 20);
  EXPECT_GT(errors, files * 20);
}

}  // namespace
}  // namespace calcjit::model
