// Where a node, an input declaration or a definition came from, as the spec
// (section 5) asks errors to say it: "line:column" for text, a field path such
// as "features[3].expression.binary.lhs" for protobuf and JSON.
#ifndef CALCJIT_IR_LOCATION_H_
#define CALCJIT_IR_LOCATION_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "ir/feature_set_ir.h"

namespace calcjit::ir {

std::string FormatTextPos(TextPos pos);

// `field` names a part of the node's message for protobuf/JSON paths, e.g.
// "vector.rhs" or "nary.weights"; text locations ignore it.
std::string NodeLocation(const FeatureSetIr& ir, NodeId node, std::string_view field = {});
std::string InputLocation(const FeatureSetIr& ir, std::size_t input, std::string_view field = {});
std::string FeatureLocation(const FeatureSetIr& ir, std::size_t feature,
                            std::string_view field = {});
std::string ModelLocation(const FeatureSetIr& ir, std::size_t model, std::string_view field = {});

// The field of a node's message that holds its `index`-th operand:
// "unary.operand", "binary.lhs", "nary.operands[2]", ...
std::string OperandField(Op op, std::size_t index);

}  // namespace calcjit::ir

#endif  // CALCJIT_IR_LOCATION_H_
