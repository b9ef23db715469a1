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

// The eight stripes as two vectors of four float32 lanes (GCC's and clang's
// vector extension): a stripe update is then a vector multiply and a vector
// add, each lane rounded exactly like the scalar code (-ffp-contract=off
// keeps them unfused). Sixteen-byte vectors are native on every tier, so
// nothing goes through memory.
typedef float Floats4 __attribute__((vector_size(16)));

struct Stripes {
  Floats4 lo = {};  // stripes 0..3
  Floats4 hi = {};  // stripes 4..7

  CALCJIT_KERNEL_MEMBER void AddTail(std::size_t j, float term) {
    if (j < 4) {
      lo[j] = lo[j] + term;
    } else {
      hi[j - 4] = hi[j - 4] + term;
    }
  }
  CALCJIT_KERNEL_MEMBER float Combine() const {
    return ((lo[0] + lo[1]) + (lo[2] + lo[3])) + ((hi[0] + hi[1]) + (hi[2] + hi[3]));
  }
};

CALCJIT_KERNEL Floats4 LoadFloats4(const float* p) {
  Floats4 v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}

// Whole groups of eight components update the eight stripes at once; the
// tail continues the stripes one component at a time.
CALCJIT_KERNEL float Dot(const float* a, const float* b, std::size_t d) {
  Stripes s;
  std::size_t k = 0;
  for (const std::size_t full = d - d % 8; k < full; k += 8) {
    s.lo = s.lo + LoadFloats4(a + k) * LoadFloats4(b + k);
    s.hi = s.hi + LoadFloats4(a + k + 4) * LoadFloats4(b + k + 4);
  }
  for (std::size_t j = 0; k < d; ++k, ++j) s.AddTail(j, a[k] * b[k]);
  return s.Combine();
}

CALCJIT_KERNEL float Norm(const float* a, std::size_t d) {
  return Sqrt(Dot(a, a, d));
}

CALCJIT_KERNEL float L2Distance(const float* a, const float* b, std::size_t d) {
  Stripes s;
  std::size_t k = 0;
  for (const std::size_t full = d - d % 8; k < full; k += 8) {
    const Floats4 lo = LoadFloats4(a + k) - LoadFloats4(b + k);
    const Floats4 hi = LoadFloats4(a + k + 4) - LoadFloats4(b + k + 4);
    s.lo = s.lo + lo * lo;
    s.hi = s.hi + hi * hi;
  }
  for (std::size_t j = 0; k < d; ++k, ++j) {
    const float diff = a[k] - b[k];
    s.AddTail(j, diff * diff);
  }
  return Sqrt(s.Combine());
}

// DOT(a,b) / (NORM(a) * NORM(b)), and 0 where that denominator is 0. The three
// dot products share one pass over the components, each with its own stripes
// in the contract's order, so the bits are those of three separate Dot calls.
CALCJIT_KERNEL float Cosine(const float* a, const float* b, std::size_t d) {
  Stripes ab, aa, bb;
  std::size_t k = 0;
  for (const std::size_t full = d - d % 8; k < full; k += 8) {
    const Floats4 a_lo = LoadFloats4(a + k), a_hi = LoadFloats4(a + k + 4);
    const Floats4 b_lo = LoadFloats4(b + k), b_hi = LoadFloats4(b + k + 4);
    ab.lo = ab.lo + a_lo * b_lo;
    ab.hi = ab.hi + a_hi * b_hi;
    aa.lo = aa.lo + a_lo * a_lo;
    aa.hi = aa.hi + a_hi * a_hi;
    bb.lo = bb.lo + b_lo * b_lo;
    bb.hi = bb.hi + b_hi * b_hi;
  }
  for (std::size_t j = 0; k < d; ++k, ++j) {
    ab.AddTail(j, a[k] * b[k]);
    aa.AddTail(j, a[k] * a[k]);
    bb.AddTail(j, b[k] * b[k]);
  }
  const float denominator = Sqrt(aa.Combine()) * Sqrt(bb.Combine());
  const float quotient = ab.Combine() / denominator;
  return Select(denominator == 0.0f, 0.0f, quotient);
}

}  // namespace calcjit::math

#endif  // CALCJIT_MATH_VECTOR_H_
