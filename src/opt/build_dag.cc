#include <algorithm>
#include <vector>

#include "backend/reference/column_kernels.h"
#include "opt/passes.h"

namespace calcjit::opt {

namespace {

using ir::Op;
using ir::OpKind;

class Builder {
 public:
  Builder(std::shared_ptr<const ir::EvalPlan> plan, bool hash_consing)
      : plan_(*plan), set_(*plan->set), ir_(set_.ir), dag_(std::move(plan)) {
    dag_.set_hash_consing(hash_consing);
  }

  Dag Build() && {
    std::vector<ValueId> feature_value(ir_.features.size(), kNoValue);
    std::vector<ValueId> value;  // by IR node, for the definition being built
    for (std::uint32_t f : plan_.features) {
      feature_ = f;
      const ir::FeatureDef& def = ir_.features[f];
      value.assign(def.root - def.first_node + 1, kNoValue);
      for (ir::NodeId id = def.first_node; id <= def.root; ++id) {
        const ir::Node& node = ir_.nodes[id];
        operands_.clear();
        for (ir::NodeId operand : ir_.OperandsOf(node)) {
          operands_.push_back(value[operand - def.first_node]);
        }
        if (const std::vector<ir::NameId>* implied = set_.ImpliedInputsOf(id)) {
          // A model call without inputs: the features or inputs named like
          // the model's features.
          for (ir::NameId name : *implied) operands_.push_back(ValueOfName(name, feature_value));
        }
        value[id - def.first_node] = Lower(node, feature_value);
      }
      feature_value[f] = value.back();
    }
    for (std::uint32_t f : plan_.outputs) dag_.mutable_outputs().push_back(feature_value[f]);
    return std::move(dag_);
  }

 private:
  ValueId Add(Op op, std::vector<ValueId> operands, float constant = 0.0f) {
    if (operands.size() == 2 && ir::IsCommutative(op) && operands[1] < operands[0]) {
      std::swap(operands[0], operands[1]);
    }
    DagNode node;
    node.op = op;
    node.constant = constant;
    node.feature = feature_;
    return dag_.Intern(node, operands);
  }

  ValueId Constant(float value) { return Add(Op::kConstant, {}, value); }

  std::uint32_t SlotOf(ir::NameId name) const {
    return plan_.input_to_slot[set_.SymbolOf(name).index];
  }

  ValueId ValueOfName(ir::NameId name, const std::vector<ValueId>& feature_value) {
    const ir::Symbol& symbol = set_.SymbolOf(name);
    if (symbol.kind == ir::Symbol::Kind::kFeature) return feature_value[symbol.index];
    DagNode input;
    input.op = Op::kRef;
    input.input = SlotOf(name);
    input.feature = feature_;
    return dag_.Intern(input, {});
  }

  ValueId Lower(const ir::Node& node, const std::vector<ValueId>& feature_value) {
    switch (ir::KindOf(node.op)) {
      case OpKind::kConstant:
        return Constant(node.constant);
      case OpKind::kRef:
        return ValueOfName(node.name, feature_value);
      case OpKind::kModel: {
        // Output k of a model on its inputs. Equal calls (same model, same
        // inputs, same k) are one node; the scheduler evaluates the calls of
        // one model on the same inputs once, for all their outputs.
        DagNode call;
        call.op = Op::kModel;
        call.input = set_.model_of_name[node.name];
        call.input2 = node.output;
        call.feature = feature_;
        return dag_.Intern(call, operands_);
      }
      case OpKind::kVector: {
        DagNode vector;
        vector.op = node.op;
        vector.input = SlotOf(node.name);
        vector.input2 = node.name2 == ir::kNone ? kNoValue : SlotOf(node.name2);
        vector.feature = feature_;
        return dag_.Intern(vector, {});
      }
      case OpKind::kNary:
        return LowerNary(node);
      default:
        return Add(node.op, operands_);
    }
  }

  // A left fold of binary operators, exactly as the contract defines Nary.
  ValueId LowerNary(const ir::Node& node) {
    const std::vector<ValueId> operands = operands_;
    if (node.op == Op::kWeightedSum) {
      const auto weights = ir_.WeightsOf(node);
      ValueId acc = Add(Op::kMul, {Constant(weights[0]), operands[0]});
      for (std::size_t k = 1; k < operands.size(); ++k) {
        acc = Add(Op::kAdd, {acc, Add(Op::kMul, {Constant(weights[k]), operands[k]})});
      }
      return acc;
    }
    const Op fold = backend::FoldOperator(node.op);
    ValueId acc = operands[0];
    for (std::size_t k = 1; k < operands.size(); ++k) acc = Add(fold, {acc, operands[k]});
    if (node.op == Op::kMean) {
      acc = Add(Op::kDiv, {acc, Constant(static_cast<float>(operands.size()))});
    }
    return acc;
  }

  const ir::EvalPlan& plan_;
  const ir::CheckedSet& set_;
  const ir::FeatureSetIr& ir_;
  Dag dag_;
  std::uint32_t feature_ = kNoValue;
  std::vector<ValueId> operands_;
};

}  // namespace

Dag BuildDag(std::shared_ptr<const ir::EvalPlan> plan, bool hash_consing) {
  return Builder(std::move(plan), hash_consing).Build();
}

}  // namespace calcjit::opt
