#include "dsl/json_scalars.h"

#include "common/number_text.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>

namespace calcjit::dsl {

namespace {

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, the JSON number syntax.
// `integral_syntax` tells whether there is neither fraction nor exponent.
bool IsJsonNumber(std::string_view text, bool* integral_syntax) {
  std::size_t i = 0;
  const std::size_t n = text.size();
  if (i < n && text[i] == '-') ++i;
  if (i >= n || !IsDigit(text[i])) return false;
  if (text[i] == '0') {
    ++i;
  } else {
    while (i < n && IsDigit(text[i])) ++i;
  }
  *integral_syntax = true;
  if (i < n && text[i] == '.') {
    *integral_syntax = false;
    ++i;
    if (i >= n || !IsDigit(text[i])) return false;
    while (i < n && IsDigit(text[i])) ++i;
  }
  if (i < n && (text[i] == 'e' || text[i] == 'E')) {
    *integral_syntax = false;
    ++i;
    if (i < n && (text[i] == '+' || text[i] == '-')) ++i;
    if (i >= n || !IsDigit(text[i])) return false;
    while (i < n && IsDigit(text[i])) ++i;
  }
  return i == n;
}

// The number's text: a JSON number, or a string holding one. Sets `special`
// for the strings "NaN", "Infinity" and "-Infinity".
std::string NumberText(const JsonDom& dom, const JsonNode& node, std::string_view* text,
                       bool* integral_syntax) {
  if (node.type == JsonType::kNumber) {
    *text = dom.Number(node);
    if (!IsJsonNumber(*text, integral_syntax)) return "malformed number";  // cannot happen
    return "";
  }
  if (node.type == JsonType::kString) {
    *text = dom.String(node);
    if (!IsJsonNumber(*text, integral_syntax)) {
      return "the string \"" + std::string(*text) + "\" is not a number";
    }
    return "";
  }
  return "expected a number";
}

// The double nearest to a JSON number; false if it overflows the double range.
bool ToDouble(std::string_view text, double* value) {
  const std::optional<double> parsed = ParseFloat64(text);
  if (!parsed || std::isinf(*parsed)) return false;
  *value = *parsed;
  return true;
}

}  // namespace

std::string JsonToFloat(const JsonDom& dom, const JsonNode& node, float* value) {
  if (node.type == JsonType::kString) {
    const std::string_view text = dom.String(node);
    if (text == "NaN") {
      *value = std::numeric_limits<float>::quiet_NaN();
      return "";
    }
    if (text == "Infinity" || text == "-Infinity") {
      const float infinity = std::numeric_limits<float>::infinity();
      *value = text[0] == '-' ? -infinity : infinity;
      return "";
    }
  }
  std::string_view text;
  bool integral_syntax = false;
  if (std::string error = NumberText(dom, node, &text, &integral_syntax); !error.empty()) {
    if (node.type == JsonType::kString) error += " (nor \"NaN\", \"Infinity\", \"-Infinity\")";
    return error + " for a float";
  }
  double d = 0.0;
  const float f =
      ToDouble(text, &d) ? static_cast<float>(d) : std::numeric_limits<float>::infinity();
  if (std::isinf(f)) return "the number " + std::string(text) + " is out of the float range";
  *value = f;
  return "";
}

std::string JsonToInteger(const JsonDom& dom, const JsonNode& node, std::int64_t min,
                          std::int64_t max, std::int64_t* value) {
  std::string_view text;
  bool integral_syntax = false;
  if (std::string error = NumberText(dom, node, &text, &integral_syntax); !error.empty()) {
    return error + " for an integer";
  }
  const std::string range =
      " is out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  std::int64_t result = 0;
  if (integral_syntax) {
    const auto parsed = std::from_chars(text.data(), text.data() + text.size(), result);
    if (parsed.ec != std::errc() || result < min || result > max) {
      return "the number " + std::string(text) + range;
    }
  } else {
    double d = 0.0;
    if (!ToDouble(text, &d)) return "the number " + std::string(text) + range;
    if (d != std::trunc(d)) return "the number " + std::string(text) + " is not an integer";
    // Both bounds are exact doubles (|bound| <= 2^32).
    if (d < static_cast<double>(min) || d > static_cast<double>(max)) {
      return "the number " + std::string(text) + range;
    }
    result = static_cast<std::int64_t>(d);
  }
  *value = result;
  return "";
}

}  // namespace calcjit::dsl
