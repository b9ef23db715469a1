#include "ir/plan.h"

#include <string>
#include <utility>

#include "calcjit/names.h"
#include "ir/location.h"

namespace calcjit::ir {

Result<EvalPlan> MakePlan(std::shared_ptr<const CheckedSet> set,
                          std::span<const std::string> outputs) {
  EvalPlan plan;
  const FeatureSetIr& ir = set->ir;
  if (outputs.empty()) {
    for (std::uint32_t f = 0; f < ir.features.size(); ++f) plan.outputs.push_back(f);
  } else {
    std::vector<bool> requested(ir.features.size(), false);
    for (const std::string& name : outputs) {
      const std::optional<NameId> id = ir.names.Find(name);
      if (!id || set->SymbolOf(*id).kind != Symbol::Kind::kFeature) {
        const bool is_input = id && set->SymbolOf(*id).kind == Symbol::Kind::kInput;
        return UserError(is_input ? "'" + name + "' is an input, not a calculated feature"
                                  : "unknown output '" + name + "': the set does not define it" +
                                        DidYouMean(name, set->schema.outputs),
                         name);
      }
      const std::uint32_t feature = set->SymbolOf(*id).index;
      if (requested[feature]) return UserError("output '" + name + "' is requested twice", name);
      requested[feature] = true;
      plan.outputs.push_back(feature);
    }
  }

  // Everything the outputs need, by an explicit-stack walk of the
  // definitions' references; then the set's evaluation order restricted to it.
  std::vector<bool> needed(ir.features.size(), false);
  std::vector<std::uint32_t> pending(plan.outputs.begin(), plan.outputs.end());
  std::vector<bool> input_needed(set->schema.inputs.size(), false);
  while (!pending.empty()) {
    const std::uint32_t f = pending.back();
    pending.pop_back();
    if (needed[f]) continue;
    needed[f] = true;
    const FeatureDef& def = ir.features[f];
    for (NodeId id = def.first_node; id <= def.root; ++id) {
      const Node& node = ir.nodes[id];
      if (KindOf(node.op) == OpKind::kModel) {
        const std::uint32_t model = set->model_of_name[node.name];
        if (model >= set->models.size() || set->models[model] == nullptr) {
          return UserError("model '" + ir.NameOf(node.name) +
                               "' is not loaded: read the set with its models to evaluate it",
                           NodeLocation(ir, id));
        }
        // A call without inputs reads the features or inputs named like the
        // model's features; a call with inputs has them as operand nodes.
        if (const std::vector<NameId>* implied = set->ImpliedInputsOf(id)) {
          for (NameId name : *implied) {
            const Symbol& symbol = set->SymbolOf(name);
            if (symbol.kind == Symbol::Kind::kFeature) {
              if (!needed[symbol.index]) pending.push_back(symbol.index);
            } else if (symbol.kind == Symbol::Kind::kInput) {
              input_needed[symbol.index] = true;
            }
          }
        }
        continue;
      }
      for (NameId name :
           {node.op == Op::kRef || KindOf(node.op) == OpKind::kVector ? node.name : kNone,
            KindOf(node.op) == OpKind::kVector ? node.name2 : kNone}) {
        if (name == kNone) continue;
        const Symbol& symbol = set->SymbolOf(name);
        if (symbol.kind == Symbol::Kind::kFeature) {
          if (!needed[symbol.index]) pending.push_back(symbol.index);
        } else if (symbol.kind == Symbol::Kind::kInput) {
          input_needed[symbol.index] = true;
        }
      }
    }
  }
  for (std::uint32_t f : set->topo_order) {
    if (needed[f]) plan.features.push_back(f);
  }
  plan.input_to_slot.assign(set->schema.inputs.size(), kNone);
  for (std::uint32_t i = 0; i < set->schema.inputs.size(); ++i) {
    if (!input_needed[i]) continue;
    plan.input_to_slot[i] = static_cast<std::uint32_t>(plan.slot_to_input.size());
    plan.slot_to_input.push_back(i);
    plan.schema.inputs.push_back(set->schema.inputs[i]);
  }
  for (std::uint32_t f : plan.outputs)
    plan.schema.outputs.push_back(ir.NameOf(ir.features[f].name));
  plan.set = std::move(set);
  return plan;
}

}  // namespace calcjit::ir
