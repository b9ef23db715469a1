// The public face of the readers' number grammar (dsl/float_text.h).
#include "calcjit/numbers.h"

#include "dsl/float_text.h"

namespace calcjit {

NumberParse ParseNumber(std::string_view text, float* value) {
  switch (dsl::ParseFloatCell(text, value)) {
    case dsl::FloatParse::kOk:
      return NumberParse::kOk;
    case dsl::FloatParse::kOverflow:
      return NumberParse::kOverflow;
    case dsl::FloatParse::kSyntax:
      break;
  }
  return NumberParse::kSyntax;
}

std::string FormatNumber(float value) {
  return dsl::FormatShortestFloat(value);
}

}  // namespace calcjit
