// The kinds of expression: one row per member of the wire format's
// Expression.kind oneof (spec section 2), with what every reader and writer
// needs to know about it: the member's field number and name, its message's
// name and fields. The text parser, the JSON and protobuf readers and writers
// and the field paths of errors all read this table, so no stage keeps a
// mapping between wire members and OpKind of its own.
#ifndef CALCJIT_IR_KIND_H_
#define CALCJIT_IR_KIND_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace calcjit::ir {

// Which member of Expression.kind (which message) holds an operator.
enum class OpKind : std::uint8_t {
  kConstant,
  kRef,  // Expression.feature: a calculated feature or an input, by name
  kUnary,
  kBinary,
  kConditional,
  kNary,
  kVector,
  kAggregate,
  kModel,  // a trained model's output on its inputs (contract v2, spec section 6)
};

// What a field of a kind's message holds.
enum class FieldType : std::uint8_t {
  kOperator,  // the message's own Operator enum
  kOperand,   // one Expression
  kOperands,  // repeated Expression, in operand order
  kName,      // a string naming an input (Vector's lhs and rhs) or a model (Model's name)
  kWeights,   // repeated float (Nary), packed on the wire
  kIndex,     // a uint32: Model's output
};

struct MessageField {
  std::string_view name;       // the original name, which writers use: "lhs"
  std::string_view json_name;  // lowerCamelCase, which JSON readers also accept
  std::uint32_t number;
  FieldType type;
};

inline constexpr std::size_t kMaxMessageFields = 3;

struct KindInfo {
  OpKind kind;
  std::uint32_t member;          // the field number of its member of Expression.kind
  std::string_view member_name;  // that member's field name: "binary"
  // The member's message ("Binary"), empty for the scalar members (constant,
  // feature), which have no message.
  std::string_view message;
  std::array<MessageField, kMaxMessageFields> fields;  // in field-number order
  std::size_t field_count;
  // kOperands: the fewest operands the message may have (Nary: 1).
  std::uint32_t min_operands;
};

inline constexpr KindInfo kKindTable[] = {
    {OpKind::kConstant, 1, "constant", "", {}, 0, 0},
    {OpKind::kRef, 2, "feature", "", {}, 0, 0},
    {OpKind::kUnary,
     3,
     "unary",
     "Unary",
     {{{"operator", "operator", 1, FieldType::kOperator},
       {"operand", "operand", 2, FieldType::kOperand}}},
     2,
     0},
    {OpKind::kBinary,
     4,
     "binary",
     "Binary",
     {{{"operator", "operator", 1, FieldType::kOperator},
       {"lhs", "lhs", 2, FieldType::kOperand},
       {"rhs", "rhs", 3, FieldType::kOperand}}},
     3,
     0},
    {OpKind::kConditional,
     5,
     "conditional",
     "Conditional",
     {{{"condition", "condition", 1, FieldType::kOperand},
       {"then", "then", 2, FieldType::kOperand},
       {"otherwise", "otherwise", 3, FieldType::kOperand}}},
     3,
     0},
    {OpKind::kNary,
     7,
     "nary",
     "Nary",
     {{{"operator", "operator", 1, FieldType::kOperator},
       {"operands", "operands", 2, FieldType::kOperands},
       {"weights", "weights", 3, FieldType::kWeights}}},
     3,
     1},
    {OpKind::kVector,
     6,
     "vector",
     "Vector",
     {{{"operator", "operator", 1, FieldType::kOperator},
       {"lhs", "lhs", 2, FieldType::kName},
       {"rhs", "rhs", 3, FieldType::kName}}},
     3,
     0},
    {OpKind::kAggregate,
     8,
     "aggregate",
     "Aggregate",
     {{{"operator", "operator", 1, FieldType::kOperator},
       {"operand", "operand", 2, FieldType::kOperand}}},
     2,
     0},
    {OpKind::kModel,
     9,
     "model",
     "Model",
     {{{"name", "name", 1, FieldType::kName},
       {"inputs", "inputs", 2, FieldType::kOperands},
       {"output", "output", 3, FieldType::kIndex}}},
     3,
     0},
};

inline constexpr std::size_t kKindCount = std::size(kKindTable);

constexpr bool KindTableIsInEnumOrder() {
  for (std::size_t k = 0; k < kKindCount; ++k) {
    if (static_cast<std::size_t>(kKindTable[k].kind) != k) return false;
  }
  return true;
}
static_assert(KindTableIsInEnumOrder(), "kKindTable rows must follow the order of OpKind");

constexpr const KindInfo& InfoOf(OpKind kind) {
  return kKindTable[static_cast<std::size_t>(kind)];
}

// The kind whose Expression.kind member has field number `member`.
constexpr std::optional<OpKind> KindOfMember(std::uint32_t member) {
  for (const KindInfo& info : kKindTable) {
    if (info.member == member) return info.kind;
  }
  return std::nullopt;
}

// The highest field number of Expression.kind.
constexpr std::uint32_t LastMember() {
  std::uint32_t last = 0;
  for (const KindInfo& info : kKindTable) last = info.member > last ? info.member : last;
  return last;
}

// Whether the kind's message has an Operator enum field. Kinds without one
// (Conditional) have a single operator row in op.def.
constexpr bool HasOperatorField(OpKind kind) {
  const KindInfo& info = InfoOf(kind);
  for (std::size_t f = 0; f < info.field_count; ++f) {
    if (info.fields[f].type == FieldType::kOperator) return true;
  }
  return false;
}

// The message field of `kind` that holds operand `index`: a kOperand field
// (the index-th of them) or the kOperands field. nullptr when there is none.
constexpr const MessageField* OperandFieldOf(OpKind kind, std::size_t index) {
  const KindInfo& info = InfoOf(kind);
  std::size_t seen = 0;
  for (std::size_t f = 0; f < info.field_count; ++f) {
    const MessageField& field = info.fields[f];
    if (field.type == FieldType::kOperands) return &field;
    if (field.type == FieldType::kOperand && seen++ == index) return &field;
  }
  return nullptr;
}

// The field of a given type (the first), or nullptr.
constexpr const MessageField* FieldOfType(OpKind kind, FieldType type, std::size_t skip = 0) {
  const KindInfo& info = InfoOf(kind);
  for (std::size_t f = 0; f < info.field_count; ++f) {
    if (info.fields[f].type == type && skip-- == 0) return &info.fields[f];
  }
  return nullptr;
}

// Number of expression operands a kind's message holds: its kOperand fields,
// or -1 when it has a repeated kOperands field (at least min_operands).
// Vector operators take input names, not expressions: 0.
constexpr int FixedArity(OpKind kind) {
  const KindInfo& info = InfoOf(kind);
  int count = 0;
  for (std::size_t f = 0; f < info.field_count; ++f) {
    if (info.fields[f].type == FieldType::kOperands) return -1;
    if (info.fields[f].type == FieldType::kOperand) ++count;
  }
  return count;
}

// Whether nodes of this kind have expression operands.
constexpr bool HasOperands(OpKind kind) {
  return FixedArity(kind) != 0;
}

// The path, relative to an Expression, of the field that holds operand
// `index`: "unary.operand", "binary.lhs", "nary.operands[2]", ... ("?" for a
// kind without expression operands).
inline std::string OperandPath(OpKind kind, std::size_t index) {
  const MessageField* field = OperandFieldOf(kind, index);
  if (field == nullptr) return "?";
  std::string path(InfoOf(kind).member_name);
  path += '.';
  path += field->name;
  if (field->type == FieldType::kOperands) path += "[" + std::to_string(index) + "]";
  return path;
}

}  // namespace calcjit::ir

#endif  // CALCJIT_IR_KIND_H_
