// The optimizer's passes, each a free function from one DAG to the next.
// pipeline.cc lists them in order; that list is the table of contents of the
// optimizer.
#ifndef CALCJIT_OPT_PASSES_H_
#define CALCJIT_OPT_PASSES_H_

#include <memory>

#include "ir/plan.h"
#include "opt/dag.h"

namespace calcjit::opt {

// The whole engine as one DAG: references to definitions are inlined, n-ary
// operators become chains of binary ones with the same fold order (so the
// bits are the same), commutative operands are put in a canonical order, and
// with `hash_consing` identical subexpressions become one node.
Dag BuildDag(std::shared_ptr<const ir::EvalPlan> plan, bool hash_consing);

// Evaluates every element-wise node whose operands are all constants with the
// reference interpreter's own kernels, so folding can never change a bit.
// if(c, a, b) with a constant c picks its branch. Aggregates depend on the
// batch and are never folded.
Dag FoldConstants(const Dag& dag);

// Rewrites that keep every observable bit: x*1, x/1, x-0 and x+(-0) are x;
// x*-1 and x/-1 are -x; --x is x; abs(abs(x)) and abs(-x) are abs(x);
// x^1 is x, x^2 is x*x, x^-1 is 1/x; min(x,x), max(x,x) and if(c,x,x) are x.
// (x+0 is not x: -0+0 = +0.)
Dag Simplify(const Dag& dag);

// Top-k questions: rank(x) <= k, rank(x) < k and rank(x) == 1 (and the
// mirrored k >= rank(x), k > rank(x), 1 == rank(x)), k a constant, become
// RankAtMost(x, bound) (op.def), which selects instead of sorting, with the
// same bits. Only ranks whose every use is such a question are rewritten
// (top_k.cc); the ranks themselves are then left for dead code elimination.
Dag RewriteTopK(const Dag& dag);

// Keeps only what the outputs need.
Dag EliminateDeadCode(const Dag& dag);

// Marks the values that are the same for every item (constants, query
// scalars, per-batch statistics and what is computed from those only) as
// uniform, so backends compute them once per batch and broadcast them.
void ClassifyUniform(Dag& dag);

}  // namespace calcjit::opt

#endif  // CALCJIT_OPT_PASSES_H_
