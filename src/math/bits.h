// Bit-level helpers shared by the kernels.
#ifndef CALCJIT_MATH_BITS_H_
#define CALCJIT_MATH_BITS_H_

#include <bit>
#include <cstdint>

namespace calcjit::math {

inline std::uint32_t FloatBits(float x) { return std::bit_cast<std::uint32_t>(x); }
inline float FloatFromBits(std::uint32_t bits) { return std::bit_cast<float>(bits); }

// The quiet NaN every NaN output becomes (spec section 1: a NaN's sign and
// payload are never observable).
inline constexpr std::uint32_t kCanonicalNanBits = 0x7FC00000u;
inline float CanonicalNan() { return FloatFromBits(kCanonicalNanBits); }

inline float CanonicalizeNan(float x) { return x != x ? CanonicalNan() : x; }

// |x| with the sign of `sign` (std::copysign without a libm dependency, so the
// same code compiles to bitcode for the JIT).
inline float CopySign(float magnitude, float sign) {
  return FloatFromBits((FloatBits(magnitude) & 0x7FFFFFFFu) | (FloatBits(sign) & 0x80000000u));
}

}  // namespace calcjit::math

#endif  // CALCJIT_MATH_BITS_H_
