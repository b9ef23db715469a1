#include "backend/reference/column_kernels.h"

#include "math/aggregate.h"
#include "math/elementwise.h"
#include "math/vector.h"

namespace calcjit::backend {

namespace {

template <float (*kKernel)(float)>
void UnaryLoop(const float* x, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = kKernel(x[i]);
}

template <float (*kKernel)(float, float)>
void BinaryLoop(const float* a, const float* b, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = kKernel(a[i], b[i]);
}

template <float (*kKernel)(float, float, float)>
void ConditionalLoop(const float* c, const float* a, const float* b, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = kKernel(c[i], a[i], b[i]);
}

// A vector kernel takes both rows, or only the first (an lhs_only row).
template <auto kKernel, bool kLhsOnly>
float VectorItem(const float* a, const float* b, std::size_t d) {
  if constexpr (kLhsOnly) {
    return kKernel(a, d);
  } else {
    return kKernel(a, b, d);
  }
}

// An aggregate kernel takes its scratch keys only if its row needs some, and
// a bound only if its row takes one.
template <auto kKernel, int kScratchKeysPerItem, bool kTakesBound>
void AggregateColumn(std::span<const float> x, std::span<float> out,
                     std::span<std::uint64_t> scratch, float bound) {
  if constexpr (kTakesBound) {
    kKernel(x, out, scratch.first(kScratchKeysPerItem * x.size()), bound);
  } else if constexpr (kScratchKeysPerItem == 0) {
    kKernel(x, out);
  } else {
    kKernel(x, out, scratch.first(kScratchKeysPerItem * x.size()));
  }
}

}  // namespace

UnaryColumnFn UnaryColumnKernel(ir::Op op) {
  switch (op) {
#define CALCJIT_OP_kUnary(name, ...) \
  case ir::Op::k##name:              \
    return &UnaryLoop<math::name>;
#include "ir/op_by_kind.inc"
    default:
      return nullptr;
  }
}

BinaryColumnFn BinaryColumnKernel(ir::Op op) {
  switch (op) {
#define CALCJIT_OP_kBinary(name, ...) \
  case ir::Op::k##name:               \
    return &BinaryLoop<math::name>;
#include "ir/op_by_kind.inc"
    default:
      return nullptr;
  }
}

ConditionalColumnFn ConditionalColumnKernel(ir::Op op) {
  switch (op) {
#define CALCJIT_OP_kConditional(name, ...) \
  case ir::Op::k##name:                    \
    return &ConditionalLoop<math::name>;
#include "ir/op_by_kind.inc"
    default:
      return nullptr;
  }
}

VectorItemFn VectorItemKernel(ir::Op op) {
  switch (op) {
#define CALCJIT_OP_kVector(name, ...) \
  case ir::Op::k##name:               \
    return &VectorItem<&math::name, ir::Info(ir::Op::k##name).lhs_only>;
#include "ir/op_by_kind.inc"
    default:
      return nullptr;
  }
}

AggregateColumnFn AggregateColumnKernel(ir::Op op) {
  switch (op) {
#define CALCJIT_OP_kAggregate(name, ...)                                          \
  case ir::Op::k##name:                                                           \
    return &AggregateColumn<&math::name, ir::ScratchKeysPerItem(ir::Op::k##name), \
                            ir::TakesBound(ir::Op::k##name)>;
#include "ir/op_by_kind.inc"
    default:
      return nullptr;
  }
}

}  // namespace calcjit::backend
