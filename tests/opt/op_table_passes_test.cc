// The optimizer's folding and uniform passes against the facts of every row
// of the operator table (src/ir/op.def): rows that may fold fold to their
// kernel's value, rows that never fold stay, and a value's shape follows the
// row's result shape. The rows are enumerated from the table.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backend/reference/column_kernels.h"
#include "calcjit/calcjit.hpp"
#include "dsl/float_text.h"
#include "math/bits.h"
#include "opt/pipeline.h"
#include "runtime/internal.h"

namespace calcjit {
namespace {

using ir::Op;
using ir::OpKind;

opt::Dag Optimized(const std::string& text, std::vector<std::string> disabled = {}) {
  Result<FeatureSet> set = FeatureSet::Parse(text, Format::kText);
  EXPECT_TRUE(set.ok()) << set.status().ToString() << "\n" << text;
  Result<ir::EvalPlan> plan = ir::MakePlan(set->loaded().set, {});
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  opt::OptimizerOptions options;
  options.disabled_passes = std::move(disabled);
  Result<opt::Optimized> result =
      opt::Optimize(std::make_shared<const ir::EvalPlan>(std::move(plan).value()), options);
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  return std::move(result->dag);
}

// The text of `op` applied to the operand texts, as the text syntax writes it.
std::string Apply(Op op, const std::vector<std::string>& operands) {
  const ir::OpInfo& info = ir::Info(op);
  switch (info.syntax) {
    case ir::Syntax::kPrefix:
      return std::string(info.spelling) + "(" + operands[0] + ")";
    case ir::Syntax::kInfix:
    case ir::Syntax::kInfixRight:
      return "(" + operands[0] + ") " + std::string(info.spelling) + " (" + operands[1] + ")";
    default:
      break;
  }
  std::string out = std::string(info.spelling) + "(";
  for (std::size_t i = 0; i < operands.size(); ++i) out += (i ? ", " : "") + operands[i];
  return out + ")";
}

// The reference interpreter's kernel on one item.
float Kernel(Op op, const std::vector<float>& x) {
  float out = 0.0f;
  switch (ir::KindOf(op)) {
    case OpKind::kUnary:
      backend::UnaryColumnKernel(op)(&x[0], &out, 1);
      break;
    case OpKind::kBinary:
      backend::BinaryColumnKernel(op)(&x[0], &x[1], &out, 1);
      break;
    case OpKind::kConditional:
      backend::ConditionalColumnKernel(op)(&x[0], &x[1], &x[2], &out, 1);
      break;
    default:
      ADD_FAILURE() << ir::Info(op).name;
  }
  return out;
}

TEST(OpTablePasses, EveryRowThatMayFoldFoldsToItsKernelsValue) {
  const std::vector<float> values = {2.0f, -0.0f, 0.5f, -3.0f, 1e-45f};
  int rows = 0;
  for (const ir::OpInfo& info : ir::kOpTable) {
    if (!ir::MayFold(info.op)) continue;
    SCOPED_TRACE(std::string(info.name));
    ++rows;
    const int arity = ir::FixedArity(info.kind);
    ASSERT_GT(arity, 0);
    for (std::size_t shift = 0; shift < values.size(); ++shift) {
      std::vector<float> operands;
      std::vector<std::string> texts;
      for (int k = 0; k < arity; ++k) {
        operands.push_back(values[(shift + static_cast<std::size_t>(k)) % values.size()]);
        texts.push_back(dsl::FormatShortestFloat(operands.back()));
      }
      const std::string text = "f = " + Apply(info.op, texts) + ";";
      const opt::Dag folded = Optimized(text);
      const opt::DagNode& root = folded.node(folded.outputs()[0]);
      ASSERT_EQ(root.op, Op::kConstant) << text;
      const float expected = Kernel(info.op, operands);
      EXPECT_TRUE(math::FloatBits(root.constant) == math::FloatBits(expected) ||
                  (root.constant != root.constant && expected != expected))
          << text << ": folded to " << root.constant << ", the kernel gives " << expected;
      // Without the pass (and without simplify, whose identities would
      // rewrite some of these), the operator stays.
      const opt::Dag kept = Optimized(text, {"fold", "simplify"});
      EXPECT_EQ(kept.node(kept.outputs()[0]).op, info.op) << text;
    }
  }
  EXPECT_GT(rows, 0);
}

TEST(OpTablePasses, AggregatesOfConstantsAreNeverFolded) {
  for (const ir::OpInfo& info : ir::kOpTable) {
    if (info.kind != OpKind::kAggregate) continue;
    EXPECT_FALSE(ir::MayFold(info.op)) << info.name;
    if (info.optimizer_only) continue;  // no spelling to write it with
    const opt::Dag dag = Optimized("f = " + Apply(info.op, {"2"}) + ";");
    EXPECT_EQ(dag.node(dag.outputs()[0]).op, info.op) << info.name;
  }
}

TEST(OpTablePasses, UniformValuesFollowTheResultShape) {
  for (const ir::OpInfo& info : ir::kOpTable) {
    const int arity = ir::FixedArity(info.kind);
    if (arity <= 0 || info.optimizer_only) continue;
    SCOPED_TRACE(std::string(info.name));
    // Every operand a query scalar: uniform unless the row gives each item
    // its own value.
    const std::vector<std::string> operands(static_cast<std::size_t>(arity), "q");
    const opt::Dag dag = Optimized("input q: query;\nf = " + Apply(info.op, operands) + ";");
    const bool uniform = info.shape != ir::ResultShape::kBatchColumn;
    EXPECT_EQ(dag.node(dag.outputs()[0]).shape,
              uniform ? opt::Shape::kUniform : opt::Shape::kColumn);
    // Every operand an item column: uniform only for a batch statistic.
    const std::vector<std::string> columns(static_cast<std::size_t>(arity), "x");
    const opt::Dag column_dag = Optimized("f = " + Apply(info.op, columns) + ";");
    const opt::DagNode& root = column_dag.node(column_dag.outputs()[0]);
    if (root.op == info.op) {  // not simplified away (min(x, x) is x)
      EXPECT_EQ(root.shape, info.shape == ir::ResultShape::kBatchStatistic ? opt::Shape::kUniform
                                                                           : opt::Shape::kColumn);
    }
  }
}

}  // namespace
}  // namespace calcjit
