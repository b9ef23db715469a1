// Reads a feature set from the protobuf binary wire format (spec section 2).
#ifndef CALCJIT_DSL_PROTO_READER_H_
#define CALCJIT_DSL_PROTO_READER_H_

#include <string_view>

#include "calcjit/status.h"
#include "ir/feature_set_ir.h"

namespace calcjit::dsl {

// Decodes a serialized calcjit.v1.FeatureSet with protobuf's proto3
// semantics: the last occurrence of a scalar wins, a singular message that
// occurs several times is merged, the last oneof member set wins, unknown
// fields are skipped. Nothing recurses per nesting level, so a formula
// ir::kMaxDepth levels deep reads on a 1 MiB stack.
//
// Errors are user errors. Malformed bytes are located at "byte N" (see
// proto_validator.h); a well-formed message with invalid content at its
// field path, e.g. "features[3].expression.binary.lhs": an unset or unknown
// operator, an expression with no kind, a missing operand, a definition
// without expression, an empty name (of an input, a feature, a model), an
// unknown scope, a model format that is FORMAT_UNSPECIFIED or unknown, a
// model path with a line feed (model_declarations.h), nesting deeper than
// ir::kMaxDepth, more than ir::kMaxNodes nodes. Vector operand names
// that are empty become ir::kNone and Nary weights are kept as given: the
// checker reports those.
Result<ir::FeatureSetIr> ReadProto(std::string_view bytes);

}  // namespace calcjit::dsl

#endif  // CALCJIT_DSL_PROTO_READER_H_
