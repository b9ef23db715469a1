// The optimizer's passes and the VM's lowering, each doing its one job and
// each switchable (docs/DESIGN.md). That no pass changes a bit is the
// differential tests' job (tests/property/differential_test.cc).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "calcjit/calcjit.hpp"
#include "math/elementwise.h"
#include "opt/pipeline.h"
#include "runtime/internal.h"

namespace calcjit {
namespace {

std::shared_ptr<const ir::EvalPlan> Plan(std::string_view text,
                                         std::vector<std::string> outputs = {}) {
  Result<FeatureSet> set = FeatureSet::Parse(text, Format::kText);
  EXPECT_TRUE(set.ok()) << set.status().ToString();
  Result<ir::EvalPlan> plan = ir::MakePlan(set->loaded().set, outputs);
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  return std::make_shared<const ir::EvalPlan>(std::move(plan).value());
}

opt::Dag Optimized(std::string_view text, std::vector<std::string> disabled = {},
                   std::vector<std::string> outputs = {}) {
  opt::OptimizerOptions options;
  options.disabled_passes = std::move(disabled);
  Result<opt::Optimized> result = opt::Optimize(Plan(text, std::move(outputs)), options);
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  return std::move(result->dag);
}

std::size_t Count(const opt::Dag& dag, ir::Op op) {
  std::size_t count = 0;
  for (opt::ValueId v = 0; v < dag.size(); ++v) count += dag.node(v).op == op;
  return count;
}

TEST(OptimizerTest, SharedSubexpressionsAcrossFeaturesAreOneNode) {
  const char* set = "a = log(x) + 1; b = log(x) * 2; c = y + x; d = x + y;";
  const opt::Dag dag = Optimized(set);
  EXPECT_EQ(Count(dag, ir::Op::kLog), 1u);
  EXPECT_EQ(Count(dag, ir::Op::kAdd), 2u);  // log(x)+1, and x+y == y+x (commutative)
  const opt::Dag without = Optimized(set, {"cse"});
  EXPECT_EQ(Count(without, ir::Op::kLog), 2u);
  EXPECT_EQ(Count(without, ir::Op::kAdd), 3u);
}

TEST(OptimizerTest, FoldingUsesTheKernels) {
  const opt::Dag dag = Optimized("a = 2 * 3 + x; b = exp(1) + x; c = if(0, x, y);");
  EXPECT_EQ(Count(dag, ir::Op::kMul), 0u);
  EXPECT_EQ(Count(dag, ir::Op::kExp), 0u);
  EXPECT_EQ(Count(dag, ir::Op::kIf), 0u);
  bool found_six = false, found_e = false;
  const std::uint32_t e_bits = math::FloatBits(math::Exp(1.0f));
  for (opt::ValueId v = 0; v < dag.size(); ++v) {
    if (dag.node(v).op != ir::Op::kConstant) continue;
    found_six = found_six || dag.node(v).constant == 6.0f;
    found_e = found_e || math::FloatBits(dag.node(v).constant) == e_bits;
  }
  EXPECT_TRUE(found_six);
  EXPECT_TRUE(found_e);
  EXPECT_EQ(dag.node(dag.outputs()[2]).op, ir::Op::kRef);  // if(0, x, y) is y
  const opt::Dag unfolded = Optimized("a = 2 * 3 + x;", {"fold"});
  EXPECT_EQ(Count(unfolded, ir::Op::kMul), 1u);
}

TEST(OptimizerTest, AggregatesAreNeverFolded) {
  // batch_sum(3) depends on the number of items.
  const opt::Dag dag = Optimized("a = batch_sum(3) + x;");
  EXPECT_EQ(Count(dag, ir::Op::kBatchSum), 1u);
}

TEST(OptimizerTest, SimplifyKeepsEveryBit) {
  const opt::Dag dag = Optimized(
      "a = x * 1; b = x / 1; c = x - 0; d = x + -0; e = --x; f = if(y, x, x); g = min(x, x);"
      "h = x ^ 1; i = x + 0; j = x ^ 2; k = x ^ -1;");
  for (int k = 0; k < 8; ++k) {
    EXPECT_EQ(dag.node(dag.outputs()[k]).op, ir::Op::kRef) << "output " << k;
  }
  // x + 0 is not x: -0 + 0 = +0.
  EXPECT_EQ(dag.node(dag.outputs()[8]).op, ir::Op::kAdd);
  EXPECT_EQ(dag.node(dag.outputs()[9]).op, ir::Op::kMul);
  EXPECT_EQ(dag.node(dag.outputs()[10]).op, ir::Op::kDiv);
  const opt::Dag negate = Optimized("a = x * -1; b = abs(-x);");
  EXPECT_EQ(dag.node(dag.outputs()[0]).op, ir::Op::kRef);
  EXPECT_EQ(negate.node(negate.outputs()[0]).op, ir::Op::kNeg);
  EXPECT_EQ(negate.node(negate.outputs()[1]).op, ir::Op::kAbs);
  EXPECT_EQ(Count(negate, ir::Op::kNeg), 1u);
}

// The identities Simplify relies on, over a sample of every float.
TEST(OptimizerTest, SimplifiedIdentitiesHoldForEveryFloat) {
  std::uint64_t mismatches = 0;
  auto same = [](float a, float b) {
    return (a != a && b != b) || math::FloatBits(a) == math::FloatBits(b);
  };
  for (std::uint64_t bits = 0; bits <= 0xFFFFFFFFull; bits += 997) {
    const float x = math::FloatFromBits(static_cast<std::uint32_t>(bits));
    mismatches += !same(math::Mul(x, 1.0f), x) + !same(math::Div(x, 1.0f), x) +
                  !same(math::Sub(x, 0.0f), x) + !same(math::Add(x, -0.0f), x) +
                  !same(math::Mul(x, -1.0f), math::Neg(x)) +
                  !same(math::Div(x, -1.0f), math::Neg(x)) + !same(math::Pow(x, 1.0f), x) +
                  !same(math::Abs(math::Neg(x)), math::Abs(x)) + !same(math::Min(x, x), x) +
                  !same(math::Max(x, x), x) + !same(math::Pow(x, 2.0f), x * x) +
                  !same(math::Pow(x, -1.0f), 1.0f / x);
  }
  EXPECT_EQ(mismatches, 0u);
}

TEST(OptimizerTest, OnlyWhatTheOutputsNeed) {
  const opt::Dag dag = Optimized("a = log(x); b = exp(y) + a;", {}, {"a"});
  EXPECT_EQ(Count(dag, ir::Op::kExp), 0u);
  EXPECT_EQ(dag.outputs().size(), 1u);
  // Folding if(1, a, b) leaves b's nodes dead; dce removes them.
  const opt::Dag folded = Optimized("c = if(1, x, sqrt(y));");
  EXPECT_EQ(Count(folded, ir::Op::kSqrt), 0u);
  const opt::Dag kept = Optimized("c = if(1, x, sqrt(y));", {"dce"});
  EXPECT_EQ(Count(kept, ir::Op::kSqrt), 1u);
}

TEST(OptimizerTest, UniformValuesAreMarked) {
  const opt::Dag dag = Optimized(
      "input q: query; input u: query[2]; input v: item[2];\n"
      "a = q * 2 + batch_mean(x); b = x * a; c = rank(x); d = norm(u); e = norm(v);");
  auto shape = [&](int output) { return dag.node(dag.outputs()[output]).shape; };
  EXPECT_EQ(shape(0), opt::Shape::kUniform);
  EXPECT_EQ(shape(1), opt::Shape::kColumn);
  EXPECT_EQ(shape(2), opt::Shape::kColumn);
  EXPECT_EQ(shape(3), opt::Shape::kUniform);
  EXPECT_EQ(shape(4), opt::Shape::kColumn);
  const opt::Dag off = Optimized("input q: query; a = q * 2;", {"uniform"});
  EXPECT_EQ(off.node(off.outputs()[0]).shape, opt::Shape::kColumn);
}

TEST(OptimizerTest, PassesAreReportedTimedAndSwitchable) {
  opt::OptimizerOptions options;
  options.disabled_passes = {"simplify"};
  options.dump_after_each = true;
  Result<opt::Optimized> result = opt::Optimize(Plan("a = x * 1;"), options);
  ASSERT_TRUE(result.ok());
  std::vector<std::string> names;
  for (const opt::PassReport& pass : result->passes) {
    names.push_back(pass.name);
    EXPECT_GE(pass.milliseconds, 0.0);
    EXPECT_EQ(pass.ran, pass.name != "simplify");
    EXPECT_EQ(pass.dump.empty(), !pass.ran);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"build", "cse", "fold", "simplify", "top_k", "dce",
                                             "uniform"}));
  options.disabled_passes = {"nope"};
  Result<opt::Optimized> bad = opt::Optimize(Plan("a = x;"), options);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("unknown optimizer pass 'nope'"), std::string::npos);
  EXPECT_NE(bad.status().message().find("simplify"), std::string::npos);
}

std::string Program(std::string_view text, std::vector<std::string> disabled = {},
                    std::uint32_t block_size = 0) {
  EngineOptions options;
  options.isa = Isa::kBaseline;
  options.block_size = block_size;
  options.disabled_passes = std::move(disabled);
  Result<FeatureSet> set = FeatureSet::Parse(text, Format::kText);
  EXPECT_TRUE(set.ok()) << set.status().ToString();
  Result<std::string> program = Dump(*set, DumpKind::kProgram, options);
  EXPECT_TRUE(program.ok()) << program.status().ToString();
  return *program;
}

TEST(VmLoweringTest, FusedFormsAndTheirSwitch) {
  const char* set = "s = a + b + c + d; w = weighted_sum([0.5, 2], x, y);";
  const std::string fused = Program(set);
  EXPECT_NE(fused.find("fold Add"), std::string::npos) << fused;
  EXPECT_NE(fused.find("muladd"), std::string::npos) << fused;
  const std::string plain = Program(set, {"fuse"});
  EXPECT_EQ(plain.find("fold"), std::string::npos) << plain;
  EXPECT_EQ(plain.find("muladd"), std::string::npos) << plain;
}

TEST(VmLoweringTest, RegistersAreReusedByLiveness) {
  const char* set = "f = sqrt(exp(log(abs(sigmoid(tanh(x + 1))))));";
  EXPECT_NE(Program(set).find("vm: 1 registers"), std::string::npos) << Program(set);
  EXPECT_NE(Program(set, {"reuse"}).find("vm: 7 registers"), std::string::npos)
      << Program(set, {"reuse"});
}

TEST(VmLoweringTest, BarriersMakePhasesAndOnlyCrossingValuesAreWhole) {
  const std::string program = Program("a = log1p(x); z = zscore(a) + exp(y);", {}, 256);
  EXPECT_NE(program.find("blocks of 256 items"), std::string::npos);
  EXPECT_NE(program.find("phase 1"), std::string::npos);
  // exp(y) is computed where it is used (phase 1), not kept as a whole column.
  const std::size_t phase1 = program.find("phase 1");
  EXPECT_GT(program.find("Exp"), phase1) << program;
  EXPECT_NE(program.find("step Zscore"), std::string::npos);
}

}  // namespace
}  // namespace calcjit
