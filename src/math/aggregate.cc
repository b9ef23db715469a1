#include "math/aggregate.h"

#include <algorithm>
#include <cmath>

#include "math/elementwise.h"

namespace calcjit::math {

namespace {

bool IsNanItem(float v) { return v != v; }

double CombineStripes(const double (&s)[8]) {
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

void Fill(std::span<float> out, float value) { std::fill(out.begin(), out.end(), value); }

}  // namespace

StripedSum SumNonNan(std::span<const float> x) {
  double s[8] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  std::size_t count = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (IsNanItem(x[i])) continue;
    s[i % 8] += static_cast<double>(x[i]);
    ++count;
  }
  return StripedSum{CombineStripes(s), count};
}

float MinNonNan(std::span<const float> x) {
  float result = CanonicalNan();
  bool any = false;
  for (float v : x) {
    if (IsNanItem(v)) continue;
    result = any ? Min(result, v) : v;
    any = true;
  }
  return result;
}

float MaxNonNan(std::span<const float> x) {
  float result = CanonicalNan();
  bool any = false;
  for (float v : x) {
    if (IsNanItem(v)) continue;
    result = any ? Max(result, v) : v;
    any = true;
  }
  return result;
}

double MeanNonNan(std::span<const float> x) {
  const StripedSum s = SumNonNan(x);
  if (s.count == 0) return static_cast<double>(CanonicalNan());
  return s.sum / static_cast<double>(s.count);
}

double StdNonNan(std::span<const float> x) {
  const StripedSum s = SumNonNan(x);
  if (s.count == 0) return static_cast<double>(CanonicalNan());
  const double mean = s.sum / static_cast<double>(s.count);
  double d[8] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (IsNanItem(x[i])) continue;
    const double deviation = static_cast<double>(x[i]) - mean;
    d[i % 8] += deviation * deviation;
  }
  return std::sqrt(CombineStripes(d) / static_cast<double>(s.count));
}

void BatchMin(std::span<const float> x, std::span<float> out) { Fill(out, MinNonNan(x)); }
void BatchMax(std::span<const float> x, std::span<float> out) { Fill(out, MaxNonNan(x)); }

void BatchSum(std::span<const float> x, std::span<float> out) {
  Fill(out, static_cast<float>(SumNonNan(x).sum));  // the sum of no item is +0
}

void BatchMean(std::span<const float> x, std::span<float> out) {
  Fill(out, static_cast<float>(MeanNonNan(x)));
}

void BatchStd(std::span<const float> x, std::span<float> out) {
  Fill(out, static_cast<float>(StdNonNan(x)));
}

void BatchCount(std::span<const float> x, std::span<float> out) {
  std::size_t count = 0;
  for (float v : x) count += Truthy(v) ? 1 : 0;
  Fill(out, static_cast<float>(count));
}

// 1 + the number of non-NaN items greater than the item; ties (IEEE ==, so
// -0 ties +0) share the best rank. Sorting the non-NaN items ascending, the
// items greater than v are those after upper_bound(v).
void Rank(std::span<const float> x, std::span<float> out, std::span<float> scratch) {
  std::size_t count = 0;
  for (float v : x) {
    if (!IsNanItem(v)) scratch[count++] = v;
  }
  const auto sorted = scratch.first(count);
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float v = x[i];
    if (IsNanItem(v)) {
      out[i] = v;
      continue;
    }
    const auto greater = sorted.end() - std::upper_bound(sorted.begin(), sorted.end(), v);
    out[i] = static_cast<float>(1 + greater);
  }
}

void Softmax(std::span<const float> x, std::span<float> out) {
  const float m = MaxNonNan(x);
  double s[8] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float v = x[i];
    if (IsNanItem(v)) {
      out[i] = v;
      continue;
    }
    const float e = Exp(v - m);
    out[i] = e;
    s[i % 8] += static_cast<double>(e);  // a NaN e (x = inf) is added like any other
  }
  const double total = CombineStripes(s);
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (IsNanItem(x[i])) continue;  // out[i] already holds the NaN
    out[i] = static_cast<float>(static_cast<double>(out[i]) / total);
  }
}

void MinMaxScale(std::span<const float> x, std::span<float> out) {
  const float lo = MinNonNan(x);
  const float hi = MaxNonNan(x);
  const float range = hi - lo;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float v = x[i];
    const float scaled = (v - lo) / range;
    out[i] = IsNanItem(v) ? v : (hi == lo ? 0.0f : scaled);
  }
}

void Zscore(std::span<const float> x, std::span<float> out) {
  const float mean = static_cast<float>(MeanNonNan(x));
  const float std_dev = static_cast<float>(StdNonNan(x));
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float v = x[i];
    const float z = (v - mean) / std_dev;
    out[i] = IsNanItem(v) ? v : (std_dev == 0.0f ? 0.0f : z);
  }
}

}  // namespace calcjit::math
