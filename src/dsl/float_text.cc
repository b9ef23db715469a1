#include "dsl/float_text.h"

#include "common/number_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>

namespace calcjit::dsl {

namespace {

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

// True if `text` matches digits [. digits*] | . digits, then [eE][+-]?digits.
bool IsDecimalNumber(std::string_view text) {
  std::size_t i = 0;
  const std::size_t n = text.size();
  std::size_t int_digits = 0;
  while (i < n && IsDigit(text[i])) ++i, ++int_digits;
  std::size_t frac_digits = 0;
  if (i < n && text[i] == '.') {
    ++i;
    while (i < n && IsDigit(text[i])) ++i, ++frac_digits;
  }
  if (int_digits == 0 && frac_digits == 0) return false;
  if (i < n && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < n && (text[i] == '+' || text[i] == '-')) ++i;
    std::size_t exp_digits = 0;
    while (i < n && IsDigit(text[i])) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == n;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char c = a[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != b[i]) return false;
  }
  return true;
}

}  // namespace

std::string FormatShortestFloat(float value) {
  if (std::isnan(value)) return "nan";
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

FloatParse ParseDecimalFloat(std::string_view text, float* value) {
  if (!IsDecimalNumber(text)) return FloatParse::kSyntax;
  // A value that rounds to zero is in range (its nearest float32 is +0); only
  // one whose rounding overflows is an error.
  const std::optional<float> parsed = ParseFloat32(text);
  if (!parsed) return FloatParse::kSyntax;
  if (std::isinf(*parsed)) return FloatParse::kOverflow;
  *value = *parsed;
  return FloatParse::kOk;
}

FloatParse ParseFloatCell(std::string_view text, float* value) {
  bool negative = false;
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (EqualsIgnoreCase(text, "nan")) {
    *value = std::numeric_limits<float>::quiet_NaN();
    return FloatParse::kOk;
  }
  if (EqualsIgnoreCase(text, "inf") || EqualsIgnoreCase(text, "infinity")) {
    *value =
        negative ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
    return FloatParse::kOk;
  }
  const FloatParse parsed = ParseDecimalFloat(text, value);
  if (parsed == FloatParse::kOk && negative) *value = -*value;
  return parsed;
}

}  // namespace calcjit::dsl
