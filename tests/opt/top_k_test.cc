// The top-k rewrite (opt/top_k.cc): which comparisons of a rank become
// RankAtMost, and that the rewritten set gives the unrewritten set's bits on
// every backend and tier, over columns full of ties, ±0 and NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "calcjit/calcjit.hpp"
#include "opt/pipeline.h"
#include "runtime/internal.h"
#include "tests/support/api_test_util.h"

namespace calcjit {
namespace {

std::shared_ptr<const ir::EvalPlan> Plan(std::string_view text) {
  Result<FeatureSet> set = FeatureSet::Parse(text, Format::kText);
  EXPECT_TRUE(set.ok()) << set.status().ToString();
  Result<ir::EvalPlan> plan = ir::MakePlan(set->loaded().set, {});
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  return std::make_shared<const ir::EvalPlan>(std::move(plan).value());
}

opt::Dag Optimized(std::string_view text, std::vector<std::string> disabled = {}) {
  opt::OptimizerOptions options;
  options.disabled_passes = std::move(disabled);
  Result<opt::Optimized> result = opt::Optimize(Plan(text), options);
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  return std::move(result->dag);
}

std::size_t Count(const opt::Dag& dag, ir::Op op) {
  std::size_t count = 0;
  for (opt::ValueId v = 0; v < dag.size(); ++v) count += dag.node(v).op == op;
  return count;
}

// The bound of the only RankAtMost node.
float BoundOf(const opt::Dag& dag) {
  for (opt::ValueId v = 0; v < dag.size(); ++v) {
    if (dag.node(v).op == ir::Op::kRankAtMost) return dag.node(v).constant;
  }
  ADD_FAILURE() << "no RankAtMost in\n" << dag.Dump();
  return 0.0f;
}

TEST(TopKTest, EachFormBecomesOneSelection) {
  struct Form {
    const char* text;
    float bound;
  };
  const Form forms[] = {
      {"t = rank(x) <= 3;", 3.0f},
      {"t = 3 >= rank(x);", 3.0f},
      {"t = rank(x) < 3;", std::nextafter(3.0f, 0.0f)},
      {"t = 3 > rank(x);", std::nextafter(3.0f, 0.0f)},
      {"t = rank(x) == 1;", 1.0f},
      {"t = 1 == rank(x);", 1.0f},
      {"t = rank(x) <= 2 + 1;", 3.0f},  // folded first
      {"t = rank(x) <= 2.5;", 2.5f},
      {"t = rank(x) < 0;", -std::numeric_limits<float>::denorm_min()},
      {"t = rank(x) <= nan;", std::numeric_limits<float>::quiet_NaN()},
      {"t = rank(x) < inf;", std::numeric_limits<float>::max()},
  };
  for (const Form& form : forms) {
    SCOPED_TRACE(form.text);
    const opt::Dag dag = Optimized(form.text);
    EXPECT_EQ(Count(dag, ir::Op::kRank), 0u) << dag.Dump();
    EXPECT_EQ(Count(dag, ir::Op::kRankAtMost), 1u) << dag.Dump();
    const float bound = BoundOf(dag);
    EXPECT_TRUE(std::memcmp(&bound, &form.bound, sizeof bound) == 0 ||
                (std::isnan(bound) && std::isnan(form.bound)))
        << bound << " instead of " << form.bound;
    // The column: the dump names it and its bound.
    EXPECT_NE(dag.Dump().find("RankAtMost %"), std::string::npos) << dag.Dump();
    const opt::Dag off = Optimized(form.text, {"top_k"});
    EXPECT_EQ(Count(off, ir::Op::kRank), 1u);
    EXPECT_EQ(Count(off, ir::Op::kRankAtMost), 0u);
  }
}

TEST(TopKTest, OtherQuestionsAndOtherUsesKeepTheRank) {
  for (const char* text : {
           "t = rank(x) == 2;",                   // not a prefix of the ranks
           "t = rank(x) > 3;",                    // not a top-k question
           "t = rank(x) >= 3;",                   //
           "input q: query; t = rank(x) <= q;",   // k not a constant
           "t = rank(x) <= y;",                   //
           "r = rank(x); t = r <= 3;",            // the rank is an output too
           "t = rank(x) <= 3; u = rank(x) + 1;",  // and used in a sum
           "t = rank(x) <= rank(y);",             //
       }) {
    SCOPED_TRACE(text);
    const opt::Dag dag = Optimized(text);
    EXPECT_EQ(Count(dag, ir::Op::kRankAtMost), 0u) << dag.Dump();
    EXPECT_GE(Count(dag, ir::Op::kRank), 1u) << dag.Dump();
  }
}

TEST(TopKTest, EveryQuestionOnOneRankIsRewritten) {
  const opt::Dag dag = Optimized("a = rank(x) <= 10; b = rank(x) == 1; c = 5 > rank(x);");
  EXPECT_EQ(Count(dag, ir::Op::kRank), 0u) << dag.Dump();
  EXPECT_EQ(Count(dag, ir::Op::kRankAtMost), 3u) << dag.Dump();
}

// ---------------------------------------------------------------------------
// Bit identity: the rewritten set against the same set with the rewrite off,
// on the reference, the VM and the JIT, each tier.

constexpr const char* kTopKSet = R"(
input x;
input y;
first = rank(x) == 1;
first_mirrored = 1 == rank(y);
top3 = rank(x) <= 3;
top3_mirrored = 3 >= rank(x);
below3 = rank(y) < 3;
below3_mirrored = 3 > rank(y);
between = rank(x) <= 2.5;
half_open = rank(x) < 2.5;
none = rank(x) <= 0;
none_below = rank(x) < 1;
negative = rank(y) <= -4;
all = rank(y) <= 1e30;
infinite = rank(x) < inf;
not_a_number = rank(x) <= nan;
many = rank(x) <= 1000;
of_sum = rank(x + y) <= 7;
score = if(rank(x * 2) <= 5, x, 0) + (rank(y - 1) < 20);
)";

std::vector<float> Column(std::mt19937& rng, std::size_t n) {
  std::vector<float> x(n);
  std::uniform_int_distribution<int> kind(0, 9);
  std::uniform_int_distribution<int> small(-3, 3);
  for (float& v : x) {
    switch (kind(rng)) {
      case 0:
        v = std::numeric_limits<float>::quiet_NaN();
        break;
      case 1:
        v = -0.0f;
        break;
      case 2:
        v = 0.0f;
        break;
      case 3:
        v = kind(rng) < 5 ? std::numeric_limits<float>::infinity()
                          : -std::numeric_limits<float>::infinity();
        break;
      default:
        v = static_cast<float>(small(rng)) * 0.5f;  // many ties
        break;
    }
  }
  return x;
}

struct Config {
  Backend backend;
  Isa isa;
};

std::vector<Config> Configs() {
  std::vector<Config> configs = {{Backend::kReference, Isa::kAuto}};
  for (Backend backend : {Backend::kVm, Backend::kJit}) {
    if (!IsBackendAvailable(backend)) continue;
    for (Isa isa : {Isa::kBaseline, Isa::kAvx2, Isa::kAvx512}) {
      if (IsIsaSupported(isa)) configs.push_back({backend, isa});
    }
  }
  return configs;
}

std::vector<std::uint32_t> Evaluate(const FeatureSet& set, const Config& config,
                                    std::vector<std::string> disabled, const std::vector<float>& x,
                                    const std::vector<float>& y) {
  EngineOptions options;
  options.backend = config.backend;
  options.isa = config.isa;
  options.disabled_passes = std::move(disabled);
  Result<Engine> engine = Engine::Compile(set, options);
  EXPECT_TRUE(engine.ok()) << engine.status().ToString();
  if (!engine.ok()) return {};
  Batch batch(*engine);
  batch.SetItemCount(x.size());
  EXPECT_TRUE(batch.BindInput("x", x).ok());
  EXPECT_TRUE(batch.BindInput("y", y).ok());
  const Status status = engine->Evaluate(batch);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return testing_util::OutputBits(*engine, batch);
}

TEST(TopKTest, RewrittenSetsGiveTheBitsOfTheUnrewrittenOnEveryBackendAndTier) {
  Result<FeatureSet> set = FeatureSet::Parse(kTopKSet, Format::kText);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  std::mt19937 rng(31);
  for (std::size_t n : {0u, 1u, 2u, 3u, 17u, 100u, 1001u, 2000u}) {
    for (int round = 0; round < 3; ++round) {
      const std::vector<float> x = Column(rng, n);
      const std::vector<float> y = Column(rng, n);
      const std::vector<std::uint32_t> expected =
          Evaluate(*set, {Backend::kReference, Isa::kAuto}, {}, x, y);
      for (const Config& config : Configs()) {
        SCOPED_TRACE(std::string(BackendName(config.backend)) + ", " +
                     std::string(IsaName(config.isa)) + ", n " + std::to_string(n));
        EXPECT_EQ(Evaluate(*set, config, {}, x, y), expected);
        EXPECT_EQ(Evaluate(*set, config, {"top_k"}, x, y), expected);
      }
    }
  }
}

}  // namespace
}  // namespace calcjit
