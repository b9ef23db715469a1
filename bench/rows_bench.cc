// Rows as input (calcjit/matrix.h): what a row-major matrix costs against
// the same evaluation from columns, on 2,000 rows of 40 features, one
// thread (docs/PERFORMANCE.md, "Rows as input"):
//
//   build/bench/calcjit_rows_bench --benchmark_repetitions=5
//
// - Columns/...: the 40 inputs bound as columns, then evaluated: the baseline.
// - RowsCopied/...: the rows copied into columns (MatrixColumns, C order),
//   bound, evaluated: what predict(X) and calcjit_session_bind_rows do.
// - Copy: the copy alone.
// - StridedSum/...: the alternative to the copy, reading the rows with their
//   stride (the sum set's loop written by hand), against the same loop on
//   columns.
// Two workloads: a tree model (100 trees of depth 6 over the 40 features, an
// XGBoost JSON written here with random splits) and the cheapest set with 40
// inputs (their sum), where the copy weighs most.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "calcjit/calcjit.hpp"

namespace {

constexpr std::size_t kRows = 2000;
constexpr std::size_t kFeatures = 40;

// An XGBoost JSON model: `trees` complete trees of depth `depth`, random
// features and thresholds (N(0, 1)), random leaves.
std::string RandomXgboostModel(int trees, int depth, std::mt19937& rng) {
  std::normal_distribution<float> normal;
  std::uniform_int_distribution<int> feature(0, kFeatures - 1);
  const int nodes = (2 << depth) - 1;
  std::string json =
      R"({"learner":{"attributes":{},"feature_names":[],"feature_types":[],)"
      R"("gradient_booster":{"model":{"gbtree_model_param":{"num_parallel_tree":"1",)"
      R"("num_trees":")" +
      std::to_string(trees) + R"("},"tree_info":[)";
  for (int t = 0; t < trees; ++t) json += t ? ",0" : "0";
  json += R"(],"trees":[)";
  for (int t = 0; t < trees; ++t) {
    std::string left, right, index, condition, zeros;
    for (int i = 0; i < nodes; ++i) {
      const bool leaf = i >= nodes / 2;
      const char* comma = i ? "," : "";
      left += comma + std::to_string(leaf ? -1 : 2 * i + 1);
      right += comma + std::to_string(leaf ? -1 : 2 * i + 2);
      index += comma + std::to_string(leaf ? 0 : feature(rng));
      condition += comma + std::to_string(leaf ? normal(rng) * 0.1f : normal(rng));
      zeros += i ? ",0" : "0";
    }
    json += std::string(t ? "," : "") + R"({"left_children":[)" + left + R"(],"right_children":[)" +
            right + R"(],"split_indices":[)" + index + R"(],"split_conditions":[)" + condition +
            R"(],"default_left":[)" + zeros + R"(],"split_type":[)" + zeros +
            R"(],"categories":[],"categories_nodes":[],"categories_segments":[],)"
            R"("categories_sizes":[],"tree_param":{"num_deleted":"0","num_feature":"40",)"
            R"("num_nodes":")" +
            std::to_string(nodes) + R"(","size_leaf_vector":"1"}})";
  }
  json += R"(]},"name":"gbtree"},"learner_model_param":{"base_score":"5E-1",)"
          R"("num_class":"0","num_feature":"40","num_target":"1"},)"
          R"("objective":{"name":"reg:squarederror"}},"version":[2,1,0]})";
  return json;
}

template <typename T>
T Must(calcjit::Result<T> result) {
  if (!result.ok()) {
    std::fprintf(stderr, "%s\n", result.status().ToString().c_str());
    std::exit(1);
  }
  return std::move(result).value();
}

void Must(const calcjit::Status& status) {
  if (!status.ok()) {
    std::fprintf(stderr, "%s\n", status.ToString().c_str());
    std::exit(1);
  }
}

struct Workload {
  calcjit::Engine engine;
  std::vector<float> rows;                  // kRows x kFeatures, row-major
  std::vector<std::vector<float>> columns;  // the same values, kFeatures x kRows
};

Workload& Get(bool model) {
  static Workload* workloads[2] = {nullptr, nullptr};
  Workload*& slot = workloads[model];
  if (slot != nullptr) return *slot;
  std::mt19937 rng(40);
  calcjit::FeatureSet set = [&] {
    if (model) {
      return Must(calcjit::FeatureSet::FromModel(RandomXgboostModel(100, 6, rng),
                                                 calcjit::ModelFormat::kXgboostJson));
    }
    std::string text = "s = f0";
    for (std::size_t j = 1; j < kFeatures; ++j) text += " + f" + std::to_string(j);
    return Must(calcjit::FeatureSet::Parse(text + ";\n", calcjit::Format::kText));
  }();
  calcjit::EngineOptions options;
  options.backend = calcjit::Backend::kJit;
  slot = new Workload{Must(calcjit::Engine::Compile(set, options)), {}, {}};
  std::normal_distribution<float> normal;
  slot->rows.resize(kRows * kFeatures);
  slot->columns.assign(kFeatures, std::vector<float>(kRows));
  for (std::size_t i = 0; i < kRows; ++i) {
    for (std::size_t j = 0; j < kFeatures; ++j) {
      slot->rows[i * kFeatures + j] = slot->columns[j][i] = normal(rng);
    }
  }
  return *slot;
}

void Columns(benchmark::State& state) {
  Workload& w = Get(state.range(0) != 0);
  calcjit::Batch batch(w.engine);
  batch.SetItemCount(kRows);
  for (auto _ : state) {
    for (std::size_t j = 0; j < kFeatures; ++j) Must(batch.BindInput(j, w.columns[j]));
    Must(w.engine.Evaluate(batch));
    benchmark::DoNotOptimize(batch.Output(0).data());
  }
}

void RowsCopied(benchmark::State& state) {
  Workload& w = Get(state.range(0) != 0);
  calcjit::Batch batch(w.engine);
  batch.SetItemCount(kRows);
  calcjit::MatrixColumns columns;
  const calcjit::MatrixView view{w.rows.data(), kRows, kFeatures, kFeatures, 1};
  for (auto _ : state) {
    Must(columns.Assign(view));
    for (std::size_t j = 0; j < kFeatures; ++j) Must(batch.BindInput(j, columns.column(j)));
    Must(w.engine.Evaluate(batch));
    benchmark::DoNotOptimize(batch.Output(0).data());
  }
  // The same bits as from columns.
  calcjit::Batch reference(w.engine);
  reference.SetItemCount(kRows);
  for (std::size_t j = 0; j < kFeatures; ++j) Must(reference.BindInput(j, w.columns[j]));
  Must(w.engine.Evaluate(reference));
  const auto a = reference.Output(0), b = batch.Output(0);
  for (std::size_t i = 0; i < kRows; ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0) state.SkipWithError("bits differ");
  }
}

void Copy(benchmark::State& state) {
  Workload& w = Get(false);
  calcjit::MatrixColumns columns;
  const calcjit::MatrixView view{w.rows.data(), kRows, kFeatures, kFeatures, 1};
  for (auto _ : state) {
    Must(columns.Assign(view));
    benchmark::DoNotOptimize(columns.column(0).data());
  }
}

// What strided evaluation would cost instead of the copy: the sum set
// computed straight from the rows, each input read with the row stride, in
// the set's order (a left fold per item), as a VM kernel reading strided
// operands would; and the same from columns, for scale. Both keep the bits of
// the engine's sum.
void StridedSum(benchmark::State& state) {
  Workload& w = Get(false);
  std::vector<float> out(kRows);
  const bool strided = state.range(0) != 0;
  for (auto _ : state) {
    const float* x = w.rows.data();
    for (std::size_t i = 0; i < kRows; ++i) out[i] = strided ? x[i * kFeatures] : w.columns[0][i];
    for (std::size_t j = 1; j < kFeatures; ++j) {
      if (strided) {
        for (std::size_t i = 0; i < kRows; ++i) out[i] += x[i * kFeatures + j];
      } else {
        const float* column = w.columns[j].data();
        for (std::size_t i = 0; i < kRows; ++i) out[i] += column[i];
      }
    }
    benchmark::DoNotOptimize(out.data());
  }
}

BENCHMARK(StridedSum)->ArgName("strided")->Arg(1)->Arg(0)->Unit(benchmark::kMicrosecond);
BENCHMARK(Columns)->ArgName("model")->Arg(1)->Arg(0)->Unit(benchmark::kMicrosecond);
BENCHMARK(RowsCopied)->ArgName("model")->Arg(1)->Arg(0)->Unit(benchmark::kMicrosecond);
BENCHMARK(Copy)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
