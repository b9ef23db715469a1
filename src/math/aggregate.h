// The aggregate kernels (spec section 3): a column of the batch in, a column
// out. NaN items are skipped by every aggregate. Sums are float64 with eight
// partial sums striped by item index (i mod 8; a NaN item leaves a hole),
// combined as ((s0+s1)+(s2+s3))+((s4+s5)+(s6+s7)), and rounded to float32 once.
// `out` may alias `x` (every kernel reads what it needs before writing).
#ifndef CALCJIT_MATH_AGGREGATE_H_
#define CALCJIT_MATH_AGGREGATE_H_

#include <cstddef>
#include <span>

namespace calcjit::math {

// The striped float64 sum of the non-NaN items, and their count.
struct StripedSum {
  double sum = 0.0;
  std::size_t count = 0;
};
StripedSum SumNonNan(std::span<const float> x);

// The statistics the aggregates share, each as the spec defines it.
float MinNonNan(std::span<const float> x);  // NaN if no item is non-NaN
float MaxNonNan(std::span<const float> x);
double MeanNonNan(std::span<const float> x);  // unrounded float64 mean; NaN if none
double StdNonNan(std::span<const float> x);   // unrounded float64 population std

void BatchMin(std::span<const float> x, std::span<float> out);
void BatchMax(std::span<const float> x, std::span<float> out);
void BatchSum(std::span<const float> x, std::span<float> out);
void BatchMean(std::span<const float> x, std::span<float> out);
void BatchStd(std::span<const float> x, std::span<float> out);
void BatchCount(std::span<const float> x, std::span<float> out);
// `scratch` holds at least x.size() floats (rank sorts a copy of the items).
void Rank(std::span<const float> x, std::span<float> out, std::span<float> scratch);
void Softmax(std::span<const float> x, std::span<float> out);
void MinMaxScale(std::span<const float> x, std::span<float> out);
void Zscore(std::span<const float> x, std::span<float> out);

}  // namespace calcjit::math

#endif  // CALCJIT_MATH_AGGREGATE_H_
