// ReadJson against the proto3 JSON mapping, with libprotobuf's JSON parser
// (JsonStringToMessage) as the independent reference where it applies.
#include "dsl/json_reader.h"

#include <gtest/gtest.h>

#include <google/protobuf/util/json_util.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "calcjit/v1/feature_set.pb.h"
#include "wire_test_util.h"

namespace calcjit {
namespace {

using dsl::ReadJson;
using wire_test::DumpIr;

// Reads `json` with ReadJson and with libprotobuf's JSON parser plus the
// reference converter; both must give the same IR, whose dump is returned.
std::string ReadBoth(const std::string& json) {
  v1::FeatureSet message;
  const auto parsed = google::protobuf::util::JsonStringToMessage(json, &message);
  EXPECT_TRUE(parsed.ok()) << "libprotobuf rejects the test input: " << parsed.ToString();
  Result<ir::FeatureSetIr> expected = wire_test::IrFromMessage(message);
  Result<ir::FeatureSetIr> ours = ReadJson(json);
  EXPECT_TRUE(ours.ok()) << ours.status().ToString();
  EXPECT_TRUE(expected.ok()) << expected.status().ToString();
  if (!ours.ok() || !expected.ok()) return "";
  EXPECT_EQ(DumpIr(*ours), DumpIr(*expected));
  EXPECT_EQ(ours->source, ir::SourceFormat::kJson);
  return DumpIr(*ours);
}

std::string ReadOurs(const std::string& json) {
  Result<ir::FeatureSetIr> ours = ReadJson(json);
  EXPECT_TRUE(ours.ok()) << ours.status().ToString();
  return ours.ok() ? DumpIr(*ours) : "";
}

void ExpectError(const std::string& json, const std::string& location,
                 const std::string& message_part) {
  SCOPED_TRACE(json);
  Result<ir::FeatureSetIr> result = ReadJson(json);
  ASSERT_FALSE(result.ok()) << "expected an error at " << location;
  EXPECT_EQ(result.status().kind(), ErrorKind::kUser);
  EXPECT_EQ(result.status().location(), location) << result.status().ToString();
  EXPECT_NE(result.status().message().find(message_part), std::string::npos)
      << result.status().ToString();
}

// A set with one definition "f" whose expression is `expression`.
std::string WithExpression(const std::string& expression) {
  return R"({"features": [{"name": "f", "expression": )" + expression + "}]}";
}

// The constant of the definition's only node, as bits.
std::uint32_t ConstantBits(const std::string& value) {
  Result<ir::FeatureSetIr> result = ReadJson(WithExpression(R"({"constant": )" + value + "}"));
  EXPECT_TRUE(result.ok()) << value << ": " << result.status().ToString();
  return result.ok() ? std::bit_cast<std::uint32_t>(result->nodes[0].constant) : 0xDEADBEEF;
}

TEST(JsonReaderTest, ReadsTheSpecExample) {
  const std::string json =
      R"({"features": [{"name": "f_qux", "expression": {"binary": {"operator": "OPERATOR_DIV",
  "lhs": {"feature": "f_foo"},
  "rhs": {"binary": {"operator": "OPERATOR_SUM",
                     "lhs": {"feature": "f_bar"}, "rhs": {"feature": "f_baz"}}}}}}]})";
  EXPECT_EQ(ReadBoth(json),
            "feature \"f_qux\" nodes=0..4\n"
            "0: Ref \"f_foo\"\n"
            "1: Ref \"f_bar\"\n"
            "2: Ref \"f_baz\"\n"
            "3: Add #1 #2\n"
            "4: Div #0 #3\n");
}

TEST(JsonReaderTest, AnEmptyObjectIsAnEmptySet) {
  EXPECT_EQ(ReadBoth("{}"), "");
  EXPECT_EQ(ReadBoth(R"({"inputs": [], "features": null, "models": []})"), "");
}

TEST(JsonReaderTest, AcceptsOriginalAndLowerCamelCaseNames) {
  const std::string expected = "input \"a\" scope=1 dim=3 default=3fc00000\n";
  EXPECT_EQ(ReadBoth(R"({"inputs": [{"name": "a", "scope": "SCOPE_QUERY", "dimension": 3,
                         "default_value": 1.5}]})"),
            expected);
  EXPECT_EQ(ReadBoth(R"({"inputs": [{"name": "a", "scope": "SCOPE_QUERY", "dimension": 3,
                         "defaultValue": 1.5}]})"),
            expected);
}

TEST(JsonReaderTest, NullMeansNotSet) {
  EXPECT_EQ(ReadBoth(R"({"inputs": [{"name": "a", "scope": null, "dimension": null,
                         "defaultValue": null}]})"),
            "input \"a\" scope=0 dim=0 default=none\n");
  // A null oneof member does not set the kind; a null operand is missing.
  EXPECT_EQ(ReadOurs(WithExpression(R"({"binary": null, "constant": 2})")),
            "feature \"f\" nodes=0..0\n0: Constant 40000000\n");
  ExpectError(WithExpression(R"({"unary": {"operator": "OPERATOR_NEG", "operand": null}})"),
              "features[0].expression.unary.operand", "Unary.operand is not set");
  ExpectError(R"({"features": [{"name": "f", "expression": null}]})", "features[0].expression",
              "feature has no expression");
}

TEST(JsonReaderTest, EnumsByNameNumberOrNumericString) {
  const std::string tail = R"(, "lhs": {"constant": 1}, "rhs": {"constant": 2}}})";
  const std::string div =
      "feature \"f\" nodes=0..2\n0: Constant 3f800000\n"
      "1: Constant 40000000\n2: Div #0 #1\n";
  EXPECT_EQ(ReadBoth(WithExpression(R"({"binary": {"operator": "OPERATOR_DIV")" + tail)), div);
  EXPECT_EQ(ReadBoth(WithExpression(R"({"binary": {"operator": 4)" + tail)), div);
  EXPECT_EQ(ReadBoth(WithExpression(R"({"binary": {"operator": "4")" + tail)), div);
  EXPECT_EQ(ReadOurs(WithExpression(R"({"binary": {"operator": 4.0)" + tail)), div);
  EXPECT_EQ(ReadBoth(R"({"inputs": [{"name": "q", "scope": 1}]})"),
            "input \"q\" scope=1 dim=0 default=none\n");

  ExpectError(WithExpression(R"({"binary": {"operator": "OPERATOR_DIVIDE")" + tail),
              "features[0].expression.binary.operator",
              "unknown Binary operator \"OPERATOR_DIVIDE\"");
  // A name of another message's enum is unknown here.
  ExpectError(WithExpression(R"({"binary": {"operator": "OPERATOR_NEG")" + tail),
              "features[0].expression.binary.operator", "unknown Binary operator");
  ExpectError(WithExpression(R"({"binary": {"operator": "DIV")" + tail),
              "features[0].expression.binary.operator", "unknown Binary operator");
  ExpectError(WithExpression(R"({"binary": {"operator": 99)" + tail),
              "features[0].expression.binary.operator", "unknown Binary operator 99");
  ExpectError(WithExpression(R"({"binary": {"operator": "OPERATOR_UNSPECIFIED")" + tail),
              "features[0].expression.binary.operator", "OPERATOR_UNSPECIFIED");
  ExpectError(WithExpression(R"({"binary": {"operator": 0)" + tail),
              "features[0].expression.binary.operator", "OPERATOR_UNSPECIFIED");
  ExpectError(WithExpression(R"({"binary": {"operator": 4.5)" + tail),
              "features[0].expression.binary.operator", "not an integer");
  ExpectError(WithExpression(R"({"binary": {"operator": 4294967300)" + tail),
              "features[0].expression.binary.operator", "out of range");
  ExpectError(WithExpression(R"({"binary": {"operator": true)" + tail),
              "features[0].expression.binary.operator",
              "expected a Binary operator name or number");
  ExpectError(R"({"inputs": [{"name": "q", "scope": "QUERY"}]})", "inputs[0].scope",
              "unknown Scope \"QUERY\"");
  ExpectError(R"({"inputs": [{"name": "q", "scope": 2}]})", "inputs[0].scope",
              "unknown Scope value 2");
}

TEST(JsonReaderTest, FloatsFromNumbersStringsAndSpecialNames) {
  EXPECT_EQ(ConstantBits("1.5"), 0x3FC00000u);
  EXPECT_EQ(ConstantBits("\"1.5\""), 0x3FC00000u);
  EXPECT_EQ(ConstantBits("15e-1"), 0x3FC00000u);
  EXPECT_EQ(ConstantBits("2"), 0x40000000u);
  EXPECT_EQ(ConstantBits("-0"), 0x80000000u);
  EXPECT_EQ(ConstantBits("\"-0\""), 0x80000000u);
  EXPECT_EQ(ConstantBits("-0.0"), 0x80000000u);
  EXPECT_EQ(ConstantBits("0"), 0x00000000u);
  EXPECT_EQ(ConstantBits("\"NaN\""), 0x7FC00000u);
  EXPECT_EQ(ConstantBits("\"Infinity\""), 0x7F800000u);
  EXPECT_EQ(ConstantBits("\"-Infinity\""), 0xFF800000u);
  EXPECT_EQ(ConstantBits("0.1"), std::bit_cast<std::uint32_t>(0.1f));
  EXPECT_EQ(ConstantBits("16777217"), 0x4B800000u);  // rounds to 16777216
  EXPECT_EQ(ConstantBits("1e-45"), 0x00000001u);     // the smallest subnormal
  EXPECT_EQ(ConstantBits("1e-50"), 0x00000000u);     // too small: rounds to zero
  EXPECT_EQ(ConstantBits("-1e-400"), 0x80000000u);   // even for a double
  EXPECT_EQ(ConstantBits("\"1e-400\""), 0x00000000u);
  EXPECT_EQ(ConstantBits("3.4028235e+38"), 0x7F7FFFFFu);         // FLT_MAX's shortest text
  EXPECT_EQ(ConstantBits("3.40282356e38"), 0x7F7FFFFFu);         // rounds down to FLT_MAX
  EXPECT_EQ(ConstantBits("18446744073709551616"), 0x5F800000u);  // 2^64: beyond uint64

  const std::string path = "features[0].expression.constant";
  ExpectError(WithExpression(R"({"constant": 3.5e38})"), path, "out of the float range");
  ExpectError(WithExpression(R"({"constant": "-3.5e38"})"), path, "out of the float range");
  ExpectError(WithExpression(R"({"constant": 340282356779733661637539395458142568448})"), path,
              "out of the float range");  // the midpoint to 2^128 rounds up (to even)
  // Decimal -> double -> float, as protobuf converts: one below the midpoint
  // rounds to the midpoint as a double, and then up.
  ExpectError(WithExpression(R"({"constant": 340282356779733661637539395458142568447})"), path,
              "out of the float range");
  ExpectError(WithExpression(R"({"constant": "1e400"})"), path, "out of the float range");
  ExpectError(WithExpression(R"({"constant": "nan"})"), path, "is not a number");
  ExpectError(WithExpression(R"({"constant": "inf"})"), path, "is not a number");
  ExpectError(WithExpression(R"({"constant": " 1"})"), path, "is not a number");
  ExpectError(WithExpression(R"({"constant": "0x10"})"), path, "is not a number");
  ExpectError(WithExpression(R"({"constant": "+1"})"), path, "is not a number");
  ExpectError(WithExpression(R"({"constant": ""})"), path, "is not a number");
  ExpectError(WithExpression(R"({"constant": true})"), path, "expected a number");
  ExpectError(WithExpression(R"({"constant": [1]})"), path, "expected a number");
}

TEST(JsonReaderTest, WeightsAndDefaultValuesAreFloatsToo) {
  EXPECT_EQ(ReadBoth(WithExpression(R"({"nary": {"operator": "OPERATOR_WEIGHTED_SUM",
      "operands": [{"constant": 1}, {"feature": "x"}], "weights": [0.5, "NaN", "-Infinity"]}})")),
            "feature \"f\" nodes=0..2\n0: Constant 3f800000\n1: Ref \"x\"\n"
            "2: WeightedSum #0 #1 w=3f000000,7fc00000,ff800000,\n");
  ExpectError(WithExpression(R"({"nary": {"operator": 1, "operands": [{"constant": 1}],
                                 "weights": [1, "x"]}})"),
              "features[0].expression.nary.weights[1]", "is not a number");
  ExpectError(WithExpression(R"({"nary": {"operator": 1, "operands": [{"constant": 1}],
                                 "weights": [1, null]}})"),
              "features[0].expression.nary.weights[1]", "expected a number");
  ExpectError(WithExpression(R"({"nary": {"operator": 1, "operands": [{"constant": 1}],
                                 "weights": 1}})"),
              "features[0].expression.nary.weights", "expected an array");
  EXPECT_EQ(ReadBoth(R"({"inputs": [{"name": "d", "defaultValue": "-0"}]})"),
            "input \"d\" scope=0 dim=0 default=80000000\n");
  ExpectError(R"({"inputs": [{"name": "d", "default_value": "big"}]})", "inputs[0].default_value",
              "is not a number");
}

TEST(JsonReaderTest, DimensionIsAnUnsigned32BitInteger) {
  for (const std::string value : {"64", "\"64\"", "64.0", "6.4e1", "\"6.4e1\"", "640e-1"}) {
    EXPECT_EQ(ReadOurs(R"({"inputs": [{"name": "v", "dimension": )" + value + "}]}"),
              "input \"v\" scope=0 dim=64 default=none\n")
        << value;
  }
  EXPECT_EQ(ReadBoth(R"({"inputs": [{"name": "v", "dimension": 4294967295}]})"),
            "input \"v\" scope=0 dim=4294967295 default=none\n");
  EXPECT_EQ(ReadBoth(R"({"inputs": [{"name": "v", "dimension": "4294967295"}]})"),
            "input \"v\" scope=0 dim=4294967295 default=none\n");
  const std::string path = "inputs[0].dimension";
  ExpectError(R"({"inputs": [{"name": "v", "dimension": 4294967296}]})", path, "out of range");
  ExpectError(R"({"inputs": [{"name": "v", "dimension": -1}]})", path, "out of range");
  ExpectError(R"({"inputs": [{"name": "v", "dimension": 1.5}]})", path, "not an integer");
  ExpectError(R"({"inputs": [{"name": "v", "dimension": 1e400}]})", "1:44", "number overflow");
  ExpectError(R"({"inputs": [{"name": "v", "dimension": "1e400"}]})", path, "out of range");
  ExpectError(R"({"inputs": [{"name": "v", "dimension": "x"}]})", path, "is not a number");
  ExpectError(R"({"inputs": [{"name": "v", "dimension": false}]})", path, "expected a number");
}

TEST(JsonReaderTest, RejectsUnknownAndRepeatedFields) {
  ExpectError(R"({"inputs": [], "outputs": []})", "outputs",
              "unknown field \"outputs\" in FeatureSet");
  ExpectError(R"({"inputs": [{"name": "a", "default": 1}]})", "inputs[0].default",
              "unknown field \"default\" in InputDeclaration");
  ExpectError(R"({"inputs": [{"name": "a", "Name": "b"}]})", "inputs[0].Name", "unknown field");
  ExpectError(R"({"": 1})", "\"\"", "unknown field \"\" in FeatureSet");
  ExpectError(WithExpression(R"({"binary": {"operator": 1, "left": {"constant": 1}}})"),
              "features[0].expression.binary.left", "unknown field \"left\" in Binary");
  ExpectError(WithExpression(R"({"constant": 1, "weight": 2})"), "features[0].expression.weight",
              "unknown field \"weight\" in Expression");
  ExpectError(R"({"inputs": [{"name": "a", "name": "b"}]})", "inputs[0].name",
              "field \"name\" given twice");
  ExpectError(R"({"inputs": [{"name": "a", "default_value": 1, "defaultValue": 1}]})",
              "inputs[0].default_value",
              "field default_value given twice, as \"default_value\" and \"defaultValue\"");
  ExpectError(R"({"inputs": [], "inputs": []})", "inputs", "given twice");
  // null counts as an occurrence.
  ExpectError(R"({"inputs": [{"name": "a", "scope": null, "scope": 1}]})", "inputs[0].scope",
              "given twice");
}

TEST(JsonReaderTest, RejectsTwoMembersOfTheOneof) {
  ExpectError(WithExpression(R"({"constant": 1, "feature": "x"})"), "features[0].expression",
              "more than one member of Expression.kind is set: \"constant\" and \"feature\"");
  ExpectError(WithExpression(R"({"binary": {"operator": 1, "lhs": {"unary": {}, "model": {}},
                                 "rhs": {"constant": 1}}})"),
              "features[0].expression.binary.lhs", "\"unary\" and \"model\"");
}

TEST(JsonReaderTest, ChecksTheJsonTypeOfEveryField) {
  ExpectError(R"({"inputs": {}})", "inputs", "expected an array");
  ExpectError(R"({"features": "f"})", "features", "expected an array");
  ExpectError(R"({"inputs": [null]})", "inputs[0]", "null is not allowed in a repeated field");
  ExpectError(R"({"inputs": [{"name": "a"}, 3]})", "inputs[1]",
              "expected a JSON object for an InputDeclaration");
  ExpectError(R"({"inputs": [{"name": 3}]})", "inputs[0].name", "expected a string");
  ExpectError(R"({"features": [[]]})", "features[0]",
              "expected a JSON object for a FeatureDefinition");
  ExpectError(R"({"features": [{"name": "f", "expression": "1 + 2"}]})", "features[0].expression",
              "expected a JSON object for an Expression");
  ExpectError(R"({"features": [{"name": true, "expression": {}}]})", "features[0].name",
              "expected a string");
  ExpectError(WithExpression(R"({"binary": []})"), "features[0].expression.binary",
              "expected a JSON object for Binary");
  ExpectError(WithExpression(R"({"binary": {"operator": 1, "lhs": 5, "rhs": {"constant": 1}}})"),
              "features[0].expression.binary.lhs", "expected a JSON object for an Expression");
  ExpectError(WithExpression(R"({"feature": 5})"), "features[0].expression.feature",
              "expected a string");
  ExpectError(WithExpression(R"({"vector": {"operator": "OPERATOR_NORM", "lhs": ["a"]}})"),
              "features[0].expression.vector.lhs", "expected a string");
  ExpectError(WithExpression(R"({"nary": {"operator": 1, "operands": {"constant": 1}}})"),
              "features[0].expression.nary.operands", "expected an array");
  ExpectError(WithExpression(R"({"nary": {"operator": 1, "operands": [{"constant": 1}, null]}})"),
              "features[0].expression.nary.operands[1]", "null is not allowed");
  ExpectError(WithExpression(R"({"nary": {"operator": 1, "operands": [{"constant": 1}, 2]}})"),
              "features[0].expression.nary.operands[1]",
              "expected a JSON object for an Expression");
}

TEST(JsonReaderTest, SemanticErrorsHaveTheSamePathsAsTheBinaryReader) {
  ExpectError(WithExpression(R"({"unary": {"operand": {"constant": 1}}})"),
              "features[0].expression.unary.operator", "Unary operator is OPERATOR_UNSPECIFIED");
  ExpectError(WithExpression(R"({})"), "features[0].expression", "no kind set");
  ExpectError(WithExpression(R"({"conditional": {"condition": {"constant": 1},
                                 "otherwise": {"constant": 1}}})"),
              "features[0].expression.conditional.then", "Conditional.then is not set");
  ExpectError(WithExpression(R"({"nary": {"operator": "OPERATOR_MEAN", "operands": []}})"),
              "features[0].expression.nary.operands", "Nary has no operands");
  ExpectError(WithExpression(R"({"aggregate": {"operator": "OPERATOR_RANK"}})"),
              "features[0].expression.aggregate.operand", "Aggregate.operand is not set");
  ExpectError(WithExpression(R"({"feature": ""})"), "features[0].expression.feature",
              "feature name is empty");
  ExpectError(WithExpression(R"({"model": {"inputs": [], "output": 0}})"),
              "features[0].expression.model.name", "model name is empty");
  ExpectError(WithExpression(R"({"model": {"name": "m", "output": -1}})"),
              "features[0].expression.model.output",
              "the number -1 is out of range [0, 4294967295]");
  ExpectError(WithExpression(R"({"model": {"name": "m", "output": 1.5}})"),
              "features[0].expression.model.output", "the number 1.5 is not an integer");
  ExpectError(WithExpression(R"({"model": {"name": "m", "inputs": [null]}})"),
              "features[0].expression.model.inputs[0]", "null is not allowed");
  ExpectError(R"({"inputs": [{"scope": "SCOPE_QUERY"}]})", "inputs[0].name", "input name is empty");
  ExpectError(R"({"features": [{"expression": {"constant": 1}}]})", "features[0].name",
              "feature name is empty");
  ExpectError(R"({"features": [{"name": "f", "expression": {"constant": 1}}],
                  "models": [{"name": "ranker", "path": "r.json"}]})",
              "models[0].format", "model format is FORMAT_UNSPECIFIED (not set)");
  ExpectError(R"({"models": [{"name": "m", "format": "FORMAT_TENSORFLOW"}]})", "models[0].format",
              "unknown Format \"FORMAT_TENSORFLOW\"");
  ExpectError(R"({"models": [{"name": "m", "format": 99}]})", "models[0].format",
              "unknown Format value 99");
  ExpectError(R"({"models": [{"format": 1}]})", "models[0].name", "model name is empty");
  ExpectError(R"({"models": [{"name": "m", "format": 1, "size": 3}]})", "models[0].size",
              "unknown field \"size\" in ModelDeclaration");
  ExpectError(R"({"models": [{"name": "m", "path": 3, "format": 1}]})", "models[0].path",
              "expected a string");
  ExpectError(R"({"models": [null]})", "models[0]", "null is not allowed in a repeated field");
  ExpectError(WithExpression(R"({"nary": {"operator": "OPERATOR_SUM", "operands": [
                 {"constant": 1}, {"feature": "x"},
                 {"conditional": {"condition": {"constant": 1}, "then": {"unary": {"operator":
                   "OPERATOR_IS_NAN"}}, "otherwise": {"constant": 1}}}]}})"),
              "features[0].expression.nary.operands[2].conditional.then.unary.operand",
              "Unary.operand is not set");
}

TEST(JsonReaderTest, VectorNamesAndEmptyStrings) {
  EXPECT_EQ(ReadBoth(WithExpression(R"({"vector": {"operator": "OPERATOR_COSINE",
                                         "lhs": "a", "rhs": ""}})")),
            "feature \"f\" nodes=0..0\n0: Cosine \"a\" <none>\n");
}

TEST(JsonReaderTest, SyntaxErrorsGiveLineAndColumnInCharacters) {
  ExpectError("", "1:1", "unexpected end of input");
  ExpectError("{\"inputs\": [\n  {\"name\": \"größe\", x}]}", "2:21", "syntax error");
  ExpectError("{\"inputs\": [\r\n  {\"name\": \"日本\" }]", "2:19", "unexpected end of input");
  ExpectError("{\"a\": 1} x", "1:10", "expected end of input");
  ExpectError("{\"name\": \"a\xff\"}", "1:12", "ill-formed UTF-8");
  ExpectError("{\"a\": tru}", "1:10", "invalid literal");
  ExpectError("{\"a\": 1,}", "1:9", "expected string literal");
  // The message does not repeat nlohmann's own "line 1, column 9".
  Result<ir::FeatureSetIr> result = ReadJson("{\"a\": 1,}");
  EXPECT_EQ(result.status().message().find("column"), std::string::npos)
      << result.status().message();
}

TEST(JsonReaderTest, ReadsNumbersInEveryPosition) {
  // Compact, spaced out and at the end of containers: a number's text is
  // found wherever nlohmann's lexer stops.
  const std::string compact =
      R"({"features":[{"name":"f","expression":{"nary":{"operator":6,"operands":[{"constant":-0},)"
      R"({"constant":1e1}],"weights":[-0,2.5E-1]}}}],"inputs":[{"name":"i","dimension":7}]})";
  const std::string spaced =
      "{ \"features\" : [ { \"name\" : \"f\" , \"expression\" : { \"nary\" : { \"operator\" :\t6 , "
      "\"operands\" : [ { \"constant\" : -0\n} , { \"constant\" : 1e1\r\n} ] , \"weights\" : "
      "[ -0 ,\n2.5E-1 ] } } } ] , \"inputs\" : [ { \"name\" : \"i\" , \"dimension\" : 7 } ] }";
  const std::string expected =
      "input \"i\" scope=0 dim=7 default=none\n"
      "feature \"f\" nodes=0..2\n0: Constant 80000000\n1: Constant 41200000\n"
      "2: WeightedSum #0 #1 w=80000000,3e800000,\n";
  EXPECT_EQ(ReadOurs(compact), expected);
  EXPECT_EQ(ReadOurs(spaced), expected);
}

TEST(JsonReaderTest, KeepsTheSignOfAnIntegerMinusZero) {
  // libprotobuf 3.21 reads the JSON number -0 as an integer, so +0; the
  // contract tells -0 from +0 (MIN, MAX, NEG), and every JSON printer,
  // libprotobuf's included, writes -0.0f as -0: keep the sign.
  EXPECT_EQ(ConstantBits("-0"), 0x80000000u);
  v1::FeatureSet message;
  ASSERT_TRUE(
      google::protobuf::util::JsonStringToMessage(WithExpression(R"({"constant": -0})"), &message)
          .ok());
  EXPECT_EQ(std::bit_cast<std::uint32_t>(message.features(0).expression().constant()), 0u);
}

TEST(JsonReaderTest, TheTopLevelMustBeAnObject) {
  ExpectError("[]", "1:1", "must be a JSON object");
  ExpectError("  \n 5", "2:2", "must be a JSON object");
  ExpectError("\"features\"", "1:1", "must be a JSON object");
  ExpectError("null", "1:1", "must be a JSON object");
}

TEST(JsonReaderTest, ReadsWhatLibprotobufPrints) {
  v1::FeatureSet message;
  v1::InputDeclaration* input = message.add_inputs();
  input->set_name("emb");
  input->set_scope(v1::InputDeclaration::SCOPE_QUERY);
  input->set_dimension(8);
  input->set_default_value(std::numeric_limits<float>::max());
  v1::FeatureDefinition* feature = message.add_features();
  feature->set_name("f");
  v1::Nary* nary = feature->mutable_expression()->mutable_nary();
  nary->set_operator_(v1::Nary::OPERATOR_WEIGHTED_SUM);
  nary->add_operands()->set_constant(-0.0f);
  nary->add_operands()->set_constant(std::numeric_limits<float>::denorm_min());
  nary->add_weights(std::numeric_limits<float>::infinity());
  nary->add_weights(0.1f);
  std::string json;
  ASSERT_TRUE(google::protobuf::util::MessageToJsonString(message, &json).ok());
  // libprotobuf prints lowerCamelCase names by default.
  EXPECT_NE(json.find("defaultValue"), std::string::npos) << json;
  Result<ir::FeatureSetIr> ours = ReadJson(json);
  ASSERT_TRUE(ours.ok()) << ours.status().ToString() << "\n" << json;
  Result<ir::FeatureSetIr> expected = wire_test::IrFromMessage(message);
  ASSERT_TRUE(expected.ok());
  EXPECT_EQ(DumpIr(*ours), DumpIr(*expected));
}

}  // namespace
}  // namespace calcjit
