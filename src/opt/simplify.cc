#include <bit>

#include "opt/passes.h"

namespace calcjit::opt {

namespace {

using ir::Op;

// The constant value of a node, if it is one.
std::optional<float> ConstantOf(const Dag& dag, ValueId id) {
  if (dag.node(id).op != Op::kConstant) return std::nullopt;
  return dag.node(id).constant;
}

bool IsBits(std::optional<float> value, std::uint32_t bits) {
  return value && std::bit_cast<std::uint32_t>(*value) == bits;
}

constexpr std::uint32_t kOne = 0x3F800000u;
constexpr std::uint32_t kMinusOne = 0xBF800000u;
constexpr std::uint32_t kTwo = 0x40000000u;
constexpr std::uint32_t kPlusZero = 0x00000000u;
constexpr std::uint32_t kMinusZero = 0x80000000u;

}  // namespace

Dag Simplify(const Dag& dag) {
  DagRewriter rewriter(dag);
  const Dag& to = rewriter.to();
  for (ValueId id = 0; id < dag.size(); ++id) {
    const DagNode& node = dag.node(id);
    const auto old_operands = dag.OperandsOf(id);
    ValueId a = old_operands.size() > 0 ? rewriter.Map(old_operands[0]) : kNoValue;
    ValueId b = old_operands.size() > 1 ? rewriter.Map(old_operands[1]) : kNoValue;
    // For the commutative Mul, the constant may be either operand.
    if (node.op == Op::kMul && ConstantOf(to, a) && !ConstantOf(to, b)) std::swap(a, b);
    const std::optional<float> cb = b == kNoValue ? std::nullopt : ConstantOf(to, b);

    auto negate = [&](ValueId x) {
      DagNode neg;
      neg.op = Op::kNeg;
      neg.feature = node.feature;
      return rewriter.Add(neg, {&x, 1});
    };
    ValueId result = kNoValue;
    switch (node.op) {
      case Op::kMul:
      case Op::kDiv:
        if (IsBits(cb, kOne))
          result = a;  // x*1 = x/1 = x, every bit
        else if (IsBits(cb, kMinusOne))
          result = negate(a);  // x*-1 = x/-1 = -x
        break;
      case Op::kSub:
        if (IsBits(cb, kPlusZero)) result = a;  // -0 - 0 = -0, +0 - 0 = +0
        break;
      case Op::kAdd: {
        // x + (-0) = x (but x + 0 is not: -0 + 0 = +0).
        const std::optional<float> ca = ConstantOf(to, a);
        if (IsBits(cb, kMinusZero))
          result = a;
        else if (IsBits(ca, kMinusZero))
          result = b;
        break;
      }
      case Op::kPow:
        // x^1 is x (pow is exact when the result is a float). x^2 is x*x and
        // x^-1 is 1/x: both sides are correctly rounded, and an exhaustive
        // run over all 2^32 floats found no difference, NaN, zeros and
        // infinities included (docs/DESIGN.md).
        if (IsBits(cb, kOne)) {
          result = a;
        } else if (IsBits(cb, kTwo)) {
          DagNode square;
          square.op = Op::kMul;
          square.feature = node.feature;
          const ValueId operands[2] = {a, a};
          result = rewriter.Add(square, operands);
        } else if (IsBits(cb, kMinusOne)) {
          DagNode one;
          one.op = Op::kConstant;
          one.constant = 1.0f;
          one.feature = node.feature;
          DagNode reciprocal;
          reciprocal.op = Op::kDiv;
          reciprocal.feature = node.feature;
          const ValueId operands[2] = {rewriter.Add(one, {}), a};
          result = rewriter.Add(reciprocal, operands);
        }
        break;
      case Op::kNeg:
        if (to.node(a).op == Op::kNeg) result = to.OperandsOf(a)[0];
        break;
      case Op::kAbs:
        if (to.node(a).op == Op::kAbs)
          result = a;
        else if (to.node(a).op == Op::kNeg) {
          const ValueId inner = to.OperandsOf(a)[0];
          DagNode abs;
          abs.op = Op::kAbs;
          abs.feature = node.feature;
          result = rewriter.Add(abs, {&inner, 1});
        }
        break;
      case Op::kMin:
      case Op::kMax:
        if (a == b) result = a;
        break;
      case Op::kIf:
        if (rewriter.Map(old_operands[1]) == rewriter.Map(old_operands[2])) {
          result = rewriter.Map(old_operands[1]);
        }
        break;
      default:
        break;
    }
    if (result == kNoValue) result = rewriter.Copy(id);
    rewriter.Set(id, result);
  }
  return std::move(rewriter).Finish();
}

}  // namespace calcjit::opt
