// Operators: the enum and the per-operator facts, generated from op.def.
#ifndef CALCJIT_IR_OP_H_
#define CALCJIT_IR_OP_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace calcjit::ir {

// Which message of the wire format (spec section 2) an operator belongs to.
enum class OpKind : std::uint8_t {
  kConstant,
  kRef,  // Expression.feature: a calculated feature or an input, by name
  kUnary,
  kBinary,
  kConditional,
  kNary,
  kVector,
  kAggregate,
};

enum class Syntax : std::uint8_t { kLeaf, kPrefix, kInfix, kInfixRight, kCall };

enum class NanRule : std::uint8_t { kPropagates, kToBool, kPassThrough, kSkipsNan, kSpecial };

enum class Op : std::uint8_t {
#define CALCJIT_OP(name, ...) k##name,
#include "ir/op.def"
#undef CALCJIT_OP
};

struct OpInfo {
  Op op;
  std::string_view name;  // "Add": for dumps and diagnostics
  OpKind kind;
  int proto_number;             // 0 when the kind has no Operator enum
  std::string_view proto_name;  // without the "OPERATOR_" prefix
  std::string_view spelling;    // text syntax symbol or function name
  Syntax syntax;
  int precedence;
  NanRule nan_rule;
};

inline constexpr OpInfo kOpTable[] = {
#define CALCJIT_OP(name, kind, number, proto, spelling, syntax, prec, nan) \
  {Op::k##name, #name, OpKind::kind, number, proto, spelling, Syntax::syntax, prec, NanRule::nan},
#include "ir/op.def"
#undef CALCJIT_OP
};

inline constexpr int kOpCount = static_cast<int>(std::size(kOpTable));

constexpr const OpInfo& Info(Op op) {
  return kOpTable[static_cast<int>(op)];
}
constexpr OpKind KindOf(Op op) {
  return Info(op).kind;
}

// Number of expression operands an operator of this kind takes; -1 for Nary
// (one or more). Vector operators take names, not expressions: 0.
constexpr int FixedArity(OpKind kind) {
  switch (kind) {
    case OpKind::kUnary:
    case OpKind::kAggregate:
      return 1;
    case OpKind::kBinary:
      return 2;
    case OpKind::kConditional:
      return 3;
    case OpKind::kNary:
      return -1;
    case OpKind::kConstant:
    case OpKind::kRef:
    case OpKind::kVector:
      return 0;
  }
  return 0;
}

// IEEE +, *, ==, != and the IEEE 754-2019 minimum/maximum are commutative in
// every bit we can observe (a NaN's payload is not observable), so their
// operands can be ordered canonically (the optimizer shares a+b with b+a).
constexpr bool IsCommutative(Op op) {
  switch (op) {
    case Op::kAdd:
    case Op::kMul:
    case Op::kMin:
    case Op::kMax:
    case Op::kEq:
    case Op::kNe:
    case Op::kAnd:
    case Op::kOr:
      return true;
    default:
      return false;
  }
}

// The operator with this number in the Operator enum of `kind`'s message.
std::optional<Op> OpFromProtoNumber(OpKind kind, int number);
// The operator of `kind` named `name` ("DIV" or "OPERATOR_DIV").
std::optional<Op> OpFromProtoName(OpKind kind, std::string_view name);

// The wire name of a kind's message field in Expression: "unary", "binary",
// "conditional", "vector", "nary", "aggregate" ("constant", "feature" for leaves).
std::string_view ExpressionFieldName(OpKind kind);

}  // namespace calcjit::ir

#endif  // CALCJIT_IR_OP_H_
