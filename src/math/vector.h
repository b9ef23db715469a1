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

// Eight float32 lanes, one per stripe: GCC's and clang's vector extension,
// so that a stripe update is one vector multiply and one vector add (each
// lane rounded exactly like the scalar code; -ffp-contract=off keeps them
// unfused). On baseline x86-64 it is two SSE registers.
typedef float Stripes __attribute__((vector_size(32)));

CALCJIT_KERNEL Stripes LoadStripes(const float* p) {
  Stripes v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}

CALCJIT_KERNEL float CombineStripes(Stripes s) {
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

// Whole groups of eight components update the eight stripes at once; the
// tail continues the stripes one component at a time.
CALCJIT_KERNEL float Dot(const float* a, const float* b, std::size_t d) {
  Stripes s = {};
  std::size_t k = 0;
  for (const std::size_t full = d - d % 8; k < full; k += 8) {
    s = s + LoadStripes(a + k) * LoadStripes(b + k);
  }
  for (std::size_t j = 0; k < d; ++k, ++j) s[j] = s[j] + a[k] * b[k];
  return CombineStripes(s);
}

CALCJIT_KERNEL float Norm(const float* a, std::size_t d) { return Sqrt(Dot(a, a, d)); }

CALCJIT_KERNEL float L2Distance(const float* a, const float* b, std::size_t d) {
  Stripes s = {};
  std::size_t k = 0;
  for (const std::size_t full = d - d % 8; k < full; k += 8) {
    const Stripes diff = LoadStripes(a + k) - LoadStripes(b + k);
    s = s + diff * diff;
  }
  for (std::size_t j = 0; k < d; ++k, ++j) {
    const float diff = a[k] - b[k];
    s[j] = s[j] + diff * diff;
  }
  return Sqrt(CombineStripes(s));
}

// DOT(a,b) / (NORM(a) * NORM(b)), and 0 where that denominator is 0. The three
// dot products share one pass over the components, each with its own stripes
// in the contract's order, so the bits are those of three separate Dot calls.
CALCJIT_KERNEL float Cosine(const float* a, const float* b, std::size_t d) {
  Stripes ab = {}, aa = {}, bb = {};
  std::size_t k = 0;
  for (const std::size_t full = d - d % 8; k < full; k += 8) {
    const Stripes va = LoadStripes(a + k);
    const Stripes vb = LoadStripes(b + k);
    ab = ab + va * vb;
    aa = aa + va * va;
    bb = bb + vb * vb;
  }
  for (std::size_t j = 0; k < d; ++k, ++j) {
    ab[j] = ab[j] + a[k] * b[k];
    aa[j] = aa[j] + a[k] * a[k];
    bb[j] = bb[j] + b[k] * b[k];
  }
  const float denominator = Sqrt(CombineStripes(aa)) * Sqrt(CombineStripes(bb));
  const float quotient = CombineStripes(ab) / denominator;
  return Select(denominator == 0.0f, 0.0f, quotient);
}

}  // namespace calcjit::math

#endif  // CALCJIT_MATH_VECTOR_H_
