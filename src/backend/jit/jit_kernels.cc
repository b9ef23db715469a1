// The element-wise kernels the JIT inlines into its generated loops: the very
// functions of src/math, one extern "C" wrapper per operator of op.def (named
// calcjit_op_<Name>), compiled at build time by clang 16 to LLVM bitcode with
// the project's floating-point flags (-ffp-contract=off, no fast-math) and
// embedded in the library. The JIT links the bitcode into every module and
// inlines it, so generated code computes with the same source, hence the same
// bits, as the reference interpreter and the VM.
//
// This file is not part of the calcjit library's own objects; see
// src/backend/jit/CMakeLists.txt.
#include "math/elementwise.h"

#define CALCJIT_OP_kUnary(name, ...)            \
  extern "C" float calcjit_op_##name(float x) { \
    return calcjit::math::name(x);              \
  }
#define CALCJIT_OP_kBinary(name, ...)                    \
  extern "C" float calcjit_op_##name(float a, float b) { \
    return calcjit::math::name(a, b);                    \
  }
#define CALCJIT_OP_kConditional(name, ...)                        \
  extern "C" float calcjit_op_##name(float c, float a, float b) { \
    return calcjit::math::name(c, a, b);                          \
  }
#include "ir/op_by_kind.inc"

// Every NaN written to an output is the canonical quiet NaN.
extern "C" float calcjit_canonicalize(float x) {
  return calcjit::math::CanonicalizeNan(x);
}
