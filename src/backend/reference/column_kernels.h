// Whole-column loops over the kernels of src/math, one instantiation per
// operator so that each loop inlines its kernel (and GCC vectorizes it): the
// interpreter dispatches once per node, not per item. Every loop runs the
// kernel named like its row of op.def (Op::kLog1p: math::Log1p), and the
// dispatch is generated from the table (ir/op_by_kind.inc).
#ifndef CALCJIT_BACKEND_REFERENCE_COLUMN_KERNELS_H_
#define CALCJIT_BACKEND_REFERENCE_COLUMN_KERNELS_H_

#include <cstddef>
#include <cstdint>
#include <span>

#include "ir/op.h"

namespace calcjit::backend {

using UnaryColumnFn = void (*)(const float* x, float* out, std::size_t n);
using BinaryColumnFn = void (*)(const float* a, const float* b, float* out, std::size_t n);
using ConditionalColumnFn = void (*)(const float* c, const float* a, const float* b, float* out,
                                     std::size_t n);
// One item of a Vector operator: `a` and `b` are that item's rows of the two
// vector inputs, of dimension d (`b` is not read by lhs_only rows: norm).
using VectorItemFn = float (*)(const float* a, const float* b, std::size_t d);
// An aggregate over a whole column: `out` has as many items as `x`;
// `scratch` holds ir::ScratchKeysPerItem(op) * x.size() keys; `bound` is read
// by the rows that take one (ir::TakesBound).
using AggregateColumnFn = void (*)(std::span<const float> x, std::span<float> out,
                                   std::span<std::uint64_t> scratch, float bound);

// nullptr for operators of other kinds. Nary folds use the binary loop of
// their binary operator (BinaryColumnKernel(FoldOperator(op))).
UnaryColumnFn UnaryColumnKernel(ir::Op op);
BinaryColumnFn BinaryColumnKernel(ir::Op op);
ConditionalColumnFn ConditionalColumnKernel(ir::Op op);
VectorItemFn VectorItemKernel(ir::Op op);
AggregateColumnFn AggregateColumnKernel(ir::Op op);

// The binary operator a Nary operator folds with (ir::NaryFoldOf).
inline ir::Op FoldOperator(ir::Op nary) {
  return ir::NaryFoldOf(nary);
}

}  // namespace calcjit::backend

#endif  // CALCJIT_BACKEND_REFERENCE_COLUMN_KERNELS_H_
