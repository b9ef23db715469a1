#include "ir/location.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace calcjit::ir {

namespace {

std::string WithField(std::string path, std::string_view field) {
  if (!field.empty()) {
    path += '.';
    path += field;
  }
  return path;
}

// The definition that owns `node` (definitions own ascending, disjoint ranges).
std::size_t FeatureOfNode(const FeatureSetIr& ir, NodeId node) {
  auto it = std::upper_bound(ir.features.begin(), ir.features.end(), node,
                             [](NodeId n, const FeatureDef& f) { return n < f.first_node; });
  return static_cast<std::size_t>(it - ir.features.begin()) - 1;
}

}  // namespace

std::string FormatTextPos(TextPos pos) {
  return std::to_string(pos.line) + ":" + std::to_string(pos.column);
}

std::string OperandField(Op op, std::size_t index) {
  return OperandPath(KindOf(op), index);
}

std::string NodeLocation(const FeatureSetIr& ir, NodeId node, std::string_view field) {
  if (ir.source == SourceFormat::kText) {
    if (ir.nodes[node].pos.valid()) return FormatTextPos(ir.nodes[node].pos);
    return FormatTextPos(ir.features[FeatureOfNode(ir, node)].pos);
  }
  const std::size_t feature = FeatureOfNode(ir, node);
  const FeatureDef& def = ir.features[feature];
  // Parent links for this definition only; errors are rare, so this is
  // computed on demand rather than stored in every node.
  std::vector<std::pair<NodeId, std::uint32_t>> parent(def.root - def.first_node + 1, {kNone, 0});
  for (NodeId id = def.first_node; id <= def.root; ++id) {
    const auto operands = ir.OperandsOf(ir.nodes[id]);
    for (std::uint32_t i = 0; i < operands.size(); ++i) {
      parent[operands[i] - def.first_node] = {id, i};
    }
  }
  std::vector<std::string> steps;
  for (NodeId id = node; id != def.root;) {
    const auto [up, index] = parent[id - def.first_node];
    if (up == kNone) break;  // not reachable from the root: cannot happen in a built set
    steps.push_back(OperandField(ir.nodes[up].op, index));
    id = up;
  }
  std::string path = "features[" + std::to_string(feature) + "].expression";
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    path += '.';
    path += *it;
  }
  return WithField(std::move(path), field);
}

std::string InputLocation(const FeatureSetIr& ir, std::size_t input, std::string_view field) {
  if (ir.source == SourceFormat::kText) return FormatTextPos(ir.inputs[input].pos);
  return WithField("inputs[" + std::to_string(input) + "]", field);
}

std::string FeatureLocation(const FeatureSetIr& ir, std::size_t feature, std::string_view field) {
  if (ir.source == SourceFormat::kText) return FormatTextPos(ir.features[feature].pos);
  return WithField("features[" + std::to_string(feature) + "]", field);
}

std::string ModelLocation(const FeatureSetIr& ir, std::size_t model, std::string_view field) {
  if (ir.source == SourceFormat::kText) return FormatTextPos(ir.models[model].pos);
  return WithField("models[" + std::to_string(model) + "]", field);
}

}  // namespace calcjit::ir
