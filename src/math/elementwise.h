// The element-wise kernels: one inline function per operator of op.def,
// named after it, with exactly the semantics of spec section 3. The reference
// interpreter calls them per item, constant folding calls them through the
// interpreter, the VM runs them inside block loops and the JIT inlines the
// same source. They are branch-free (selects on values computed anyway) so
// loops over them vectorize.
#ifndef CALCJIT_MATH_ELEMENTWISE_H_
#define CALCJIT_MATH_ELEMENTWISE_H_

#include <cmath>
#include <cstdint>

#include "math/bits.h"
#include "math/transcendental.h"

namespace calcjit::math {

// Neither zero (of either sign) nor NaN.
CALCJIT_KERNEL bool Truthy(float x) {
  return x == x && x != 0.0f;
}
CALCJIT_KERNEL float FromBool(bool b) {
  return b ? 1.0f : 0.0f;
}

// --- Unary -----------------------------------------------------------------

// Flips the sign bit: -(+0) = -0.
CALCJIT_KERNEL float Neg(float x) {
  return FloatFromBits(FloatBits(x) ^ 0x80000000u);
}
CALCJIT_KERNEL float Abs(float x) {
  return FloatFromBits(FloatBits(x) & 0x7FFFFFFFu);
}
// Exp, Log, Log1p, Sigmoid, Tanh: math/transcendental.h (correctly rounded).
// IEEE square root: correctly rounded, sqrt(-0) = -0, sqrt(x<0) = NaN.
CALCJIT_KERNEL float Sqrt(float x) {
  return std::sqrt(x);
}

// floor, ceil and round without libm (which only inlines with SSE4.1): every
// float with |x| >= 2^23 is already an integer, below that the truncation
// through int32 is exact. The result always has the sign of x (floor(-0.5) =
// -1, ceil(-0.5) = -0, round(-0.2) = -0), so the sign is copied last. NaN and
// infinities are not "small" (their bits compare above 2^23's) and pass
// through. Selects are bit blends (math/bits.h) so that loops vectorize.
CALCJIT_KERNEL bool IsSmallForRounding(float x) {
  return (FloatBits(x) & 0x7FFFFFFFu) < 0x4B000000u;  // |x| < 2^23
}
CALCJIT_KERNEL float TruncSmall(float x) {
  return static_cast<float>(static_cast<std::int32_t>(x));
}

CALCJIT_KERNEL float Floor(float x) {
  const bool small = IsSmallForRounding(x);
  const float safe = Select(small, x, 0.0f);
  const float t = TruncSmall(safe);
  const float r = Select(t > safe, t - 1.0f, t);
  return Select(small, CopySign(r, x), x);
}

CALCJIT_KERNEL float Ceil(float x) {
  const bool small = IsSmallForRounding(x);
  const float safe = Select(small, x, 0.0f);
  const float t = TruncSmall(safe);
  const float r = Select(t < safe, t + 1.0f, t);
  return Select(small, CopySign(r, x), x);
}

// Half away from zero, as C roundf. safe - t is exact (the fraction).
CALCJIT_KERNEL float Round(float x) {
  const bool small = IsSmallForRounding(x);
  const float safe = Select(small, x, 0.0f);
  const float t = TruncSmall(safe);
  const float magnitude = Abs(t) + Select(Abs(safe - t) >= 0.5f, 1.0f, 0.0f);
  return Select(small, CopySign(magnitude, x), x);
}

// 1 if x > 0, -1 if x < 0, else x (so ±0 and NaN pass through).
CALCJIT_KERNEL float Sign(float x) {
  return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : x);
}
CALCJIT_KERNEL float Not(float x) {
  return FromBool(!Truthy(x));
}
CALCJIT_KERNEL float IsNan(float x) {
  return FromBool(x != x);
}

// --- Binary ----------------------------------------------------------------

CALCJIT_KERNEL float Add(float a, float b) {
  return a + b;
}
CALCJIT_KERNEL float Sub(float a, float b) {
  return a - b;
}
CALCJIT_KERNEL float Mul(float a, float b) {
  return a * b;
}
CALCJIT_KERNEL float Div(float a, float b) {
  return a / b;
}
// Pow: math/transcendental.h.

// IEEE 754-2019 minimum / maximum: NaN if either operand is NaN, and
// min(-0, +0) = -0, max(-0, +0) = +0. Equal operands have equal bits except
// for ±0, where OR-ing the bits picks -0 and AND-ing picks +0.
CALCJIT_KERNEL float Min(float a, float b) {
  const bool unordered = (a != a) | (b != b);
  const float ordered =
      Select(a == b, FloatFromBits(FloatBits(a) | FloatBits(b)), Select(a < b, a, b));
  return Select(unordered, a + b, ordered);
}

CALCJIT_KERNEL float Max(float a, float b) {
  const bool unordered = (a != a) | (b != b);
  const float ordered =
      Select(a == b, FloatFromBits(FloatBits(a) & FloatBits(b)), Select(a > b, a, b));
  return Select(unordered, a + b, ordered);
}

// IEEE comparisons: false with a NaN operand, except Ne.
CALCJIT_KERNEL float Eq(float a, float b) {
  return FromBool(a == b);
}
CALCJIT_KERNEL float Ne(float a, float b) {
  return FromBool(a != b);
}
CALCJIT_KERNEL float Lt(float a, float b) {
  return FromBool(a < b);
}
CALCJIT_KERNEL float Le(float a, float b) {
  return FromBool(a <= b);
}
CALCJIT_KERNEL float Gt(float a, float b) {
  return FromBool(a > b);
}
CALCJIT_KERNEL float Ge(float a, float b) {
  return FromBool(a >= b);
}
CALCJIT_KERNEL float And(float a, float b) {
  return FromBool(Truthy(a) && Truthy(b));
}
CALCJIT_KERNEL float Or(float a, float b) {
  return FromBool(Truthy(a) || Truthy(b));
}

// --- Conditional -----------------------------------------------------------

CALCJIT_KERNEL float If(float condition, float then_value, float otherwise_value) {
  return Truthy(condition) ? then_value : otherwise_value;
}

}  // namespace calcjit::math

#endif  // CALCJIT_MATH_ELEMENTWISE_H_
