#include "backend/reference/column_kernels.h"

#include "math/elementwise.h"

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

// Rows of op.def by kind, each mapped to the kernel of the same name.
#define CALCJIT_UNARY_kUnary(name) \
  case ir::Op::k##name:            \
    return &UnaryLoop<math::name>;
#define CALCJIT_BINARY_kBinary(name) \
  case ir::Op::k##name:              \
    return &BinaryLoop<math::name>;
#define CALCJIT_UNARY_kConstant(name)
#define CALCJIT_UNARY_kRef(name)
#define CALCJIT_UNARY_kBinary(name)
#define CALCJIT_UNARY_kConditional(name)
#define CALCJIT_UNARY_kNary(name)
#define CALCJIT_UNARY_kVector(name)
#define CALCJIT_UNARY_kAggregate(name)
#define CALCJIT_BINARY_kConstant(name)
#define CALCJIT_BINARY_kRef(name)
#define CALCJIT_BINARY_kUnary(name)
#define CALCJIT_BINARY_kConditional(name)
#define CALCJIT_BINARY_kNary(name)
#define CALCJIT_BINARY_kVector(name)
#define CALCJIT_BINARY_kAggregate(name)

}  // namespace

UnaryColumnFn UnaryColumnKernel(ir::Op op) {
  switch (op) {
#define CALCJIT_OP(name, kind, ...) CALCJIT_UNARY_##kind(name)
#include "ir/op.def"
#undef CALCJIT_OP
    default:
      return nullptr;
  }
}

BinaryColumnFn BinaryColumnKernel(ir::Op op) {
  switch (op) {
#define CALCJIT_OP(name, kind, ...) CALCJIT_BINARY_##kind(name)
#include "ir/op.def"
#undef CALCJIT_OP
    default:
      return nullptr;
  }
}

ir::Op FoldOperator(ir::Op nary) {
  switch (nary) {
    case ir::Op::kProduct:
      return ir::Op::kMul;
    case ir::Op::kNaryMin:
      return ir::Op::kMin;
    case ir::Op::kNaryMax:
      return ir::Op::kMax;
    default:
      return ir::Op::kAdd;  // Sum, Mean, WeightedSum
  }
}

}  // namespace calcjit::backend
