// The column kernels, written once and compiled once per tier: each
// kernels_<tier>.cc defines CALCJIT_KERNELS_TIER (the namespace) and includes this
// file, with its own -march flags.
//
// Every math function is `static` in those translation units
// (CALCJIT_KERNEL, see math/bits.h): with external linkage the linker would
// keep one copy of each, possibly the AVX-512 one, for every caller.
#ifndef CALCJIT_KERNELS_TIER
#error "define CALCJIT_KERNELS_TIER before including kernels_impl.h"
#endif

#define CALCJIT_KERNEL static inline

#include <cstddef>

#include "backend/kernels/kernels.h"
#include "math/aggregate.h"
#include "math/bits.h"
#include "math/elementwise.h"
#include "math/vector.h"
#if CALCJIT_KERNELS_LANES == 16
#include "math/transcendental_avx512.h"
#endif

namespace calcjit::kernels::CALCJIT_KERNELS_TIER {

namespace {

// No __restrict: the VM computes in place (out may be a or b).
template <float (*kOp)(float)>
void Unary(const float* a, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = kOp(a[i]);
}

// The correctly rounded transcendental functions run as columns: the fast
// path over a block of values, then the fallback for the failed lanes only
// (math/transcendental.h; on the AVX-512 tier the hand-written fast path of
// math/transcendental_avx512.h, which the JIT's 16-lane variants share).
// Same bits as the scalar functions: every path is correctly rounded.
#if CALCJIT_KERNELS_LANES == 16
namespace columns = math::internal::avx512;
#else
namespace columns = math;
#endif
template <>
void Unary<math::Exp>(const float* a, float* out, std::size_t n) {
  columns::ExpColumn(a, out, n);
}
template <>
void Unary<math::Log>(const float* a, float* out, std::size_t n) {
  columns::LogColumn(a, out, n);
}
template <>
void Unary<math::Log1p>(const float* a, float* out, std::size_t n) {
  columns::Log1pColumn(a, out, n);
}
template <>
void Unary<math::Sigmoid>(const float* a, float* out, std::size_t n) {
  columns::SigmoidColumn(a, out, n);
}
template <>
void Unary<math::Tanh>(const float* a, float* out, std::size_t n) {
  columns::TanhColumn(a, out, n);
}

template <float (*kOp)(float, float)>
void Binary(const float* a, const float* b, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = kOp(a[i], b[i]);
}

template <float (*kOp)(float, float)>
void ScalarB(const float* a, float s, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = kOp(a[i], s);
}

template <float (*kOp)(float, float)>
void ScalarA(float s, const float* b, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = kOp(s, b[i]);
}

// A chain of one arithmetic operator over k columns, a vector of items at a
// time so that the running value stays in a register instead of making k - 1
// passes through a scratch column (GCC's and clang's vector extension:
// lane-wise IEEE operations, so the same roundings as the scalar code).
// CALCJIT_KERNELS_LANES is the tier's native float count: 4 (SSE2), 8 (AVX2) or
// 16 (AVX-512); a wider vector type than the tier has would go through memory.
constexpr std::size_t kLanes = CALCJIT_KERNELS_LANES;
typedef float Lanes __attribute__((vector_size(4 * CALCJIT_KERNELS_LANES)));

inline Lanes LoadLanes(const float* p) {
  Lanes v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}

struct AddOp {
  template <typename T>
  static T Apply(T a, T b) {
    return a + b;
  }
};
struct SubOp {
  template <typename T>
  static T Apply(T a, T b) {
    return a - b;
  }
};
struct MulOp {
  template <typename T>
  static T Apply(T a, T b) {
    return a * b;
  }
};
struct DivOp {
  template <typename T>
  static T Apply(T a, T b) {
    return a / b;
  }
};

template <typename Op>
void Fold(const float* const* x, std::size_t k, float* out, std::size_t n) {
  std::size_t i = 0;
  for (const std::size_t full = n - n % kLanes; i < full; i += kLanes) {
    Lanes acc = Op::Apply(LoadLanes(x[0] + i), LoadLanes(x[1] + i));
    for (std::size_t t = 2; t < k; ++t) acc = Op::Apply(acc, LoadLanes(x[t] + i));
    __builtin_memcpy(out + i, &acc, sizeof acc);
  }
  for (; i < n; ++i) {
    float acc = Op::Apply(x[0][i], x[1][i]);
    for (std::size_t t = 2; t < k; ++t) acc = Op::Apply(acc, x[t][i]);
    out[i] = acc;
  }
}

void IfKernelImpl(const float* c, const float* a, const float* b, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = math::If(c[i], a[i], b[i]);
}

void Fill(float s, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = s;
}

void MulAdd(const float* a, float s, const float* b, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const float product = s * b[i];  // rounded: -ffp-contract=off keeps it unfused
    out[i] = a[i] + product;
  }
}

void Store(const float* a, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = math::CanonicalizeNan(a[i]);
}

void Dot(const float* a, std::size_t a_stride, const float* b, std::size_t b_stride, std::size_t d,
         float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = math::Dot(a + i * a_stride, b + i * b_stride, d);
}

void Cosine(const float* a, std::size_t a_stride, const float* b, std::size_t b_stride,
            std::size_t d, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = math::Cosine(a + i * a_stride, b + i * b_stride, d);
  }
}

void L2Distance(const float* a, std::size_t a_stride, const float* b, std::size_t b_stride,
                std::size_t d, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = math::L2Distance(a + i * a_stride, b + i * b_stride, d);
  }
}

void Norm(const float* a, std::size_t a_stride, const float*, std::size_t, std::size_t d,
          float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = math::Norm(a + i * a_stride, d);
}

// Aggregates: whole-column kernels; those whose row of op.def needs scratch
// (rank) get ScratchKeysPerItem(op) * n keys of it, and those that take a
// bound (rank_at_most) the bound too.
template <auto kAggregate, int kScratchKeysPerItem, bool kTakesBound>
void Aggregate(const float* x, std::size_t n, float* out, std::size_t out_n, std::uint64_t* scratch,
               float bound) {
  const std::span<const float> in(x, n);
  const std::span<float> result(out, out_n);
  if constexpr (kTakesBound) {
    kAggregate(in, result, std::span<std::uint64_t>(scratch, kScratchKeysPerItem * n), bound);
  } else if constexpr (kScratchKeysPerItem == 0) {
    kAggregate(in, result);
  } else {
    kAggregate(in, result, std::span<std::uint64_t>(scratch, kScratchKeysPerItem * n));
  }
}

static_assert(ir::ScratchKeysPerItem(ir::Op::kRank) >= math::kRankScratchPerItem &&
                  ir::ScratchKeysPerItem(ir::Op::kRankAtMost) >= math::kRankAtMostScratchPerItem,
              "a row of op.def gives its kernel less scratch than it needs");

// Statistics steps: the aggregates over one column derived from statistics
// computed once (math::shared_statistics). Each row of op.def with a
// `statistics` hook runs the overload named like it that takes the
// statistics, found by argument-dependent lookup; a template over the
// statistics' type, so that the rows without the hook (rank) never name an
// overload they do not have.
template <typename Statistics>
using Derivation = void (*)(const Statistics& s, const float* x, std::size_t n, float* out,
                            std::size_t out_n);

template <typename Statistics>
struct Derivations {
  Derivation<Statistics> of[ir::kOpCount] = {};

  Derivations() {
#define CALCJIT_OP_kAggregate(name, ...)                                                           \
  if constexpr (ir::StatisticsOf(ir::Op::k##name) != 0) {                                          \
    of[static_cast<int>(ir::Op::k##name)] = [](const Statistics& s, const float* x, std::size_t n, \
                                               float* out, std::size_t out_n) {                    \
      name(s, std::span<const float>(x, n), std::span<float>(out, out_n));                         \
    };                                                                                             \
  }
#include "ir/op_by_kind.inc"
  }
};

void SharedStatistics(const float* x, std::size_t n, const SharedStatisticResult* results,
                      std::size_t count) {
  using math::shared_statistics::Statistics;
  static const Derivations<Statistics> derivations;
  std::uint8_t needed = 0;
  for (std::size_t k = 0; k < count; ++k) {
    needed |= ir::StatisticsOf(results[k].op);
  }
  const Statistics s = math::shared_statistics::Compute(std::span<const float>(x, n),
                                                        (needed & ir::kStatisticStd) != 0);
  for (std::size_t k = 0; k < count; ++k) {
    derivations.of[static_cast<int>(results[k].op)](s, x, n, results[k].out, results[k].out_n);
  }
}

KernelTable MakeTable() {
  KernelTable table;
  // One entry per row of op.def, each running the kernel of the same name.
#define CALCJIT_OP_kUnary(name, ...) \
  table.unary[static_cast<int>(ir::Op::k##name)] = &Unary<math::name>;
#define CALCJIT_OP_kBinary(name, ...)                                       \
  table.binary[static_cast<int>(ir::Op::k##name)] = &Binary<math::name>;    \
  table.scalar_b[static_cast<int>(ir::Op::k##name)] = &ScalarB<math::name>; \
  table.scalar_a[static_cast<int>(ir::Op::k##name)] = &ScalarA<math::name>;
#define CALCJIT_OP_kVector(name, ...) table.vector[static_cast<int>(ir::Op::k##name)] = &name;
#define CALCJIT_OP_kAggregate(name, ...)                               \
  table.aggregate[static_cast<int>(ir::Op::k##name)] =                 \
      &Aggregate<&math::name, ir::ScratchKeysPerItem(ir::Op::k##name), \
                 ir::TakesBound(ir::Op::k##name)>;
#include "ir/op_by_kind.inc"
  table.fold[static_cast<int>(ir::Op::kAdd)] = &Fold<AddOp>;
  table.fold[static_cast<int>(ir::Op::kSub)] = &Fold<SubOp>;
  table.fold[static_cast<int>(ir::Op::kMul)] = &Fold<MulOp>;
  table.fold[static_cast<int>(ir::Op::kDiv)] = &Fold<DivOp>;
  table.statistics = &SharedStatistics;
  table.if_kernel = &IfKernelImpl;
  table.fill = &Fill;
  table.mul_add = &MulAdd;
  table.store = &Store;
  return table;
}

}  // namespace

const KernelTable& Kernels() {
  static const KernelTable table = MakeTable();
  return table;
}

}  // namespace calcjit::kernels::CALCJIT_KERNELS_TIER
