// The top-k rewrite (passes.h, RewriteTopK): a comparison of a rank with a
// constant becomes one RankAtMost node (op.def), which selects the k-th
// largest value instead of sorting.
#include <cmath>
#include <optional>
#include <vector>

#include "opt/passes.h"

namespace calcjit::opt {

namespace {

using ir::Op;

struct TopKQuestion {
  ValueId rank = kNoValue;  // the Rank node compared
  float bound = 0.0f;       // the question is rank <= bound
};

std::optional<float> ConstantOf(const Dag& dag, ValueId id) {
  if (dag.node(id).op != Op::kConstant) return std::nullopt;
  return dag.node(id).constant;
}

// Node `id` as `rank(x) <= bound`, if it is one of the forms the pass
// rewrites. Ranks are float32 values of integers >= 1, and each form gives
// the same 1/0 as `rank <= bound` for every rank (and 0 for a NaN rank, as
// every IEEE comparison but != does):
//   rank <= k, k >= rank:  bound k
//   rank < k, k > rank:    bound = the float below k (for floats, r < k is
//                          r <= nextafter(k, -inf); a NaN k stays NaN)
//   rank == 1, 1 == rank:  bound 1 (a rank is never below 1)
std::optional<TopKQuestion> AsTopKQuestion(const Dag& dag, ValueId id) {
  const DagNode& node = dag.node(id);
  if (ir::KindOf(node.op) != ir::OpKind::kBinary) return std::nullopt;
  const auto operands = dag.OperandsOf(id);
  const bool rank_left = dag.node(operands[0]).op == Op::kRank;
  const bool rank_right = dag.node(operands[1]).op == Op::kRank;
  const std::optional<float> left = ConstantOf(dag, operands[0]);
  const std::optional<float> right = ConstantOf(dag, operands[1]);
  // Written as `rank op k`: the mirrored forms swap the operator.
  Op op = node.op;
  std::optional<float> k;
  ValueId rank = kNoValue;
  if (rank_left && right) {
    rank = operands[0];
    k = right;
  } else if (rank_right && left) {
    rank = operands[1];
    k = left;
    switch (op) {
      case Op::kGe:
        op = Op::kLe;
        break;
      case Op::kGt:
        op = Op::kLt;
        break;
      case Op::kEq:
        break;
      default:
        return std::nullopt;
    }
  } else {
    return std::nullopt;
  }
  switch (op) {
    case Op::kLe:
      return TopKQuestion{rank, *k};
    case Op::kLt:
      return TopKQuestion{rank, std::nextafter(*k, -INFINITY)};
    case Op::kEq:
      if (*k != 1.0f) return std::nullopt;
      return TopKQuestion{rank, 1.0f};
    default:
      return std::nullopt;
  }
}

}  // namespace

Dag RewriteTopK(const Dag& dag) {
  // A rank is rewritten only when every use of it is a top-k question: a
  // rank used in any other way is sorted anyway, and its comparison costs
  // less than a selection.
  std::vector<std::uint32_t> uses(dag.size(), 0);
  std::vector<std::uint32_t> question_uses(dag.size(), 0);
  std::vector<std::optional<TopKQuestion>> questions(dag.size());
  for (ValueId id = 0; id < dag.size(); ++id) {
    for (ValueId operand : dag.OperandsOf(id)) ++uses[operand];
    questions[id] = AsTopKQuestion(dag, id);
    if (questions[id]) ++question_uses[questions[id]->rank];
  }
  for (ValueId output : dag.outputs()) ++uses[output];
  auto rewritten = [&](ValueId rank) { return uses[rank] == question_uses[rank]; };

  DagRewriter rewriter(dag);
  for (ValueId id = 0; id < dag.size(); ++id) {
    const DagNode& node = dag.node(id);
    if (node.op == Op::kRank && uses[id] > 0 && rewritten(id)) {
      rewriter.Set(id, kNoValue);  // no longer needed by anything
      continue;
    }
    if (!questions[id] || !rewritten(questions[id]->rank)) {
      rewriter.Set(id, rewriter.Copy(id));
      continue;
    }
    DagNode top_k;
    top_k.op = Op::kRankAtMost;
    top_k.constant = questions[id]->bound;
    top_k.feature = node.feature;
    const ValueId x = rewriter.Map(dag.OperandsOf(questions[id]->rank)[0]);
    rewriter.Set(id, rewriter.Add(top_k, {&x, 1}));
  }
  return std::move(rewriter).Finish();
}

}  // namespace calcjit::opt
