// FeatureSet::Uses: the dependency graph of a set, for tools that show it
// (`calcjit graph`, `calcjit explain`) without reaching into the IR.
#include <set>

#include "calcjit/feature_set.h"
#include "ir/op.h"
#include "runtime/internal.h"

namespace calcjit {

std::vector<DefinitionUses> FeatureSet::Uses() const {
  const ir::CheckedSet& set = *loaded_->set;
  const ir::FeatureSetIr& ir = set.ir;
  std::vector<DefinitionUses> uses(ir.features.size());
  for (std::size_t f = 0; f < ir.features.size(); ++f) {
    std::set<std::size_t> features;
    std::set<std::size_t> inputs;
    const ir::FeatureDef& def = ir.features[f];
    for (ir::NodeId id = def.first_node; id <= def.root; ++id) {
      const ir::Node& node = ir.nodes[id];
      if (ir::KindOf(node.op) == ir::OpKind::kAggregate) uses[f].aggregate = true;
      if (const std::vector<ir::NameId>* implied = set.ImpliedInputsOf(id)) {
        for (ir::NameId name : *implied) {
          const ir::Symbol& symbol = set.SymbolOf(name);
          if (symbol.kind == ir::Symbol::Kind::kFeature) features.insert(symbol.index);
          if (symbol.kind == ir::Symbol::Kind::kInput) inputs.insert(symbol.index);
        }
      }
      const bool named = node.op == ir::Op::kRef || ir::KindOf(node.op) == ir::OpKind::kVector;
      if (!named) continue;
      for (ir::NameId name : {node.name, node.name2}) {
        if (name == ir::kNone) continue;
        const ir::Symbol& symbol = set.SymbolOf(name);
        if (symbol.kind == ir::Symbol::Kind::kFeature) features.insert(symbol.index);
        if (symbol.kind == ir::Symbol::Kind::kInput) inputs.insert(symbol.index);
      }
    }
    uses[f].features.assign(features.begin(), features.end());
    uses[f].inputs.assign(inputs.begin(), inputs.end());
  }
  return uses;
}

std::vector<std::size_t> FeatureSet::EvaluationOrder() const {
  const std::vector<std::uint32_t>& order = loaded_->set->topo_order;
  return std::vector<std::size_t>(order.begin(), order.end());
}

}  // namespace calcjit
