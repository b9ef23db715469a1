// The one walk of an expression tree of the flat IR, shared by the text
// printer and the JSON and protobuf writers: depth first, operands left to
// right, with pre-order, in-order and post-order hooks. It keeps its own heap
// stack (no recursion), so a 10,000-level formula costs heap, not native
// stack (spec section 5).
//
// For a node with operands o0, o1, ..., the hooks run in this order:
//
//   Enter(node, place)  Enter(o0, {node, 0}) ... Leave(o0, {node, 0})
//   Between(node, 1)    Enter(o1, {node, 1}) ... Leave(o1, {node, 1})
//   ...                 Leave(node, place)
//
// so a writer emits a node's opening in Enter (for an operand, `place` tells
// it which field of its parent holds it), separators in Between and the
// closing in Leave. Leaves and Vector nodes (whose operands are names) get
// Enter and Leave only.
#ifndef CALCJIT_IR_WALK_H_
#define CALCJIT_IR_WALK_H_

#include <cstdint>
#include <vector>

#include "ir/feature_set_ir.h"

namespace calcjit::ir {

// Where a node sits in the walk: its parent and which operand of the parent
// it is. The walk's root has parent kNone.
struct WalkPlace {
  NodeId parent = kNone;
  std::uint32_t index = 0;
  bool is_root() const { return parent == kNone; }
};

// Hooks that do nothing: a visitor derives from this and hides the hooks it
// needs.
struct WalkHooks {
  void Enter(NodeId /*node*/, WalkPlace /*place*/) {}
  // Between operand index - 1 and operand index of `node` (1 <= index < count).
  void Between(NodeId /*node*/, std::uint32_t /*index*/) {}
  void Leave(NodeId /*node*/, WalkPlace /*place*/) {}
};

// Reusable: its stack keeps its capacity from one walk to the next, so
// walking every definition of a set allocates only for the deepest one.
class ExpressionWalker {
 public:
  // Walks the expression rooted at `root` (any node of `ir`), calling the
  // visitor's hooks as described above.
  template <typename Visitor>
  void Walk(const FeatureSetIr& ir, NodeId root, Visitor& visitor) {
    stack_.clear();
    visitor.Enter(root, WalkPlace{});
    stack_.push_back(Frame{root, WalkPlace{}, 0});
    while (!stack_.empty()) {
      Frame& top = stack_.back();
      const Node& node = ir.nodes[top.node];
      if (top.next == node.operand_count) {
        const Frame done = top;
        stack_.pop_back();
        visitor.Leave(done.node, done.place);
        continue;
      }
      const NodeId parent = top.node;
      const std::uint32_t index = top.next++;
      if (index > 0) visitor.Between(parent, index);
      const NodeId child = ir.operands[node.first_operand + index];
      visitor.Enter(child, WalkPlace{parent, index});
      stack_.push_back(Frame{child, WalkPlace{parent, index}, 0});  // may move `top`
    }
  }

 private:
  struct Frame {
    NodeId node;
    WalkPlace place;
    std::uint32_t next;  // the next operand to visit
  };
  std::vector<Frame> stack_;
};

// A walk with a fresh stack.
template <typename Visitor>
void WalkExpression(const FeatureSetIr& ir, NodeId root, Visitor& visitor) {
  ExpressionWalker().Walk(ir, root, visitor);
}

}  // namespace calcjit::ir

#endif  // CALCJIT_IR_WALK_H_
