// Writes a feature set in the protobuf binary wire format (spec section 2).
#ifndef CALCJIT_DSL_PROTO_WRITER_H_
#define CALCJIT_DSL_PROTO_WRITER_H_

#include <string>

#include "ir/feature_set_ir.h"

namespace calcjit::dsl {

// The canonical encoding of `ir` as calcjit.v1.FeatureSet, byte for byte what
// libprotobuf's SerializeToString gives for the same message: fields in
// field-number order, proto3 defaults left out (scope ITEM, dimension 0,
// empty strings, ir::kNone vector names), but the oneof member and a present
// default_value always written; weights packed; floats with their exact bits
// (NaN payloads included). Non-recursive: a post-order pass computes every
// message's size, then an explicit stack emits the bytes.
// ReadProto(WriteProto(ir)) gives back `ir` (up to name ids).
std::string WriteProto(const ir::FeatureSetIr& ir);

}  // namespace calcjit::dsl

#endif  // CALCJIT_DSL_PROTO_WRITER_H_
