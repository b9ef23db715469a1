// Builds a FeatureSetIr in post-order: every reader (text, JSON, protobuf)
// adds a definition's operands before the node that uses them. Every NaN a
// reader hands in (constants, weights, defaults) is stored as the canonical
// quiet NaN 0x7FC00000: its sign and payload are not observable (spec
// section 1), and this way printing `nan` and reading it back gives the same
// message bits.
#ifndef CALCJIT_IR_BUILDER_H_
#define CALCJIT_IR_BUILDER_H_

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "ir/feature_set_ir.h"

namespace calcjit::ir {

class IrBuilder {
 public:
  explicit IrBuilder(SourceFormat source);

  NameId Intern(std::string_view name) { return ir_.names.Intern(name); }
  void AddInput(const InputDecl& decl);
  void AddModel(ModelDecl decl);

  // Nodes of one definition are added between BeginFeature and EndFeature,
  // operands first. Each Add returns the new node's id.
  void BeginFeature();
  NodeId AddConstant(float value, TextPos pos = {});
  NodeId AddRef(NameId name, TextPos pos = {});
  // Unary, Binary, Conditional and Aggregate operators, and Nary without weights.
  NodeId AddOp(Op op, std::span<const NodeId> operands, TextPos pos = {});
  NodeId AddNary(Op op, std::span<const NodeId> operands, std::span<const float> weights,
                 TextPos pos = {});
  // lhs / rhs may be kNone (absent); the checker reports what is missing.
  NodeId AddVector(Op op, NameId lhs, NameId rhs, TextPos pos = {});
  // model(name, inputs...)[output]; `model` may be kNone (absent).
  NodeId AddModelCall(NameId model, std::span<const NodeId> inputs, std::uint32_t output,
                      TextPos pos = {});
  void EndFeature(NameId name, NodeId root, TextPos pos = {});

  // Nesting depth of a node: 1 for a leaf, 1 + the deepest operand otherwise
  // (spec section 5). Readers compare it against kMaxDepth.
  std::uint32_t DepthOf(NodeId node) const { return depth_[node]; }
  std::size_t node_count() const { return ir_.nodes.size(); }
  const FeatureSetIr& ir() const { return ir_; }

  FeatureSetIr Finish() &&;

 private:
  NodeId Append(Node node, std::span<const NodeId> operands);

  FeatureSetIr ir_;
  std::vector<std::uint32_t> depth_;
  NodeId feature_begin_ = 0;
};

}  // namespace calcjit::ir

#endif  // CALCJIT_IR_BUILDER_H_
