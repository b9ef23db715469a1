#include "cli/dependencies.h"

#include "ir/op.h"

namespace calcjit::cli {

FeatureGraph Analyze(const ir::CheckedSet& set, const std::vector<std::uint32_t>& outputs) {
  const ir::FeatureSetIr& ir = set.ir;
  const std::size_t features = ir.features.size();
  FeatureGraph graph;
  graph.feature_deps.resize(features);
  graph.input_deps.resize(features);
  graph.aggregate.assign(features, false);
  graph.output.assign(features, false);
  graph.feature_needed.assign(features, false);
  graph.input_needed.assign(set.schema.inputs.size(), false);
  for (std::size_t f = 0; f < features; ++f) {
    const ir::FeatureDef& def = ir.features[f];
    for (ir::NodeId id = def.first_node; id <= def.root; ++id) {
      const ir::Node& node = ir.nodes[id];
      if (ir::KindOf(node.op) == ir::OpKind::kAggregate) graph.aggregate[f] = true;
      for (ir::NameId name : {node.name, node.name2}) {
        const bool named = node.op == ir::Op::kRef || ir::KindOf(node.op) == ir::OpKind::kVector;
        if (!named || name == ir::kNone) continue;
        const ir::Symbol& symbol = set.SymbolOf(name);
        if (symbol.kind == ir::Symbol::Kind::kFeature) graph.feature_deps[f].insert(symbol.index);
        if (symbol.kind == ir::Symbol::Kind::kInput) graph.input_deps[f].insert(symbol.index);
      }
    }
  }
  // Outputs: the requested ones, or else the definitions nothing else uses.
  if (!outputs.empty()) {
    for (std::uint32_t f : outputs) graph.output[f] = true;
  } else {
    std::vector<bool> used(features, false);
    for (const auto& deps : graph.feature_deps) {
      for (std::uint32_t d : deps) used[d] = true;
    }
    for (std::size_t f = 0; f < features; ++f) graph.output[f] = !used[f];
  }
  // What the outputs need (set.topo_order lists users after what they use).
  for (std::size_t f = 0; f < features; ++f) graph.feature_needed[f] = graph.output[f];
  for (auto it = set.topo_order.rbegin(); it != set.topo_order.rend(); ++it) {
    if (!graph.feature_needed[*it]) continue;
    for (std::uint32_t d : graph.feature_deps[*it]) graph.feature_needed[d] = true;
    for (std::uint32_t i : graph.input_deps[*it]) graph.input_needed[i] = true;
  }
  return graph;
}

}  // namespace calcjit::cli
