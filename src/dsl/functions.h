// The functions of the text syntax, derived from the operator table.
#ifndef CALCJIT_DSL_FUNCTIONS_H_
#define CALCJIT_DSL_FUNCTIONS_H_

#include <optional>
#include <string_view>

#include "ir/op.h"

namespace calcjit::dsl {

// How a call's arguments map to an operator.
enum class CallShape : unsigned char {
  kUnary,        // exactly one argument: `op`
  kBinary,       // exactly two: `op` (pow)
  kMinMax,       // two: `op` (Binary); one or three and more: `nary_op`
  kNary,         // one or more: `op`
  kWeightedSum,  // weighted_sum([w...], x...)
  kConditional,  // if(c, a, b)
  kAggregate,    // exactly one: `op`
  kVector,       // vector input names, not expressions: `op`
  kModel,        // model(name, inputs...)[k] (contract v2, spec section 6)
};

struct FunctionSpec {
  CallShape shape;
  ir::Op op;
  ir::Op nary_op;  // kMinMax only
};

std::optional<FunctionSpec> LookupFunction(std::string_view name);

}  // namespace calcjit::dsl

#endif  // CALCJIT_DSL_FUNCTIONS_H_
