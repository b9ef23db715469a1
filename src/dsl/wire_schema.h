// The calcjit.v1 schema (proto/calcjit/v1/feature_set.proto, spec section 2)
// as the binary reader, its validator and the writer need it: field numbers
// by name, and a table of every message's fields and their types.
#ifndef CALCJIT_DSL_WIRE_SCHEMA_H_
#define CALCJIT_DSL_WIRE_SCHEMA_H_

#include <cstdint>
#include <string_view>

namespace calcjit::dsl::wire {

enum class Message : std::uint8_t {
  kFeatureSet,
  kInputDeclaration,
  kFeatureDefinition,
  kExpression,
  kUnary,
  kBinary,
  kConditional,
  kNary,
  kVector,
  kAggregate,
  kModel,
  kModelDeclaration,
};

// Field numbers, part of the contract.
namespace field {
inline constexpr std::uint32_t kSetInputs = 1;
inline constexpr std::uint32_t kSetFeatures = 2;
inline constexpr std::uint32_t kSetModels = 3;

inline constexpr std::uint32_t kInputName = 1;
inline constexpr std::uint32_t kInputScope = 2;
inline constexpr std::uint32_t kInputDimension = 3;
inline constexpr std::uint32_t kInputDefault = 4;

inline constexpr std::uint32_t kFeatureName = 1;
inline constexpr std::uint32_t kFeatureExpression = 2;

inline constexpr std::uint32_t kModelName = 1;
inline constexpr std::uint32_t kModelPath = 2;
inline constexpr std::uint32_t kModelFormat = 3;

// Expression.kind: constant = 1, feature = 2, then one message per kind.
inline constexpr std::uint32_t kExprConstant = 1;
inline constexpr std::uint32_t kExprFeature = 2;
inline constexpr std::uint32_t kExprUnary = 3;
inline constexpr std::uint32_t kExprBinary = 4;
inline constexpr std::uint32_t kExprConditional = 5;
inline constexpr std::uint32_t kExprVector = 6;
inline constexpr std::uint32_t kExprNary = 7;
inline constexpr std::uint32_t kExprAggregate = 8;
inline constexpr std::uint32_t kExprModel = 9;

// Unary, Binary, Nary, Vector and Aggregate carry their operator as field 1;
// their operands follow from field 2 (Conditional has no operator: 1..3).
inline constexpr std::uint32_t kOperator = 1;
inline constexpr std::uint32_t kFirstOperand = 2;
inline constexpr std::uint32_t kConditionalFirst = 1;
inline constexpr std::uint32_t kNaryWeights = 3;
inline constexpr std::uint32_t kVectorLhs = 2;
inline constexpr std::uint32_t kVectorRhs = 3;
}  // namespace field

enum class FieldKind : std::uint8_t {
  kUnknown,      // not in the schema (or the field number is beyond it)
  kVarint,       // enums and uint32
  kFixed32,      // float
  kString,       // UTF-8 checked
  kMessage,      // `message` says which
  kPackedFloat,  // repeated float: packed, or one fixed32 per element
};

struct FieldSpec {
  FieldKind kind = FieldKind::kUnknown;
  Message message = Message::kFeatureSet;  // for kMessage
};

constexpr FieldSpec FindField(Message message, std::uint32_t number) {
  constexpr FieldSpec kNone{};
  constexpr FieldSpec kVarint{FieldKind::kVarint};
  constexpr FieldSpec kFixed32{FieldKind::kFixed32};
  constexpr FieldSpec kString{FieldKind::kString};
  constexpr FieldSpec kExpr{FieldKind::kMessage, Message::kExpression};
  switch (message) {
    case Message::kFeatureSet:
      if (number == 1) return {FieldKind::kMessage, Message::kInputDeclaration};
      if (number == 2) return {FieldKind::kMessage, Message::kFeatureDefinition};
      if (number == 3) return {FieldKind::kMessage, Message::kModelDeclaration};
      return kNone;
    case Message::kInputDeclaration:
      if (number == 1) return kString;
      if (number == 2 || number == 3) return kVarint;
      if (number == 4) return kFixed32;
      return kNone;
    case Message::kFeatureDefinition:
      if (number == 1) return kString;
      if (number == 2) return kExpr;
      return kNone;
    case Message::kExpression:
      switch (number) {
        case 1:
          return kFixed32;
        case 2:
          return kString;
        case 3:
          return {FieldKind::kMessage, Message::kUnary};
        case 4:
          return {FieldKind::kMessage, Message::kBinary};
        case 5:
          return {FieldKind::kMessage, Message::kConditional};
        case 6:
          return {FieldKind::kMessage, Message::kVector};
        case 7:
          return {FieldKind::kMessage, Message::kNary};
        case 8:
          return {FieldKind::kMessage, Message::kAggregate};
        case 9:
          return {FieldKind::kMessage, Message::kModel};
        default:
          return kNone;
      }
    case Message::kUnary:
    case Message::kAggregate:
      if (number == 1) return kVarint;
      if (number == 2) return kExpr;
      return kNone;
    case Message::kBinary:
      if (number == 1) return kVarint;
      if (number == 2 || number == 3) return kExpr;
      return kNone;
    case Message::kConditional:
      if (number >= 1 && number <= 3) return kExpr;
      return kNone;
    case Message::kNary:
      if (number == 1) return kVarint;
      if (number == 2) return kExpr;
      if (number == 3) return {FieldKind::kPackedFloat};
      return kNone;
    case Message::kVector:
      if (number == 1) return kVarint;
      if (number == 2 || number == 3) return kString;
      return kNone;
    case Message::kModel:
      if (number == 1) return kString;
      if (number == 2) return kExpr;
      if (number == 3) return kVarint;
      return kNone;
    case Message::kModelDeclaration:
      if (number == 1 || number == 2) return kString;
      if (number == 3) return kVarint;
      return kNone;
  }
  return kNone;
}

constexpr std::string_view MessageName(Message message) {
  switch (message) {
    case Message::kFeatureSet:
      return "FeatureSet";
    case Message::kInputDeclaration:
      return "InputDeclaration";
    case Message::kFeatureDefinition:
      return "FeatureDefinition";
    case Message::kExpression:
      return "Expression";
    case Message::kUnary:
      return "Unary";
    case Message::kBinary:
      return "Binary";
    case Message::kConditional:
      return "Conditional";
    case Message::kNary:
      return "Nary";
    case Message::kVector:
      return "Vector";
    case Message::kAggregate:
      return "Aggregate";
    case Message::kModel:
      return "Model";
    case Message::kModelDeclaration:
      return "ModelDeclaration";
  }
  return "";
}

}  // namespace calcjit::dsl::wire

#endif  // CALCJIT_DSL_WIRE_SCHEMA_H_
