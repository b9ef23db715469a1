// The reference evaluator of tree ensembles: the oracle the fast evaluators
// and every backend are tested against. Walks each tree from the root for
// each item as the ensemble's rules say (spec 6.2, 6.3, 6.5), one item at a
// time, with no layout tricks.
#ifndef CALCJIT_MODEL_TREE_REFERENCE_EVALUATOR_H_
#define CALCJIT_MODEL_TREE_REFERENCE_EVALUATOR_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/tree/ensemble.h"

namespace calcjit::model {

// The leaf one item reaches in `tree`: row[j] is model feature j.
std::uint32_t ReferenceLeaf(const TreeEnsemble& model, const Tree& tree, const float* row);
// Whether `node` (a split) sends input `x` left, by the ensemble's rules.
bool GoesLeft(const TreeEnsemble& model, const TreeNode& node, float x);
// The nodes one item passes in `tree`, from the root to its leaf (for
// `calcjit explain`).
std::vector<std::uint32_t> ReferencePath(const TreeEnsemble& model, const Tree& tree,
                                         const float* row);
// The same for item `item` of feature columns (columns[j][item]).
std::uint32_t ReferenceLeaf(const TreeEnsemble& model, const Tree& tree,
                            const float* const* columns, std::size_t item);

// Every output of one item: out[k] for k < model.info.num_outputs. Margins
// (XGBoost) or raw scores (LightGBM, CatBoost), not probabilities.
void EvaluateReferenceRow(const TreeEnsemble& model, const float* row, float* out);

// The same over n items given as columns: feature_columns[j][i] is model
// feature j of item i, output_columns[k][i] receives output k. Runs in the
// contract's floating-point environment (math/fp_env.h) whatever the
// caller's. Allocates (one row and one accumulator per call).
void EvaluateReference(const TreeEnsemble& model, const float* const* feature_columns,
                       std::size_t n, float* const* output_columns);

}  // namespace calcjit::model

#endif  // CALCJIT_MODEL_TREE_REFERENCE_EVALUATOR_H_
