// The definitions of the kernels of vector_kernels.h and their vector
// variants, under the x86 vector-function ABI names the JIT declares
// (_ZGVbN4v_ for SSE, _ZGVdN8v_ for AVX2, _ZGVeN16v_ for AVX-512).
//
// Exp, Log, Log1p, Sigmoid and Tanh: written here, one lane count per ISA.
// The 4- and 8-lane variants run the column form of src/math
// (math/transcendental.h) on their lanes, the 16-lane ones the AVX-512 code
// of math/transcendental_avx512.h that the VM's avx512 tier runs too: the
// fast path on the whole vector, then the fallback for the failed lanes only
// (a simd clone of the scalar code could not skip the fallback). The AVX2
// and AVX-512 variants are compiled for those ISAs by target attributes (the
// tiers of the VM: x86-64-v3 and x86-64-v4); the JIT calls only the variants
// its machine has.
//
// Pow: GCC makes the vector clones of the scalar function
// (#pragma omp declare simd, this file is compiled with -fopenmp-simd).
#include <cstddef>

#include "backend/jit/vector_kernels.h"
#include "math/transcendental.h"
#include "math/transcendental_avx512.h"

namespace {

typedef float Floats4 __attribute__((vector_size(16)));
typedef float Floats8 __attribute__((vector_size(32)));
typedef float Floats16 __attribute__((vector_size(64)));

template <typename Vector, void (*kColumn)(const float*, float*, std::size_t)>
[[gnu::always_inline]] inline Vector OnLanes(Vector x) {
  constexpr std::size_t kLanes = sizeof(Vector) / sizeof(float);
  float in[kLanes];
  float out[kLanes];
  __builtin_memcpy(in, &x, sizeof x);
  kColumn(in, out, kLanes);
  Vector result;
  __builtin_memcpy(&result, out, sizeof result);
  return result;
}

}  // namespace

#define CALCJIT_DEFINE_UNARY(name)                                                              \
  float calcjit_vec_##name(float x) {                                                           \
    return calcjit::math::name(x);                                                              \
  }                                                                                             \
  Floats4 _ZGVbN4v_calcjit_vec_##name(Floats4 x) {                                              \
    return OnLanes<Floats4, calcjit::math::name##Column>(x);                                    \
  }                                                                                             \
  __attribute__((target("arch=x86-64-v3"))) Floats8 _ZGVdN8v_calcjit_vec_##name(Floats8 x) {    \
    return OnLanes<Floats8, calcjit::math::name##Column>(x);                                    \
  }                                                                                             \
  __attribute__((target("arch=x86-64-v4"))) Floats16 _ZGVeN16v_calcjit_vec_##name(Floats16 x) { \
    return (Floats16)calcjit::math::internal::avx512::name##16((__m512)x);                      \
  }

// Every kVectorCall row of op.def: a unary one has a column form in
// src/math (the fast path and its fallback) and gets the variants above; a
// binary one (pow) gets GCC's simd clones of its scalar kernel.
#define CALCJIT_DEFINE_1(name) CALCJIT_DEFINE_UNARY(name)
#define CALCJIT_DEFINE_2(name)                                                         \
  _Pragma("omp declare simd notinbranch") float calcjit_vec_##name(float x, float y) { \
    return calcjit::math::name(x, y);                                                  \
  }
#define CALCJIT_DEFINE(name, arity) CALCJIT_DEFINE_##arity(name)

extern "C" {
#define CALCJIT_VECTOR_CALL(name, arity) CALCJIT_DEFINE(name, arity)
#include "ir/op_vector_calls.inc"
}
