// Tree ensembles: calcjit's block evaluator (and its reference evaluator)
// against XGBoost 1.7.4's own predictor through its C API, one thread, on
// the three models make_models.py bench trains (100 trees of depth 6, 500 of
// depth 8, 1,000 of 64 leaves; 32 features), 2,000 rows per query; and the
// time to load and prepare each model. One binary, one run, side by side:
// at the end it prints ns per tree-row (medians when repeated) and the
// ratios XGBoost / block evaluator (docs/PERFORMANCE.md, "Tree models").
//
//   build/bench/calcjit_model_bench --benchmark_repetitions=5
//
// Each benchmark first checks that its margins are XGBoost's, bit for bit.
#include <benchmark/benchmark.h>
#include <xgboost/c_api.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_support.h"
#include "model/tree/block_evaluator.h"
#include "model/tree/reference_evaluator.h"
#include "model/tree/tree_model.h"

namespace {

using calcjit::model::LoadedTreeModel;

constexpr std::size_t kRows = 2000;
constexpr std::size_t kFeatures = 32;
const char* const kModels[] = {"bench_100x6", "bench_500x8", "bench_1000x64leaves"};

using calcjit::bench::ReadModelFileOrExit;

void Check(int status, const char* what) {
  if (status != 0) {
    std::fprintf(stderr, "%s: %s\n", what, XGBGetLastError());
    std::exit(1);
  }
}

struct Fixture {
  std::string bytes;
  std::shared_ptr<const LoadedTreeModel> model;
  BoosterHandle booster = nullptr;
  std::vector<float> row_major;             // kRows x kFeatures
  std::vector<std::vector<float>> columns;  // kFeatures x kRows
  std::vector<const float*> column_pointers;
  std::vector<float> expected;  // XGBoost's margins
  std::string array_interface;
};

const char kMarginConfig[] =
    R"({"type": 1, "training": false, "iteration_begin": 0, "iteration_end": 0,)"
    R"( "strict_shape": false, "missing": NaN, "cache_id": 0})";

Fixture& Get(const std::string& name) {
  static std::map<std::string, std::unique_ptr<Fixture>> fixtures;
  auto& slot = fixtures[name];
  if (slot) return *slot;
  slot = std::make_unique<Fixture>();
  Fixture& f = *slot;
  const std::string dir = CALCJIT_MODEL_BENCH_DIR;
  f.bytes = ReadModelFileOrExit(dir + "/" + name + ".json");
  auto loaded =
      calcjit::model::LoadTreeModel(calcjit::ModelFormat::kXgboostJson, f.bytes, name + ".json");
  if (!loaded.ok()) {
    std::fprintf(stderr, "%s\n", loaded.status().ToString().c_str());
    std::exit(1);
  }
  f.model = *loaded;
  const std::string rows = ReadModelFileOrExit(dir + "/bench_rows.f32");
  f.row_major.resize(kRows * kFeatures);
  std::memcpy(f.row_major.data(), rows.data(), f.row_major.size() * sizeof(float));
  f.columns.assign(kFeatures, std::vector<float>(kRows));
  for (std::size_t i = 0; i < kRows; ++i) {
    for (std::size_t j = 0; j < kFeatures; ++j) f.columns[j][i] = f.row_major[i * kFeatures + j];
  }
  for (auto& c : f.columns) f.column_pointers.push_back(c.data());

  Check(XGBoosterCreate(nullptr, 0, &f.booster), "XGBoosterCreate");
  Check(XGBoosterLoadModelFromBuffer(f.booster, f.bytes.data(), f.bytes.size()), "load");
  Check(XGBoosterSetParam(f.booster, "nthread", "1"), "nthread");
  char interface[256];
  std::snprintf(
      interface, sizeof interface,
      R"({"data": [%llu, true], "shape": [%zu, %zu], "typestr": "<f4", "version": 3})",
      static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(f.row_major.data())), kRows,
      kFeatures);
  f.array_interface = interface;
  const bst_ulong* shape;
  bst_ulong dim;
  const float* result;
  Check(XGBoosterPredictFromDense(f.booster, f.array_interface.c_str(), kMarginConfig, nullptr,
                                  &shape, &dim, &result),
        "inplace predict");
  f.expected.assign(result, result + kRows);
  return f;
}

bool SameBits(const float* a, const float* b, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (std::bit_cast<std::uint32_t>(a[i]) != std::bit_cast<std::uint32_t>(b[i])) return false;
  }
  return true;
}

void SetTreeRowCounter(benchmark::State& state, const Fixture& f) {
  state.counters["trees"] = static_cast<double>(f.model->info().num_trees);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(kRows * f.model->info().num_trees));
}

void BM_Block(benchmark::State& state, const char* name) {
  Fixture& f = Get(name);
  std::vector<float> out(kRows);
  float* out_ptr = out.data();
  const std::size_t bytes = calcjit::model::EvaluateScratchBytes(f.model->prepared, kRows);
  std::vector<unsigned char> storage(bytes + 64);
  void* scratch =
      storage.data() + (64 - reinterpret_cast<std::uintptr_t>(storage.data()) % 64) % 64;
  calcjit::model::Evaluate(f.model->prepared, f.column_pointers.data(), kRows, &out_ptr, scratch);
  if (!SameBits(out.data(), f.expected.data(), kRows)) {
    state.SkipWithError("block evaluator margins differ from XGBoost's");
    return;
  }
  for (auto _ : state) {
    calcjit::model::Evaluate(f.model->prepared, f.column_pointers.data(), kRows, &out_ptr, scratch);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  SetTreeRowCounter(state, f);
}

void BM_Reference(benchmark::State& state, const char* name) {
  Fixture& f = Get(name);
  std::vector<float> out(kRows);
  float* out_ptr = out.data();
  calcjit::model::EvaluateReference(*f.model->ensemble, f.column_pointers.data(), kRows, &out_ptr);
  if (!SameBits(out.data(), f.expected.data(), kRows)) {
    state.SkipWithError("reference margins differ from XGBoost's");
    return;
  }
  for (auto _ : state) {
    calcjit::model::EvaluateReference(*f.model->ensemble, f.column_pointers.data(), kRows,
                                      &out_ptr);
    benchmark::DoNotOptimize(out.data());
  }
  SetTreeRowCounter(state, f);
}

// XGBoost's inplace prediction from a dense row-major array.
void BM_XgboostInplace(benchmark::State& state, const char* name) {
  Fixture& f = Get(name);
  for (auto _ : state) {
    const bst_ulong* shape;
    bst_ulong dim;
    const float* result;
    Check(XGBoosterPredictFromDense(f.booster, f.array_interface.c_str(), kMarginConfig, nullptr,
                                    &shape, &dim, &result),
          "inplace predict");
    benchmark::DoNotOptimize(result);
  }
  SetTreeRowCounter(state, f);
}

// A DMatrix made fresh per call (a DMatrix caches its predictions).
void BM_XgboostDMatrix(benchmark::State& state, const char* name) {
  Fixture& f = Get(name);
  const char* config = R"({"type": 1, "training": false, "iteration_begin": 0,)"
                       R"( "iteration_end": 0, "strict_shape": false})";
  for (auto _ : state) {
    DMatrixHandle matrix;
    Check(XGDMatrixCreateFromMat(f.row_major.data(), kRows, kFeatures, NAN, &matrix), "DMatrix");
    const bst_ulong* shape;
    bst_ulong dim;
    const float* result;
    Check(XGBoosterPredictFromDMatrix(f.booster, matrix, config, &shape, &dim, &result), "predict");
    benchmark::DoNotOptimize(result);
    XGDMatrixFree(matrix);
  }
  SetTreeRowCounter(state, f);
}

// Read, check and prepare the model from its bytes (in memory).
void BM_LoadPrepare(benchmark::State& state, const char* name) {
  Fixture& f = Get(name);
  for (auto _ : state) {
    auto loaded = calcjit::model::LoadTreeModel(calcjit::ModelFormat::kXgboostJson, f.bytes, name);
    benchmark::DoNotOptimize(loaded);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(f.bytes.size()));
}

void BM_XgboostLoad(benchmark::State& state, const char* name) {
  Fixture& f = Get(name);
  for (auto _ : state) {
    BoosterHandle booster;
    Check(XGBoosterCreate(nullptr, 0, &booster), "XGBoosterCreate");
    Check(XGBoosterLoadModelFromBuffer(booster, f.bytes.data(), f.bytes.size()), "load");
    XGBoosterFree(booster);
  }
}

// Collects the per-tree-row times (medians of repetitions when there are
// several) and prints the table of docs/PERFORMANCE.md at the end.
class TableReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred) continue;
      const bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      if (run.run_type == Run::RT_Aggregate && !median) continue;
      const std::string name = run.run_name.function_name;  // BM_X/model
      const double ns =
          run.GetAdjustedCPUTime() * (run.time_unit == benchmark::kMillisecond   ? 1e6
                                      : run.time_unit == benchmark::kMicrosecond ? 1e3
                                                                                 : 1.0);
      if (median || !medians_.count(name)) times_[name] = ns;
      if (median) medians_.insert(name);
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    std::fprintf(stderr,
                 "\n| model | block ns/tree-row | reference | XGBoost inplace | XGBoost DMatrix "
                 "| inplace / block | DMatrix / block | load+prepare ms | XGBoost load ms |\n"
                 "|---|---|---|---|---|---|---|---|---|\n");
    for (const char* model : kModels) {
      const double tree_rows = static_cast<double>(kRows * Get(model).model->info().num_trees);
      auto per = [&](const char* bm) {
        auto it = times_.find(std::string(bm) + "/" + model);
        return it == times_.end() ? 0.0 : it->second / tree_rows;
      };
      auto ms = [&](const char* bm) {
        auto it = times_.find(std::string(bm) + "/" + model);
        return it == times_.end() ? 0.0 : it->second / 1e6;
      };
      const double block = per("BM_Block");
      std::fprintf(stderr, "| %s | %.2f | %.1f | %.1f | %.1f | %.1fx | %.1fx | %.1f | %.1f |\n",
                   model, block, per("BM_Reference"), per("BM_XgboostInplace"),
                   per("BM_XgboostDMatrix"), block > 0 ? per("BM_XgboostInplace") / block : 0,
                   block > 0 ? per("BM_XgboostDMatrix") / block : 0, ms("BM_LoadPrepare"),
                   ms("BM_XgboostLoad"));
    }
  }

 private:
  std::map<std::string, double> times_;
  std::set<std::string> medians_;
};

}  // namespace

int main(int argc, char** argv) {
  // The models are trained once, the first time (about a minute of CPU).
  const std::string dir = CALCJIT_MODEL_BENCH_DIR;
  if (!std::ifstream(dir + "/bench_1000x64leaves.json") ||
      !std::ifstream(dir + "/bench_rows.f32")) {
    const std::string command =
        std::string("/usr/bin/python3 ") + CALCJIT_MAKE_MODELS + " bench " + dir;
    std::fprintf(stderr, "training the benchmark models: %s\n", command.c_str());
    if (std::system(command.c_str()) != 0) return 1;
  }
  for (const char* model : kModels) {
    benchmark::RegisterBenchmark((std::string("BM_Block/") + model).c_str(), BM_Block, model);
    benchmark::RegisterBenchmark((std::string("BM_Reference/") + model).c_str(), BM_Reference,
                                 model);
    benchmark::RegisterBenchmark((std::string("BM_XgboostInplace/") + model).c_str(),
                                 BM_XgboostInplace, model);
    benchmark::RegisterBenchmark((std::string("BM_XgboostDMatrix/") + model).c_str(),
                                 BM_XgboostDMatrix, model);
    benchmark::RegisterBenchmark((std::string("BM_LoadPrepare/") + model).c_str(), BM_LoadPrepare,
                                 model)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((std::string("BM_XgboostLoad/") + model).c_str(), BM_XgboostLoad,
                                 model)
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  TableReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
