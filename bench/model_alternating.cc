// Tree ensembles: the walk layout (the block evaluator before issue 24) and
// the evaluator as prepared today (bitvector and oblivious forms where they
// apply) on each tier, alternating round by round in one run so that both
// see the same machine load. 2,000 rows per query, one thread; prints ns per
// tree-row (median over rounds, thread CPU time) and ms per query
// (docs/PERFORMANCE.md).
//
//   build/bench/calcjit_model_alternating --rounds 20 --models
//     bench_100x6,bench_500x8,bench_1000x64leaves,oblivious_1000x6,oblivious_1000x8
//
// bench_*: the XGBoost models make_models.py bench trains (as
// calcjit_model_bench). oblivious_TxD: T symmetric trees of depth D made
// here (CatBoost's rules, thresholds drawn from the rows). Every layout and
// tier is first checked against the reference evaluator, bit for bit.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_support.h"
#include "calcjit/cpu.h"
#include "model/tree/block_evaluator.h"
#include "model/tree/prepared_model.h"
#include "model/tree/reference_evaluator.h"
#include "model/tree/tree_model.h"

namespace {

using calcjit::Isa;
using namespace calcjit::model;

constexpr std::size_t kRows = 2000;
constexpr std::size_t kFeatures = 32;

using calcjit::bench::ReadModelFileOrExit;

// `trees` symmetric trees of `depth` levels over the rows' features, in the
// layout CatBoost's reader makes (heap order, level l splitting alike).
std::shared_ptr<const TreeEnsemble> MakeOblivious(std::size_t trees, std::uint32_t depth,
                                                  const std::vector<std::vector<float>>& columns) {
  std::mt19937_64 rng(trees * 100 + depth);
  TreeEnsemble model;
  model.info.format = calcjit::ModelFormat::kCatboost;
  model.info.num_features = kFeatures;
  model.info.num_outputs = 1;
  for (std::size_t j = 0; j < kFeatures; ++j)
    model.info.feature_names.push_back("f" + std::to_string(j));
  model.rules.compare = TreeRules::Compare::kLessOrEqual;
  model.rules.sum = TreeRules::Sum::kFloat64;
  model.rules.scale_and_bias = true;
  model.rules.scale = 0.5;
  model.rules.bias = {0.25};
  std::normal_distribution<> leaf(0, 1);
  for (std::size_t t = 0; t < trees; ++t) {
    Tree tree;
    tree.first_node = model.nodes.size();
    tree.depth = depth;
    const std::uint32_t splits = (1u << depth) - 1;
    tree.num_nodes = 2 * splits + 1;
    std::vector<TreeNode> levels(depth);
    for (TreeNode& level : levels) {
      level.kind = NodeKind::kNumerical;
      level.feature = static_cast<std::uint32_t>(rng() % kFeatures);
      float threshold = columns[level.feature][rng() % kRows];
      if (threshold != threshold) threshold = 0.0f;
      level.value = threshold;
      level.missing = MissingType::kNan;
      level.default_left = true;
    }
    for (std::uint32_t i = 0; i < tree.num_nodes; ++i) {
      TreeNode node;
      if (i < splits) {
        node = levels[std::bit_width(i + 1) - 1];
        node.left = 2 * i + 1;
        node.right = 2 * i + 2;
      } else {
        node.value = leaf(rng);
      }
      model.nodes.push_back(node);
    }
    model.trees.push_back(tree);
  }
  model.info.num_trees = trees;
  model.info.num_nodes = model.nodes.size();
  model.info.max_depth = depth;
  return std::make_shared<const TreeEnsemble>(std::move(model));
}

struct Layout {
  const char* name;
  PreparedModel prepared;
  std::vector<unsigned char> storage;
  void* scratch = nullptr;
};

// This thread's CPU time in ns: the machine is shared, and a query that
// waits for the CPU is not slower.
double CpuNs() {
  return calcjit::bench::ThreadCpuNs();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 20;
  unsigned limits[3];
  for (int t = 0; t < 3; ++t) limits[t] = PrepareOptions().max_bitvector_leaves[t];
  std::string model_list =
      "bench_100x6,bench_500x8,bench_1000x64leaves,oblivious_1000x6,oblivious_1000x8";
  for (int a = 1; a + 1 < argc; a += 2) {
    if (std::strcmp(argv[a], "--rounds") == 0) rounds = std::atoi(argv[a + 1]);
    if (std::strcmp(argv[a], "--models") == 0) model_list = argv[a + 1];
    // The tiers' bitvector limits (PrepareOptions::max_bitvector_leaves), to
    // measure where the walk wins: --bitvector-leaves 0,64,128.
    if (std::strcmp(argv[a], "--bitvector-leaves") == 0) {
      std::sscanf(argv[a + 1], "%u,%u,%u", &limits[0], &limits[1], &limits[2]);
    }
  }
  const std::string dir = CALCJIT_MODEL_BENCH_DIR;
  if (!std::ifstream(dir + "/bench_1000x64leaves.json") ||
      !std::ifstream(dir + "/bench_rows.f32")) {
    const std::string command =
        std::string("/usr/bin/python3 ") + CALCJIT_MAKE_MODELS + " bench " + dir;
    if (std::system(command.c_str()) != 0) return 1;
  }
  const std::string rows = ReadModelFileOrExit(dir + "/bench_rows.f32");
  std::vector<std::vector<float>> columns(kFeatures, std::vector<float>(kRows));
  for (std::size_t i = 0; i < kRows; ++i) {
    for (std::size_t j = 0; j < kFeatures; ++j) {
      std::memcpy(&columns[j][i], rows.data() + (i * kFeatures + j) * sizeof(float), sizeof(float));
    }
  }
  std::vector<const float*> pointers;
  for (auto& c : columns) pointers.push_back(c.data());

  std::vector<Isa> tiers = {Isa::kBaseline};
  if (calcjit::BestIsa() >= Isa::kAvx2) tiers.push_back(Isa::kAvx2);
  if (calcjit::BestIsa() >= Isa::kAvx512) tiers.push_back(Isa::kAvx512);
  const char* tier_names[] = {"baseline", "avx2", "avx512"};

  std::printf(
      "| model | trees | forms | tier | walk ns/tree-row | new ns/tree-row | walk / new | new "
      "ms/query |\n");
  std::printf("|---|--:|---|---|--:|--:|--:|--:|\n");
  std::stringstream names(model_list);
  std::string name;
  while (std::getline(names, name, ',')) {
    std::shared_ptr<const TreeEnsemble> ensemble;
    if (name.rfind("oblivious_", 0) == 0) {
      std::size_t trees = 0;
      unsigned depth = 0;
      if (std::sscanf(name.c_str(), "oblivious_%zux%u", &trees, &depth) != 2) {
        std::fprintf(stderr, "bad model name %s\n", name.c_str());
        return 1;
      }
      ensemble = MakeOblivious(trees, depth, columns);
    } else {
      const std::string bytes = ReadModelFileOrExit(dir + "/" + name + ".json");
      auto loaded = LoadTreeModel(calcjit::ModelFormat::kXgboostJson, bytes, name + ".json");
      if (!loaded.ok()) {
        std::fprintf(stderr, "%s\n", loaded.status().ToString().c_str());
        return 1;
      }
      ensemble = (*loaded)->ensemble;
    }
    Layout layouts[2] = {{"walk", {}, {}, nullptr}, {"new", {}, {}, nullptr}};
    for (int l = 0; l < 2; ++l) {
      PrepareOptions options;
      options.bitvector = options.oblivious = options.binned = l == 1;
      for (int t = 0; t < 3; ++t) options.max_bitvector_leaves[t] = limits[t];
      auto prepared = PreparedModel::Prepare(ensemble, options);
      if (!prepared.ok()) {
        std::fprintf(stderr, "%s\n", prepared.status().ToString().c_str());
        return 1;
      }
      layouts[l].prepared = std::move(prepared).value();
      layouts[l].storage.resize(EvaluateScratchBytes(layouts[l].prepared, kRows) + 64);
      unsigned char* data = layouts[l].storage.data();
      layouts[l].scratch = data + (64 - reinterpret_cast<std::uintptr_t>(data) % 64) % 64;
    }
    // Bits first: every layout and tier against the reference.
    std::vector<float> expected(kRows);
    std::vector<float> out(kRows);
    float* expected_ptr = expected.data();
    float* out_ptr = out.data();
    EvaluateReference(*ensemble, pointers.data(), kRows, &expected_ptr);
    for (Layout& layout : layouts) {
      for (Isa tier : tiers) {
        Evaluate(layout.prepared, pointers.data(), kRows, &out_ptr, layout.scratch, tier);
        if (std::memcmp(out.data(), expected.data(), kRows * sizeof(float)) != 0) {
          std::fprintf(stderr, "%s: %s layout on tier %d differs from the reference\n",
                       name.c_str(), layout.name, static_cast<int>(tier));
          return 1;
        }
      }
    }
    const double tree_rows = static_cast<double>(kRows * ensemble->trees.size());
    // times[tier][layout]: ns per query, one per round.
    std::vector<std::vector<std::vector<double>>> times(tiers.size(),
                                                        std::vector<std::vector<double>>(2));
    for (int r = 0; r < rounds; ++r) {
      for (std::size_t t = 0; t < tiers.size(); ++t) {
        for (int k = 0; k < 2; ++k) {
          const int l = (r + k) % 2;  // alternate which layout goes first
          Layout& layout = layouts[l];
          // Enough queries for about 20 ms.
          int reps = 1;
          for (;;) {
            const double start = CpuNs();
            for (int q = 0; q < reps; ++q) {
              Evaluate(layout.prepared, pointers.data(), kRows, &out_ptr, layout.scratch, tiers[t]);
            }
            const double ns = CpuNs() - start;
            if (ns > 2e7 || reps >= 1 << 16) {
              times[t][l].push_back(ns / reps);
              break;
            }
            reps *= 2;
          }
        }
      }
    }
    for (std::size_t t = 0; t < tiers.size(); ++t) {
      const double walk = Median(times[t][0]);
      const double fast = Median(times[t][1]);
      std::printf("| %s | %zu | %s | %s | %.2f | %.2f | %.1fx | %.2f |\n", name.c_str(),
                  ensemble->trees.size(), layouts[1].prepared.plan(tiers[t]).Describe().c_str(),
                  tier_names[static_cast<int>(tiers[t]) - static_cast<int>(Isa::kBaseline)],
                  walk / tree_rows, fast / tree_rows, walk / fast, fast / 1e6);
      std::fflush(stdout);
    }
  }
  return 0;
}
