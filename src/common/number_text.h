// Decimal text to numbers, the one conversion every reader uses (sets in text
// and JSON, model files, CSV cells): a decimal to the nearest float32 or
// float64 as IEEE round-to-nearest says, independent of the C locale.
#ifndef CALCJIT_COMMON_NUMBER_TEXT_H_
#define CALCJIT_COMMON_NUMBER_TEXT_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace calcjit {

// The whole of `text` must be a decimal number (an optional '-', digits, an
// optional fraction and exponent; "inf" and "nan" spellings too). Values
// beyond the type's range round to +-inf or +-0 as IEEE round-to-nearest
// does. nullopt when `text` is not a number.
std::optional<float> ParseFloat32(std::string_view text);
std::optional<double> ParseFloat64(std::string_view text);
// A decimal integer (optional '-'), nullopt when not one or out of range.
std::optional<std::int64_t> ParseInt64(std::string_view text);

}  // namespace calcjit

#endif  // CALCJIT_COMMON_NUMBER_TEXT_H_
