// Reads a feature set from the proto3 JSON mapping of the wire format
// (spec section 2).
#ifndef CALCJIT_DSL_JSON_READER_H_
#define CALCJIT_DSL_JSON_READER_H_

#include <string_view>

#include "calcjit/status.h"
#include "ir/feature_set_ir.h"

namespace calcjit::dsl {

// Accepts what protobuf's JSON parser accepts for calcjit.v1.FeatureSet:
// original or lowerCamelCase field names ("default_value", "defaultValue"),
// enum names or numbers, floats as numbers, numeric strings, "NaN",
// "Infinity" or "-Infinity" (see json_scalars.h), and null for "not set".
// Rejected, like protobuf: unknown fields, a field given twice (also under
// both spellings), two members of Expression.kind.
//
// Errors are user errors: JSON syntax at "line:column" (in characters);
// everything else at its field path, exactly as ReadProto reports it (see
// proto_reader.h), e.g. "features[3].expression.binary.lhs". Nothing
// recurses per nesting level: a formula ir::kMaxDepth levels deep reads on a
// 1 MiB stack.
Result<ir::FeatureSetIr> ReadJson(std::string_view text);

}  // namespace calcjit::dsl

#endif  // CALCJIT_DSL_JSON_READER_H_
