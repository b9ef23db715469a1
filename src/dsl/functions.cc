#include "dsl/functions.h"

namespace calcjit::dsl {

using ir::Op;
using ir::OpKind;

std::optional<FunctionSpec> LookupFunction(std::string_view name) {
  // The call spelling of a symbol row: pow(x, y) is x ^ y.
  for (const ir::OpInfo& info : ir::kOpTable) {
    if (!info.call_spelling.empty() && info.call_spelling == name) {
      return FunctionSpec{info.kind == OpKind::kUnary ? CallShape::kUnary : CallShape::kBinary,
                          info.op, info.op};
    }
  }
  std::optional<FunctionSpec> found;
  for (const ir::OpInfo& info : ir::kOpTable) {
    if (info.syntax != ir::Syntax::kCall || info.spelling != name) continue;
    switch (info.kind) {
      case OpKind::kUnary:
        return FunctionSpec{CallShape::kUnary, info.op, info.op};
      case OpKind::kBinary:  // min / max: the Nary row with the same spelling follows
        found = FunctionSpec{CallShape::kMinMax, info.op, info.op};
        break;
      case OpKind::kNary:
        if (found) {
          found->nary_op = info.op;
          return found;
        }
        return FunctionSpec{info.weighted ? CallShape::kWeightedSum : CallShape::kNary, info.op,
                            info.op};
      case OpKind::kConditional:
        return FunctionSpec{CallShape::kConditional, info.op, info.op};
      case OpKind::kAggregate:
        return FunctionSpec{CallShape::kAggregate, info.op, info.op};
      case OpKind::kVector:
        return FunctionSpec{CallShape::kVector, info.op, info.op};
      case OpKind::kModel:
        return FunctionSpec{CallShape::kModel, info.op, info.op};
      case OpKind::kConstant:
      case OpKind::kRef:
        break;
    }
  }
  return found;
}

}  // namespace calcjit::dsl
