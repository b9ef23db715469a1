// The reference evaluator of tree ensembles: the oracle the fast block
// evaluator and every backend are tested against. Walks each tree from the
// root for each item exactly as spec 6.2 (XGBoost) and 6.3 (LightGBM) say,
// one item at a time, with no layout tricks.
#ifndef CALCJIT_MODEL_REFERENCE_EVALUATOR_H_
#define CALCJIT_MODEL_REFERENCE_EVALUATOR_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/tree_model.h"

namespace calcjit::model {

// LightGBM's kZeroThreshold, the float literal 1e-35f widened to double
// (1.0000000180025095e-35): its predictor treats |x| <= this as 0 (spec 6.3).
inline constexpr double kLightgbmZeroThreshold = static_cast<double>(1e-35f);

// The leaf one item reaches in `tree`: row[j] is model feature j.
std::uint32_t ReferenceLeaf(const TreeEnsemble& model, const Tree& tree, const float* row);
// The nodes one item passes in `tree`, from the root to its leaf (for
// `calcjit explain`).
std::vector<std::uint32_t> ReferencePath(const TreeEnsemble& model, const Tree& tree,
                                         const float* row);
// The same for item `item` of feature columns (columns[j][item]).
std::uint32_t ReferenceLeaf(const TreeEnsemble& model, const Tree& tree,
                            const float* const* columns, std::size_t item);

// Every output of one item: out[k] for k < model.info.num_outputs. Margins
// (XGBoost) or raw scores (LightGBM), not probabilities.
void EvaluateReferenceRow(const TreeEnsemble& model, const float* row, float* out);

// The same over n items given as columns: feature_columns[j][i] is model
// feature j of item i, output_columns[k][i] receives output k. Runs in the
// contract's floating-point environment (math/fp_env.h) whatever the
// caller's. Allocates (one row and one accumulator per call).
void EvaluateReference(const TreeEnsemble& model, const float* const* feature_columns,
                       std::size_t n, float* const* output_columns);

}  // namespace calcjit::model

#endif  // CALCJIT_MODEL_REFERENCE_EVALUATOR_H_
