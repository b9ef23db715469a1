// The binary reader's schema table (src/dsl/wire_schema.h), which its
// validator checks bytes against, agrees with the kind table (src/ir/kind.h),
// which the readers and writers build and read messages from.
#include <gtest/gtest.h>

#include <string>

#include "dsl/wire_schema.h"
#include "ir/kind.h"

namespace calcjit::dsl::wire {
namespace {

// The schema table's message of that name.
bool FindMessage(std::string_view name, Message* message) {
  for (int m = 0; m <= static_cast<int>(Message::kModelDeclaration); ++m) {
    if (MessageName(static_cast<Message>(m)) == name) {
      *message = static_cast<Message>(m);
      return true;
    }
  }
  return false;
}

FieldKind ExpectedKind(ir::FieldType type) {
  switch (type) {
    case ir::FieldType::kOperator:
      return FieldKind::kVarint;
    case ir::FieldType::kOperand:
    case ir::FieldType::kOperands:
      return FieldKind::kMessage;
    case ir::FieldType::kName:
      return FieldKind::kString;
    case ir::FieldType::kWeights:
      return FieldKind::kPackedFloat;
    case ir::FieldType::kIndex:
      return FieldKind::kVarint;
  }
  return FieldKind::kUnknown;
}

TEST(WireSchema, AgreesWithTheKindTable) {
  for (const ir::KindInfo& info : ir::kKindTable) {
    SCOPED_TRACE(std::string(info.member_name));
    const FieldSpec member = FindField(Message::kExpression, info.member);
    if (info.message.empty()) {
      EXPECT_NE(member.kind, FieldKind::kMessage);
      continue;
    }
    ASSERT_EQ(member.kind, FieldKind::kMessage);
    EXPECT_EQ(MessageName(member.message), info.message);
    Message message = Message::kFeatureSet;
    ASSERT_TRUE(FindMessage(info.message, &message));
    for (std::size_t f = 0; f < info.field_count; ++f) {
      const ir::MessageField& field = info.fields[f];
      const FieldSpec spec = FindField(message, field.number);
      EXPECT_EQ(spec.kind, ExpectedKind(field.type)) << field.name;
      if (spec.kind == FieldKind::kMessage) {
        EXPECT_EQ(spec.message, Message::kExpression);
      }
    }
    EXPECT_EQ(FindField(message, static_cast<std::uint32_t>(info.field_count) + 1).kind,
              FieldKind::kUnknown);
  }
}

}  // namespace
}  // namespace calcjit::dsl::wire
