// FeatureSet::Uses: the dependency graph of a set, for tools that show it
// (`calcjit graph`, `calcjit explain`) without reaching into the IR.
#include <set>

#include "calcjit/feature_set.h"
#include "ir/op.h"
#include "runtime/internal.h"

namespace calcjit {

namespace {

// What one part of a formula reads: the formula outside its model calls'
// inputs, or the inputs of one model call.
struct Reads {
  std::set<std::size_t> features;
  std::set<std::size_t> inputs;
  std::vector<std::size_t> calls;
};

void AddName(const ir::CheckedSet& set, ir::NameId name, Reads& reads) {
  if (name == ir::kNone) return;
  const ir::Symbol& symbol = set.SymbolOf(name);
  if (symbol.kind == ir::Symbol::Kind::kFeature) reads.features.insert(symbol.index);
  if (symbol.kind == ir::Symbol::Kind::kInput) reads.inputs.insert(symbol.index);
}

}  // namespace

std::vector<DefinitionUses> FeatureSet::Uses() const {
  const ir::CheckedSet& set = *loaded_->set;
  const ir::FeatureSetIr& ir = set.ir;
  std::vector<DefinitionUses> uses(ir.features.size());
  for (std::size_t f = 0; f < ir.features.size(); ++f) {
    const ir::FeatureDef& def = ir.features[f];
    const std::size_t count = def.root - def.first_node + 1;
    // Each node's nearest enclosing model call (kNone: the formula itself),
    // from the root down: operands have lower ids than their node.
    std::vector<ir::NodeId> owner(count, ir::kNone);
    for (std::size_t k = count; k-- > 0;) {
      const ir::NodeId id = def.first_node + static_cast<ir::NodeId>(k);
      const ir::Node& node = ir.nodes[id];
      const ir::NodeId owns = node.op == ir::Op::kModel ? id : owner[k];
      for (ir::NodeId operand : ir.OperandsOf(node)) {
        if (operand >= def.first_node && operand <= def.root)
          owner[operand - def.first_node] = owns;
      }
    }
    Reads outside;
    std::vector<Reads> calls;
    std::vector<ir::NodeId> call_nodes;
    std::vector<std::size_t> call_index(count, 0);  // by node: its model_calls index
    // Model calls in formula order (post-order: nested ones first).
    for (ir::NodeId id = def.first_node; id <= def.root; ++id) {
      if (ir.nodes[id].op != ir::Op::kModel) continue;
      call_index[id - def.first_node] = call_nodes.size();
      call_nodes.push_back(id);
      calls.emplace_back();
    }
    auto reads_of = [&](ir::NodeId call) -> Reads& {
      return call == ir::kNone ? outside : calls[call_index[call - def.first_node]];
    };
    for (ir::NodeId id = def.first_node; id <= def.root; ++id) {
      const ir::Node& node = ir.nodes[id];
      if (ir::KindOf(node.op) == ir::OpKind::kAggregate) uses[f].aggregate = true;
      Reads& reads = reads_of(owner[id - def.first_node]);
      if (node.op == ir::Op::kModel) {
        reads.calls.push_back(call_index[id - def.first_node]);
        if (const std::vector<ir::NameId>* implied = set.ImpliedInputsOf(id)) {
          for (ir::NameId name : *implied) AddName(set, name, reads_of(id));
        }
        continue;
      }
      const bool named = node.op == ir::Op::kRef || ir::KindOf(node.op) == ir::OpKind::kVector;
      if (!named) continue;
      AddName(set, node.name, reads);
      AddName(set, node.name2, reads);
    }
    std::set<std::size_t> features = outside.features;
    std::set<std::size_t> inputs = outside.inputs;
    for (std::size_t c = 0; c < calls.size(); ++c) {
      const ir::Node& call = ir.nodes[call_nodes[c]];
      features.insert(calls[c].features.begin(), calls[c].features.end());
      inputs.insert(calls[c].inputs.begin(), calls[c].inputs.end());
      ModelCallUses model_call;
      model_call.model = set.model_of_name[call.name];
      model_call.output = call.output;
      model_call.features.assign(calls[c].features.begin(), calls[c].features.end());
      model_call.inputs.assign(calls[c].inputs.begin(), calls[c].inputs.end());
      model_call.calls = std::move(calls[c].calls);
      uses[f].model_calls.push_back(std::move(model_call));
    }
    uses[f].features.assign(features.begin(), features.end());
    uses[f].inputs.assign(inputs.begin(), inputs.end());
    uses[f].outside_features.assign(outside.features.begin(), outside.features.end());
    uses[f].outside_inputs.assign(outside.inputs.begin(), outside.inputs.end());
    uses[f].outside_calls = std::move(outside.calls);
  }
  return uses;
}

std::vector<std::size_t> FeatureSet::EvaluationOrder() const {
  const std::vector<std::uint32_t>& order = loaded_->set->topo_order;
  return std::vector<std::size_t>(order.begin(), order.end());
}

}  // namespace calcjit
