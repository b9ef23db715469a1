// The structural check every reader runs on each tree: children in range,
// every node reached at most once from the root (no cycles, no shared
// subtrees), depth within spec 6.1's limit. Iterative: nothing recurses per
// tree level.
#ifndef CALCJIT_MODEL_TREE_TREE_CHECK_H_
#define CALCJIT_MODEL_TREE_TREE_CHECK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "calcjit/status.h"
#include "model/tree/ensemble.h"

namespace calcjit::model {

struct TreeCheckNames {
  // Where the tree is, e.g. "learner.gradient_booster.model.trees[3]"; an
  // error's location is this, '.', the field and the node ("...left_children[5]").
  std::string location;
  const char* left_field;   // "left_children" or "left_child"
  const char* right_field;  // "right_children" or "right_child"
  // LightGBM: nodes from here on are leaves, named "leaf j" in messages
  // (node leaf_base + j); XGBoost: no such split (UINT32_MAX).
  std::uint32_t leaf_base = UINT32_MAX;
};

// Walks `nodes[0, num_nodes)` from node 0. On success sets `reached[i]` to 1
// for every node reached, `*depth` to the splits on the longest path.
Status CheckTreeShape(const TreeNode* nodes, std::uint32_t num_nodes, const TreeCheckNames& names,
                      std::vector<std::uint8_t>* reached, std::uint32_t* depth);

}  // namespace calcjit::model

#endif  // CALCJIT_MODEL_TREE_TREE_CHECK_H_
