// The text syntax writer (spec section 4): declared inputs in order, then
// model declarations in order, then definitions in order, one statement per line, only the
// parentheses that precedence needs, floats in their shortest form. Parsing the output gives back
// the same messages, so printing is idempotent.
#ifndef CALCJIT_DSL_TEXT_PRINTER_H_
#define CALCJIT_DSL_TEXT_PRINTER_H_

#include <string>
#include <string_view>

#include "ir/feature_set_ir.h"

namespace calcjit::dsl {

std::string WriteText(const ir::FeatureSetIr& ir);

// One definition's expression, as it appears after "name = ".
std::string ExpressionToText(const ir::FeatureSetIr& ir, ir::NodeId root);

// A name as the text syntax writes it: plain if it matches
// [A-Za-z_][A-Za-z0-9_.]* and is not reserved, else `backquoted` (a backquote
// inside doubled).
std::string QuoteName(std::string_view name);

}  // namespace calcjit::dsl

#endif  // CALCJIT_DSL_TEXT_PRINTER_H_
