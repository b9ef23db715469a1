#include "dsl/float_text.h"

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

// The power of ten of the first nonzero digit of a decimal accepted by
// IsDecimalNumber (saturated), so out-of-range values can be classified as too
// small (negative) or too large without another locale-dependent conversion.
long DecimalMagnitude(std::string_view text) {
  long position = 0;  // place value of the next integer digit, found below
  std::size_t i = 0;
  std::size_t int_digits = 0;
  while (i < text.size() && IsDigit(text[i])) ++i, ++int_digits;
  long first_nonzero = std::numeric_limits<long>::min();
  for (std::size_t k = 0; k < int_digits; ++k) {
    if (text[k] != '0') {
      first_nonzero = static_cast<long>(int_digits - 1 - k);
      break;
    }
  }
  if (i < text.size() && text[i] == '.') {
    ++i;
    for (long j = 1; i < text.size() && IsDigit(text[i]); ++i, ++j) {
      if (first_nonzero == std::numeric_limits<long>::min() && text[i] != '0') first_nonzero = -j;
    }
  }
  long exponent = 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool negative = false;
    if (text[i] == '+' || text[i] == '-') negative = text[i++] == '-';
    for (; i < text.size(); ++i) exponent = std::min(exponent * 10 + (text[i] - '0'), 1L << 40);
    if (negative) exponent = -exponent;
  }
  position = first_nonzero == std::numeric_limits<long>::min() ? 0 : first_nonzero + exponent;
  return position;
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
  const char* end = text.data() + text.size();
  const auto result = std::from_chars(text.data(), end, *value, std::chars_format::general);
  if (result.ec == std::errc::result_out_of_range) {
    // libstdc++ reports both overflow and underflow-to-zero this way and
    // leaves the value untouched. A value that rounds to zero is in range
    // (its nearest float32 is +0): only overflow is an error.
    if (DecimalMagnitude(text) < 0) {
      *value = 0.0f;
      return FloatParse::kOk;
    }
    return FloatParse::kOverflow;
  }
  if (result.ec != std::errc() || result.ptr != end) return FloatParse::kSyntax;
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
