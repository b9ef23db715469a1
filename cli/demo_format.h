// What `calcjit demo`'s reports share: printf into a string, durations with a
// readable unit, medians and wall-clock seconds.
#ifndef CALCJIT_CLI_DEMO_FORMAT_H_
#define CALCJIT_CLI_DEMO_FORMAT_H_

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <string>
#include <vector>

namespace calcjit::cli {

inline std::string Printf(const char* format, ...) __attribute__((format(printf, 1, 2)));
inline std::string Printf(const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list again;
  va_copy(again, args);
  const int size = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  std::string text(size > 0 ? static_cast<std::size_t>(size) : 0, '\0');
  std::vsnprintf(text.data(), text.size() + 1, format, again);
  va_end(again);
  return text;
}

// A duration with a unit that keeps three significant digits readable.
inline std::string FormatDuration(double seconds) {
  if (seconds >= 1.0) return Printf("%.2f s", seconds);
  if (seconds >= 1e-3) return Printf("%.2f ms", seconds * 1e3);
  if (seconds >= 1e-6) return Printf("%.2f us", seconds * 1e6);
  return Printf("%.1f ns", seconds * 1e9);
}

inline double Median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2.0;
}

inline double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace calcjit::cli

#endif  // CALCJIT_CLI_DEMO_FORMAT_H_
