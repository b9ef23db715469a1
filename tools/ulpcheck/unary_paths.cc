#include "unary_paths.h"

#include <cstring>

#include "backend/kernels/kernels.h"
#include "calcjit/cpu.h"
#include "ir/op.h"
#include "math/transcendental.h"
#include "math/transcendental_avx512.h"

// The JIT's vector variants (src/backend/jit/vector_kernels.cc), by their
// vector-function ABI names.
typedef float Floats4 __attribute__((vector_size(16)));
typedef float Floats8 __attribute__((vector_size(32)));
typedef float Floats16 __attribute__((vector_size(64)));
#define CALCJIT_DECLARE_VARIANTS(name)                     \
  extern "C" Floats4 _ZGVbN4v_calcjit_vec_##name(Floats4); \
  extern "C" __attribute__((target("arch=x86-64-v3")))     \
  Floats8 _ZGVdN8v_calcjit_vec_##name(Floats8);            \
  extern "C" __attribute__((target("arch=x86-64-v4")))     \
  Floats16 _ZGVeN16v_calcjit_vec_##name(Floats16);
CALCJIT_DECLARE_VARIANTS(Exp)
CALCJIT_DECLARE_VARIANTS(Log)
CALCJIT_DECLARE_VARIANTS(Log1p)
CALCJIT_DECLARE_VARIANTS(Sigmoid)
CALCJIT_DECLARE_VARIANTS(Tanh)

namespace calcjit::ulpcheck {
namespace {

namespace cm = calcjit::math;

// Runs a vector variant over a column: whole vectors, then the tail padded
// with copies of its first value (the variants have no partial form).
template <typename Vector, Vector (*kVariant)(Vector)>
[[gnu::always_inline]] inline void OverColumn(const float* x, float* out, std::size_t n) {
  constexpr std::size_t kLanes = sizeof(Vector) / sizeof(float);
  for (std::size_t i = 0; i < n; i += kLanes) {
    float lanes[kLanes];
    const std::size_t m = n - i < kLanes ? n - i : kLanes;
    for (std::size_t k = 0; k < kLanes; ++k) lanes[k] = x[i + (k < m ? k : 0)];
    Vector v;
    std::memcpy(&v, lanes, sizeof v);
    v = kVariant(v);
    std::memcpy(lanes, &v, sizeof v);
    std::memcpy(out + i, lanes, m * sizeof(float));
  }
}

template <Floats4 (*kVariant)(Floats4)>
void Jit4(const float* x, float* out, std::size_t n) {
  OverColumn<Floats4, kVariant>(x, out, n);
}
template <Floats8 (*kVariant)(Floats8)>
__attribute__((target("arch=x86-64-v3"))) void Jit8(const float* x, float* out, std::size_t n) {
  OverColumn<Floats8, kVariant>(x, out, n);
}
template <Floats16 (*kVariant)(Floats16)>
__attribute__((target("arch=x86-64-v4"))) void Jit16(const float* x, float* out, std::size_t n) {
  OverColumn<Floats16, kVariant>(x, out, n);
}

template <float (*kScalar)(float)>
void ScalarLoop(const float* x, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = kScalar(x[i]);
}

template <cm::internal::FastResult (*kFast)(float)>
std::uint64_t Fallbacks(const float* x, std::size_t n) {
  std::uint64_t count = 0;
  for (std::size_t i = 0; i < n; ++i) count += kFast(x[i]).fail;
  return count;
}

namespace avx = calcjit::math::internal::avx512;

template <avx::Fast16 (*kFast)(__m512)>
CALCJIT_AVX512 std::uint64_t FallbacksAvx512(const float* x, std::size_t n) {
  std::uint64_t count = 0;
  for (std::size_t i = 0; i < n; i += 16) {
    const std::size_t m = n - i < 16 ? n - i : 16;
    const __mmask16 lanes = static_cast<__mmask16>((1u << m) - 1);
    const avx::Fast16 f = kFast(_mm512_maskz_loadu_ps(lanes, x + i));
    count += static_cast<std::uint64_t>(__builtin_popcount(f.fail & lanes));
  }
  return count;
}

struct Function {
  const char* name;
  ir::Op op;
  ColumnFunction scalar;
  ColumnFunction column;
  ColumnFunction jit4, jit8, jit16;
  std::uint64_t (*fallbacks)(const float*, std::size_t);
  std::uint64_t (*fallbacks_avx512)(const float*, std::size_t);
};

#define CALCJIT_FUNCTION(lower, name)                                               \
  Function {                                                                        \
    lower, ir::Op::k##name, &ScalarLoop<cm::name>, &cm::name##Column,               \
        &Jit4<_ZGVbN4v_calcjit_vec_##name>, &Jit8<_ZGVdN8v_calcjit_vec_##name>,     \
        &Jit16<_ZGVeN16v_calcjit_vec_##name>, &Fallbacks<cm::internal::name##Fast>, \
        &FallbacksAvx512<avx::name##Fast16>                                         \
  }

const Function kFunctions[] = {
    CALCJIT_FUNCTION("exp", Exp),     CALCJIT_FUNCTION("log", Log),
    CALCJIT_FUNCTION("log1p", Log1p), CALCJIT_FUNCTION("sigmoid", Sigmoid),
    CALCJIT_FUNCTION("tanh", Tanh),
};

const Function* Find(const std::string& name) {
  for (const Function& f : kFunctions) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

}  // namespace

std::vector<UnaryPath> PathsOf(const std::string& function) {
  const Function* f = Find(function);
  if (f == nullptr) return {};
  const int op = static_cast<int>(f->op);
  std::vector<UnaryPath> paths = {{"scalar", f->scalar}, {"column", f->column}};
  paths.push_back({"vm-baseline", kernels::baseline::Kernels().unary[op]});
  paths.push_back({"jit-4", f->jit4});
  if (IsIsaSupported(Isa::kAvx2)) {
    paths.push_back({"vm-avx2", kernels::avx2::Kernels().unary[op]});
    paths.push_back({"jit-8", f->jit8});
  }
  if (IsIsaSupported(Isa::kAvx512)) {
    paths.push_back({"vm-avx512", kernels::avx512::Kernels().unary[op]});
    paths.push_back({"jit-16", f->jit16});
  }
  return paths;
}

std::uint64_t CountFallbacks(const std::string& function, const float* x, std::size_t n) {
  const Function* f = Find(function);
  return f == nullptr ? 0 : f->fallbacks(x, n);
}

std::int64_t CountFallbacksAvx512(const std::string& function, const float* x, std::size_t n) {
  const Function* f = Find(function);
  if (f == nullptr || !IsIsaSupported(Isa::kAvx512)) return -1;
  return static_cast<std::int64_t>(f->fallbacks_avx512(x, n));
}

}  // namespace calcjit::ulpcheck
