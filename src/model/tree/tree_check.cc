#include "model/tree/tree_check.h"

#include <string>
#include <utility>

namespace calcjit::model {

namespace {
std::string NodeName(std::uint32_t node, const TreeCheckNames& names) {
  if (node >= names.leaf_base) return "leaf " + std::to_string(node - names.leaf_base);
  return "node " + std::to_string(node);
}
}  // namespace

Status CheckTreeShape(const TreeNode* nodes, std::uint32_t num_nodes, const TreeCheckNames& names,
                      std::vector<std::uint8_t>* reached, std::uint32_t* depth) {
  reached->assign(num_nodes, 0);
  *depth = 0;
  if (num_nodes == 0) return UserError("a tree without nodes", names.location);
  // (node, its depth); the stack holds at most one pending sibling per level.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> stack;
  stack.emplace_back(0, 0);
  (*reached)[0] = 1;
  while (!stack.empty()) {
    auto [index, level] = stack.back();
    stack.pop_back();
    const TreeNode& node = nodes[index];
    if (node.kind == NodeKind::kLeaf) {
      if (level > *depth) *depth = level;
      continue;
    }
    if (level >= kMaxDepth) {
      return UserError("the tree is deeper than " + std::to_string(kMaxDepth) + " levels",
                       names.location);
    }
    const std::uint32_t children[2] = {node.left, node.right};
    const char* fields[2] = {names.left_field, names.right_field};
    for (int side = 0; side < 2; ++side) {
      const std::uint32_t child = children[side];
      auto where = [&] {
        return names.location + (names.location.empty() ? "" : ".") + fields[side] + "[" +
               std::to_string(index) + "]";
      };
      if (child >= num_nodes) {
        return UserError("child " + std::to_string(child) + " of " + NodeName(index, names) +
                             " is not a node of the tree (it has " + std::to_string(num_nodes) +
                             ")",
                         where());
      }
      if ((*reached)[child]) {
        return UserError(NodeName(child, names) +
                             " is reached twice from the root (a cycle or a shared subtree)",
                         where());
      }
      (*reached)[child] = 1;
      stack.emplace_back(child, level + 1);
    }
  }
  return Status::Ok();
}

}  // namespace calcjit::model
