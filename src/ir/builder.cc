#include "ir/builder.h"

#include "math/bits.h"

#include <algorithm>
#include <utility>

namespace calcjit::ir {

namespace {
float Canonical(float value) {
  return value != value ? math::CanonicalNan() : value;
}
}  // namespace

IrBuilder::IrBuilder(SourceFormat source) {
  ir_.source = source;
}

void IrBuilder::AddInput(const InputDecl& decl) {
  ir_.inputs.push_back(decl);
  if (decl.default_value) ir_.inputs.back().default_value = Canonical(*decl.default_value);
}

void IrBuilder::AddModel(ModelDecl decl) {
  ir_.models.push_back(std::move(decl));
}

void IrBuilder::BeginFeature() {
  feature_begin_ = static_cast<NodeId>(ir_.nodes.size());
}

NodeId IrBuilder::Append(Node node, std::span<const NodeId> operands) {
  node.first_operand = static_cast<std::uint32_t>(ir_.operands.size());
  node.operand_count = static_cast<std::uint32_t>(operands.size());
  std::uint32_t depth = 0;
  for (NodeId operand : operands) depth = std::max(depth, depth_[operand]);
  ir_.operands.insert(ir_.operands.end(), operands.begin(), operands.end());
  const auto id = static_cast<NodeId>(ir_.nodes.size());
  ir_.nodes.push_back(node);
  depth_.push_back(depth + 1);
  return id;
}

NodeId IrBuilder::AddConstant(float value, TextPos pos) {
  Node node;
  node.op = Op::kConstant;
  node.constant = Canonical(value);
  node.pos = pos;
  return Append(node, {});
}

NodeId IrBuilder::AddRef(NameId name, TextPos pos) {
  Node node;
  node.op = Op::kRef;
  node.name = name;
  node.pos = pos;
  return Append(node, {});
}

NodeId IrBuilder::AddOp(Op op, std::span<const NodeId> operands, TextPos pos) {
  return AddNary(op, operands, {}, pos);
}

NodeId IrBuilder::AddNary(Op op, std::span<const NodeId> operands, std::span<const float> weights,
                          TextPos pos) {
  Node node;
  node.op = op;
  node.pos = pos;
  node.first_weight = static_cast<std::uint32_t>(ir_.weights.size());
  node.weight_count = static_cast<std::uint32_t>(weights.size());
  for (float weight : weights) ir_.weights.push_back(Canonical(weight));
  return Append(node, operands);
}

NodeId IrBuilder::AddVector(Op op, NameId lhs, NameId rhs, TextPos pos) {
  Node node;
  node.op = op;
  node.name = lhs;
  node.name2 = rhs;
  node.pos = pos;
  return Append(node, {});
}

NodeId IrBuilder::AddModelCall(NameId model, std::span<const NodeId> inputs, std::uint32_t output,
                               TextPos pos) {
  Node node;
  node.op = Op::kModel;
  node.name = model;
  node.output = output;
  node.pos = pos;
  return Append(node, inputs);
}

void IrBuilder::EndFeature(NameId name, NodeId root, TextPos pos) {
  ir_.features.push_back(FeatureDef{name, feature_begin_, root, pos});
  feature_begin_ = static_cast<NodeId>(ir_.nodes.size());
}

FeatureSetIr IrBuilder::Finish() && {
  return std::move(ir_);
}

}  // namespace calcjit::ir
