// Deep formulas in both formats, on a thread with a 1 MiB stack (a JVM
// thread's default): 2,000 levels and the limit read and write back; one
// level more, or far more, is a clean depth error, never a crash.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dsl/json_reader.h"
#include "dsl/json_writer.h"
#include "dsl/proto_reader.h"
#include "dsl/proto_writer.h"
#include "ir/builder.h"
#include "ir/limits.h"
#include "wire_test_util.h"

namespace calcjit {
namespace {

using wire_test::DeepChain;
using wire_test::DeepChainLeafPath;
using wire_test::DumpIr;
using wire_test::kJvmStack;
using wire_test::RunWithStack;

void ExpectRoundTrip(std::uint32_t levels) {
  RunWithStack(kJvmStack, [levels] {
    const ir::FeatureSetIr ir = DeepChain(levels);
    const std::string expected = DumpIr(ir);

    const std::string bytes = dsl::WriteProto(ir);
    Result<ir::FeatureSetIr> from_proto = dsl::ReadProto(bytes);
    ASSERT_TRUE(from_proto.ok()) << from_proto.status().message();
    EXPECT_EQ(DumpIr(*from_proto), expected);
    const std::string bytes_again = dsl::WriteProto(*from_proto);
    EXPECT_EQ(bytes_again, bytes);
    Result<ir::FeatureSetIr> proto_again = dsl::ReadProto(bytes_again);
    ASSERT_TRUE(proto_again.ok()) << proto_again.status().message();
    EXPECT_EQ(DumpIr(*proto_again), expected);

    const std::string json = dsl::WriteJson(ir);
    Result<ir::FeatureSetIr> from_json = dsl::ReadJson(json);
    ASSERT_TRUE(from_json.ok()) << from_json.status().message();
    EXPECT_EQ(DumpIr(*from_json), expected);
    const std::string json_again = dsl::WriteJson(*from_json);
    EXPECT_EQ(json_again, json);
    Result<ir::FeatureSetIr> json_read_again = dsl::ReadJson(json_again);
    ASSERT_TRUE(json_read_again.ok()) << json_read_again.status().message();
    EXPECT_EQ(DumpIr(*json_read_again), expected);
  });
}

void ExpectDepthError(const Result<ir::FeatureSetIr>& result, const std::string& location) {
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().kind(), ErrorKind::kUser);
  EXPECT_EQ(result.status().message(), "expression nested deeper than 10000 levels");
  EXPECT_EQ(result.status().location().size(), location.size());
  EXPECT_TRUE(result.status().location() == location);  // (too long to print on failure)
}

TEST(DeepTest, TwoThousandLevelsRoundTripOnAJvmStack) {
  ExpectRoundTrip(2000);
}

TEST(DeepTest, TheDepthLimitRoundTripsOnAJvmStack) {
  ExpectRoundTrip(ir::kMaxDepth);
}

TEST(DeepTest, OneLevelBeyondTheLimitIsADepthError) {
  RunWithStack(kJvmStack, [] {
    const ir::FeatureSetIr ir = DeepChain(ir::kMaxDepth + 1);
    const std::string path = DeepChainLeafPath(ir::kMaxDepth + 1);
    ExpectDepthError(dsl::ReadProto(dsl::WriteProto(ir)), path);
    ExpectDepthError(dsl::ReadJson(dsl::WriteJson(ir)), path);
  });
}

TEST(DeepTest, FarBeyondTheLimitIsADepthErrorToo) {
  RunWithStack(kJvmStack, [] {
    const ir::FeatureSetIr ir = DeepChain(200'000);
    // The error is at the first node beyond the limit, on the way down.
    const std::string path = DeepChainLeafPath(ir::kMaxDepth + 1);
    ExpectDepthError(dsl::ReadProto(dsl::WriteProto(ir)), path);
    ExpectDepthError(dsl::ReadJson(dsl::WriteJson(ir)), path);
  });
}

// Model calls nest like any other expression (spec section 6.1 and 5): a
// chain of model(m, model(m, ... x)[0])[1] at the limit reads and writes back
// in both formats, one level more is a depth error at the innermost input.
TEST(DeepTest, NestedModelCallsFollowTheDepthRules) {
  RunWithStack(kJvmStack, [] {
    for (const std::uint32_t levels : {ir::kMaxDepth, ir::kMaxDepth + 1}) {
      ir::IrBuilder builder(ir::SourceFormat::kProto);
      builder.AddModel(
          ir::ModelDecl{builder.Intern("m"), "m.json", ir::ModelFormat::kXgboostJson, {}});
      builder.BeginFeature();
      ir::NodeId id = builder.AddRef(builder.Intern("x"));
      std::string path = "features[0].expression";
      for (std::uint32_t level = 1; level < levels; ++level) {
        id = builder.AddModelCall(builder.Intern("m"), {&id, 1}, level % 2);
        path += ".model.inputs[0]";
      }
      builder.EndFeature(builder.Intern("deep"), id);
      const ir::FeatureSetIr ir = std::move(builder).Finish();
      const std::string bytes = dsl::WriteProto(ir);
      const std::string json = dsl::WriteJson(ir);
      if (levels == ir::kMaxDepth) {
        Result<ir::FeatureSetIr> from_proto = dsl::ReadProto(bytes);
        ASSERT_TRUE(from_proto.ok()) << from_proto.status().message();
        EXPECT_EQ(dsl::WriteProto(*from_proto), bytes);
        Result<ir::FeatureSetIr> from_json = dsl::ReadJson(json);
        ASSERT_TRUE(from_json.ok()) << from_json.status().message();
        EXPECT_EQ(dsl::WriteJson(*from_json), json);
        EXPECT_EQ(DumpIr(*from_json), DumpIr(ir));
      } else {
        ExpectDepthError(dsl::ReadProto(bytes), path);
        ExpectDepthError(dsl::ReadJson(json), path);
      }
    }
  });
}

TEST(DeepTest, DeeplyNestedJsonThatIsNotAFormulaIsHarmless) {
  RunWithStack(kJvmStack, [] {
    const std::size_t depth = 1'000'000;
    std::string json = R"({"features": [{"name": "f", "expression": {"constant": )";
    json.append(depth, '[');
    json.append(depth, ']');
    json += "}}]}";
    Result<ir::FeatureSetIr> result = dsl::ReadJson(json);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().location(), "features[0].expression.constant");

    // An unterminated one: a syntax error at the end.
    std::string open = R"({"inputs": )";
    open.append(depth, '[');
    result = dsl::ReadJson(open);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().location(), "1:" + std::to_string(open.size() + 1));
  });
}

TEST(DeepTest, DeeplyNestedBytesAreHarmless) {
  RunWithStack(kJvmStack, [] {
    // 300,000 unknown groups inside each other: an error, not a crash.
    std::string groups;
    for (int i = 0; i < 300'000; ++i) groups += "\x0b";  // start group, field 1
    Result<ir::FeatureSetIr> result = dsl::ReadProto(groups);
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.status().message().find("groups nested deeper"), std::string::npos)
        << result.status().message();

    // Unknown length-delimited fields are not looked into, however deep:
    // field 15 inside field 15 ..., 100,000 levels (built inside out).
    std::vector<std::string> headers;
    std::size_t inner = 0;
    for (int i = 0; i < 100'000; ++i) {
      headers.push_back(wire_test::Tag(15, 2) + wire_test::Varint(inner));
      inner += headers.back().size();
    }
    std::string unknown;
    for (auto it = headers.rbegin(); it != headers.rend(); ++it) unknown += *it;
    EXPECT_TRUE(dsl::ReadProto(unknown).ok());
  });
}

TEST(DeepTest, DeepNaryAndConditionalChainsCountEveryLevel) {
  // Depth counts every operand, as IrBuilder::DepthOf does: a chain of
  // single-operand Nary nodes 10,001 deep is too deep.
  RunWithStack(kJvmStack, [] {
    ir::IrBuilder builder(ir::SourceFormat::kProto);
    const ir::NameId name = builder.Intern("n");
    builder.BeginFeature();
    ir::NodeId id = builder.AddConstant(1.0f);
    for (std::uint32_t level = ir::kMaxDepth; level >= 1; --level) {
      const ir::NodeId operands[] = {id};
      id = builder.AddNary(ir::Op::kSum, operands, {});
    }
    EXPECT_EQ(builder.DepthOf(id), ir::kMaxDepth + 1);
    builder.EndFeature(name, id);
    const ir::FeatureSetIr ir = std::move(builder).Finish();
    std::string path = "features[0].expression";
    for (std::uint32_t level = 1; level <= ir::kMaxDepth; ++level) path += ".nary.operands[0]";
    ExpectDepthError(dsl::ReadProto(dsl::WriteProto(ir)), path);
    ExpectDepthError(dsl::ReadJson(dsl::WriteJson(ir)), path);
  });
}

}  // namespace
}  // namespace calcjit
