// Bit-level helpers shared by the kernels.
#ifndef CALCJIT_MATH_BITS_H_
#define CALCJIT_MATH_BITS_H_

#include <bit>
#include <cstdint>

// Every kernel is declared CALCJIT_KERNEL (inline). The VM compiles the
// kernels once per instruction-set tier in separate translation units that
// define it as `static inline`, so that each tier's copies have internal
// linkage: with external linkage the linker would keep one copy, perhaps the
// AVX-512 one, for callers of every tier.
#ifndef CALCJIT_KERNEL
#define CALCJIT_KERNEL inline
#endif
// Member functions cannot be `static`; forcing them inline keeps the VM's
// per-tier copies from ever being called across tiers.
#define CALCJIT_KERNEL_MEMBER [[gnu::always_inline]] inline

namespace calcjit::math {

CALCJIT_KERNEL std::uint32_t FloatBits(float x) {
  return std::bit_cast<std::uint32_t>(x);
}
CALCJIT_KERNEL float FloatFromBits(std::uint32_t bits) {
  return std::bit_cast<float>(bits);
}

// The quiet NaN every NaN output becomes (spec section 1: a NaN's sign and
// payload are never observable).
inline constexpr std::uint32_t kCanonicalNanBits = 0x7FC00000u;
CALCJIT_KERNEL float CanonicalNan() {
  return FloatFromBits(kCanonicalNanBits);
}

CALCJIT_KERNEL float CanonicalizeNan(float x) {
  return x != x ? CanonicalNan() : x;
}

// `condition ? a : b` as an integer blend of the bits. GCC (with its default
// -ftrapping-math) does not if-convert a float select whose arms compute
// something, so a loop over such code stays scalar; a blend of bits is
// always branch-free and vectorizes, in GCC and in clang alike.
CALCJIT_KERNEL float Select(bool condition, float a, float b) {
  const std::uint32_t mask = 0u - static_cast<std::uint32_t>(condition);
  return FloatFromBits((FloatBits(a) & mask) | (FloatBits(b) & ~mask));
}

// |x| with the sign of `sign` (std::copysign without a libm dependency, so the
// same code compiles to bitcode for the JIT).
CALCJIT_KERNEL float CopySign(float magnitude, float sign) {
  return FloatFromBits((FloatBits(magnitude) & 0x7FFFFFFFu) | (FloatBits(sign) & 0x80000000u));
}

}  // namespace calcjit::math

#endif  // CALCJIT_MATH_BITS_H_
