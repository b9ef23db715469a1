#include "bench/transcendental_bench.h"

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "backend/kernels/kernels.h"
#include "bench/bench_cases.h"
#include "calcjit/engine.h"
#include "examples/ranking/example_data.h"
#include "ir/op.h"
#include "math/transcendental.h"

// glibc's libmvec (link -lmvec): the AVX2 and AVX-512 variants.
extern "C" {
__m256 _ZGVdN8v_expf(__m256);
__m256 _ZGVdN8v_logf(__m256);
__m256 _ZGVdN8v_log1pf(__m256);
__m256 _ZGVdN8v_tanhf(__m256);
__m512 _ZGVeN16v_expf(__m512);
__m512 _ZGVeN16v_logf(__m512);
__m512 _ZGVeN16v_log1pf(__m512);
__m512 _ZGVeN16v_tanhf(__m512);
}

namespace calcjit::bench {
namespace {

constexpr const char* kPrefix = "BM_Kernel/transcendental/";

// The libmvec loops: whole vectors, then one vector over a padded copy of the
// tail (n = 100 is no multiple of 8 or 16).
#define CALCJIT_MVEC_LOOP(lanes, load, store, apply)             \
  std::size_t i = 0;                                             \
  for (; i + lanes <= n; i += lanes) {                           \
    store(out + i, apply(load(x + i)));                          \
  }                                                              \
  if (i < n) {                                                   \
    float in[lanes] = {}, res[lanes];                            \
    for (std::size_t k = 0; i + k < n; ++k) in[k] = x[i + k];    \
    store(res, apply(load(in)));                                 \
    for (std::size_t k = 0; i + k < n; ++k) out[i + k] = res[k]; \
  }

#define CALCJIT_MVEC(fn)                                                                 \
  __attribute__((target("arch=x86-64-v3"))) void Mvec8_##fn(const float* x, float* out,  \
                                                            std::size_t n) {             \
    CALCJIT_MVEC_LOOP(8, _mm256_loadu_ps, _mm256_storeu_ps, _ZGVdN8v_##fn##f)            \
  }                                                                                      \
  __attribute__((target("arch=x86-64-v4"))) void Mvec16_##fn(const float* x, float* out, \
                                                             std::size_t n) {            \
    CALCJIT_MVEC_LOOP(16, _mm512_loadu_ps, _mm512_storeu_ps, _ZGVeN16v_##fn##f)          \
  }
CALCJIT_MVEC(exp)
CALCJIT_MVEC(log)
CALCJIT_MVEC(log1p)
CALCJIT_MVEC(tanh)

// 1 / (1 + expf(-x)) in float with the vector expf: what a user of libmvec
// would write for sigmoid.
__attribute__((target("arch=x86-64-v3"))) __m256 Sigmoid8(__m256 v) {
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 e = _ZGVdN8v_expf(_mm256_sub_ps(_mm256_setzero_ps(), v));
  return _mm256_div_ps(one, _mm256_add_ps(one, e));
}
__attribute__((target("arch=x86-64-v4"))) __m512 Sigmoid16(__m512 v) {
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512 e = _ZGVeN16v_expf(_mm512_sub_ps(_mm512_setzero_ps(), v));
  return _mm512_div_ps(one, _mm512_add_ps(one, e));
}
__attribute__((target("arch=x86-64-v3"))) void Mvec8_sigmoid(const float* x, float* out,
                                                             std::size_t n) {
  CALCJIT_MVEC_LOOP(8, _mm256_loadu_ps, _mm256_storeu_ps, Sigmoid8)
}
__attribute__((target("arch=x86-64-v4"))) void Mvec16_sigmoid(const float* x, float* out,
                                                              std::size_t n) {
  CALCJIT_MVEC_LOOP(16, _mm512_loadu_ps, _mm512_storeu_ps, Sigmoid16)
}

using ColumnFunction = void (*)(const float*, float*, std::size_t);

// The code before the fast path, for comparison: the double-double kernel in
// a plain loop, vectorized for AVX-512 the way the VM's avx512 tier compiled
// it (x86-64-v4, 512-bit vectors).
template <float (*kExact)(float)>
__attribute__((target("arch=x86-64-v3"))) void DoubleDoubleLoop8(const float* x, float* out,
                                                                 std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = kExact(x[i]);
}
template <float (*kExact)(float)>
__attribute__((target("arch=x86-64-v4,prefer-vector-width=512"))) void DoubleDoubleLoop(
    const float* x, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = kExact(x[i]);
}

template <float (*kScalar)(float)>
void ScalarLoop(std::span<const float* const> inputs, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = kScalar(inputs[0][i]);
}

struct Function {
  const char* name;  // as in the DSL
  ir::Op op;
  float lo, hi;  // the input range
  ColumnFunction mvec8, mvec16;
  ColumnFunction double_double8, double_double;
  SeedCase seed;  // `y = name(x)` for the engine modes
};

// clang-format off
#define CALCJIT_FUNCTION(lower, upper, lo, hi)                                     \
  Function{#lower, ir::Op::k##upper, lo, hi, &Mvec8_##lower, &Mvec16_##lower,      \
           &DoubleDoubleLoop8<math::internal::upper##DoubleDouble>,                 \
           &DoubleDoubleLoop<math::internal::upper##DoubleDouble>,                  \
           {#upper, "y", "input x;\ny = " #lower "(x);\n", {{"x", lo, hi}},         \
            &ScalarLoop<math::upper>}}
// clang-format on

// Ranges where the functions are used on features: scores for exp, sigmoid
// and tanh, prices and counts for log and log1p.
const std::vector<Function>& Functions() {
  static const std::vector<Function> functions = {
      CALCJIT_FUNCTION(exp, Exp, -10.0f, 10.0f),
      CALCJIT_FUNCTION(log, Log, 0.001f, 1000.0f),
      CALCJIT_FUNCTION(log1p, Log1p, 0.0f, 1000.0f),
      CALCJIT_FUNCTION(sigmoid, Sigmoid, -10.0f, 10.0f),
      CALCJIT_FUNCTION(tanh, Tanh, -5.0f, 5.0f),
  };
  return functions;
}

std::vector<float> Column(const Function& f, std::size_t n) {
  example::ExampleRng rng(kDataSeed);
  std::vector<float> x(n);
  for (float& v : x) v = rng.UniformFloat(f.lo, f.hi);
  return x;
}

void SetCounters(benchmark::State& state, std::size_t n) {
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
  state.counters["per_item"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate |
                                                     benchmark::Counter::kInvert);
}

void RunColumn(benchmark::State& state, ColumnFunction column, const Function& f) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::vector<float> x = Column(f, n);
  std::vector<float> out(n);
  for (auto _ : state) {
    column(x.data(), out.data(), n);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  SetCounters(state, n);
}

void RunEngine(benchmark::State& state, const Function& f, const Mode& mode) {
  const auto n = static_cast<std::size_t>(state.range(0));
  Result<std::unique_ptr<Workload>> workload = MakeSeedWorkload(f.seed, mode, n);
  if (!workload.ok()) {
    std::fprintf(stderr, "%s: %s\n", f.name, workload.status().ToString().c_str());
    std::abort();
  }
  Workload& w = **workload;
  if (!w.Run().ok() || !w.Check().empty()) {
    std::fprintf(stderr, "%s/%s: wrong result %s\n", f.name, mode.name.c_str(), w.Check().c_str());
    std::abort();
  }
  for (auto _ : state) {
    if (!w.Run().ok()) {
      state.SkipWithError("evaluation failed");
      break;
    }
    benchmark::ClobberMemory();
  }
  SetCounters(state, n);
}

void Register(const std::string& name, std::function<void(benchmark::State&)> body) {
  benchmark::RegisterBenchmark(name.c_str(), [body](benchmark::State& state) { body(state); })
      ->Arg(100)
      ->Arg(2000)
      ->Arg(10000)
      ->Unit(benchmark::kMicrosecond);
}

// ns per element by (function, n, path), from the runs of this process.
std::map<std::tuple<std::string, std::size_t, std::string>, double>& Times() {
  static std::map<std::tuple<std::string, std::size_t, std::string>, double> times;
  return times;
}

}  // namespace

TranscendentalColumn FindTranscendentalColumn(const std::string& function,
                                              const std::string& path) {
  for (const Function& f : Functions()) {
    if (function != f.name) continue;
    const int op = static_cast<int>(f.op);
    if (path == "vm-baseline") return kernels::baseline::Kernels().unary[op];
    if (path == "vm-avx2" && IsIsaSupported(Isa::kAvx2)) return kernels::avx2::Kernels().unary[op];
    if (path == "vm-avx512" && IsIsaSupported(Isa::kAvx512)) {
      return kernels::avx512::Kernels().unary[op];
    }
    if (path == "libmvec-8" && IsIsaSupported(Isa::kAvx2)) return f.mvec8;
    if (path == "dd-avx512" && IsIsaSupported(Isa::kAvx512)) return f.double_double;
    if (path == "dd-avx2" && IsIsaSupported(Isa::kAvx2)) return f.double_double8;
    if (path == "libmvec-16" && IsIsaSupported(Isa::kAvx512)) return f.mvec16;
  }
  return nullptr;
}

std::vector<float> TranscendentalInput(const std::string& function, std::size_t n) {
  for (const Function& f : Functions()) {
    if (function == f.name) return Column(f, n);
  }
  return {};
}

void RegisterTranscendentalBenchmarks() {
  const bool avx2 = IsIsaSupported(Isa::kAvx2);
  const bool avx512 = IsIsaSupported(Isa::kAvx512);
  for (const Function& f : Functions()) {
    const std::string base = std::string(kPrefix) + f.name + "/";
    const int op = static_cast<int>(f.op);
    Register(base + "vm-baseline", [&f, op](benchmark::State& state) {
      RunColumn(state, kernels::baseline::Kernels().unary[op], f);
    });
    if (avx2) {
      Register(base + "vm-avx2", [&f, op](benchmark::State& state) {
        RunColumn(state, kernels::avx2::Kernels().unary[op], f);
      });
    }
    if (avx512) {
      Register(base + "vm-avx512", [&f, op](benchmark::State& state) {
        RunColumn(state, kernels::avx512::Kernels().unary[op], f);
      });
    }
    if (avx512) {
      Register(base + "dd-avx512",
               [&f](benchmark::State& state) { RunColumn(state, f.double_double, f); });
    }
    for (const char* mode_name : {"vm", "jit"}) {
      if (const std::optional<Mode> mode = FindMode(mode_name)) {
        Register(base + mode_name,
                 [&f, m = *mode](benchmark::State& state) { RunEngine(state, f, m); });
      }
    }
    if (avx2) {
      Register(base + "libmvec-8", [&f](benchmark::State& state) { RunColumn(state, f.mvec8, f); });
    }
    if (avx512) {
      Register(base + "libmvec-16",
               [&f](benchmark::State& state) { RunColumn(state, f.mvec16, f); });
    }
  }
}

void RecordTranscendentalRuns(const std::vector<benchmark::BenchmarkReporter::Run>& runs) {
  for (const benchmark::BenchmarkReporter::Run& run : runs) {
    if (run.error_occurred || run.run_type != benchmark::BenchmarkReporter::Run::RT_Iteration) {
      continue;
    }
    const std::string& function = run.run_name.function_name;
    if (function.rfind(kPrefix, 0) != 0) continue;
    const std::string rest = function.substr(std::string(kPrefix).size());  // fn/path
    const std::size_t slash = rest.find('/');
    const std::size_t n = std::stoul(run.run_name.args);
    const auto it = run.counters.find("per_item");
    if (it == run.counters.end()) continue;
    const double ns = it->second.value * 1e9;
    auto& slot = Times()[{rest.substr(0, slash), n, rest.substr(slash + 1)}];
    // Repetitions: keep the fastest (the machine is shared).
    if (slot == 0.0 || ns < slot) slot = ns;
  }
}

void PrintTranscendentalTable() {
  if (Times().empty()) return;
  const char* paths[] = {"dd-avx512", "vm-baseline", "vm-avx2",   "vm-avx512",
                         "vm",        "jit",         "libmvec-8", "libmvec-16"};
  std::fprintf(stderr,
               "\nTranscendentals, ns per element (fastest repetition), and ratio to the widest "
               "libmvec variant:\n  %-8s %6s",
               "fn", "n");
  for (const char* p : paths) std::fprintf(stderr, " %11s", p);
  std::fprintf(stderr, " %9s %9s\n", "vm/mvec", "jit/mvec");
  for (const Function& f : Functions()) {
    for (std::size_t n : {100u, 2000u, 10000u}) {
      std::fprintf(stderr, "  %-8s %6zu", f.name, n);
      auto time = [&](const std::string& p) {
        const auto it = Times().find({f.name, n, p});
        return it == Times().end() ? 0.0 : it->second;
      };
      for (const char* p : paths) {
        const double t = time(p);
        if (t > 0) {
          std::fprintf(stderr, " %11.3f", t);
        } else {
          std::fprintf(stderr, " %11s", "-");
        }
      }
      const double mvec = time("libmvec-16") > 0 ? time("libmvec-16") : time("libmvec-8");
      const double vm = time("vm");
      const double jit = time("jit");
      if (mvec > 0 && vm > 0) {
        std::fprintf(stderr, " %8.2fx", vm / mvec);
      } else {
        std::fprintf(stderr, " %9s", "-");
      }
      if (mvec > 0 && jit > 0) {
        std::fprintf(stderr, " %8.2fx", jit / mvec);
      } else {
        std::fprintf(stderr, " %9s", "-");
      }
      std::fprintf(stderr, "\n");
    }
  }
}

}  // namespace calcjit::bench
