// WriteProto: byte for byte what libprotobuf serializes, and read back by
// both libprotobuf and ReadProto.
#include "dsl/proto_writer.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <bit>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "calcjit/v1/feature_set.pb.h"
#include "dsl/proto_reader.h"
#include "ir/builder.h"
#include "wire_test_util.h"

namespace calcjit {
namespace {

using dsl::ReadProto;
using dsl::WriteProto;
using wire_test::DumpIr;

// Checks WriteProto(ir) against libprotobuf: the same bytes as serializing the
// equivalent message, which parses back to that message; and ReadProto gives
// `ir` back.
void CheckAgainstLibprotobuf(const ir::FeatureSetIr& ir) {
  const std::string bytes = WriteProto(ir);
  const v1::FeatureSet expected = wire_test::MessageFromIr(ir);
  EXPECT_EQ(bytes, expected.SerializeAsString());
  v1::FeatureSet parsed;
  ASSERT_TRUE(parsed.ParseFromString(bytes));
  std::string report;
  EXPECT_TRUE(wire_test::MessagesEqual(parsed, expected, &report)) << report;
  Result<ir::FeatureSetIr> back = ReadProto(bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(DumpIr(*back), DumpIr(ir));
}

TEST(ProtoWriterTest, WritesTheSeedFormula) {
  ir::IrBuilder builder(ir::SourceFormat::kText);
  const ir::NameId qux = builder.Intern("f_qux");
  builder.BeginFeature();
  const ir::NodeId foo = builder.AddRef(builder.Intern("f_foo"));
  const ir::NodeId bar = builder.AddRef(builder.Intern("f_bar"));
  const ir::NodeId baz = builder.AddRef(builder.Intern("f_baz"));
  const ir::NodeId sum_operands[] = {bar, baz};
  const ir::NodeId sum = builder.AddOp(ir::Op::kAdd, sum_operands);
  const ir::NodeId div_operands[] = {foo, sum};
  builder.EndFeature(qux, builder.AddOp(ir::Op::kDiv, div_operands));
  const ir::FeatureSetIr ir = std::move(builder).Finish();
  CheckAgainstLibprotobuf(ir);
  // features { name: "f_qux" expression { binary { operator: DIV lhs {...} rhs {...} } } }
  EXPECT_EQ(WriteProto(ir),
            "\x12\x2e\x0a\x05"
            "f_qux"
            "\x12\x25\x22\x23\x08\x04\x12\x07\x12\x05"
            "f_foo"
            "\x1a\x16\x22\x14\x08\x01\x12\x07\x12\x05"
            "f_bar"
            "\x1a\x07\x12\x05"
            "f_baz");
}

TEST(ProtoWriterTest, WritesModelCallsAndDeclarations) {
  ir::IrBuilder builder(ir::SourceFormat::kText);
  builder.AddModel(ir::ModelDecl{builder.Intern("m"), "m.txt", ir::ModelFormat::kLightgbmText, {}});
  builder.BeginFeature();
  const ir::NodeId x = builder.AddRef(builder.Intern("x"));
  builder.EndFeature(builder.Intern("f"), builder.AddModelCall(builder.Intern("m"), {&x, 1}, 300));
  builder.BeginFeature();
  builder.EndFeature(builder.Intern("g"), builder.AddModelCall(builder.Intern("m"), {}, 0));
  const ir::FeatureSetIr ir = std::move(builder).Finish();
  CheckAgainstLibprotobuf(ir);
  // features { name: "f" expression { model { name: "m" inputs { feature: "x" } output: 300 } } }
  // features { name: "g" expression { model { name: "m" } } }
  // models { name: "m" path: "m.txt" format: FORMAT_LIGHTGBM_TEXT }
  EXPECT_EQ(WriteProto(ir), std::string("\x12\x12\x0a\x01"
                                        "f"
                                        "\x12\x0d\x4a\x0b\x0a\x01"
                                        "m"
                                        "\x12\x03\x12\x01"
                                        "x"
                                        "\x18\xac\x02"
                                        "\x12\x0a\x0a\x01"
                                        "g"
                                        "\x12\x05\x4a\x03\x0a\x01"
                                        "m"
                                        "\x1a\x0c\x0a\x01"
                                        "m"
                                        "\x12\x05"
                                        "m.txt"
                                        "\x18\x02"));
}

TEST(ProtoWriterTest, LeavesOutDefaultsButNotOneofMembersOrPresentOptionals) {
  ir::IrBuilder builder(ir::SourceFormat::kText);
  ir::InputDecl plain;
  plain.name = builder.Intern("plain");  // item, scalar, no default: just the name
  builder.AddInput(plain);
  ir::InputDecl zero_default;
  zero_default.name = builder.Intern("z");
  zero_default.default_value = 0.0f;  // present: written although 0
  builder.AddInput(zero_default);
  builder.BeginFeature();
  const ir::NodeId zero = builder.AddConstant(0.0f);  // a oneof member: written although 0
  const ir::NodeId norm = builder.AddVector(ir::Op::kNorm, builder.Intern("emb"), ir::kNone);
  const ir::NodeId operands[] = {zero, norm};
  builder.EndFeature(builder.Intern("f"), builder.AddOp(ir::Op::kMax, operands));
  const ir::FeatureSetIr ir = std::move(builder).Finish();
  CheckAgainstLibprotobuf(ir);
  const std::string bytes = WriteProto(ir);
  EXPECT_EQ(bytes.substr(0, 19), std::string("\x0a\x07\x0a\x05"
                                             "plain"
                                             "\x0a\x08\x0a\x01"
                                             "z"
                                             "\x25\x00\x00\x00\x00",
                                             19));
}

TEST(ProtoWriterTest, WritesFloatsWithTheirExactBits) {
  const std::uint32_t patterns[] = {0x80000000u, 0x00000001u, 0x7F800000u, 0xFF800000u,
                                    0x7FC00000u, 0x7FA00001u, 0xFFFFFFFFu, 0x7F7FFFFFu};
  ir::IrBuilder builder(ir::SourceFormat::kText);
  std::vector<float> weights;
  builder.BeginFeature();
  std::vector<ir::NodeId> operands;
  for (const std::uint32_t bits : patterns) {
    operands.push_back(builder.AddConstant(std::bit_cast<float>(bits)));
    weights.push_back(std::bit_cast<float>(bits));
  }
  builder.EndFeature(builder.Intern("f"), builder.AddNary(ir::Op::kWeightedSum, operands, weights));
  const ir::FeatureSetIr ir = std::move(builder).Finish();
  Result<ir::FeatureSetIr> back = ReadProto(WriteProto(ir));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(DumpIr(*back), DumpIr(ir));
  EXPECT_EQ(WriteProto(*back), WriteProto(ir));
  CheckAgainstLibprotobuf(ir);
}

TEST(ProtoWriterTest, AnEmptySetIsNoBytes) {
  EXPECT_EQ(WriteProto(ir::FeatureSetIr()), "");
}

// Random valid sets (a few levels deep, every operator, odd floats and
// names): the same bytes as libprotobuf, and a round trip through both.
void CheckRandomSet(const ir::FeatureSetIr& ir) {
  const std::string bytes = WriteProto(ir);
  RC_ASSERT(bytes == wire_test::MessageFromIr(ir).SerializeAsString());
  v1::FeatureSet parsed;
  RC_ASSERT(parsed.ParseFromString(bytes));
  std::string report;
  RC_ASSERT(wire_test::MessagesEqual(parsed, wire_test::MessageFromIr(ir), &report));
  Result<ir::FeatureSetIr> back = ReadProto(bytes);
  RC_ASSERT(back.ok());
  RC_ASSERT(DumpIr(*back) == DumpIr(ir));
  RC_ASSERT(WriteProto(*back) == bytes);
}

RC_GTEST_PROP(ProtoWriterProperty, MatchesLibprotobufAndRoundTrips,
              (const std::vector<std::uint32_t>& choices)) {
  wire_test::Choices draw(choices);
  const ir::FeatureSetIr ir = wire_test::RandomIr(draw, 5, /*allow_nan=*/true);
  RC_CLASSIFY(ir.nodes.size() > 10, "more than 10 nodes");
  CheckRandomSet(ir);
}

// The same on many larger sets (seeded, so without shrinking).
TEST(ProtoWriterTest, ManyRandomSetsMatchLibprotobufAndRoundTrip) {
  std::mt19937 rng(5);
  for (int i = 0; i < 1500; ++i) {
    wire_test::Choices draw(wire_test::RandomChoices(rng, 300));
    const ir::FeatureSetIr ir = wire_test::RandomIr(draw, 6, /*allow_nan=*/true);
    ASSERT_NO_THROW(CheckRandomSet(ir)) << DumpIr(ir);
  }
}

}  // namespace
}  // namespace calcjit
