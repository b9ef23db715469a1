// The addresses of the vector kernels and of their vector clones, which GCC
// names by the x86 vector-function ABI (vector_kernels.cc). Declared here with
// a dummy type: only their addresses are taken.
#include <string>

#include "backend/jit/vector_kernels.h"
#include "backend/kernels/kernels.h"
#include "calcjit/cpu.h"

#define CALCJIT_VARIANT_PARAMS_1 v
#define CALCJIT_VARIANT_PARAMS_2 vv
#define CALCJIT_CAT2(a, b) a##b
#define CALCJIT_CAT(a, b) CALCJIT_CAT2(a, b)
#define CALCJIT_VARIANT(prefix, name, arity) \
  CALCJIT_CAT(CALCJIT_CAT(prefix, CALCJIT_VARIANT_PARAMS_##arity), _calcjit_vec_##name)

extern "C" {
#define CALCJIT_DECLARE(name, arity)            \
  void calcjit_vec_##name();                    \
  void CALCJIT_VARIANT(_ZGVbN4, name, arity)(); \
  void CALCJIT_VARIANT(_ZGVdN8, name, arity)(); \
  void CALCJIT_VARIANT(_ZGVeN16, name, arity)();
#define CALCJIT_VECTOR_CALL(name, arity) CALCJIT_DECLARE(name, arity)
#include "ir/op_vector_calls.inc"
}

namespace calcjit::jit {

namespace {

const char* TierName(Isa isa) {
  return isa == Isa::kAvx512 ? "avx512" : isa == Isa::kAvx2 ? "avx2" : "baseline";
}

const char* Params(int arity) {
  return arity == 1 ? "v" : "vv";
}

int ArityOf(ir::Op op) {
  return ir::FixedArity(ir::KindOf(op));
}

// The VM's column kernel the JIT may call for `op` on `isa`, or null: only
// operators with a vector kernel, and only where the tier's table has one.
void* ColumnKernel(ir::Op op, Isa isa) {
  if (!ir::IsVectorCall(op)) return nullptr;
  const kernels::KernelTable& table = kernels::KernelsFor(isa);
  const int i = static_cast<int>(op);
  return ArityOf(op) == 1 ? reinterpret_cast<void*>(table.unary[i])
                          : reinterpret_cast<void*>(table.binary[i]);
}

}  // namespace

bool HasVectorKernel(ir::Op op) {
  return ir::IsVectorCall(op);
}

std::vector<VectorVariant> VectorVariants(ir::Op op, Isa isa) {
  const std::string base =
      std::string(Params(ArityOf(op))) + "_calcjit_vec_" + std::string(ir::Info(op).name);
  std::vector<VectorVariant> variants = {{"_ZGVbN4" + base, 4}};
  if (isa == Isa::kAvx2 || isa == Isa::kAvx512) variants.push_back({"_ZGVdN8" + base, 8});
  if (isa == Isa::kAvx512) variants.push_back({"_ZGVeN16" + base, 16});
  return variants;
}

std::string ColumnKernelName(ir::Op op, Isa isa) {
  return "calcjit_col_" + std::string(ir::Info(op).name) + "_" + TierName(isa);
}

bool HasColumnKernel(ir::Op op) {
  // Every tier's table is made by one MakeTable (kernels_impl.h), so the same
  // operators have a column kernel on every tier; the baseline table, which
  // any CPU can build, answers for all (the IR of another tier is dumped on
  // CPUs that cannot run it).
  return ColumnKernel(op, Isa::kBaseline) != nullptr;
}

std::vector<KernelSymbol> VectorKernelSymbols() {
  std::vector<KernelSymbol> symbols;
  for (const Isa isa : {Isa::kBaseline, Isa::kAvx2, Isa::kAvx512}) {
    // A tier's table is built by that tier's code (KernelsFor): reading the
    // AVX-512 table on a CPU without AVX-512 is an illegal instruction. The
    // JIT compiles only for tiers the CPU has, so it never names the others.
    if (!IsIsaSupported(isa)) continue;
    for (int i = 0; i < ir::kOpCount; ++i) {
      const auto op = static_cast<ir::Op>(i);
      if (void* column = ColumnKernel(op, isa)) {
        symbols.push_back({ColumnKernelName(op, isa), column});
      }
    }
  }
  auto add = [&](ir::Op op, void* scalar, void* sse, void* avx2, void* avx512) {
    const std::string name(ir::Info(op).name);
    const std::string suffix = std::string(Params(ArityOf(op))) + "_calcjit_vec_" + name;
    symbols.push_back({"calcjit_vec_" + name, scalar});
    symbols.push_back({"_ZGVbN4" + suffix, sse});
    symbols.push_back({"_ZGVdN8" + suffix, avx2});
    symbols.push_back({"_ZGVeN16" + suffix, avx512});
  };
#define CALCJIT_SYMBOLS(name, arity)                                   \
  add(ir::Op::k##name, reinterpret_cast<void*>(&calcjit_vec_##name),   \
      reinterpret_cast<void*>(&CALCJIT_VARIANT(_ZGVbN4, name, arity)), \
      reinterpret_cast<void*>(&CALCJIT_VARIANT(_ZGVdN8, name, arity)), \
      reinterpret_cast<void*>(&CALCJIT_VARIANT(_ZGVeN16, name, arity)));
#define CALCJIT_VECTOR_CALL(name, arity) CALCJIT_SYMBOLS(name, arity)
#include "ir/op_vector_calls.inc"
#undef CALCJIT_SYMBOLS
  return symbols;
}

}  // namespace calcjit::jit
