// Float <-> text conversions shared by the readers, the printers and the CLI.
// Every conversion goes directly between decimal text and float32 (never
// through double), so a literal means the float32 nearest to it.
#ifndef CALCJIT_DSL_FLOAT_TEXT_H_
#define CALCJIT_DSL_FLOAT_TEXT_H_

#include <optional>
#include <string>
#include <string_view>

namespace calcjit::dsl {

// The shortest decimal that reads back to the same float32 (std::to_chars),
// e.g. "0.1", "1e+10", "-0". Infinities are "inf" / "-inf" and every NaN is
// "nan" (a NaN's sign and payload are not observable, spec section 1).
std::string FormatShortestFloat(float value);

enum class FloatParse { kOk, kSyntax, kOverflow };

// Parses a whole decimal number as the text syntax writes it (digits with an
// optional fraction and exponent; no sign, no hex), rounding to nearest
// float32. Values below the smallest subnormal round to +0 as IEEE says; only
// values whose rounding overflows are kOverflow.
FloatParse ParseDecimalFloat(std::string_view text, float* value);

// A CSV cell or a command-line number: optional sign, then a decimal number
// as above, or case-insensitive "nan", "inf" or "infinity".
FloatParse ParseFloatCell(std::string_view text, float* value);

}  // namespace calcjit::dsl

#endif  // CALCJIT_DSL_FLOAT_TEXT_H_
