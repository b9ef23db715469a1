// The definitions: compiled by GCC with -fopenmp-simd (jit.cmake), which
// makes a vector clone of each function for SSE, AVX, AVX2 and AVX-512.
#include "backend/jit/vector_kernels.h"
#include "math/transcendental.h"

#define CALCJIT_DEFINE_1(name)                                                \
  _Pragma("omp declare simd notinbranch") float calcjit_vec_##name(float x) { \
    return calcjit::math::name(x);                                            \
  }
#define CALCJIT_DEFINE_2(name)                                                         \
  _Pragma("omp declare simd notinbranch") float calcjit_vec_##name(float x, float y) { \
    return calcjit::math::name(x, y);                                                  \
  }
#define CALCJIT_DEFINE(name, arity) CALCJIT_DEFINE_##arity(name)

extern "C" {
#define CALCJIT_VECTOR_CALL(name, arity) CALCJIT_DEFINE(name, arity)
#include "ir/op_vector_calls.inc"
}
