// WriteJson: the text it prints, and that libprotobuf's JSON parser and
// ReadJson both read it back to the same set.
#include "dsl/json_writer.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <google/protobuf/util/json_util.h>

#include <bit>
#include <charconv>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "calcjit/v1/feature_set.pb.h"
#include "dsl/json_reader.h"
#include "ir/builder.h"
#include "wire_test_util.h"

namespace calcjit {
namespace {

using dsl::ReadJson;
using dsl::WriteJson;
using wire_test::DumpIr;

ir::FeatureSetIr SeedSet() {
  ir::IrBuilder builder(ir::SourceFormat::kText);
  ir::InputDecl age;
  age.name = builder.Intern("user_age");
  age.scope = Scope::kQuery;
  age.default_value = 30.0f;
  builder.AddInput(age);
  ir::InputDecl emb;
  emb.name = builder.Intern("item_emb");
  emb.dimension = 64;
  builder.AddInput(emb);
  const ir::NameId qux = builder.Intern("f_qux");
  builder.BeginFeature();
  const ir::NodeId foo = builder.AddRef(builder.Intern("f_foo"));
  const ir::NodeId bar = builder.AddRef(builder.Intern("f_bar"));
  const ir::NodeId baz = builder.AddRef(builder.Intern("f_baz"));
  const ir::NodeId sum_operands[] = {bar, baz};
  const ir::NodeId sum = builder.AddOp(ir::Op::kAdd, sum_operands);
  const ir::NodeId div_operands[] = {foo, sum};
  builder.EndFeature(qux, builder.AddOp(ir::Op::kDiv, div_operands));
  builder.BeginFeature();
  const ir::NodeId c = builder.AddConstant(0.1f);
  const ir::NodeId v = builder.AddVector(ir::Op::kDot, builder.Intern("item_emb"), ir::kNone);
  const ir::NodeId x = builder.AddRef(builder.Intern("x"));
  const ir::NodeId r_operands[] = {x};
  const ir::NodeId r = builder.AddOp(ir::Op::kRank, r_operands);
  const ir::NodeId if_operands[] = {c, v, r};
  const ir::NodeId cond = builder.AddOp(ir::Op::kIf, if_operands);
  const ir::NodeId nary_operands[] = {cond, c};
  const float weights[] = {0.5f, -2.0f};
  builder.EndFeature(builder.Intern("g"),
                     builder.AddNary(ir::Op::kWeightedSum, nary_operands, weights));
  return std::move(builder).Finish();
}

TEST(JsonWriterTest, WritesOneLinePerInputAndDefinition) {
  EXPECT_EQ(WriteJson(SeedSet()),
            R"({
  "inputs": [
    {"name": "user_age", "scope": "SCOPE_QUERY", "default_value": 30},
    {"name": "item_emb", "dimension": 64}
  ],
  "features": [
    {"name": "f_qux", "expression": {"binary": {"operator": "OPERATOR_DIV", "lhs": {"feature": "f_foo"}, "rhs": {"binary": {"operator": "OPERATOR_SUM", "lhs": {"feature": "f_bar"}, "rhs": {"feature": "f_baz"}}}}}},
    {"name": "g", "expression": {"nary": {"operator": "OPERATOR_WEIGHTED_SUM", "operands": [{"conditional": {"condition": {"constant": 0.1}, "then": {"vector": {"operator": "OPERATOR_DOT", "lhs": "item_emb"}}, "otherwise": {"aggregate": {"operator": "OPERATOR_RANK", "operand": {"feature": "x"}}}}}, {"constant": 0.1}], "weights": [0.5, -2]}}}
  ]
}
)");
}

// Models (spec section 6.1): calls with their fields in field order (the
// defaults left out: no inputs, output 0), declarations after the features.
ir::FeatureSetIr ModelSet() {
  ir::IrBuilder builder(ir::SourceFormat::kText);
  builder.AddModel(
      ir::ModelDecl{builder.Intern("ranker"), "ranker.json", ir::ModelFormat::kXgboostJson, {}});
  builder.AddModel(ir::ModelDecl{builder.Intern("nn"), "", ir::ModelFormat::kOnnx, {}});
  builder.BeginFeature();
  const ir::NodeId inputs[] = {builder.AddRef(builder.Intern("x")), builder.AddConstant(2)};
  const ir::NodeId call = builder.AddModelCall(builder.Intern("ranker"), inputs, 0);
  const ir::NodeId bare = builder.AddModelCall(builder.Intern("nn"), {}, 3);
  const ir::NodeId sum[] = {call, bare};
  builder.EndFeature(builder.Intern("f"), builder.AddOp(ir::Op::kAdd, sum));
  return std::move(builder).Finish();
}

TEST(JsonWriterTest, WritesModelCallsAndDeclarations) {
  const ir::FeatureSetIr ir = ModelSet();
  EXPECT_EQ(WriteJson(ir),
            R"({
  "features": [
    {"name": "f", "expression": {"binary": {"operator": "OPERATOR_SUM", "lhs": {"model": {"name": "ranker", "inputs": [{"feature": "x"}, {"constant": 2}]}}, "rhs": {"model": {"name": "nn", "output": 3}}}}}
  ],
  "models": [
    {"name": "ranker", "path": "ranker.json", "format": "FORMAT_XGBOOST_JSON"},
    {"name": "nn", "format": "FORMAT_ONNX"}
  ]
}
)");
  v1::FeatureSet parsed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(WriteJson(ir), &parsed).ok());
  std::string report;
  EXPECT_TRUE(wire_test::MessagesEqual(parsed, wire_test::MessageFromIr(ir), &report)) << report;
  Result<ir::FeatureSetIr> back = ReadJson(WriteJson(ir));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(DumpIr(*back), DumpIr(ir));
}

TEST(JsonWriterTest, AnEmptySetIsAnEmptyObject) {
  EXPECT_EQ(WriteJson(ir::FeatureSetIr()), "{}\n");
  Result<ir::FeatureSetIr> back = ReadJson(WriteJson(ir::FeatureSetIr()));
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->features.empty());
}

TEST(JsonWriterTest, WritesSpecialFloatsAsTheMappingSays) {
  const float values[] = {
      std::numeric_limits<float>::quiet_NaN(),
      std::bit_cast<float>(0xFFA00001u),  // another NaN
      std::numeric_limits<float>::infinity(),  -std::numeric_limits<float>::infinity(),  -0.0f,
      std::numeric_limits<float>::max(),       std::numeric_limits<float>::denorm_min(), 1e10f};
  ir::IrBuilder builder(ir::SourceFormat::kText);
  builder.BeginFeature();
  std::vector<ir::NodeId> operands;
  for (const float value : values) operands.push_back(builder.AddConstant(value));
  builder.EndFeature(builder.Intern("f"), builder.AddNary(ir::Op::kNaryMax, operands, {}));
  const ir::FeatureSetIr ir = std::move(builder).Finish();
  const std::string json = WriteJson(ir);
  EXPECT_NE(
      json.find(
          R"("operands": [{"constant": "NaN"}, {"constant": "NaN"}, {"constant": "Infinity"}, )"
          R"({"constant": "-Infinity"}, {"constant": -0}, {"constant": 3.4028235e+38}, )"
          R"({"constant": 1e-45}, {"constant": 1e+10}])"),
      std::string::npos)
      << json;
  Result<ir::FeatureSetIr> back = ReadJson(json);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  for (std::size_t i = 0; i < std::size(values); ++i) {
    const float read = back->nodes[i].constant;
    if (values[i] != values[i]) {
      EXPECT_EQ(std::bit_cast<std::uint32_t>(read), 0x7FC00000u);  // NaN payloads are not kept
    } else {
      EXPECT_EQ(std::bit_cast<std::uint32_t>(read), std::bit_cast<std::uint32_t>(values[i]));
    }
  }
}

TEST(JsonWriterTest, WritesFloatsThatDoubleRoundingWouldMissWithMoreDigits) {
  // The shortest text of this float, "7.038531e-26", is read as decimal ->
  // nearest double -> float (as protobuf's parsers and ours read JSON) to a
  // neighbouring float: the double lands on the midpoint and ties to even.
  const float value = std::bit_cast<float>(0x15AE43FDu);
  double d = 0.0;
  const std::string shortest = "7.038531e-26";
  std::from_chars(shortest.data(), shortest.data() + shortest.size(), d);
  ASSERT_NE(std::bit_cast<std::uint32_t>(static_cast<float>(d)), 0x15AE43FDu);

  ir::IrBuilder builder(ir::SourceFormat::kText);
  builder.BeginFeature();
  builder.EndFeature(builder.Intern("f"), builder.AddConstant(value));
  const std::string json = WriteJson(std::move(builder).Finish());
  EXPECT_EQ(json.find(shortest), std::string::npos) << json;
  Result<ir::FeatureSetIr> back = ReadJson(json);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(std::bit_cast<std::uint32_t>(back->nodes[0].constant), 0x15AE43FDu) << json;
}

TEST(JsonWriterTest, EscapesNames) {
  ir::IrBuilder builder(ir::SourceFormat::kText);
  builder.BeginFeature();
  const ir::NodeId ref = builder.AddRef(builder.Intern(std::string("q\"b\\s\n\t\x01\x1f\x7f", 10)));
  builder.EndFeature(builder.Intern("größe 日本 😀"), ref);
  const ir::FeatureSetIr ir = std::move(builder).Finish();
  const std::string json = WriteJson(ir);
  EXPECT_NE(
      json.find(R"({"name": "größe 日本 😀", "expression": {"feature": "q\"b\\s\n\t\u0001\u001f)"
                "\x7f\"}}"),
      std::string::npos)
      << json;
  Result<ir::FeatureSetIr> back = ReadJson(json);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(DumpIr(*back), DumpIr(ir));
}

TEST(JsonWriterTest, WritesBytesThatAreNotUtf8AsReplacementCharacters) {
  ir::IrBuilder builder(ir::SourceFormat::kText);
  builder.BeginFeature();
  const ir::NodeId ref =
      builder.AddRef(builder.Intern("a\xff"
                                    "b\xc3"));
  builder.EndFeature(builder.Intern("f"), ref);
  const std::string json = WriteJson(std::move(builder).Finish());
  EXPECT_NE(json.find(R"({"feature": "a\ufffdb\ufffd"})"), std::string::npos) << json;
  EXPECT_TRUE(ReadJson(json).ok());
}

// Random valid sets: ReadJson reads our text back, libprotobuf's JSON parser
// reads it as the equivalent message, and ReadJson reads libprotobuf's text.
void CheckRandomSet(const ir::FeatureSetIr& ir) {
  const std::string json = WriteJson(ir);
  Result<ir::FeatureSetIr> back = ReadJson(json);
  RC_ASSERT(back.ok());
  RC_ASSERT(DumpIr(*back) == DumpIr(ir));
  RC_ASSERT(WriteJson(*back) == json);

  const v1::FeatureSet expected = wire_test::MessageFromIr(ir);
  // libprotobuf 3.21 rejects every double above FLT_MAX, even FLT_MAX's own
  // shortest text (see json_scalars.h): give it a text that it reads as FLT_MAX.
  std::string for_libprotobuf = json;
  for (std::size_t at = 0; (at = for_libprotobuf.find("3.4028235e+38", at)) != std::string::npos;) {
    for_libprotobuf.replace(at, 13, "3.4028234e+38");
  }
  v1::FeatureSet parsed;
  RC_ASSERT(google::protobuf::util::JsonStringToMessage(for_libprotobuf, &parsed).ok());
  std::string report;
  RC_ASSERT(wire_test::MessagesEqual(parsed, expected, &report));
  std::string printed;
  RC_ASSERT(google::protobuf::util::MessageToJsonString(expected, &printed).ok());
  Result<ir::FeatureSetIr> from_printed = ReadJson(printed);
  RC_ASSERT(from_printed.ok());
  RC_ASSERT(DumpIr(*from_printed) == DumpIr(ir));
}

RC_GTEST_PROP(JsonWriterProperty, AgreesWithLibprotobufAndRoundTrips,
              (const std::vector<std::uint32_t>& choices)) {
  wire_test::Choices draw(choices);
  CheckRandomSet(wire_test::RandomIr(draw, 5, /*allow_nan=*/true));
}

// The same on many larger sets (seeded, so without shrinking).
TEST(JsonWriterTest, ManyRandomSetsAgreeWithLibprotobufAndRoundTrip) {
  std::mt19937 rng(3);
  for (int i = 0; i < 1500; ++i) {
    wire_test::Choices draw(wire_test::RandomChoices(rng, 300));
    const ir::FeatureSetIr ir = wire_test::RandomIr(draw, 6, /*allow_nan=*/true);
    ASSERT_NO_THROW(CheckRandomSet(ir)) << DumpIr(ir);
  }
}

}  // namespace
}  // namespace calcjit
