// The operator table (src/ir/op.def) and the kind table (src/ir/kind.h)
// against the contract's wire schema, read from libprotobuf's descriptors of
// proto/calcjit/v1/feature_set.proto (an independent statement of spec
// section 2), and the facts of each row against each other.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "calcjit/v1/feature_set.pb.h"
#include "ir/kind.h"
#include "ir/model_format.h"
#include "ir/op.h"

namespace calcjit::ir {
namespace {

namespace pb = google::protobuf;

const pb::OneofDescriptor& ExpressionKinds() {
  return *v1::Expression::descriptor()->FindOneofByName("kind");
}

// The kind table's field types as the schema's field types.
bool TypeMatches(FieldType type, const pb::FieldDescriptor& field) {
  switch (type) {
    case FieldType::kOperator:
      return field.type() == pb::FieldDescriptor::TYPE_ENUM && !field.is_repeated();
    case FieldType::kOperand:
      return field.message_type() == v1::Expression::descriptor() && !field.is_repeated();
    case FieldType::kOperands:
      return field.message_type() == v1::Expression::descriptor() && field.is_repeated();
    case FieldType::kName:
      return field.type() == pb::FieldDescriptor::TYPE_STRING && !field.is_repeated();
    case FieldType::kWeights:
      return field.type() == pb::FieldDescriptor::TYPE_FLOAT && field.is_repeated();
    case FieldType::kIndex:
      return field.type() == pb::FieldDescriptor::TYPE_UINT32 && !field.is_repeated();
  }
  return false;
}

TEST(KindTable, EveryKindIsTheExpressionMemberOfItsNumberAndName) {
  for (const KindInfo& info : kKindTable) {
    const pb::FieldDescriptor* member =
        v1::Expression::descriptor()->FindFieldByNumber(static_cast<int>(info.member));
    ASSERT_NE(member, nullptr) << info.member_name;
    EXPECT_EQ(member->containing_oneof(), &ExpressionKinds());
    EXPECT_EQ(member->name(), info.member_name);
    EXPECT_EQ(KindOfMember(info.member), info.kind);
    if (info.message.empty()) {
      EXPECT_NE(member->type(), pb::FieldDescriptor::TYPE_MESSAGE) << info.member_name;
      EXPECT_EQ(info.field_count, 0u);
      continue;
    }
    ASSERT_EQ(member->type(), pb::FieldDescriptor::TYPE_MESSAGE) << info.member_name;
    const pb::Descriptor& message = *member->message_type();
    EXPECT_EQ(message.name(), info.message);
    // Every field of the message, in field-number order, with its type.
    ASSERT_EQ(static_cast<std::size_t>(message.field_count()), info.field_count) << info.message;
    for (std::size_t f = 0; f < info.field_count; ++f) {
      const MessageField& field = info.fields[f];
      const pb::FieldDescriptor& schema = *message.field(static_cast<int>(f));
      EXPECT_EQ(schema.name(), field.name) << info.message;
      EXPECT_EQ(schema.json_name(), field.json_name) << info.message;
      EXPECT_EQ(static_cast<std::uint32_t>(schema.number()), field.number) << info.message;
      EXPECT_TRUE(TypeMatches(field.type, schema)) << info.message << "." << field.name;
    }
  }
}

TEST(KindTable, EveryExpressionMemberHasAKind) {
  for (int m = 0; m < ExpressionKinds().field_count(); ++m) {
    const pb::FieldDescriptor& member = *ExpressionKinds().field(m);
    EXPECT_TRUE(KindOfMember(static_cast<std::uint32_t>(member.number()))) << member.name();
  }
  EXPECT_EQ(LastMember(), 9u);
}

TEST(ModelFormats, AreTheSchemasFormats) {
  const pb::EnumDescriptor& formats = *v1::ModelDeclaration::Format_descriptor();
  EXPECT_EQ(static_cast<std::size_t>(formats.value_count()), std::size(kModelFormats) + 1);
  for (const ModelFormatInfo& info : kModelFormats) {
    const pb::EnumValueDescriptor* value = formats.FindValueByNumber(ProtoNumberOf(info.format));
    ASSERT_NE(value, nullptr) << info.text_name;
    EXPECT_EQ(value->name(), "FORMAT_" + std::string(info.proto_name));
    EXPECT_EQ(ModelFormatFromProtoName(value->name()), info.format);
    EXPECT_EQ(ModelFormatFromTextName(info.text_name), info.format);
  }
  EXPECT_FALSE(ModelFormatFromNumber(0));  // FORMAT_UNSPECIFIED is never a format
  EXPECT_FALSE(ModelFormatFromNumber(static_cast<int>(std::size(kModelFormats)) + 1));
  EXPECT_FALSE(ModelFormatFromProtoName("FORMAT_UNSPECIFIED"));
}

TEST(KindTable, OperandFieldsAndPaths) {
  EXPECT_EQ(FixedArity(OpKind::kConstant), 0);
  EXPECT_EQ(FixedArity(OpKind::kUnary), 1);
  EXPECT_EQ(FixedArity(OpKind::kBinary), 2);
  EXPECT_EQ(FixedArity(OpKind::kConditional), 3);
  EXPECT_EQ(FixedArity(OpKind::kNary), -1);
  EXPECT_EQ(FixedArity(OpKind::kVector), 0);
  EXPECT_EQ(FixedArity(OpKind::kAggregate), 1);
  EXPECT_EQ(OperandPath(OpKind::kUnary, 0), "unary.operand");
  EXPECT_EQ(OperandPath(OpKind::kBinary, 1), "binary.rhs");
  EXPECT_EQ(OperandPath(OpKind::kConditional, 2), "conditional.otherwise");
  EXPECT_EQ(OperandPath(OpKind::kNary, 7), "nary.operands[7]");
  EXPECT_EQ(OperandPath(OpKind::kAggregate, 0), "aggregate.operand");
  EXPECT_EQ(OperandPath(OpKind::kVector, 0), "?");
  EXPECT_EQ(FixedArity(OpKind::kModel), -1);
  EXPECT_EQ(InfoOf(OpKind::kModel).min_operands, 0u);  // no inputs: the model's feature names
  EXPECT_EQ(OperandPath(OpKind::kModel, 1), "model.inputs[1]");
  EXPECT_TRUE(HasOperatorField(OpKind::kBinary));
  EXPECT_FALSE(HasOperatorField(OpKind::kConditional));
}

// The Operator enum of a kind's message, if it has one.
const pb::EnumDescriptor* OperatorEnum(OpKind kind) {
  const pb::FieldDescriptor* member =
      v1::Expression::descriptor()->FindFieldByNumber(static_cast<int>(InfoOf(kind).member));
  if (member == nullptr || member->message_type() == nullptr) return nullptr;
  return member->message_type()->FindEnumTypeByName("Operator");
}

TEST(OpTable, EveryRowIsItsKindsOperatorOfItsNumberAndName) {
  for (const OpInfo& info : kOpTable) {
    const pb::EnumDescriptor* operators = OperatorEnum(info.kind);
    if (info.optimizer_only) {  // no wire form: no reader can make it
      EXPECT_EQ(info.proto_number, 0) << info.name;
      EXPECT_TRUE(info.proto_name.empty()) << info.name;
      EXPECT_FALSE(OpFromProtoName(info.kind, std::string(info.name)).has_value()) << info.name;
      continue;
    }
    if (operators == nullptr) {
      EXPECT_EQ(info.proto_number, 0) << info.name;
      EXPECT_EQ(SoleOpOf(info.kind), info.op) << info.name << " shares a kind with no Operator";
      continue;
    }
    const pb::EnumValueDescriptor* value = operators->FindValueByNumber(info.proto_number);
    ASSERT_NE(value, nullptr) << info.name;
    EXPECT_EQ(value->name(), "OPERATOR_" + std::string(info.proto_name)) << info.name;
    EXPECT_EQ(OpFromProtoNumber(info.kind, info.proto_number), info.op);
    EXPECT_EQ(OpFromProtoName(info.kind, value->name()), info.op);
  }
}

TEST(OpTable, EveryOperatorOfTheSchemaHasARow) {
  for (const KindInfo& kind : kKindTable) {
    const pb::EnumDescriptor* operators = OperatorEnum(kind.kind);
    if (operators == nullptr) continue;
    for (int v = 0; v < operators->value_count(); ++v) {
      const int number = operators->value(v)->number();
      if (number == 0) continue;  // OPERATOR_UNSPECIFIED
      EXPECT_TRUE(OpFromProtoNumber(kind.kind, number)) << operators->value(v)->full_name();
    }
  }
}

TEST(OpTable, SpellingsAreUniqueWhereTheTextNeedsThem) {
  std::set<std::string> symbols;
  for (const OpInfo& info : kOpTable) {
    switch (info.syntax) {
      case Syntax::kPrefix:
        EXPECT_EQ(FindPrefix(info.spelling), info.op) << info.name;
        EXPECT_EQ(info.precedence, PrefixPrecedence()) << info.name;
        break;
      case Syntax::kInfix:
      case Syntax::kInfixRight:
        EXPECT_EQ(FindInfix(info.spelling), info.op) << info.name;
        EXPECT_GT(info.precedence, 0) << info.name;
        break;
      case Syntax::kLeaf:
        EXPECT_TRUE(info.kind == OpKind::kConstant || info.kind == OpKind::kRef) << info.name;
        break;
      case Syntax::kCall:
        // An optimizer-only row has no spelling, so no call names it.
        EXPECT_EQ(info.spelling.empty(), info.optimizer_only) << info.name;
        break;
    }
  }
}

// The facts a stage reads, consistent with each other and with the spec's
// words (section 3) for the rows it names.
TEST(OpTable, FactsOfEveryRowAgree) {
  for (const OpInfo& info : kOpTable) {
    SCOPED_TRACE(std::string(info.name));
    const bool element_wise = info.shape == ResultShape::kElementWise;
    EXPECT_EQ(info.kind == OpKind::kAggregate, !element_wise);
    EXPECT_EQ(info.kind == OpKind::kAggregate, info.nan_rule == NanRule::kSkipsNan);
    // Folding evaluates a row with its kernel on constant operands: only
    // element-wise rows with expression operands that are not lowered first.
    if (MayFold(info.op)) {
      EXPECT_TRUE(element_wise);
      EXPECT_GT(FixedArity(info.kind), 0);
    }
    // Only kernels a loop compiler runs per item can be vector calls.
    if (IsVectorCall(info.op)) {
      EXPECT_TRUE(info.kind == OpKind::kUnary || info.kind == OpKind::kBinary);
    }
    if (info.scratch_keys_per_item > 0) {
      EXPECT_EQ(info.kind, OpKind::kAggregate);
    }
    if (info.commutative) {
      EXPECT_EQ(info.kind, OpKind::kBinary);
    }
    if (info.lhs_only) {
      EXPECT_EQ(info.kind, OpKind::kVector);
    }
    if (info.weighted || info.divides_by_count) {
      EXPECT_EQ(info.kind, OpKind::kNary);
    }
    if (!info.call_spelling.empty()) {
      EXPECT_NE(info.syntax, Syntax::kCall);
    }
    EXPECT_LE(info.scratch_keys_per_item, MaxScratchKeysPerItem());
  }
  EXPECT_EQ(ScratchKeysPerItem(Op::kRank), 2);        // 2n 64-bit keys (sort keys and indices)
  EXPECT_EQ(ScratchKeysPerItem(Op::kRankAtMost), 1);  // n 32-bit keys, half of it
  EXPECT_EQ(MaxScratchKeysPerItem(), 2);
  // The optimizer's rows: aggregates with a bound, made by opt/top_k.cc only.
  int optimizer_only = 0;
  for (const OpInfo& info : kOpTable) {
    if (!info.optimizer_only) {
      EXPECT_FALSE(info.takes_bound) << info.name;
      continue;
    }
    ++optimizer_only;
    EXPECT_EQ(info.kind, OpKind::kAggregate) << info.name;
    EXPECT_TRUE(info.takes_bound) << info.name;
  }
  EXPECT_EQ(optimizer_only, 1);
  EXPECT_TRUE(IsOptimizerOnly(Op::kRankAtMost));
  EXPECT_TRUE(TakesBound(Op::kRankAtMost));
  for (const Op op : {Op::kRank, Op::kSoftmax, Op::kMinMaxScale, Op::kZscore}) {
    EXPECT_EQ(ResultShapeOf(op), ResultShape::kBatchColumn) << Info(op).name;
  }
  for (const Op op : {Op::kBatchMin, Op::kBatchMax, Op::kBatchSum, Op::kBatchMean, Op::kBatchStd,
                      Op::kBatchCount}) {
    EXPECT_EQ(ResultShapeOf(op), ResultShape::kBatchStatistic) << Info(op).name;
  }
  EXPECT_EQ(NaryFoldOf(Op::kProduct), Op::kMul);
  EXPECT_EQ(NaryFoldOf(Op::kNaryMin), Op::kMin);
  EXPECT_EQ(NaryFoldOf(Op::kMean), Op::kAdd);
  EXPECT_TRUE(Info(Op::kMean).divides_by_count);
  EXPECT_TRUE(Info(Op::kWeightedSum).weighted);
  EXPECT_EQ(Info(Op::kPow).call_spelling, "pow");
}

}  // namespace
}  // namespace calcjit::ir
