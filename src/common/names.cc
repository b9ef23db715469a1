#include "calcjit/names.h"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace calcjit {

namespace {

constexpr std::size_t kMaxNameBytes = 256;

char Lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool EqualButForCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

// The optimal string alignment distance of `a` and `b`, or `limit + 1` when
// it is larger than `limit`. Three rows of the table.
std::size_t Distance(std::string_view a, std::string_view b, std::size_t limit) {
  const std::size_t n = a.size(), m = b.size();
  if ((n > m ? n - m : m - n) > limit) return limit + 1;
  std::vector<std::size_t> before(m + 1), previous(m + 1), current(m + 1);
  for (std::size_t j = 0; j <= m; ++j) previous[j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    current[0] = i;
    std::size_t row_min = current[0];
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      std::size_t best = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        best = std::min(best, before[j - 2] + 1);
      }
      current[j] = best;
      row_min = std::min(row_min, best);
    }
    if (row_min > limit) return limit + 1;
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[m];
}

}  // namespace

std::optional<std::string> ClosestName(std::string_view name,
                                       std::span<const std::string> candidates) {
  if (name.empty() || name.size() > kMaxNameBytes) return std::nullopt;
  for (const std::string& candidate : candidates) {
    if (candidate != name && EqualButForCase(candidate, name)) return candidate;
  }
  const std::size_t limit = name.size() <= 4 ? 1 : name.size() <= 8 ? 2 : 3;
  const std::string* best = nullptr;
  std::size_t best_distance = limit + 1;
  for (const std::string& candidate : candidates) {
    if (candidate == name || candidate.size() > kMaxNameBytes) continue;
    const std::size_t distance = Distance(name, candidate, best_distance - 1);
    // Something must be left of the name: "x" does not suggest "q".
    if (distance >= std::max(name.size(), candidate.size())) continue;
    if (distance < best_distance) {
      best = &candidate;
      best_distance = distance;
      if (distance == 1) break;  // none closer but case, which came first
    }
  }
  if (best == nullptr) return std::nullopt;
  return *best;
}

std::string DidYouMean(std::string_view name, std::span<const std::string> candidates) {
  const std::optional<std::string> closest = ClosestName(name, candidates);
  return closest ? " (did you mean '" + *closest + "'?)" : "";
}

}  // namespace calcjit
