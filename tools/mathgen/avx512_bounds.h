// The error bounds of the AVX-512 fast path (src/math/transcendental_avx512.h;
// the derivation is docs/NUMERICS.md, "AVX-512 fast path"), for
// calcjit_fast_path_bounds.
#ifndef CALCJIT_TOOLS_MATHGEN_AVX512_BOUNDS_H_
#define CALCJIT_TOOLS_MATHGEN_AVX512_BOUNDS_H_

namespace calcjit::mathgen {

// Evaluates every term with MPFR (rounded up), prints them, and checks each
// derived bound against the header's constant and its rounding-test window.
// Returns false if one does not hold.
bool CheckAvx512Bounds();

}  // namespace calcjit::mathgen

#endif  // CALCJIT_TOOLS_MATHGEN_AVX512_BOUNDS_H_
