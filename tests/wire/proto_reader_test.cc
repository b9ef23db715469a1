// ReadProto against the protobuf wire format's rules, with libprotobuf's
// parser as the independent reference.
#include "dsl/proto_reader.h"

#include <gtest/gtest.h>

#include <google/protobuf/stubs/logging.h>

#include <bit>
#include <limits>
#include <string>
#include <vector>

#include "calcjit/v1/feature_set.pb.h"
#include "ir/builder.h"
#include "ir/limits.h"
#include "wire_test_util.h"

namespace calcjit {
namespace {

using dsl::ReadProto;
using wire_test::DumpIr;
using wire_test::Fixed32Field;
using wire_test::LenField;
using wire_test::Tag;
using wire_test::Varint;
using wire_test::VarintField;

// Reads `bytes` with ReadProto and with libprotobuf plus the reference
// converter; both must succeed with the same IR, whose dump is returned.
std::string ReadBoth(const std::string& bytes) {
  v1::FeatureSet message;
  EXPECT_TRUE(message.ParseFromString(bytes)) << "libprotobuf rejects the test input";
  Result<ir::FeatureSetIr> expected = wire_test::IrFromMessage(message);
  Result<ir::FeatureSetIr> ours = ReadProto(bytes);
  EXPECT_TRUE(expected.ok()) << expected.status().ToString();
  EXPECT_TRUE(ours.ok()) << ours.status().ToString();
  if (!ours.ok() || !expected.ok()) return "";
  EXPECT_EQ(DumpIr(*ours), DumpIr(*expected));
  EXPECT_EQ(ours->source, ir::SourceFormat::kProto);
  return DumpIr(*ours);
}

void ExpectError(const Result<ir::FeatureSetIr>& result, const std::string& location,
                 const std::string& message_part) {
  ASSERT_FALSE(result.ok()) << "expected an error at " << location;
  EXPECT_EQ(result.status().kind(), ErrorKind::kUser);
  EXPECT_EQ(result.status().location(), location) << result.status().ToString();
  EXPECT_NE(result.status().message().find(message_part), std::string::npos)
      << result.status().ToString();
}

v1::FeatureSet SeedMessage() {
  v1::FeatureSet message;
  v1::FeatureDefinition* feature = message.add_features();
  feature->set_name("f_qux");
  v1::Binary* div = feature->mutable_expression()->mutable_binary();
  div->set_operator_(v1::Binary::OPERATOR_DIV);
  div->mutable_lhs()->set_feature("f_foo");
  v1::Binary* sum = div->mutable_rhs()->mutable_binary();
  sum->set_operator_(v1::Binary::OPERATOR_SUM);
  sum->mutable_lhs()->set_feature("f_bar");
  sum->mutable_rhs()->set_feature("f_baz");
  return message;
}

TEST(ProtoReaderTest, ReadsTheSeedFormula) {
  EXPECT_EQ(ReadBoth(SeedMessage().SerializeAsString()),
            "feature \"f_qux\" nodes=0..4\n"
            "0: Ref \"f_foo\"\n"
            "1: Ref \"f_bar\"\n"
            "2: Ref \"f_baz\"\n"
            "3: Add #1 #2\n"
            "4: Div #0 #3\n");
}

TEST(ProtoReaderTest, EmptyBytesAreAnEmptySet) {
  Result<ir::FeatureSetIr> result = ReadProto("");
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result->inputs.empty());
  EXPECT_TRUE(result->features.empty());
}

TEST(ProtoReaderTest, ReadsInputsWithPresenceOfTheDefault) {
  v1::FeatureSet message;
  v1::InputDeclaration* a = message.add_inputs();
  a->set_name("user_age");
  a->set_scope(v1::InputDeclaration::SCOPE_QUERY);
  a->set_default_value(30.0f);
  v1::InputDeclaration* b = message.add_inputs();
  b->set_name("item_emb");
  b->set_dimension(64);
  v1::InputDeclaration* c = message.add_inputs();
  c->set_name("zero");
  c->set_default_value(0.0f);  // present although it is the default value
  EXPECT_EQ(ReadBoth(message.SerializeAsString()),
            "input \"user_age\" scope=1 dim=0 default=41f00000\n"
            "input \"item_emb\" scope=0 dim=64 default=none\n"
            "input \"zero\" scope=0 dim=0 default=00000000\n");
}

TEST(ProtoReaderTest, DimensionKeepsTheLow32BitsOfAVarint) {
  const std::string input = LenField(1, "x") + VarintField(3, (std::uint64_t{1} << 32) + 5);
  EXPECT_EQ(ReadBoth(LenField(1, input)), "input \"x\" scope=0 dim=5 default=none\n");
}

TEST(ProtoReaderTest, EnumsKeepTheLow32BitsOfAVarint) {
  // Operator 2^32 + 4 is DIV; scope 2^32 + 1 is QUERY.
  const std::string input = LenField(1, "q") + VarintField(2, (std::uint64_t{1} << 32) + 1);
  const std::string binary = VarintField(1, (std::uint64_t{1} << 32) + 4) +
                             LenField(2, Fixed32Field(1, 1.0f)) +
                             LenField(3, Fixed32Field(1, 2.0f));
  const std::string feature = LenField(1, "f") + LenField(2, LenField(4, binary));
  EXPECT_EQ(ReadBoth(LenField(1, input) + LenField(2, feature)),
            "input \"q\" scope=1 dim=0 default=none\n"
            "feature \"f\" nodes=0..2\n"
            "0: Constant 3f800000\n"
            "1: Constant 40000000\n"
            "2: Div #0 #1\n");
}

TEST(ProtoReaderTest, TheLastScalarWins) {
  const std::string input = LenField(1, "first") + VarintField(2, 1) + LenField(1, "second") +
                            VarintField(2, 0) + VarintField(3, 7) + VarintField(3, 9) +
                            Fixed32Field(4, 1.0f) + Fixed32Field(4, 2.0f);
  EXPECT_EQ(ReadBoth(LenField(1, input)), "input \"second\" scope=0 dim=9 default=40000000\n");
}

TEST(ProtoReaderTest, ASingularMessageThatOccursTwiceIsMerged) {
  // expression { binary { operator: SUM lhs { feature: "a" } } }
  // expression { binary { rhs { feature: "b" } } }, then the name.
  const std::string first = LenField(4, VarintField(1, 1) + LenField(2, LenField(2, "a")));
  const std::string second = LenField(4, LenField(3, LenField(2, "b")));
  const std::string feature = LenField(2, first) + LenField(2, second) + LenField(1, "f");
  EXPECT_EQ(ReadBoth(LenField(2, feature)),
            "feature \"f\" nodes=0..2\n"
            "0: Ref \"a\"\n"
            "1: Ref \"b\"\n"
            "2: Add #0 #1\n");
}

TEST(ProtoReaderTest, MergingReachesIntoOperands) {
  // binary { operator: MUL lhs { unary { operator: NEG } } lhs { unary { operand {...} } } rhs
  // {...} }
  const std::string binary = VarintField(1, 3) + LenField(2, LenField(3, VarintField(1, 1))) +
                             LenField(3, Fixed32Field(1, 2.0f)) +
                             LenField(2, LenField(3, LenField(2, LenField(2, "x"))));
  const std::string feature = LenField(1, "f") + LenField(2, LenField(4, binary));
  EXPECT_EQ(ReadBoth(LenField(2, feature)),
            "feature \"f\" nodes=0..3\n"
            "0: Ref \"x\"\n"
            "1: Neg #0\n"
            "2: Constant 40000000\n"
            "3: Mul #1 #2\n");
}

TEST(ProtoReaderTest, TheLastOneofMemberWins) {
  const std::string unary_neg = LenField(3, VarintField(1, 1) + LenField(2, LenField(2, "u1")));
  const std::string unary_abs = LenField(3, VarintField(1, 2));
  const std::string binary = LenField(4, VarintField(1, 1));
  struct Case {
    std::string expression;
    std::string dump;
  };
  const std::vector<Case> cases = {
      {Fixed32Field(1, 1.0f) + LenField(2, "x"), "0: Ref \"x\"\n"},
      {LenField(2, "x") + Fixed32Field(1, 1.0f), "0: Constant 3f800000\n"},
      {binary + Fixed32Field(1, 2.0f), "0: Constant 40000000\n"},
      // The same member again merges: NEG with operand u1, then ABS.
      {unary_neg + unary_abs, "0: Ref \"u1\"\n1: Abs #0\n"},
      // Another member in between discards the first: ABS has no operand.
      {unary_neg + binary + unary_abs + LenField(3, LenField(2, LenField(2, "u2"))),
       "0: Ref \"u2\"\n1: Abs #0\n"},
  };
  for (const Case& c : cases) {
    const std::string feature = LenField(1, "f") + LenField(2, c.expression);
    const std::string dump = ReadBoth(LenField(2, feature));
    EXPECT_EQ(dump.substr(dump.find('\n') + 1), c.dump);
  }
}

TEST(ProtoReaderTest, NaryOperandsAndWeightsAppendAcrossOccurrences) {
  // nary { operator: WEIGHTED_SUM operands {1} weights [0.5] (packed) }
  // nary { operands {2} weights 0.25 (unpacked) weights [1, 2] (packed) }
  const std::string packed_half = LenField(3, std::string("\x00\x00\x00\x3f", 4));
  const std::string packed_one_two =
      LenField(3, std::string("\x00\x00\x80\x3f\x00\x00\x00\x40", 8));
  const std::string first =
      LenField(7, VarintField(1, 6) + LenField(2, Fixed32Field(1, 1.0f)) + packed_half);
  const std::string second =
      LenField(7, LenField(2, Fixed32Field(1, 2.0f)) + Fixed32Field(3, 0.25f) + packed_one_two);
  const std::string feature = LenField(1, "f") + LenField(2, first + second);
  EXPECT_EQ(ReadBoth(LenField(2, feature)),
            "feature \"f\" nodes=0..2\n"
            "0: Constant 3f800000\n"
            "1: Constant 40000000\n"
            "2: WeightedSum #0 #1 w=3f000000,3e800000,3f800000,40000000,\n");
}

TEST(ProtoReaderTest, SkipsUnknownFieldsOfEveryWireType) {
  const std::string fixed64 = Tag(15, 1) + std::string(8, '\x7f');
  const std::string group = Tag(16, 3) + VarintField(1, 5) + Tag(17, 3) + LenField(2, "zz") +
                            Tag(17, 4) + Fixed32Field(3, 1.0f) + Tag(16, 4);
  const std::string unknown =
      VarintField(100, 1) + fixed64 + LenField(536870911, "skip") + group + Tag(20, 5) + "abcd";
  const std::string vector =
      unknown + VarintField(1, 1) + LenField(2, "a") + unknown + LenField(3, "b");
  const std::string feature =
      unknown + LenField(1, "f") + LenField(2, unknown + LenField(6, vector) + unknown) + unknown;
  const std::string input = unknown + LenField(1, "a") + unknown + VarintField(3, 4);
  EXPECT_EQ(ReadBoth(unknown + LenField(1, input) + unknown + LenField(2, feature) + unknown),
            "input \"a\" scope=0 dim=4 default=none\n"
            "feature \"f\" nodes=0..0\n"
            "0: Dot \"a\" \"b\"\n");
}

TEST(ProtoReaderTest, AKnownFieldWithAnotherWireTypeIsAnUnknownField) {
  // constant as a varint, feature as fixed32: neither sets the oneof.
  const std::string expression =
      VarintField(1, 7) + Fixed32Field(2, 1.0f) + LenField(2, "kept") + VarintField(1, 3);
  const std::string feature = LenField(1, "f") + LenField(2, expression);
  EXPECT_EQ(ReadBoth(LenField(2, feature)), "feature \"f\" nodes=0..0\n0: Ref \"kept\"\n");

  // An operator sent as a length-delimited field stays unset.
  const std::string unary = LenField(1, "\x01") + LenField(2, Fixed32Field(1, 1.0f));
  ExpectError(ReadProto(LenField(2, LenField(1, "f") + LenField(2, LenField(3, unary)))),
              "features[0].expression.unary.operator", "OPERATOR_UNSPECIFIED");
}

TEST(ProtoReaderTest, VectorNamesThatAreEmptyBecomeNone) {
  const std::string vector = VarintField(1, 4) + LenField(2, "emb") + LenField(3, "");
  EXPECT_EQ(ReadBoth(LenField(2, LenField(1, "n") + LenField(2, LenField(6, vector)))),
            "feature \"n\" nodes=0..0\n0: Norm \"emb\" <none>\n");
}

// Every float keeps its bits, except that every NaN becomes the canonical
// quiet NaN (its sign and payload are not observable, spec section 1, and
// this keeps protobuf -> text -> protobuf byte-identical).
TEST(ProtoReaderTest, KeepsFloatBitsExactlyAndCanonicalizesNan) {
  const float values[] = {-0.0f, std::numeric_limits<float>::denorm_min(),
                          std::numeric_limits<float>::infinity(), std::bit_cast<float>(0x7FA00001u),
                          std::bit_cast<float>(0xFFC00000u)};
  for (const float value : values) {
    const std::string feature = LenField(1, "f") + LenField(2, Fixed32Field(1, value));
    Result<ir::FeatureSetIr> result = ReadProto(LenField(2, feature));
    ASSERT_TRUE(result.ok());
    const std::uint32_t expected =
        value != value ? 0x7FC00000u : std::bit_cast<std::uint32_t>(value);
    EXPECT_EQ(std::bit_cast<std::uint32_t>(result->nodes[0].constant), expected);
  }
}

// Malformed bytes: each is rejected by libprotobuf too, and located here at
// the byte that is wrong.
TEST(ProtoReaderTest, MalformedBytesGiveTheirOffset) {
  struct Case {
    std::string bytes;
    std::size_t offset;
    std::string message;
  };
  const std::string nested_overrun = LenField(2, Tag(2, 2) + "\x0a" + "x") + "0123456789";
  const std::vector<Case> cases = {
      {"\x28\x80", 1, "truncated varint"},
      {std::string("\x28").append(10, '\xff').append("\x01"), 1, "varint longer than 10 bytes"},
      {"\x0a", 1, "truncated length"},
      {"\x0a\x05"
       "ab",
       0, "runs past the end"},
      {nested_overrun, 2, "runs past the end"},
      {"\x0a\x80\x80\x80\x80\x08", 1, "2 GiB"},
      {std::string("\x00", 1), 0, "field number 0"},
      {std::string("\x12\x02\x02\x00", 4), 2, "field number 0"},
      {"\x0e", 0, "invalid wire type 6"},
      {LenField(1, "\x0f"), 2, "invalid wire type 7"},
      {"\x0c", 0, "end-group tag of field 1 without a start-group tag"},
      {LenField(2, "\x0c"), 2, "without a start-group tag"},
      {"\x0b\x14", 1, "does not match the open group of field 1"},
      {"\x0b\x08\x01", 0, "no end-group tag"},
      {LenField(2, "\x0b") + "\x0c", 2, "no end-group tag"},
      {"\x0d\x01\x02", 1, "truncated fixed32"},
      {"\x09\x01\x02\x03", 1, "truncated fixed64"},
      {"\x80\x80\x80\x80\x80\x01", 0, "tag longer than 5 bytes"},
      {"\x80\x80", 0, "truncated tag"},
      {LenField(2, LenField(2, LenField(7, LenField(3, "abc")))), 6, "not a multiple of 4"},
      {LenField(1, LenField(1, "a\xff")), 5, "invalid UTF-8"},
      {LenField(1, LenField(1, "\xc0\x80")), 4, "invalid UTF-8"},          // overlong
      {LenField(1, LenField(1, "x\xed\xa0\x80")), 5, "invalid UTF-8"},     // surrogate
      {LenField(1, LenField(1, "\xf4\x90\x80\x80")), 4, "invalid UTF-8"},  // above U+10FFFF
      {LenField(1, LenField(1, "ok\xe2\x82")), 6, "invalid UTF-8"},        // truncated
      // Strings that a later oneof member replaces are still checked.
      {LenField(2, LenField(2, LenField(2, "\xff") + Fixed32Field(1, 1.0f))), 6, "invalid UTF-8"},
      {LenField(3, LenField(2, "path\x80")), 8, "invalid UTF-8"},  // a ModelDeclaration
      // A field that does not fit its message: Unary inside Expression.
      {LenField(2, LenField(2, Tag(3, 2) + "\x09" + "x")), 4, "runs past the end"},
  };
  google::protobuf::LogSilencer silence;  // libprotobuf logs each invalid UTF-8 string
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::PrintToString(c.bytes));
    v1::FeatureSet message;
    EXPECT_FALSE(message.ParseFromString(c.bytes)) << "libprotobuf accepts it";
    ExpectError(ReadProto(c.bytes), "byte " + std::to_string(c.offset), c.message);
  }
}

TEST(ProtoReaderTest, ValidUtf8IsAccepted) {
  const std::string name =
      "gr\xc3\xb6\xc3\x9f"
      "e \xe6\x97\xa5 \xf0\x9f\x98\x80 \xef\xbf\xbf";
  EXPECT_EQ(ReadBoth(LenField(1, LenField(1, name))),
            "input \"" + name + "\" scope=0 dim=0 default=none\n");
}

// Well-formed messages with invalid content: errors at their field paths.
TEST(ProtoReaderTest, InvalidContentGivesItsFieldPath) {
  struct Case {
    std::string name;
    std::function<void(v1::FeatureSet*)> build;
    std::string location;
    std::string message;
  };
  auto feature = [](v1::FeatureSet* m) {
    v1::FeatureDefinition* f = m->add_features();
    f->set_name("f");
    return f->mutable_expression();
  };
  const std::vector<Case> cases = {
      {"unset operator",
       [&](v1::FeatureSet* m) { feature(m)->mutable_unary()->mutable_operand()->set_constant(1); },
       "features[0].expression.unary.operator", "Unary operator is OPERATOR_UNSPECIFIED"},
      {"unknown operator",
       [&](v1::FeatureSet* m) {
         v1::Binary* b = feature(m)->mutable_binary();
         b->set_operator_(static_cast<v1::Binary::Operator>(99));
         b->mutable_lhs()->set_constant(1);
         b->mutable_rhs()->set_constant(2);
       },
       "features[0].expression.binary.operator", "unknown Binary operator 99"},
      {"unknown vector operator",
       [&](v1::FeatureSet* m) {
         feature(m)->mutable_vector()->set_operator_(static_cast<v1::Vector::Operator>(5));
       },
       "features[0].expression.vector.operator", "unknown Vector operator 5"},
      {"no kind",
       [&](v1::FeatureSet* m) {
         v1::Binary* b = feature(m)->mutable_binary();
         b->set_operator_(v1::Binary::OPERATOR_SUB);
         b->mutable_lhs()->set_constant(1);
         b->mutable_rhs();
       },
       "features[0].expression.binary.rhs", "no kind"},
      {"unary without operand",
       [&](v1::FeatureSet* m) {
         feature(m)->mutable_unary()->set_operator_(v1::Unary::OPERATOR_EXP);
       },
       "features[0].expression.unary.operand", "Unary.operand is not set"},
      {"aggregate without operand",
       [&](v1::FeatureSet* m) {
         feature(m)->mutable_aggregate()->set_operator_(v1::Aggregate::OPERATOR_RANK);
       },
       "features[0].expression.aggregate.operand", "Aggregate.operand is not set"},
      {"binary without lhs",
       [&](v1::FeatureSet* m) {
         v1::Binary* b = feature(m)->mutable_binary();
         b->set_operator_(v1::Binary::OPERATOR_SUB);
         b->mutable_rhs()->set_constant(1);
       },
       "features[0].expression.binary.lhs", "Binary.lhs is not set"},
      {"binary without rhs",
       [&](v1::FeatureSet* m) {
         v1::Binary* b = feature(m)->mutable_binary();
         b->set_operator_(v1::Binary::OPERATOR_SUB);
         b->mutable_lhs()->set_constant(1);
       },
       "features[0].expression.binary.rhs", "Binary.rhs is not set"},
      {"conditional without then",
       [&](v1::FeatureSet* m) {
         v1::Conditional* c = feature(m)->mutable_conditional();
         c->mutable_condition()->set_constant(1);
         c->mutable_otherwise()->set_constant(1);
       },
       "features[0].expression.conditional.then", "Conditional.then is not set"},
      {"conditional without condition",
       [&](v1::FeatureSet* m) { feature(m)->mutable_conditional(); },
       "features[0].expression.conditional.condition", "Conditional.condition is not set"},
      {"conditional without otherwise",
       [&](v1::FeatureSet* m) {
         v1::Conditional* c = feature(m)->mutable_conditional();
         c->mutable_condition()->set_constant(1);
         c->mutable_then()->set_constant(1);
       },
       "features[0].expression.conditional.otherwise", "Conditional.otherwise is not set"},
      {"nary without operands",
       [&](v1::FeatureSet* m) {
         v1::Nary* n = feature(m)->mutable_nary();
         n->set_operator_(v1::Nary::OPERATOR_MEAN);
         n->add_weights(1);
       },
       "features[0].expression.nary.operands", "Nary has no operands"},
      {"feature without expression",
       [&](v1::FeatureSet* m) {
         feature(m)->set_constant(1);
         m->add_features()->set_name("g");
       },
       "features[1].expression", "feature has no expression"},
      {"empty input name", [&](v1::FeatureSet* m) { m->add_inputs()->set_dimension(3); },
       "inputs[0].name", "input name is empty"},
      {"empty feature name",
       [&](v1::FeatureSet* m) { m->add_features()->mutable_expression()->set_constant(1); },
       "features[0].name", "feature name is empty"},
      {"empty reference", [&](v1::FeatureSet* m) { feature(m)->set_feature(""); },
       "features[0].expression.feature", "feature name is empty"},
      {"unknown scope",
       [&](v1::FeatureSet* m) {
         m->add_inputs()->set_name("a");
         v1::InputDeclaration* b = m->add_inputs();
         b->set_name("b");
         b->set_scope(static_cast<v1::InputDeclaration::Scope>(2));
       },
       "inputs[1].scope", "unknown Scope value 2"},
      {"model declaration without a format",
       [&](v1::FeatureSet* m) {
         feature(m)->set_constant(1);
         m->add_models()->set_name("ranker");
       },
       "models[0].format", "model format is FORMAT_UNSPECIFIED (not set)"},
      {"model declaration of an unknown format",
       [&](v1::FeatureSet* m) {
         v1::ModelDeclaration* first = m->add_models();
         first->set_name("a");
         first->set_format(v1::ModelDeclaration::FORMAT_ONNX);
         v1::ModelDeclaration* second = m->add_models();
         second->set_name("b");
         second->set_format(static_cast<v1::ModelDeclaration::Format>(9));
       },
       "models[1].format", "unknown Format value 9"},
      {"model declaration without a name",
       [&](v1::FeatureSet* m) {
         m->add_models()->set_format(v1::ModelDeclaration::FORMAT_LIGHTGBM_TEXT);
       },
       "models[0].name", "model name is empty"},
      {"model path with a line break",
       [&](v1::FeatureSet* m) {
         v1::ModelDeclaration* model = m->add_models();
         model->set_name("m");
         model->set_path("a\nb");
         model->set_format(v1::ModelDeclaration::FORMAT_XGBOOST_JSON);
       },
       "models[0].path", "a model path cannot contain a line break"},
      {"model call without a name",
       [&](v1::FeatureSet* m) {
         v1::Binary* b = feature(m)->mutable_binary();
         b->set_operator_(v1::Binary::OPERATOR_SUM);
         b->mutable_lhs()->mutable_model()->add_inputs()->set_constant(2);
         b->mutable_rhs()->set_constant(1);
       },
       "features[0].expression.binary.lhs.model.name", "model name is empty"},
      {"model input without a kind",
       [&](v1::FeatureSet* m) {
         v1::Model* model = feature(m)->mutable_model();
         model->set_name("m");
         model->add_inputs()->set_constant(2);
         model->add_inputs();
       },
       "features[0].expression.model.inputs[1]", "no kind set"},
      {"deep in a later feature",
       [&](v1::FeatureSet* m) {
         for (int i = 0; i < 3; ++i) feature(m)->set_constant(static_cast<float>(i));
         v1::Nary* n = feature(m)->mutable_nary();
         n->set_operator_(v1::Nary::OPERATOR_SUM);
         n->add_operands()->set_constant(1);
         n->add_operands()->set_feature("x");
         v1::Conditional* c = n->add_operands()->mutable_conditional();
         c->mutable_condition()->set_constant(1);
         c->mutable_then()->mutable_unary()->set_operator_(v1::Unary::OPERATOR_IS_NAN);
         c->mutable_otherwise()->set_constant(1);
       },
       "features[3].expression.nary.operands[2].conditional.then.unary.operand",
       "Unary.operand is not set"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    v1::FeatureSet message;
    c.build(&message);
    const std::string bytes = message.SerializeAsString();
    ExpectError(ReadProto(bytes), c.location, c.message);
    // The reference agrees on the location.
    Result<ir::FeatureSetIr> reference = wire_test::IrFromMessage(message);
    ASSERT_FALSE(reference.ok());
    EXPECT_EQ(reference.status().location(), c.location);
  }
}

TEST(ProtoReaderTest, KeepsWeightsAsGiven) {
  v1::FeatureSet message;
  v1::FeatureDefinition* f = message.add_features();
  f->set_name("f");
  v1::Nary* n = f->mutable_expression()->mutable_nary();
  n->set_operator_(v1::Nary::OPERATOR_SUM);  // weights on SUM: the checker's business
  n->add_operands()->set_constant(1);
  n->add_weights(1);
  n->add_weights(2);
  EXPECT_EQ(ReadBoth(message.SerializeAsString()),
            "feature \"f\" nodes=0..1\n0: Constant 3f800000\n1: Sum #0 w=3f800000,40000000,\n");
}

// A Nary of `operands` constants: 7 bytes per operand.
std::string WideNary(std::size_t operands) {
  std::string nary = VarintField(1, 1);
  const std::string operand = LenField(2, Fixed32Field(1, 1.0f));
  nary.reserve(operands * operand.size() + 16);
  for (std::size_t i = 0; i < operands; ++i) nary += operand;
  return LenField(2, LenField(1, "wide") + LenField(2, LenField(7, nary)));
}

TEST(ProtoReaderTest, AcceptsExactlyTheNodeLimit) {
  Result<ir::FeatureSetIr> result = ReadProto(WideNary(ir::kMaxNodes - 1));
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->nodes.size(), ir::kMaxNodes);
}

TEST(ProtoReaderTest, RejectsOneNodeMoreThanTheLimit) {
  ExpectError(ReadProto(WideNary(ir::kMaxNodes)), "features[0].expression",
              "more than 1000000 expression nodes");
  // Across definitions too: the limit is per set.
  const std::string set = WideNary(ir::kMaxNodes - 1) +
                          LenField(2, LenField(1, "one") + LenField(2, Fixed32Field(1, 1.0f)));
  ExpectError(ReadProto(set), "features[1].expression", "more than 1000000 expression nodes");
}

}  // namespace
}  // namespace calcjit
