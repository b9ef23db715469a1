// Column kernels: loops over the items of a column or a block, one per
// operator and operand form, each running the src/math kernel named like the
// operator, compiled once per instruction-set tier from kernels_impl.h. The
// VM runs its block instructions on them, and the program executor its
// column steps (aggregates, vector operators), uniform values and stores, for
// every compiling backend alike.
#ifndef CALCJIT_BACKEND_KERNELS_KERNELS_H_
#define CALCJIT_BACKEND_KERNELS_KERNELS_H_

#include <cstddef>
#include <cstdint>

#include "calcjit/cpu.h"
#include "ir/op.h"

namespace calcjit::kernels {

using UnaryKernel = void (*)(const float* a, float* out, std::size_t n);
using BinaryKernel = void (*)(const float* a, const float* b, float* out, std::size_t n);
using ScalarBKernel = void (*)(const float* a, float s, float* out, std::size_t n);
using ScalarAKernel = void (*)(float s, const float* b, float* out, std::size_t n);
using IfKernel = void (*)(const float* c, const float* a, const float* b, float* out,
                          std::size_t n);
using FillKernel = void (*)(float s, float* out, std::size_t n);
using MulAddKernel = void (*)(const float* a, float s, const float* b, float* out, std::size_t n);
using StoreKernel = void (*)(const float* a, float* out, std::size_t n);
// out = ((x[0] op x[1]) op x[2]) op ... op x[k-1], k >= 2.
using FoldKernel = void (*)(const float* const* x, std::size_t k, float* out, std::size_t n);
// Row i of a is a + i * a_stride (a_stride 0: a query vector), likewise b.
using VectorKernel = void (*)(const float* a, std::size_t a_stride, const float* b,
                              std::size_t b_stride, std::size_t d, float* out, std::size_t n);

// A whole-column aggregate: x has n items; out has out_n floats (1 for a
// statistic kept as a scalar, else n); scratch holds
// ScratchKeysPerItem(op) * n keys (rank); `bound` is read by the rows that
// take one (ir::TakesBound).
using AggregateKernel = void (*)(const float* x, std::size_t n, float* out, std::size_t out_n,
                                 std::uint64_t* scratch, float bound);

// One aggregate of a statistics step: its operator (a row of op.def with a
// `statistics` hook) and its result, out_n floats as for AggregateKernel.
struct SharedStatisticResult {
  ir::Op op = ir::Op::kBatchSum;
  float* out = nullptr;
  std::size_t out_n = 0;
};
// The aggregates `results` over one column x of n items, from statistics
// computed once for all of them (math/aggregate.h, shared_statistics): the
// same bits as each one's AggregateKernel.
using StatisticsKernel = void (*)(const float* x, std::size_t n,
                                  const SharedStatisticResult* results, std::size_t count);

struct KernelTable {
  UnaryKernel unary[ir::kOpCount] = {};
  BinaryKernel binary[ir::kOpCount] = {};
  ScalarBKernel scalar_b[ir::kOpCount] = {};
  ScalarAKernel scalar_a[ir::kOpCount] = {};
  VectorKernel vector[ir::kOpCount] = {};
  AggregateKernel aggregate[ir::kOpCount] = {};
  StatisticsKernel statistics = nullptr;
  FoldKernel fold[ir::kOpCount] = {};
  IfKernel if_kernel = nullptr;
  FillKernel fill = nullptr;
  MulAddKernel mul_add = nullptr;
  StoreKernel store = nullptr;
};

// The kernels of a tier; the caller checks that the CPU supports it.
const KernelTable& KernelsFor(Isa isa);

namespace baseline {
const KernelTable& Kernels();
}
namespace avx2 {
const KernelTable& Kernels();
}
namespace avx512 {
const KernelTable& Kernels();
}

}  // namespace calcjit::kernels

#endif  // CALCJIT_BACKEND_KERNELS_KERNELS_H_
