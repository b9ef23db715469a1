// The expensive kernels (the correctly rounded transcendental functions and
// pow), which the JIT calls instead of inlining: each is a function of the
// library (calcjit_vec_<Name>) with vector variants for every tier
// (#pragma omp declare simd, GCC's x86 vector-function ABI: _ZGVbN4v_ for SSE,
// _ZGVdN8v_ for AVX2, _ZGVeN16v_ for AVX-512), compiled from the very source of
// src/math. LLVM's loop vectorizer calls the variant that matches its vector
// width. Inlining these large kernels at every use made compiling a big set
// take seconds; calls keep it in milliseconds, at the same speed.
#ifndef CALCJIT_BACKEND_JIT_VECTOR_KERNELS_H_
#define CALCJIT_BACKEND_JIT_VECTOR_KERNELS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "calcjit/cpu.h"
#include "ir/op.h"

// The expensive kernels are the rows of op.def whose cost is kVectorCall:
// including ir/op_vector_calls.inc expands CALCJIT_VECTOR_CALL(Name, arity)
// for each of them.

namespace calcjit::jit {

bool HasVectorKernel(ir::Op op);

struct VectorVariant {
  std::string name;  // e.g. _ZGVdN8v_calcjit_vec_Exp
  unsigned lanes;
};
// The variants a tier's code may call (the tier's own and narrower ones).
std::vector<VectorVariant> VectorVariants(ir::Op op, Isa isa);

// Every scalar kernel and vector variant, by symbol name, for the JIT's
// symbol table.
struct KernelSymbol {
  std::string name;
  void* address;
};
std::vector<KernelSymbol> VectorKernelSymbols();

// The column kernel of a tier (backend/kernels: the VM's own loop over a
// column, void(a, [b,] out, n)) for an expensive kernel: a call stage of a
// staged piece calls it once per block instead of a vector variant once per
// 16 items (stages.h). Its symbol is among VectorKernelSymbols().
std::string ColumnKernelName(ir::Op op, Isa isa);
// Whether `op` has a column kernel, on every tier alike.
bool HasColumnKernel(ir::Op op);

}  // namespace calcjit::jit

#endif  // CALCJIT_BACKEND_JIT_VECTOR_KERNELS_H_
