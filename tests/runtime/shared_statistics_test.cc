// Aggregates over the same column share one statistics step (issue 15,
// program/schedule.cc): many aggregates over shared columns, directly and
// after common subexpression elimination, on columns made of what the
// contract's rules are about (NaN holes, ±0, ±inf, subnormals, huge values,
// every item NaN, no item, one item, counts that are not a multiple of 8 or
// of any vector width), give the reference interpreter's bits on every
// compiling backend and tier, with the sharing on and switched off.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "calcjit/calcjit.hpp"
#include "tests/support/api_test_util.h"

namespace calcjit {
namespace {

using testing_util::Bits;
using testing_util::ParseText;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kSubnormal = 1e-45f;

// Every statistic over x; over y + x and x + y (one node after cse, two
// without it); over a computed column; a statistic whose user is in a later
// phase (it joins its group's earlier phase); statistics of a uniform value
// and of a query input (broadcast operands); rank beside them (never shared).
constexpr const char* kSet = R"(
input q: query = 2;
mean_x = batch_mean(x);
std_x = batch_std(x);
z_x = zscore(x);
mm_x = min_max_scale(x);
min_x = batch_min(x);
max_x = batch_max(x);
sum_x = batch_sum(x);
count_x = batch_count(x);
soft_x = softmax(x);
rank_x = rank(x);
mean_xy = batch_mean(x + y);
z_yx = zscore(y + x);
spread_yx = batch_max(y + x) - batch_min(x + y);
c = x * 0.5 - y;
c_stats = batch_sum(c) + batch_count(c) * batch_std(c);
c_scaled = min_max_scale(c) + softmax(c);
centered = x - mean_x;
late = batch_sum(centered) + batch_min(y) + batch_max(y);
y_mean = batch_mean(y);
u = batch_mean(x) * 3;
u_stats = batch_sum(u) + batch_count(u) + zscore(u);
q_stats = batch_sum(q) + batch_mean(q) + batch_std(q) + min_max_scale(q);
)";

// The columns: x and y of each case, made from the kinds of values the rules
// are about.
struct Columns {
  std::string name;
  std::vector<float> x, y;
};

std::vector<float> Special(std::mt19937& rng, std::size_t n, int flavor) {
  std::vector<float> v(n);
  std::uniform_int_distribution<int> kind(0, 11);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-30, 30);
  for (float& value : v) {
    switch (kind(rng)) {
      case 0:
        value = kNan;
        break;
      case 1:
        value = 0.0f;
        break;
      case 2:
        value = -0.0f;
        break;
      case 3:
        value = flavor == 1 ? kInf : 2.5f;
        break;
      case 4:
        value = flavor == 1 ? -kInf : -2.5f;
        break;
      case 5:
        value = kSubnormal * static_cast<float>(1 + kind(rng));
        break;
      case 6:
        value = flavor == 2 ? 3e38f : 7.0f;  // huge: float64 sums, float32 results overflow
        break;
      default:
        value = std::ldexp(unit(rng), exponent(rng));
        break;
    }
  }
  return v;
}

std::vector<Columns> Cases() {
  std::vector<Columns> cases;
  std::mt19937 rng(15);
  for (std::size_t n : {1u, 2u, 7u, 8u, 9u, 15u, 16u, 17u, 31u, 33u, 100u, 1001u, 2049u}) {
    for (int flavor = 0; flavor < 3; ++flavor) {
      cases.push_back({"mixed n=" + std::to_string(n) + " flavor " + std::to_string(flavor),
                       Special(rng, n, flavor), Special(rng, n, flavor)});
    }
  }
  cases.push_back({"no item", {}, {}});
  cases.push_back({"all NaN", std::vector<float>(19, kNan), std::vector<float>(19, kNan)});
  cases.push_back({"one NaN", {kNan}, {1.0f}});
  cases.push_back({"one value", {-0.0f}, {kSubnormal}});
  cases.push_back(
      {"all equal (std 0)", std::vector<float>(13, 3.0f), std::vector<float>(13, -0.0f)});
  cases.push_back({"signed zeros",
                   {0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f, -0.0f},
                   {-0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f, 0.0f}});
  cases.push_back({"both infinities",
                   {kInf, 1.0f, -kInf, kNan, 2.0f, kInf, 3.0f, 4.0f, 5.0f, 6.0f},
                   {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f, 8.0f, 9.0f, kInf}});
  cases.push_back(
      {"subnormals", std::vector<float>(23, kSubnormal), std::vector<float>(23, -kSubnormal)});
  // Zeros of both signs in the same lane of consecutive blocks of eight, and
  // no other zero: the ties of the folds' lanes decide MIN (-0: some item is
  // -0) and MAX (+0: some item is +0).
  for (std::size_t n : {32u, 48u}) {
    std::vector<float> minus_first(n), plus_first(n);
    for (std::size_t i = 0; i < n; ++i) {
      minus_first[i] = (i / 8) % 2 == 0 ? -0.0f : 0.0f;
      plus_first[i] = (i / 8) % 2 == 0 ? 0.0f : -0.0f;
    }
    cases.push_back(
        {"signed zeros in every lane, n=" + std::to_string(n), minus_first, plus_first});
    cases.push_back(
        {"signed zeros in every lane, swapped, n=" + std::to_string(n), plus_first, minus_first});
  }
  std::vector<float> holes(40);
  for (std::size_t i = 0; i < holes.size(); ++i)
    holes[i] = i % 3 == 0 ? kNan : static_cast<float>(i);
  cases.push_back({"NaN holes", holes, std::vector<float>(holes.rbegin(), holes.rend())});
  return cases;
}

struct Config {
  Backend backend;
  Isa isa;
  std::uint32_t block_size;
  std::vector<std::string> off;
};

std::string Describe(const Config& config) {
  std::string text = std::string(BackendName(config.backend)) + " " +
                     std::string(IsaName(config.isa)) + " block " +
                     std::to_string(config.block_size);
  for (const std::string& pass : config.off) text += " -" + pass;
  return text;
}

// Every output's bits (NaN is 0x7FC00000 on every backend, so bits compare
// NaNs too).
std::vector<std::vector<std::uint32_t>> Evaluate(const FeatureSet& set, const Config& config,
                                                 const Columns& columns) {
  EngineOptions options;
  options.backend = config.backend;
  options.isa = config.isa;
  options.block_size = config.block_size;
  options.disabled_passes = config.off;
  Result<Engine> engine = Engine::Compile(set, options);
  EXPECT_TRUE(engine.ok()) << engine.status().ToString();
  if (!engine.ok()) return {};
  Batch batch(*engine);
  batch.SetItemCount(columns.x.size());
  EXPECT_TRUE(batch.BindInput("x", columns.x).ok());
  EXPECT_TRUE(batch.BindInput("y", columns.y).ok());
  const Status status = engine->Evaluate(batch);
  EXPECT_TRUE(status.ok()) << status.ToString();
  std::vector<std::vector<std::uint32_t>> bits;
  for (std::size_t k = 0; k < engine->schema().outputs.size(); ++k) {
    bits.emplace_back();
    for (float v : batch.Output(k)) bits.back().push_back(Bits(v));
  }
  return bits;
}

std::vector<Config> CompilingConfigs() {
  std::vector<Config> configs;
  for (Backend backend : {Backend::kVm, Backend::kJit}) {
    if (!IsBackendAvailable(backend)) continue;
    for (Isa isa : {Isa::kBaseline, Isa::kAvx2, Isa::kAvx512}) {
      if (!IsIsaSupported(isa)) continue;
      configs.push_back({backend, isa, 0, {}});
      configs.push_back({backend, isa, 8, {}});
      configs.push_back({backend, isa, 0, {"uniform"}});  // statistics as whole columns
      configs.push_back({backend, isa, 0, {"cse"}});      // x + y and y + x apart
      configs.push_back({backend, isa, 0, {"statistics"}});
    }
  }
  return configs;
}

TEST(SharedStatisticsTest, EveryBackendAndTierGivesTheReferenceBits) {
  const FeatureSet set = ParseText(kSet);
  const std::vector<Config> configs = CompilingConfigs();
  ASSERT_FALSE(configs.empty());
  for (const Columns& columns : Cases()) {
    const auto expected = Evaluate(set, {Backend::kReference, Isa::kAuto, 0, {}}, columns);
    for (const Config& config : configs) {
      const auto actual = Evaluate(set, config, columns);
      ASSERT_EQ(actual.size(), expected.size());
      for (std::size_t k = 0; k < expected.size(); ++k) {
        ASSERT_EQ(actual[k].size(), expected[k].size());
        for (std::size_t i = 0; i < expected[k].size(); ++i) {
          ASSERT_EQ(actual[k][i], expected[k][i])
              << set.schema().outputs[k] << ", item " << i << ", " << columns.name << ", "
              << Describe(config);
        }
      }
    }
  }
}

// The sharing does happen (else the test above would compare the separate
// kernels only): the program has statistics steps, and none with the step
// switched off.
TEST(SharedStatisticsTest, TheProgramSharesTheStatisticsOfAColumn) {
  const FeatureSet set = ParseText(kSet);
  EngineOptions options;
  Result<std::string> program = Dump(set, DumpKind::kProgram, options);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  std::size_t steps = 0;
  for (std::size_t at = program->find("statistics of "); at != std::string::npos;
       at = program->find("statistics of ", at + 1)) {
    ++steps;
  }
  // x; x + y; c; y (batch_min and batch_max from a later phase, with batch_mean);
  // u; q.
  EXPECT_EQ(steps, 6u) << *program;
  options.disabled_passes = {"statistics"};
  program = Dump(set, DumpKind::kProgram, options);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  EXPECT_EQ(program->find("statistics of "), std::string::npos) << *program;
}

}  // namespace
}  // namespace calcjit
