#include "ir/op.h"

namespace calcjit::ir {

std::optional<Op> OpFromProtoNumber(OpKind kind, int number) {
  if (number <= 0) return std::nullopt;  // OPERATOR_UNSPECIFIED is never valid
  for (const OpInfo& info : kOpTable) {
    if (info.kind == kind && info.proto_number == number) return info.op;
  }
  return std::nullopt;
}

std::optional<Op> OpFromProtoName(OpKind kind, std::string_view name) {
  constexpr std::string_view kPrefix = "OPERATOR_";
  if (name.substr(0, kPrefix.size()) == kPrefix) name.remove_prefix(kPrefix.size());
  for (const OpInfo& info : kOpTable) {
    if (info.kind == kind && info.proto_number > 0 && info.proto_name == name) return info.op;
  }
  return std::nullopt;
}

std::string_view ExpressionFieldName(OpKind kind) {
  switch (kind) {
    case OpKind::kConstant:
      return "constant";
    case OpKind::kRef:
      return "feature";
    case OpKind::kUnary:
      return "unary";
    case OpKind::kBinary:
      return "binary";
    case OpKind::kConditional:
      return "conditional";
    case OpKind::kVector:
      return "vector";
    case OpKind::kNary:
      return "nary";
    case OpKind::kAggregate:
      return "aggregate";
  }
  return "";
}

}  // namespace calcjit::ir
