// Whole-column loops over the element-wise kernels of src/math, one
// instantiation per operator so that each loop inlines its kernel (and GCC
// vectorizes it): the interpreter dispatches once per node, not per item.
#ifndef CALCJIT_BACKEND_REFERENCE_COLUMN_KERNELS_H_
#define CALCJIT_BACKEND_REFERENCE_COLUMN_KERNELS_H_

#include <cstddef>

#include "ir/op.h"

namespace calcjit::backend {

using UnaryColumnFn = void (*)(const float* x, float* out, std::size_t n);
using BinaryColumnFn = void (*)(const float* a, const float* b, float* out, std::size_t n);

// nullptr for operators of other kinds. Nary folds use the binary loop of
// their binary operator (BinaryColumnKernel(FoldOperator(op))).
UnaryColumnFn UnaryColumnKernel(ir::Op op);
BinaryColumnFn BinaryColumnKernel(ir::Op op);

// The binary operator a Nary operator folds with: Sum and Mean fold Add,
// Product folds Mul, NaryMin/NaryMax fold Min/Max, WeightedSum folds Add.
ir::Op FoldOperator(ir::Op nary);

}  // namespace calcjit::backend

#endif  // CALCJIT_BACKEND_REFERENCE_COLUMN_KERNELS_H_
