// Writes a feature set in the proto3 JSON mapping of the wire format
// (spec section 2).
#ifndef CALCJIT_DSL_JSON_WRITER_H_
#define CALCJIT_DSL_JSON_WRITER_H_

#include <string>

#include "ir/feature_set_ir.h"

namespace calcjit::dsl {

// {"inputs": [...], "features": [...], "models": [...]} with original field
// names and enum names, one line per input, definition and model
// declaration, each definition compact on its line (so the output grows
// linearly with depth). Like WriteProto it
// leaves out empty repeated fields and proto3 defaults, but always writes the
// oneof member and a present default_value. Floats are the shortest decimal
// that reads back to the same float32 (FormatShortestFloat; see AppendFloat
// for the double-rounding safeguard), except NaN, "Infinity" and
// "-Infinity", which the JSON mapping writes as strings.
// Non-recursive. ReadJson(WriteJson(ir)) gives back `ir` (up to name ids and
// NaN payloads). Bytes of a name that are not UTF-8 are written as U+FFFD.
std::string WriteJson(const ir::FeatureSetIr& ir);

}  // namespace calcjit::dsl

#endif  // CALCJIT_DSL_JSON_WRITER_H_
