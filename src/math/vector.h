// The vector kernels (spec section 3): one item's components of two vector
// inputs of dimension d in, one float out. The summation order is fixed by
// the contract: eight float32 partial sums over the components with the same
// index mod 8, then ((s0+s1)+(s2+s3))+((s4+s5)+(s6+s7)). Backends must use
// these (or code that provably adds in this order), never a reassociated sum.
#ifndef CALCJIT_MATH_VECTOR_H_
#define CALCJIT_MATH_VECTOR_H_

#include <cstddef>

#include "math/elementwise.h"

namespace calcjit::math {

CALCJIT_KERNEL float CombineStripes(const float (&s)[8]) {
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

CALCJIT_KERNEL float Dot(const float* a, const float* b, std::size_t d) {
  float s[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
  for (std::size_t k = 0; k < d; ++k) s[k % 8] = s[k % 8] + a[k] * b[k];
  return CombineStripes(s);
}

CALCJIT_KERNEL float Norm(const float* a, std::size_t d) { return Sqrt(Dot(a, a, d)); }

CALCJIT_KERNEL float L2Distance(const float* a, const float* b, std::size_t d) {
  float s[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
  for (std::size_t k = 0; k < d; ++k) {
    const float diff = a[k] - b[k];
    s[k % 8] = s[k % 8] + diff * diff;
  }
  return Sqrt(CombineStripes(s));
}

// DOT(a,b) / (NORM(a) * NORM(b)), and 0 where that denominator is 0.
CALCJIT_KERNEL float Cosine(const float* a, const float* b, std::size_t d) {
  const float denominator = Norm(a, d) * Norm(b, d);
  const float quotient = Dot(a, b, d) / denominator;
  return denominator == 0.0f ? 0.0f : quotient;
}

}  // namespace calcjit::math

#endif  // CALCJIT_MATH_VECTOR_H_
