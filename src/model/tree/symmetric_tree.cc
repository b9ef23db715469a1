#include "model/tree/symmetric_tree.h"

#include <cstddef>
#include <vector>

namespace calcjit::model {

bool SameSplit(const TreeNode& a, const TreeNode& b) {
  if (a.kind != b.kind || a.feature != b.feature || a.default_left != b.default_left) return false;
  if (a.kind == NodeKind::kCategorical) return a.category_set == b.category_set;
  return a.missing == b.missing && a.value == b.value;
}

int SymmetricDepth(const TreeEnsemble& model, const Tree& tree, std::uint32_t max_depth) {
  // Level by level from the root: a level is all leaves (the end) or all
  // splits alike. A level has at most num_nodes nodes, so this is bounded
  // by the tree's size.
  std::vector<std::uint32_t> level = {0};
  std::vector<std::uint32_t> next;
  for (std::uint32_t depth = 0;; ++depth) {
    const TreeNode& first = model.node(tree, level.front());
    if (first.kind == NodeKind::kLeaf) {
      for (std::uint32_t index : level) {
        if (model.node(tree, index).kind != NodeKind::kLeaf) return -1;
      }
      return static_cast<int>(depth);
    }
    if (depth >= max_depth) return -1;
    next.clear();
    for (std::uint32_t index : level) {
      const TreeNode& node = model.node(tree, index);
      if (!SameSplit(node, first)) return -1;
      next.push_back(node.left);
      next.push_back(node.right);
    }
    level.swap(next);
  }
}

}  // namespace calcjit::model
