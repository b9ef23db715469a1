#include <vector>

#include "backend/reference/column_kernels.h"
#include "math/elementwise.h"
#include "opt/passes.h"

namespace calcjit::opt {

namespace {

using ir::Op;
using ir::OpKind;

bool IsConstant(const Dag& dag, ValueId id) {
  return dag.node(id).op == Op::kConstant;
}

}  // namespace

Dag FoldConstants(const Dag& dag) {
  DagRewriter rewriter(dag);
  for (ValueId id = 0; id < dag.size(); ++id) {
    const DagNode& node = dag.node(id);
    const auto operands = dag.OperandsOf(id);
    const OpKind kind = ir::KindOf(node.op);
    // The table says which operators folding may evaluate (op.def, Folding).
    const bool foldable = ir::MayFold(node.op);
    if (kind == OpKind::kConditional && IsConstant(rewriter.to(), rewriter.Map(operands[0]))) {
      // if(c, a, b) with a constant condition is one of its branches.
      const float condition = rewriter.to().node(rewriter.Map(operands[0])).constant;
      rewriter.Set(id, rewriter.Map(math::Truthy(condition) ? operands[1] : operands[2]));
      continue;
    }
    bool all_constant = foldable && !operands.empty();
    float values[3] = {0.0f, 0.0f, 0.0f};
    for (std::size_t i = 0; i < operands.size() && all_constant; ++i) {
      const ValueId mapped = rewriter.Map(operands[i]);
      all_constant = IsConstant(rewriter.to(), mapped);
      if (all_constant) values[i] = rewriter.to().node(mapped).constant;
    }
    if (!all_constant) {
      rewriter.Copy(id);
      continue;
    }
    // The reference interpreter's kernels, on a batch of one item.
    float result = 0.0f;
    if (kind == OpKind::kUnary) {
      backend::UnaryColumnKernel(node.op)(&values[0], &result, 1);
    } else if (kind == OpKind::kBinary) {
      backend::BinaryColumnKernel(node.op)(&values[0], &values[1], &result, 1);
    } else if (kind == OpKind::kConditional) {
      backend::ConditionalColumnKernel(node.op)(&values[0], &values[1], &values[2], &result, 1);
    }
    DagNode constant;
    constant.op = Op::kConstant;
    constant.constant = result;
    constant.feature = node.feature;
    rewriter.Set(id, rewriter.Add(constant, {}));
  }
  return std::move(rewriter).Finish();
}

Dag EliminateDeadCode(const Dag& dag) {
  std::vector<bool> live(dag.size(), false);
  for (ValueId output : dag.outputs()) live[output] = true;
  // Operands come before their users, so one backward sweep marks everything.
  for (ValueId id = static_cast<ValueId>(dag.size()); id-- > 0;) {
    if (!live[id]) continue;
    for (ValueId operand : dag.OperandsOf(id)) live[operand] = true;
  }
  DagRewriter rewriter(dag);
  for (ValueId id = 0; id < dag.size(); ++id) {
    if (live[id]) rewriter.Copy(id);
  }
  return std::move(rewriter).Finish();
}

void ClassifyUniform(Dag& dag) {
  const Schema& schema = dag.plan().schema;
  auto is_query = [&](std::uint32_t slot) { return schema.inputs[slot].scope == Scope::kQuery; };
  for (ValueId id = 0; id < dag.size(); ++id) {
    DagNode& node = dag.mutable_node(id);
    bool uniform = true;
    switch (ir::KindOf(node.op)) {
      case OpKind::kConstant:
        break;
      case OpKind::kRef:
        uniform = is_query(node.input);
        break;
      case OpKind::kVector:
        uniform = is_query(node.input) && (node.input2 == kNoValue || is_query(node.input2));
        break;
      default:
        // One statistic for the whole batch is uniform whatever its operand;
        // a column-valued aggregate (rank, softmax, ...) never is (op.def,
        // Shape); an element-wise value is when its operands are.
        if (ir::ResultShapeOf(node.op) != ir::ResultShape::kElementWise) {
          uniform = ir::ResultShapeOf(node.op) == ir::ResultShape::kBatchStatistic;
          break;
        }
        for (ValueId operand : dag.OperandsOf(id)) {
          uniform = uniform && dag.node(operand).shape == Shape::kUniform;
        }
        break;
    }
    node.shape = uniform ? Shape::kUniform : Shape::kColumn;
  }
}

}  // namespace calcjit::opt
