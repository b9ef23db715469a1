// Every row of the operator table (src/ir/op.def) against the rules its
// columns state, through the kernel each row dispatches to (the reference
// backend's generated dispatch, which is how every stage reaches the kernel
// named like the row): the NaN rule of element-wise and vector rows, and the
// shape and NaN skipping of aggregates (spec section 3). The rows are
// enumerated from the table, so a new operator is checked as soon as it has
// a row and a kernel.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "backend/reference/column_kernels.h"
#include "ir/op.h"
#include "math/bits.h"

namespace calcjit::backend {
namespace {

using ir::NanRule;
using ir::Op;
using ir::OpKind;

constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNan = std::numeric_limits<float>::quiet_NaN();

// Operand values: signed zeros, infinities, subnormals, the limits, NaNs of
// both signs and with a payload, ordinary values.
std::vector<float> SampleValues() {
  return {0.0f,
          -0.0f,
          1.0f,
          -1.0f,
          0.5f,
          -2.5f,
          3.0f,
          100.0f,
          kInf,
          -kInf,
          std::numeric_limits<float>::denorm_min(),
          -std::numeric_limits<float>::denorm_min(),
          std::numeric_limits<float>::min(),
          std::numeric_limits<float>::max(),
          -std::numeric_limits<float>::max(),
          kNan,
          math::FloatFromBits(0xFFC00000u),
          math::FloatFromBits(0x7FC00001u)};
}

bool IsNan(float v) {
  return v != v;
}

// All values of one operand position, with every value of the others (at
// most three operands), evaluated one column at a time.
std::vector<std::vector<float>> Columns(int arity) {
  const std::vector<float> values = SampleValues();
  std::vector<std::vector<float>> columns(static_cast<std::size_t>(arity));
  std::size_t count = 1;
  for (int k = 0; k < arity; ++k) count *= values.size();
  for (std::size_t i = 0; i < count; ++i) {
    std::size_t rest = i;
    for (int k = 0; k < arity; ++k) {
      columns[static_cast<std::size_t>(k)].push_back(values[rest % values.size()]);
      rest /= values.size();
    }
  }
  return columns;
}

std::vector<float> Evaluate(Op op, const std::vector<std::vector<float>>& x) {
  std::vector<float> out(x[0].size());
  switch (ir::KindOf(op)) {
    case OpKind::kUnary:
      UnaryColumnKernel(op)(x[0].data(), out.data(), out.size());
      break;
    case OpKind::kBinary:
      BinaryColumnKernel(op)(x[0].data(), x[1].data(), out.data(), out.size());
      break;
    case OpKind::kConditional:
      ConditionalColumnKernel(op)(x[0].data(), x[1].data(), x[2].data(), out.data(), out.size());
      break;
    default:
      ADD_FAILURE() << "not an element-wise kind: " << ir::Info(op).name;
  }
  return out;
}

TEST(OperatorRules, EveryElementWiseRowHasAKernelThatKeepsItsNanRule) {
  int rows = 0;
  for (const ir::OpInfo& info : ir::kOpTable) {
    const int arity = ir::FixedArity(info.kind);
    if (info.shape != ir::ResultShape::kElementWise || arity <= 0) continue;
    SCOPED_TRACE(std::string(info.name));
    ++rows;
    const std::vector<std::vector<float>> x = Columns(arity);
    const std::vector<float> out = Evaluate(info.op, x);
    for (std::size_t i = 0; i < out.size(); ++i) {
      bool any_nan = false;
      for (const std::vector<float>& column : x) any_nan = any_nan || IsNan(column[i]);
      switch (info.nan_rule) {
        case NanRule::kPropagates:
          if (any_nan) {
            EXPECT_TRUE(IsNan(out[i])) << "item " << i;
          }
          break;
        case NanRule::kToBool:
          EXPECT_TRUE(math::FloatBits(out[i]) == math::FloatBits(0.0f) ||
                      math::FloatBits(out[i]) == math::FloatBits(1.0f))
              << "item " << i << ": " << out[i];
          break;
        case NanRule::kPassThrough: {
          // The result is one of the value operands, bit for bit.
          bool found = false;
          for (std::size_t k = 1; k < x.size(); ++k) {
            found = found || math::FloatBits(x[k][i]) == math::FloatBits(out[i]);
          }
          EXPECT_TRUE(found) << "item " << i;
          break;
        }
        case NanRule::kSkipsNan:
          ADD_FAILURE() << "an element-wise row cannot skip NaN items";
          break;
        case NanRule::kSpecial:
          break;  // its own rule, in the conformance cases (pow)
      }
    }
  }
  EXPECT_GT(rows, 0);
}

TEST(OperatorRules, EveryVectorRowHasAKernelThatKeepsItsNanRule) {
  for (const ir::OpInfo& info : ir::kOpTable) {
    if (info.kind != OpKind::kVector) continue;
    SCOPED_TRACE(std::string(info.name));
    const VectorItemFn kernel = VectorItemKernel(info.op);
    ASSERT_NE(kernel, nullptr);
    for (const std::size_t d : {1u, 8u, 9u, 17u}) {
      std::vector<float> a(d), b(d), other(d);
      for (std::size_t k = 0; k < d; ++k) {
        a[k] = 0.25f * static_cast<float>(k + 1);
        b[k] = 1.0f - 0.5f * static_cast<float>(k);
        other[k] = 3.0f;
      }
      const float value = kernel(a.data(), b.data(), d);
      if (info.lhs_only) {
        // It reads its lhs only.
        EXPECT_EQ(math::FloatBits(kernel(a.data(), other.data(), d)), math::FloatBits(value));
      }
      if (info.nan_rule == NanRule::kPropagates) {
        for (const std::size_t k : {std::size_t{0}, d - 1}) {
          std::vector<float> with_nan = a;
          with_nan[k] = kNan;
          EXPECT_TRUE(IsNan(kernel(with_nan.data(), b.data(), d))) << "d " << d;
        }
      }
    }
  }
}

std::vector<float> RunAggregate(Op op, const std::vector<float>& x) {
  std::vector<float> out(x.size(), 42.0f);
  std::vector<std::uint64_t> scratch(static_cast<std::size_t>(ir::ScratchKeysPerItem(op)) *
                                     x.size());
  AggregateColumnKernel(op)(x, out, scratch, 0.0f);
  return out;
}

// Aggregates skip NaN items; a statistic fills every item with one value, a
// column-valued aggregate leaves NaN items NaN (spec section 3).
TEST(OperatorRules, EveryAggregateRowKeepsItsShapeAndSkipsNanItems) {
  const std::vector<float> column = {5.0f, 7.0f, -0.0f, 7.0f, 3.0f, 0.0f, 1e30f, -2.5f, 0.5f};
  int rows = 0;
  for (const ir::OpInfo& info : ir::kOpTable) {
    if (info.kind != OpKind::kAggregate) continue;
    SCOPED_TRACE(std::string(info.name));
    ASSERT_NE(AggregateColumnKernel(info.op), nullptr);
    // An optimizer-only row answers a comparison: 1 or 0, NaN items too
    // (tests/kernels/aggregate_test.cc).
    if (info.optimizer_only) continue;
    ++rows;
    EXPECT_EQ(info.nan_rule, NanRule::kSkipsNan);
    EXPECT_NE(info.shape, ir::ResultShape::kElementWise);
    EXPECT_TRUE(RunAggregate(info.op, {}).empty());  // n = 0
    const std::vector<float> plain = RunAggregate(info.op, column);
    // NaN items appended at the end leave every other item's value as it was
    // (appending shifts no item's stripe of the float64 sums).
    std::vector<float> padded = column;
    for (int k = 0; k < 5; ++k) padded.push_back(k % 2 ? kNan : math::FloatFromBits(0xFFC00001u));
    const std::vector<float> with_nan = RunAggregate(info.op, padded);
    for (std::size_t i = 0; i < padded.size(); ++i) {
      const float value = with_nan[i];
      if (info.shape == ir::ResultShape::kBatchStatistic) {
        EXPECT_EQ(math::FloatBits(value), math::FloatBits(with_nan[0])) << "item " << i;
      } else if (i >= column.size()) {
        EXPECT_TRUE(IsNan(value)) << "item " << i;
      }
      if (i < column.size()) {
        EXPECT_TRUE(math::FloatBits(value) == math::FloatBits(plain[i]) ||
                    (IsNan(value) && IsNan(plain[i])))
            << "item " << i;
      }
    }
  }
  EXPECT_GT(rows, 0);
}

}  // namespace
}  // namespace calcjit::backend
