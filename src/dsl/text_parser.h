// The text syntax reader (spec section 4).
#ifndef CALCJIT_DSL_TEXT_PARSER_H_
#define CALCJIT_DSL_TEXT_PARSER_H_

#include <string_view>

#include "calcjit/status.h"
#include "ir/feature_set_ir.h"

namespace calcjit::dsl {

// Parses a .calc source. Syntax errors carry "line:column"; after one, the
// parser skips to the next ';' and goes on, so that one run reports the
// errors of every statement. The result is not checked yet (ir/checker.h).
Result<ir::FeatureSetIr> ReadText(std::string_view source);

}  // namespace calcjit::dsl

#endif  // CALCJIT_DSL_TEXT_PARSER_H_
