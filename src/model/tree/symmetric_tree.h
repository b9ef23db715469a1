// Whether a tree is symmetric ("oblivious": every split of a level tests the
// same thing, every path has the same number of splits), whatever its node
// numbering: CatBoost's trees always are, an XGBoost or LightGBM tree may
// happen to be. One answer for the fast layout (prepared_model.cc) and for
// `calcjit explain` (tree_model.cc).
#ifndef CALCJIT_MODEL_TREE_SYMMETRIC_TREE_H_
#define CALCJIT_MODEL_TREE_SYMMETRIC_TREE_H_

#include <cstdint>

#include "model/tree/ensemble.h"

namespace calcjit::model {

// A symmetric tree's depth d (0 for a single leaf), or -1 for any other tree
// or one deeper than `max_depth`. In a symmetric tree the leaf an item
// reaches is numbered by its decisions, the first split's as the highest
// bit, 1 for right: the number CatBoost's files give their leaves.
int SymmetricDepth(const TreeEnsemble& model, const Tree& tree, std::uint32_t max_depth = 30);

// Whether two splits send every input the same way (same kind, feature,
// threshold, missing type, default side and category set).
bool SameSplit(const TreeNode& a, const TreeNode& b);

}  // namespace calcjit::model

#endif  // CALCJIT_MODEL_TREE_SYMMETRIC_TREE_H_
