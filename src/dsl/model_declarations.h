// The checks of a ModelDeclaration (spec section 6.1) that the protobuf and
// JSON readers share: they decode its three fields, this checks them and
// adds the declaration.
#ifndef CALCJIT_DSL_MODEL_DECLARATIONS_H_
#define CALCJIT_DSL_MODEL_DECLARATIONS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "calcjit/status.h"
#include "ir/builder.h"

namespace calcjit::dsl {

// Errors, at `path` ("models[2]") plus the field: an empty name, a format
// that is FORMAT_UNSPECIFIED (or not set) or unknown, and a path with a line
// feed, which the text syntax's strings cannot hold (every set has a text
// form that reads back exactly).
Status AddModel(std::string_view name, std::string_view model_path, std::int64_t format,
                const std::string& path, ir::IrBuilder* builder);

}  // namespace calcjit::dsl

#endif  // CALCJIT_DSL_MODEL_DECLARATIONS_H_
