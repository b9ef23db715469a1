// calcjit_onnx_bench: the ONNX block evaluator, every tier, and the
// reference evaluator, side by side on one net and one query, with the
// core's float32 peak measured in the same run (docs/PERFORMANCE.md,
// "ONNX nets"; bench/onnx_vs_torch.py adds PyTorch to the table).
//
//   BM_OnnxNet/<mode>/<n>  one query of n items through the net, all outputs;
//                          <mode> is "reference" or "block-<tier>" for every
//                          tier this CPU runs. Counters: items_per_second and
//                          flops (2 per multiply-add of the linear steps, per
//                          second of CPU time).
//   BM_PeakMulAdd          independent 16-lane vmulps and vaddps (AVX-512) in
//                          registers: the float32 rate without FMA.
//   BM_AddLatency          a chain of dependent scalar adds: 3 cycles each
//                          on Zen 4, so 3 / time is the clock.
//
// Flags besides Google Benchmark's: --onnx_model=PATH (default: the ranking
// MLP 64 -> 128 -> 64 -> 1 of tests/model/onnx/data), --onnx_items=N (2000).
// Every evaluation checks its bits against the reference once before timing
// and aborts on a mismatch.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "calcjit/cpu.h"
#include "model/onnx/block_evaluator.h"
#include "model/onnx/net_model.h"
#include "model/onnx/reference_evaluator.h"

namespace calcjit::bench {
namespace {

using model::LoadedOnnxModel;

struct Query {
  std::shared_ptr<const LoadedOnnxModel> model;
  std::size_t n = 0;
  std::vector<std::vector<float>> columns;
  std::vector<const float*> inputs;
};

Query& TheQuery() {
  static Query query;
  return query;
}

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "calcjit_onnx_bench: %s\n", message.c_str());
  std::exit(1);
}

void LoadQuery(const std::string& path, std::size_t n) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in) Die("cannot read " + path);
  auto loaded = model::LoadOnnxModel(bytes.str(), path);
  if (!loaded.ok()) Die(loaded.status().ToString());
  Query& query = TheQuery();
  query.model = *loaded;
  query.n = n;
  // Standard normal features, as a trained net sees standardized inputs.
  std::mt19937_64 rng(42);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  query.columns.assign(query.model->info().num_features, std::vector<float>(n));
  for (auto& column : query.columns) {
    for (float& x : column) x = normal(rng);
    query.inputs.push_back(column.data());
  }
}

struct Outputs {
  std::vector<std::vector<float>> columns;
  std::vector<float*> pointers;
  explicit Outputs(const Query& query)
      : columns(query.model->info().num_outputs, std::vector<float>(query.n)) {
    for (auto& column : columns) pointers.push_back(column.data());
  }
};

void SetCounters(benchmark::State& state, const Query& query) {
  const double items = static_cast<double>(state.iterations()) * static_cast<double>(query.n);
  state.counters["items_per_second"] = benchmark::Counter(items, benchmark::Counter::kIsRate);
  state.counters["flops"] =
      benchmark::Counter(items * 2.0 * static_cast<double>(query.model->prepared.multiply_adds()),
                         benchmark::Counter::kIsRate);
}

const Outputs& ReferenceOutputs() {
  static const Outputs reference = [] {
    const Query& query = TheQuery();
    Outputs outputs(query);
    model::EvaluateReference(*query.model->net, query.inputs.data(), query.n,
                             outputs.pointers.data());
    return outputs;
  }();
  return reference;
}

void BM_Reference(benchmark::State& state) {
  const Query& query = TheQuery();
  Outputs outputs(query);
  ReferenceOutputs();
  for (auto _ : state) {
    model::EvaluateReference(*query.model->net, query.inputs.data(), query.n,
                             outputs.pointers.data());
    benchmark::ClobberMemory();
  }
  SetCounters(state, query);
}

void BM_Block(benchmark::State& state, Isa isa) {
  const Query& query = TheQuery();
  Outputs outputs(query);
  std::vector<unsigned char> scratch(model::EvaluateScratchBytes(query.model->prepared, query.n));
  void* scratch_data = scratch.data();
  model::Evaluate(query.model->prepared, query.inputs.data(), query.n, outputs.pointers.data(),
                  scratch_data, isa);
  const Outputs& reference = ReferenceOutputs();
  for (std::size_t j = 0; j < outputs.columns.size(); ++j) {
    if (std::memcmp(outputs.columns[j].data(), reference.columns[j].data(),
                    query.n * sizeof(float)) != 0) {
      Die(std::string("block-") + std::string(IsaName(isa)) + " differs from the reference");
    }
  }
  for (auto _ : state) {
    model::Evaluate(query.model->prepared, query.inputs.data(), query.n, outputs.pointers.data(),
                    scratch_data, isa);
    benchmark::ClobberMemory();
  }
  SetCounters(state, query);
}

typedef float Floats16 __attribute__((vector_size(64)));

// 12 multiply chains and 12 add chains of 16 lanes, independent of each
// other: each iteration is 12 vmulps and 12 vaddps, 384 FLOPs. c = 1 and
// d = 0 come from volatile memory so that nothing folds and no value grows.
__attribute__((target("avx512f"), noinline)) float PeakLoop(long iterations, float c, float d) {
  Floats16 m[12];
  Floats16 a[12];
  for (int r = 0; r < 12; ++r) {
    m[r] = Floats16{} + (1.0f + static_cast<float>(r));
    a[r] = Floats16{} + static_cast<float>(r);
  }
  for (long i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
    for (int r = 0; r < 12; ++r) {
      m[r] = m[r] * c;
      a[r] = a[r] + d;
    }
  }
  float sum = 0.0f;
  for (int r = 0; r < 12; ++r) sum += m[r][0] + a[r][15];
  return sum;
}

volatile float kOne = 1.0f;
volatile float kZero = 0.0f;

void BM_PeakMulAdd(benchmark::State& state) {
  if (!IsIsaSupported(Isa::kAvx512)) {
    state.SkipWithError("no AVX-512");
    return;
  }
  constexpr long kIterations = 1 << 16;
  for (auto _ : state) benchmark::DoNotOptimize(PeakLoop(kIterations, kOne, kZero));
  state.counters["flops"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * kIterations * 384.0, benchmark::Counter::kIsRate);
}

__attribute__((noinline)) float AddChain(long iterations, float d) {
  float x = 1.0f;
  for (long i = 0; i < iterations; ++i) {
    x = x + d;
    __asm__ volatile("" : "+x"(x));  // keeps the chain of dependent adds
  }
  return x;
}

void BM_AddLatency(benchmark::State& state) {
  constexpr long kIterations = 1 << 20;
  for (auto _ : state) benchmark::DoNotOptimize(AddChain(kIterations, kZero));
  // adds per second; on Zen 4 an add takes 3 cycles, so the clock is 3 times this.
  state.counters["adds"] = benchmark::Counter(static_cast<double>(state.iterations()) * kIterations,
                                              benchmark::Counter::kIsRate);
}

}  // namespace
}  // namespace calcjit::bench

int main(int argc, char** argv) {
  using namespace calcjit;
  std::string path = CALCJIT_ONNX_BENCH_MODEL;
  std::size_t n = 2000;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--onnx_model=", 0) == 0) {
      path = arg.substr(13);
    } else if (arg.rfind("--onnx_items=", 0) == 0) {
      n = std::stoul(arg.substr(13));
    } else {
      args.push_back(argv[i]);
    }
  }
  bench::LoadQuery(path, n);
  const std::string size = "/" + std::to_string(n);
  benchmark::RegisterBenchmark(("BM_OnnxNet/reference" + size).c_str(), bench::BM_Reference)
      ->Unit(benchmark::kMicrosecond);
  for (Isa isa : {Isa::kBaseline, Isa::kAvx2, Isa::kAvx512}) {
    if (!IsIsaSupported(isa)) continue;
    benchmark::RegisterBenchmark(("BM_OnnxNet/block-" + std::string(IsaName(isa)) + size).c_str(),
                                 [isa](benchmark::State& state) { bench::BM_Block(state, isa); })
        ->Unit(benchmark::kMicrosecond);
  }
  benchmark::RegisterBenchmark("BM_PeakMulAdd", bench::BM_PeakMulAdd)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_AddLatency", bench::BM_AddLatency)
      ->Unit(benchmark::kMicrosecond);
  int count = static_cast<int>(args.size());
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
