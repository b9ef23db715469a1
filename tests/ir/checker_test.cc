// The checks of spec section 5, each with its message and its location: a
// line:column in the text syntax, a field path in protobuf and JSON. The JSON
// sets are written by hand so that the expected field paths are checked; the
// binary protobuf of each is made by libprotobuf from the same JSON (an
// independent encoder), and must give exactly the JSON errors.
#include <gmock/gmock.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "calcjit/engine.h"
#include "calcjit/feature_set.h"
#include "calcjit/v1/feature_set.pb.h"
#include "dsl/text_parser.h"
#include "ir/checked_set.h"
#include "ir/limits.h"
#include "ir/op.h"
#include "runtime/internal.h"
#include "tests/dsl/ir_test_util.h"

namespace calcjit {
namespace {

using ir_test::ErrorsOf;
using ir_test::ExprBuilder;
using ir_test::OnlyErrorOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

// The binary protobuf of a JSON set, encoded by libprotobuf.
std::string ProtoFromJson(const std::string& json) {
  v1::FeatureSet message;
  const auto status = google::protobuf::util::JsonStringToMessage(json, &message);
  EXPECT_TRUE(status.ok()) << "libprotobuf rejects the test's JSON: " << status.ToString() << "\n"
                           << json;
  return message.SerializeAsString();
}

// The errors of a JSON set, after checking that its binary protobuf gives
// exactly the same ones (spec section 5: protobuf and JSON give the same
// field paths).
std::vector<std::string> WireErrorsOf(const std::string& json) {
  const std::vector<std::string> json_errors = ErrorsOf(json, Format::kJson);
  const std::vector<std::string> proto_errors = ErrorsOf(ProtoFromJson(json), Format::kProto);
  EXPECT_EQ(json_errors, proto_errors) << "JSON and binary protobuf disagree on\n" << json;
  return json_errors;
}

std::string OnlyWireErrorOf(const std::string& json) {
  const std::vector<std::string> errors = WireErrorsOf(json);
  if (errors.size() == 1) return errors.front();
  std::string out = std::to_string(errors.size()) + " errors:";
  for (const std::string& e : errors) out += "\n  " + e;
  return out;
}

// A JSON set with the given inputs and features arrays (their contents).
std::string JsonSet(const std::string& inputs, const std::string& features) {
  return R"({"inputs": [)" + inputs + R"(], "features": [)" + features + "]}";
}
std::string JsonFeature(const std::string& name, const std::string& expression) {
  return R"({"name": ")" + name + R"(", "expression": )" + expression + "}";
}
std::string JsonRef(const std::string& name) {
  return R"({"feature": ")" + name + R"("})";
}

// ---------------------------------------------------------------------------
// Cycles: an error that names every feature on the cycle.

TEST(CheckerCycles, TwoCycleNamesBothFeatures) {
  EXPECT_EQ(OnlyErrorOf("a = b;\nb = a;"), "1:1: cycle: 'a' -> 'b' -> 'a'");
  EXPECT_EQ(OnlyWireErrorOf(
                JsonSet("", JsonFeature("a", JsonRef("b")) + "," + JsonFeature("b", JsonRef("a")))),
            "features[0]: cycle: 'a' -> 'b' -> 'a'");
}

TEST(CheckerCycles, ThreeCycleNamesEveryFeatureInOrder) {
  EXPECT_EQ(OnlyErrorOf("a = b + 1;\nb = c * 2;\nc = -a;"), "1:1: cycle: 'a' -> 'b' -> 'c' -> 'a'");
  EXPECT_EQ(OnlyErrorOf("x = 1;\nc = -a;\na = b + x;\nb = c * 2;"),
            "2:1: cycle: 'c' -> 'a' -> 'b' -> 'c'");
}

TEST(CheckerCycles, SelfReferenceIsACycle) {
  EXPECT_EQ(OnlyErrorOf("x = 1;\na = x + abs(a);"), "2:1: cycle: 'a' -> 'a'");
  EXPECT_EQ(OnlyWireErrorOf(JsonSet(
                "", JsonFeature("x", R"({"constant": 1})") + "," +
                        JsonFeature("a", R"({"unary": {"operator": "OPERATOR_ABS", "operand": )" +
                                             JsonRef("a") + "}}"))),
            "features[1]: cycle: 'a' -> 'a'");
}

TEST(CheckerCycles, ACycleAmongAcyclicFeaturesNamesOnlyItsMembers) {
  const std::string source =
      "x = 1;\n"
      "y = x * 2;\n"
      "p = q + x;\n"
      "z = y + p;\n"
      "q = r;\n"
      "r = p;\n"
      "w = z + y;\n";
  EXPECT_EQ(OnlyErrorOf(source), "3:1: cycle: 'p' -> 'q' -> 'r' -> 'p'");
}

TEST(CheckerCycles, EveryFeatureOfAKnotIsNamed) {
  // a <-> b and a <-> c: one strongly connected knot of three features.
  const std::string error = OnlyErrorOf("a = b + c;\nb = a;\nc = a;");
  EXPECT_EQ(error, "1:1: cycle: 'a' -> 'b' -> 'a'; also caught in it: 'c'");
  EXPECT_THAT(error, HasSubstr("'a'"));
  EXPECT_THAT(error, HasSubstr("'b'"));
  EXPECT_THAT(error, HasSubstr("'c'"));
}

TEST(CheckerCycles, SeparateCyclesAreSeparateErrors) {
  EXPECT_THAT(
      ErrorsOf("a = b;\nb = a;\nok = 1;\nc = d;\nd = e;\ne = c;\nf = f;"),
      UnorderedElementsAre("1:1: cycle: 'a' -> 'b' -> 'a'", "4:1: cycle: 'c' -> 'd' -> 'e' -> 'c'",
                           "7:1: cycle: 'f' -> 'f'"));
}

TEST(CheckerCycles, FeaturesThatOnlyUseACycleAreNotNamed) {
  const std::string error = OnlyErrorOf("user = a + 1;\na = b;\nb = a;\nuser2 = user;");
  EXPECT_EQ(error, "2:1: cycle: 'a' -> 'b' -> 'a'");
}

TEST(CheckerCycles, ForwardReferencesWithoutACycleAreFine) {
  EXPECT_THAT(ErrorsOf("a = b + c;\nb = c * 2;\nc = 1;"), IsEmpty());
}

// ---------------------------------------------------------------------------
// Names: redefinitions, inputs.

TEST(CheckerNames, RedefiningAFeatureIsAnError) {
  EXPECT_EQ(OnlyErrorOf("f = 1;\ng = f;\nf = 2;"), "3:1: 'f' is defined twice (first at 1:1)");
  EXPECT_EQ(OnlyWireErrorOf(JsonSet("", JsonFeature("f", R"({"constant": 1})") + "," +
                                            JsonFeature("f", R"({"constant": 2})"))),
            "features[1].name: 'f' is defined twice (first at features[0])");
}

TEST(CheckerNames, DefiningADeclaredInputIsAnError) {
  EXPECT_EQ(OnlyErrorOf("input a;\na = 1;"),
            "2:1: 'a' is declared as an input (at 1:7) and cannot be defined");
  EXPECT_EQ(OnlyErrorOf("a = 1;\ninput a: query;"),
            "1:1: 'a' is declared as an input (at 2:7) and cannot be defined");
  EXPECT_EQ(OnlyWireErrorOf(JsonSet(R"({"name": "a"})", JsonFeature("a", R"({"constant": 1})"))),
            "features[0].name: 'a' is declared as an input (at inputs[0]) and cannot be defined");
}

TEST(CheckerNames, DeclaringAnInputTwiceIsAnError) {
  EXPECT_EQ(OnlyErrorOf("input a;\ninput b;\ninput a: query;"),
            "3:7: input 'a' is declared twice (first at 1:7)");
  EXPECT_EQ(OnlyWireErrorOf(JsonSet(R"({"name": "a"}, {"name": "a", "scope": "SCOPE_QUERY"})", "")),
            "inputs[1].name: input 'a' is declared twice (first at inputs[0])");
}

// ---------------------------------------------------------------------------
// Vectors and columns.

TEST(CheckerVectors, AVectorInputUsedAsAColumnIsAnError) {
  EXPECT_EQ(
      OnlyErrorOf("input v: item[3];\nf = 1 + v;"),
      "2:9: vector input 'v' is used as a column; use it in dot, cosine, l2_distance or norm");
  EXPECT_EQ(
      OnlyWireErrorOf(JsonSet(
          R"({"name": "v", "scope": "SCOPE_QUERY", "dimension": 3})",
          JsonFeature("ok", R"({"constant": 1})") + "," +
              JsonFeature("f", R"({"binary": {"operator": "OPERATOR_SUM", "lhs": {"constant": 1},
                                   "rhs": {"feature": "v"}}})"))),
      "features[1].expression.binary.rhs.feature: vector input 'v' is used as a column; use it "
      "in dot, cosine, l2_distance or norm");
}

TEST(CheckerVectors, AFeatureUsedAsAVectorIsAnError) {
  EXPECT_EQ(OnlyErrorOf("g = 1;\nf = norm(g);"),
            "2:5: 'g' is a calculated feature (a column), not a vector input");
  EXPECT_EQ(
      OnlyWireErrorOf(JsonSet(
          "", JsonFeature("g", R"({"constant": 1})") + "," +
                  JsonFeature("f", R"({"vector": {"operator": "OPERATOR_NORM", "lhs": "g"}})"))),
      "features[1].expression.vector.lhs: 'g' is a calculated feature (a column), not a "
      "vector input");
}

TEST(CheckerVectors, AScalarInputUsedAsAVectorIsAnError) {
  EXPECT_EQ(OnlyErrorOf("input u: item[2];\ninput s: query;\nf = dot(u, s);"),
            "3:5: input 's' is a scalar (a column), not a vector; dot takes vector inputs");
  EXPECT_EQ(OnlyWireErrorOf(
                JsonSet(R"({"name": "u", "dimension": 2}, {"name": "s"})",
                        JsonFeature("f", R"({"vector": {"operator": "OPERATOR_DOT", "lhs": "u",
                                     "rhs": "s"}})"))),
            "features[0].expression.vector.rhs: input 's' is a scalar (a column), not a vector; "
            "dot takes vector inputs");
}

TEST(CheckerVectors, AnUndeclaredNameUsedAsAVectorIsAnError) {
  EXPECT_EQ(OnlyErrorOf("input u: item[2];\nf = cosine(u, w);"),
            "2:5: 'w' is not a declared vector input (declare it, e.g. input w: item[D];)");
  // Also when the name is an implicit input elsewhere.
  EXPECT_EQ(OnlyErrorOf("f = w + 1;\ng = norm(w);"),
            "2:5: 'w' is not a declared vector input (declare it, e.g. input w: item[D];)");
  EXPECT_EQ(OnlyWireErrorOf(
                JsonSet("", JsonFeature("f", R"({"vector": {"operator": "OPERATOR_L2_DISTANCE",
                                        "lhs": "w", "rhs": "w"}})"))),
            "2 errors:\n"
            "  features[0].expression.vector.lhs: 'w' is not a declared vector input (declare it, "
            "e.g. input w: item[D];)\n"
            "  features[0].expression.vector.rhs: 'w' is not a declared vector input (declare it, "
            "e.g. input w: item[D];)");
}

TEST(CheckerVectors, MismatchedDimensionsAreAnError) {
  const std::string inputs = "input u: item[3];\ninput v: query[4];\n";
  EXPECT_EQ(OnlyErrorOf(inputs + "f = dot(u, v);"),
            "3:5: dot of vectors of different dimensions: 'u' has 3, 'v' has 4");
  EXPECT_EQ(OnlyErrorOf(inputs + "f = 1 - cosine(v, u);"),
            "3:9: cosine of vectors of different dimensions: 'v' has 4, 'u' has 3");
  EXPECT_EQ(OnlyErrorOf(inputs + "f = l2_distance(u, v);"),
            "3:5: l2_distance of vectors of different dimensions: 'u' has 3, 'v' has 4");
  EXPECT_THAT(ErrorsOf(inputs + "f = dot(u, u) + dot(v, v);"), IsEmpty());
  EXPECT_EQ(
      OnlyWireErrorOf(JsonSet(R"({"name": "u", "dimension": 3}, {"name": "v", "dimension": 4})",
                              JsonFeature("f", R"({"unary": {"operator": "OPERATOR_NEG", "operand":
                                     {"vector": {"operator": "OPERATOR_DOT", "lhs": "u",
                                                 "rhs": "v"}}}})"))),
      "features[0].expression.unary.operand.vector: dot of vectors of different "
      "dimensions: 'u' has 3, 'v' has 4");
}

TEST(CheckerVectors, NormWithASecondOperandIsAnError) {
  EXPECT_EQ(OnlyErrorOf("input u: item[3];\ninput v: item[3];\nf = norm(u, v);"),
            "3:5: norm takes one operand, but has a second");
  EXPECT_EQ(OnlyWireErrorOf(
                JsonSet(R"({"name": "u", "dimension": 3}, {"name": "v", "dimension": 3})",
                        JsonFeature("f", R"({"vector": {"operator": "OPERATOR_NORM", "lhs": "u",
                                     "rhs": "v"}})"))),
            "features[0].expression.vector.rhs: norm takes one operand, but has a second");
}

TEST(CheckerVectors, DotWithoutItsRightOperandIsAnError) {
  EXPECT_EQ(OnlyErrorOf("input u: item[3];\nf = dot(u);"), "2:5: dot is missing its rhs operand");
  EXPECT_EQ(OnlyWireErrorOf(JsonSet(R"({"name": "u", "dimension": 3})",
                                    JsonFeature("f", R"({"vector": {"operator": "OPERATOR_DOT",
                                                         "lhs": "u"}})"))),
            "features[0].expression.vector.rhs: dot is missing its rhs operand");
  EXPECT_EQ(OnlyWireErrorOf(JsonSet(R"({"name": "u", "dimension": 3})",
                                    JsonFeature("f", R"({"vector": {"operator": "OPERATOR_COSINE",
                                                         "rhs": "u"}})"))),
            "features[0].expression.vector.lhs: cosine is missing its lhs operand");
}

// ---------------------------------------------------------------------------
// Nary.

TEST(CheckerNary, WeightedSumNeedsOneWeightPerOperand) {
  EXPECT_EQ(OnlyErrorOf("f = weighted_sum([1, 2, 3], a, b);"),
            "1:5: weighted_sum needs one weight per operand: 3 weights for 2 operands");
  EXPECT_EQ(
      OnlyWireErrorOf(JsonSet("", JsonFeature("f", R"({"nary": {"operator": "OPERATOR_WEIGHTED_SUM",
                                       "operands": [{"feature": "a"}, {"feature": "b"}],
                                       "weights": [0.5]}})"))),
      "features[0].expression.nary.weights: weighted_sum needs one weight per operand: 1 "
      "weights for 2 operands");
}

TEST(CheckerNary, OnlyWeightedSumTakesWeights) {
  EXPECT_EQ(OnlyWireErrorOf(JsonSet("", JsonFeature("f", R"({"binary": {"operator": "OPERATOR_MUL",
                                       "lhs": {"constant": 2},
                                       "rhs": {"nary": {"operator": "OPERATOR_MEAN",
                                               "operands": [{"feature": "a"}],
                                               "weights": [0.5]}}}})"))),
            "features[0].expression.binary.rhs.nary.weights: mean takes no weights (only "
            "weighted_sum does)");
  for (const char* op : {"SUM", "PRODUCT", "MIN", "MAX"}) {
    const std::vector<std::string> errors = WireErrorsOf(
        JsonSet("", JsonFeature("f", std::string(R"({"nary": {"operator": "OPERATOR_)") + op +
                                         R"(", "operands": [{"feature": "a"}, {"feature": "b"}],
                                             "weights": [1, 2]}})")));
    ASSERT_EQ(errors.size(), 1u) << op;
    EXPECT_THAT(errors[0], HasSubstr("takes no weights (only weighted_sum does)")) << op;
    EXPECT_THAT(errors[0], ::testing::StartsWith("features[0].expression.nary.weights: ")) << op;
  }
}

TEST(CheckerNary, NaryNeedsAtLeastOneOperand) {
  EXPECT_EQ(OnlyErrorOf("f = 1 + sum();"), "1:9: sum needs at least one operand");
  EXPECT_EQ(OnlyErrorOf("f = mean();"), "1:5: mean needs at least one operand");
  EXPECT_EQ(OnlyErrorOf("f = max();"), "1:5: max needs at least one operand");
  // The wire readers reject it before the checker.
  EXPECT_EQ(OnlyWireErrorOf(
                JsonSet("", JsonFeature("f", R"({"nary": {"operator": "OPERATOR_PRODUCT"}})"))),
            "features[0].expression.nary.operands: Nary has no operands (it needs at least one)");
  // The checker on its own, for a set built by any other reader.
  ExprBuilder b(ir::SourceFormat::kJson);
  b.Define("ok", b.Const(1));
  b.Define("f", b.Op(ir::Op::kAdd, {b.Const(1), b.Nary(ir::Op::kProduct, {}, {})}));
  Result<ir::CheckedSet> checked = ir::Check(std::move(b).Finish());
  ASSERT_FALSE(checked.ok());
  EXPECT_THAT(ir_test::Lines(checked.status()),
              ElementsAre("features[1].expression.binary.rhs.nary.operands: product needs at "
                          "least one operand"));
}

// ---------------------------------------------------------------------------
// Unspecified operators (the readers report them, section 5).

TEST(CheckerOperators, AnUnspecifiedOperatorIsAnError) {
  EXPECT_EQ(OnlyWireErrorOf(
                JsonSet("", JsonFeature("f", R"({"binary": {"operator": "OPERATOR_UNSPECIFIED",
                                       "lhs": {"constant": 1}, "rhs": {"constant": 2}}})"))),
            "features[0].expression.binary.operator: Binary operator is OPERATOR_UNSPECIFIED "
            "(not set)");
  EXPECT_EQ(OnlyWireErrorOf(
                JsonSet("", JsonFeature("g", R"({"constant": 1})") + "," +
                                JsonFeature("f", R"({"conditional": {"condition": {"constant": 1},
                                       "then": {"aggregate": {"operand": {"feature": "a"}}},
                                       "otherwise": {"constant": 2}}})"))),
            "features[1].expression.conditional.then.aggregate.operator: Aggregate operator is "
            "OPERATOR_UNSPECIFIED (not set)");
}

// ---------------------------------------------------------------------------
// Models (spec section 6.1): the errors that need no model file.

std::string JsonModels(const std::string& models, const std::string& features) {
  return R"({"models": [)" + models + R"(], "features": [)" + features + "]}";
}

TEST(CheckerModels, DeclarationErrorsAtTheirFieldPath) {
  EXPECT_EQ(OnlyWireErrorOf(JsonModels(R"({"name": "m", "path": "m.json"})", "")),
            "models[0].format: model format is FORMAT_UNSPECIFIED (not set)");
  EXPECT_EQ(OnlyWireErrorOf(JsonModels(
                R"({"name": "a", "path": "a.json", "format": "FORMAT_ONNX"},
                   {"name": "m", "path": "m.json", "format": "FORMAT_UNSPECIFIED"})",
                "")),
            "models[1].format: model format is FORMAT_UNSPECIFIED (not set)");
  EXPECT_EQ(OnlyWireErrorOf(JsonModels(R"({"name": "m", "path": "m.json", "format": 7})", "")),
            "models[0].format: unknown Format value 7");
  EXPECT_EQ(OnlyWireErrorOf(JsonModels(R"({"path": "m.json", "format": 1})", "")),
            "models[0].name: model name is empty");
  EXPECT_EQ(OnlyWireErrorOf(JsonModels(R"({"name": "m", "path": "a\nb", "format": 1})", "")),
            "models[0].path: a model path cannot contain a line break");
  EXPECT_EQ(OnlyWireErrorOf(JsonModels(R"({"name": "m", "path": "a.json", "format": 1},
                                          {"name": "n", "path": "n.txt", "format": 2},
                                          {"name": "m", "path": "b.json", "format": 3})",
                                       "")),
            "models[2].name: model 'm' is declared twice (first at models[0])");
}

TEST(CheckerModels, CallErrorsAtTheirFieldPath) {
  const std::string ranker = R"({"name": "ranker", "path": "r.json", "format": 1})";
  EXPECT_EQ(OnlyWireErrorOf(JsonModels(
                ranker, JsonFeature("f", R"({"unary": {"operator": "OPERATOR_NEG", "operand":
                                       {"model": {"name": "rank", "output": 1}}}})"))),
            "features[0].expression.unary.operand.model.name: unknown model 'rank' (declare it, "
            "e.g. model rank = xgboost(\"rank.json\");)");
  EXPECT_EQ(OnlyWireErrorOf(JsonModels(
                ranker, JsonFeature("f", R"({"model": {"inputs": [{"feature": "x"}]}})"))),
            "features[0].expression.model.name: model name is empty");
  // The inputs are expressions like any other, at their own paths.
  EXPECT_EQ(
      OnlyWireErrorOf(JsonModels(ranker, JsonFeature("f", R"({"model": {"name": "ranker", "inputs":
                  [{"feature": "x"}, {"binary": {"operator": 1, "lhs": {"constant": 1}}}]}})"))),
      "features[0].expression.model.inputs[1].binary.rhs: missing operand: Binary.rhs is "
      "not set");
  // Well formed: no error.
  EXPECT_THAT(WireErrorsOf(JsonModels(
                  ranker, JsonFeature("f", R"({"model": {"name": "ranker", "output": 4294967295,
                                         "inputs": [{"feature": "x"}, {"constant": 2}]}})"))),
              IsEmpty());
}

TEST(CheckerModels, TextErrorsAtTheirLineAndColumn) {
  EXPECT_THAT(ErrorsOf("model m = xgboost(\"a\");\n"
                       "model m = onnx(\"b\");\n"
                       "f = model(n, x)[0] + model(m)[1];\n"
                       "g = model(n)[2];\n"),
              ElementsAre("2:7: model 'm' is declared twice (first at 1:7)",
                          "3:5: unknown model 'n' (declare it, e.g. model n = "
                          "xgboost(\"n.json\");)",
                          "4:5: unknown model 'n' (declare it, e.g. model n = "
                          "xgboost(\"n.json\");)"));
  // A vector input is not a column, inside a model call too.
  EXPECT_EQ(OnlyErrorOf("input v: item[2];\nmodel m = xgboost(\"m\");\nf = model(m, v)[0];"),
            "3:14: vector input 'v' is used as a column; use it in dot, cosine, l2_distance or "
            "norm");
  // Model names are their own namespace.
  EXPECT_THAT(ErrorsOf("input m;\nmodel m = xgboost(\"m\");\nf = model(m, m)[0];\nm2 = m;"),
              IsEmpty());
}

// A set read without its models (LoadOptions::load_models false) can be
// printed and converted, but an engine that needs a model call cannot be
// compiled from it.
TEST(CheckerModels, EngineCompilationRefusesAModelCallOfAnUnloadedModel) {
  Result<FeatureSet> set =
      FeatureSet::Parse("model m = xgboost(\"m.json\");\nf = 1 + model(m, x)[0];\ng = x * 2;",
                        Format::kText, ir_test::NoModels());
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  for (const Backend backend : {Backend::kReference, Backend::kVm, Backend::kJit, Backend::kAuto}) {
    if (!IsBackendAvailable(backend)) continue;
    EngineOptions options;
    options.backend = backend;
    const Result<Engine> engine = Engine::Compile(*set, options);
    ASSERT_FALSE(engine.ok());
    EXPECT_EQ(engine.status().kind(), ErrorKind::kUser);
    EXPECT_EQ(ir_test::Lines(engine.status()),
              std::vector<std::string>{
                  "2:9: model 'm' is not loaded: read the set with its models to evaluate it"});
    options.outputs = {"g"};  // needs no model
    EXPECT_TRUE(Engine::Compile(*set, options).ok());
  }
}

// The hook where loaded models meet their calls: the shapes a model reader
// gives (here written by hand).
Result<ir::CheckedSet> CheckWithShapes(std::string_view text,
                                       const std::vector<ir::ModelShape>& shapes) {
  Result<ir::FeatureSetIr> ir = dsl::ReadText(text);
  if (!ir.ok()) return ir.status();
  return ir::Check(std::move(ir).value(), shapes);
}

std::vector<std::string> ShapeErrorsOf(std::string_view text,
                                       const std::vector<ir::ModelShape>& shapes) {
  const Result<ir::CheckedSet> set = CheckWithShapes(text, shapes);
  return set.ok() ? std::vector<std::string>{} : ir_test::Lines(set.status());
}

TEST(CheckerModels, LoadedShapesCheckInputCountsAndOutputIndices) {
  const std::vector<ir::ModelShape> shapes = {{3, 1, {}}, {2, 4, {"price", "f"}}};
  const std::string models = "model a = xgboost(\"a\");\nmodel b = onnx(\"b\");\n";
  EXPECT_THAT(ShapeErrorsOf(models + "f = model(a, x, y, z)[0] + model(b, x, y)[3];", shapes),
              IsEmpty());
  EXPECT_THAT(ShapeErrorsOf(models + "f = model(a, x, y)[0];\ng = model(b, x)[4];", shapes),
              ElementsAre("3:5: model 'a' has 3 features, but this call gives it 2 inputs",
                          "4:5: model 'b' has 4 outputs, so output 4 is beyond them (outputs "
                          "count from 0)",
                          "4:5: model 'b' has 2 features, but this call gives it 1 input"));
  // A model without features takes no inputs.
  EXPECT_THAT(ShapeErrorsOf("model z = onnx(\"z\");\nf = model(z)[0];", {{0, 1, {}}}), IsEmpty());
  EXPECT_THAT(ShapeErrorsOf("model z = onnx(\"z\");\nf = model(z, x)[0];", {{0, 1, {}}}),
              ElementsAre("2:5: model 'z' has 0 features, but this call gives it 1 input"));
  EXPECT_THAT(ShapeErrorsOf(models + "f = model(a)[1];", shapes),
              ElementsAre("3:5: model 'a' has 1 output, so output 1 is beyond them (outputs "
                          "count from 0)",
                          "3:5: model 'a' has 3 features and its file does not name them, so the "
                          "call must list its inputs"));
}

TEST(CheckerModels, ACallWithoutInputsTakesTheModelsFeatureNames) {
  const std::vector<ir::ModelShape> shapes = {{2, 1, {"price", "f"}}};
  Result<ir::CheckedSet> set =
      CheckWithShapes("input price;\nmodel b = onnx(\"b\");\nf = 2 * x;\ng = model(b)[0];", shapes);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  ASSERT_EQ(set->implied_inputs.size(), 1u);
  std::vector<std::string> names;
  for (const ir::NameId name : set->implied_inputs[0].names) names.push_back(set->ir.NameOf(name));
  EXPECT_EQ(names, (std::vector<std::string>{"price", "f"}));
  // g uses f through the model's feature names: f comes first.
  EXPECT_EQ(set->DirectDependencies(1), (std::vector<std::uint32_t>{0}));
  EXPECT_EQ(set->topo_order, (std::vector<std::uint32_t>{0, 1}));
  // A name neither declared nor defined is an implicit input, as in section 5.
  Result<ir::CheckedSet> implicit =
      CheckWithShapes("model b = onnx(\"b\");\ng = model(b)[0] + y;", {{2, 1, {"rating", "y"}}});
  ASSERT_TRUE(implicit.ok()) << implicit.status().ToString();
  ASSERT_EQ(implicit->schema.inputs.size(), 2u);
  EXPECT_EQ(implicit->schema.inputs[0].name, "rating");
  EXPECT_EQ(implicit->schema.inputs[1].name, "y");
  // ... and a cycle through them is one.
  EXPECT_THAT(ShapeErrorsOf("model b = onnx(\"b\");\ng = model(b)[0];", {{1, 1, {"g"}}}),
              ElementsAre("2:1: cycle: 'g' -> 'g'"));
}

// ---------------------------------------------------------------------------
// Limits: a name at most 1 KiB, a dimension at most 65,536, at most 10^6
// expression nodes in a set.

TEST(CheckerLimits, ANameOfOneKibibyteIsAccepted) {
  const std::string name(1024, 'n');
  EXPECT_THAT(ErrorsOf("input " + name + ";\nf = " + name + " + 1;\n" + name + "x = 1;"),
              ::testing::SizeIs(1));  // only the 1025-byte definition name
  EXPECT_THAT(ErrorsOf("input " + name + ";\n`" + std::string(1023, 'm') + "é` = " + name + ";"),
              ::testing::SizeIs(1));  // 1023 + 2 bytes
  EXPECT_THAT(
      ErrorsOf("input " + name + ";\nf = " + name + ";\n" + std::string(1024, 'g') + " = f;"),
      IsEmpty());
  // 512 two-byte characters are 1 KiB.
  std::string wide;
  for (int i = 0; i < 512; ++i) wide += "é";
  EXPECT_THAT(ErrorsOf("`" + wide + "` = 1;"), IsEmpty());
}

TEST(CheckerLimits, ANameOneByteLongerIsAnErrorWherever) {
  const std::string name(1025, 'n');
  const std::string shown = "'" + std::string(60, 'n') + "...'";
  EXPECT_EQ(OnlyErrorOf("input " + name + ";"),
            "1:7: name " + shown + " is longer than 1024 bytes");
  EXPECT_EQ(OnlyErrorOf(name + " = 1;"), "1:1: name " + shown + " is longer than 1024 bytes");
  EXPECT_EQ(OnlyErrorOf("f = 2 * " + name + ";"),
            "1:9: name " + shown + " is longer than 1024 bytes");
  std::string wide;
  for (int i = 0; i < 512; ++i) wide += "é";
  EXPECT_THAT(OnlyErrorOf("`" + wide + "a` = 1;"), HasSubstr("is longer than 1024 bytes"));
  EXPECT_EQ(OnlyWireErrorOf(JsonSet(R"({"name": ")" + name + R"("})", "")),
            "inputs[0].name: name " + shown + " is longer than 1024 bytes");
  EXPECT_EQ(OnlyWireErrorOf(JsonSet("", JsonFeature(name, R"({"constant": 1})"))),
            "features[0].name: name " + shown + " is longer than 1024 bytes");
  EXPECT_EQ(OnlyWireErrorOf(JsonSet("", JsonFeature("f", JsonRef(name)))),
            "features[0].expression.feature: name " + shown + " is longer than 1024 bytes");
}

TEST(CheckerLimits, DimensionOf65536IsAcceptedAnd65537IsAnError) {
  EXPECT_THAT(ErrorsOf("input v: item[65536];\nf = norm(v);"), IsEmpty());
  EXPECT_EQ(OnlyErrorOf("input v: item[65537];"),
            "1:7: input 'v' has dimension 65537, above the limit of 65536");
  EXPECT_THAT(WireErrorsOf(JsonSet(R"({"name": "v", "dimension": 65536})", "")), IsEmpty());
  EXPECT_EQ(OnlyWireErrorOf(JsonSet(R"({"name": "ok"}, {"name": "v", "dimension": 65537})", "")),
            "inputs[1].dimension: input 'v' has dimension 65537, above the limit of 65536");
}

TEST(CheckerLimits, OnlyScalarInputsHaveADefault) {
  EXPECT_EQ(OnlyErrorOf("input v: query[2] = 1;"),
            "1:7: vector input 'v' has a default value; only scalars can have one");
  EXPECT_EQ(OnlyWireErrorOf(JsonSet(R"({"name": "v", "dimension": 2, "default_value": 0})", "")),
            "inputs[0].default_value: vector input 'v' has a default value; only scalars can "
            "have one");
}

std::string SumOf(std::size_t operands) {
  std::string text = "sum(x";
  text.reserve(operands * 3 + 8);
  for (std::size_t i = 1; i < operands; ++i) text += ",x";
  return text + ")";
}

TEST(CheckerLimits, AMillionNodesInASetAreAcceptedAndOneMoreIsAnError) {
  static_assert(ir::kMaxNodes == 1'000'000);
  // Two definitions of 500,000 nodes each (a Nary and its operands).
  EXPECT_THAT(ErrorsOf("f = " + SumOf(499'999) + ";\ng = " + SumOf(499'999) + ";"), IsEmpty());
  const std::vector<std::string> errors =
      ErrorsOf("f = " + SumOf(499'999) + ";\ng = " + SumOf(500'000) + ";");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], HasSubstr("more than 1000000 expression nodes"));
  EXPECT_THAT(errors[0], ::testing::StartsWith("2:"));
}

TEST(CheckerLimits, ASetWithManyReferencesLoadsInLinearTimeFromEveryFormat) {
  // 40,001 nodes, far below the 10^6 limit: every format must load it in a
  // small fraction of a second (the text syntax takes about 0.03 s). A check
  // that computes a field path per reference, whether or not there is an
  // error, costs O(nodes) each time: O(nodes^2) in all, seconds here and
  // most of an hour for a set at the limit.
  Result<FeatureSet> set = FeatureSet::Parse("f = " + SumOf(40'000) + ";", Format::kText);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  for (const Format format : {Format::kText, Format::kProto, Format::kJson}) {
    const std::string bytes = set->Serialize(format);
    const auto start = std::chrono::steady_clock::now();
    Result<FeatureSet> again = FeatureSet::Parse(bytes, format);
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    EXPECT_LT(elapsed.count(), 1.0) << FormatName(format) << " took " << elapsed.count() << " s";
  }
}

// ---------------------------------------------------------------------------
// Implicit inputs: names neither declared nor defined, listed in order of
// first use; the schema lists declared inputs, then implicit ones.

std::vector<std::string> ImplicitInputsOf(std::string_view source, Format format = Format::kText) {
  Result<FeatureSet> set = FeatureSet::Parse(source, format);
  EXPECT_TRUE(set.ok()) << set.status().ToString();
  return set.ok() ? set->ImplicitInputs() : std::vector<std::string>{};
}

TEST(CheckerImplicitInputs, AreListedInOrderOfFirstUse) {
  EXPECT_THAT(ImplicitInputsOf("f = b + a;\ng = c * a + f + d;"), ElementsAre("b", "a", "c", "d"));
  EXPECT_THAT(ImplicitInputsOf("f = if(c, b, a) + sum(e, d) - weighted_sum([1, 2], h, g);"),
              ElementsAre("c", "b", "a", "e", "d", "h", "g"));
  EXPECT_THAT(ImplicitInputsOf("f = -z ^ y ^ x;"), ElementsAre("z", "y", "x"));
  EXPECT_THAT(ImplicitInputsOf(JsonSet("", JsonFeature("f", R"({"binary": {"operator":
                                           "OPERATOR_SUB", "lhs": {"feature": "b"},
                                           "rhs": {"feature": "a"}}})") +
                                               "," + JsonFeature("g", JsonRef("c"))),
                               Format::kJson),
              ElementsAre("b", "a", "c"));
}

TEST(CheckerImplicitInputs, ExcludeDeclaredInputsDefinitionsAndVectorOperands) {
  EXPECT_THAT(ImplicitInputsOf("input d;\ninput v: item[2];\n"
                               "f = later + x + d + norm(v);\nlater = y + f2;\nf2 = 1;"),
              ElementsAre("x", "y"));
  EXPECT_THAT(ImplicitInputsOf("input a;\nf = a;"), IsEmpty());
}

TEST(CheckerImplicitInputs, SchemaListsDeclaredInputsThenImplicitOnes) {
  Result<FeatureSet> set = FeatureSet::Parse(
      "input z;\ninput y: query = 2;\nf = x + y + w;\ng = w * v + f + x;\n"
      "h = norm(vec);\ninput vec: item[2];\n",
      Format::kText);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  const Schema& schema = set->schema();
  std::vector<std::string> names;
  std::vector<bool> declared;
  for (const InputInfo& input : schema.inputs) {
    names.push_back(input.name);
    declared.push_back(input.declared);
  }
  EXPECT_THAT(names, ElementsAre("z", "y", "vec", "x", "w", "v"));
  EXPECT_THAT(declared, ElementsAre(true, true, true, false, false, false));
  EXPECT_EQ(schema.inputs[1].scope, Scope::kQuery);
  EXPECT_EQ(schema.inputs[1].default_value, 2.0f);
  EXPECT_EQ(schema.inputs[2].dimension, 2u);
  for (std::size_t i = 3; i < schema.inputs.size(); ++i) {
    EXPECT_EQ(schema.inputs[i].scope, Scope::kItem);
    EXPECT_EQ(schema.inputs[i].dimension, 0u);
    EXPECT_FALSE(schema.inputs[i].default_value.has_value());
  }
  EXPECT_THAT(schema.outputs, ElementsAre("f", "g", "h"));
  EXPECT_THAT(set->ImplicitInputs(), ElementsAre("x", "w", "v"));
}

// ---------------------------------------------------------------------------
// Every error of a set is reported at once.

TEST(CheckerReporting, EveryErrorOfATextSetIsReportedAtOnce) {
  EXPECT_THAT(
      ErrorsOf("input a;\n"
               "input a: query;\n"
               "input v: item[3];\n"
               "input w: item[4];\n"
               "input big: item[70000];\n"
               "input vd: item[2] = 1;\n"
               "a = 1;\n"
               "f = 1;\n"
               "f = 2;\n"
               "g = v + 1;\n"
               "h = dot(v, w);\n"
               "k = norm(v, v);\n"
               "m = n;\n"
               "n = m;\n"
               "p = weighted_sum([1], x, y);\n"
               "q = norm(g);\n"),
      UnorderedElementsAre(
          "2:7: input 'a' is declared twice (first at 1:7)",
          "5:7: input 'big' has dimension 70000, above the limit of 65536",
          "6:7: vector input 'vd' has a default value; only scalars can have one",
          "7:1: 'a' is declared as an input (at 1:7) and cannot be defined",
          "9:1: 'f' is defined twice (first at 8:1)",
          "10:5: vector input 'v' is used as a column; use it in dot, cosine, "
          "l2_distance or norm",
          "11:5: dot of vectors of different dimensions: 'v' has 3, 'w' has 4",
          "12:5: norm takes one operand, but has a second", "13:1: cycle: 'm' -> 'n' -> 'm'",
          "15:5: weighted_sum needs one weight per operand: 1 weights for 2 operands",
          "16:5: 'g' is a calculated feature (a column), not a vector input"));
}

TEST(CheckerReporting, EveryErrorOfAWireSetIsReportedAtOnce) {
  const std::string json = JsonSet(
      R"({"name": "a"}, {"name": "a"}, {"name": "v", "dimension": 3},
         {"name": "w", "dimension": 4, "default_value": 1})",
      JsonFeature("a", R"({"constant": 1})") + "," +
          JsonFeature("g", R"({"nary": {"operator": "OPERATOR_SUM",
                                "operands": [{"feature": "x"}, {"feature": "v"}]}})") +
          "," + JsonFeature("h", R"({"vector": {"operator": "OPERATOR_COSINE", "lhs": "v",
                                "rhs": "w"}})") +
          "," + JsonFeature("m", JsonRef("m")));
  EXPECT_THAT(WireErrorsOf(json),
              UnorderedElementsAre(
                  "inputs[1].name: input 'a' is declared twice (first at inputs[0])",
                  "inputs[3].default_value: vector input 'w' has a default value; only scalars "
                  "can have one",
                  "features[0].name: 'a' is declared as an input (at inputs[0]) and cannot be "
                  "defined",
                  "features[1].expression.nary.operands[1].feature: vector input 'v' is used as "
                  "a column; use it in dot, cosine, l2_distance or norm",
                  "features[2].expression.vector: cosine of vectors of different dimensions: "
                  "'v' has 3, 'w' has 4",
                  "features[3]: cycle: 'm' -> 'm'"));
}

TEST(CheckerReporting, AValidSetHasNoErrors) {
  EXPECT_THAT(ErrorsOf("input price;\ninput user_age: query = 30;\ninput item_emb: item[64];\n"
                       "input user_emb: query[64];\n"
                       "f_qux = f_foo / (f_bar + f_baz);\n"
                       "score = sigmoid(0.3 * log1p(price) + if(rating >= 4.5, 1, 0)) - "
                       "rank(price) / 100;\n"
                       "sim = cosine(item_emb, user_emb) + norm(user_emb);\n"),
              IsEmpty());
}

}  // namespace
}  // namespace calcjit
