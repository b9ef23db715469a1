#include "common/number_text.h"

#include <locale.h>
#include <stdlib.h>

#include <charconv>
#include <string>
#include <system_error>

namespace calcjit {

namespace {

// std::from_chars (libstdc++ 12) is correctly rounded but reports a value
// that rounds to +-inf, to zero or (for float) just above FLT_MAX as out of
// range without a result; glibc's strtof_l/strtod_l give the IEEE result for
// those, in the "C" locale whatever the process has set.
locale_t CLocale() {
  static const locale_t kC = newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(nullptr));
  return kC;
}

template <typename T>
std::optional<T> ParseFloat(std::string_view text) {
  if (text.empty()) return std::nullopt;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  // from_chars accepts neither a leading '+' nor hex without its format; a
  // '+' in an exponent is fine.
  T value{};
  std::from_chars_result result = std::from_chars(begin, end, value);
  if (result.ec == std::errc() && result.ptr == end) return value;
  if (result.ec != std::errc::result_out_of_range || result.ptr != end) return std::nullopt;
  const std::string copy(text);  // strto* needs a terminator
  char* parsed_end = nullptr;
  T fallback;
  if constexpr (sizeof(T) == 4) {
    fallback = strtof_l(copy.c_str(), &parsed_end, CLocale());
  } else {
    fallback = strtod_l(copy.c_str(), &parsed_end, CLocale());
  }
  if (parsed_end != copy.c_str() + copy.size()) return std::nullopt;
  return fallback;
}

}  // namespace

std::optional<float> ParseFloat32(std::string_view text) {
  return ParseFloat<float>(text);
}
std::optional<double> ParseFloat64(std::string_view text) {
  return ParseFloat<double>(text);
}

std::optional<std::int64_t> ParseInt64(std::string_view text) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  std::from_chars_result result = std::from_chars(text.data(), end, value);
  if (text.empty() || result.ec != std::errc() || result.ptr != end) return std::nullopt;
  return value;
}

}  // namespace calcjit
