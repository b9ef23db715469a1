// Numbers in text, as calcjit reads and writes them everywhere (feature sets,
// CSV cells, command-line values): straight between decimal text and float32,
// never through double, so a number means the float32 nearest to it.
#ifndef CALCJIT_NUMBERS_H_
#define CALCJIT_NUMBERS_H_

#include "calcjit/cxx20.h"

#include <string>
#include <string_view>

namespace calcjit {

enum class NumberParse { kOk, kSyntax, kOverflow };

// An optional sign, then a decimal number of the text syntax (digits with an
// optional fraction and exponent), or case-insensitive "nan", "inf" or
// "infinity". Rounds to nearest float32; a value too small for a subnormal is
// ±0, one whose rounding overflows is kOverflow.
NumberParse ParseNumber(std::string_view text, float* value);

// The shortest decimal that reads back to the same float32 ("0.1", "1e+10",
// "-0"); "inf", "-inf", and "nan" for every NaN.
std::string FormatNumber(float value);

}  // namespace calcjit

#endif  // CALCJIT_NUMBERS_H_
