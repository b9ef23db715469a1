#include "backend/reference/interpreter.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "backend/reference/column_kernels.h"
#include "math/aggregate.h"
#include "math/bits.h"
#include "math/elementwise.h"
#include "math/vector.h"
#include "model/model.h"

namespace calcjit::backend {

namespace {

using ir::Node;
using ir::NodeId;
using ir::Op;
using ir::OpKind;
using Column = std::vector<float>;

class ReferenceExecutable final : public Executable {
 public:
  explicit ReferenceExecutable(std::shared_ptr<const ir::EvalPlan> plan)
      : plan_(std::move(plan)), set_(*plan_->set), ir_(set_.ir) {}

  Status Run(const EvalArgs& args, internal::Workspace* /*workspace*/) const override {
    Evaluation evaluation{*this, args, std::vector<Column>(ir_.features.size())};
    for (std::uint32_t f : plan_->features) {
      evaluation.features[f] = evaluation.EvaluateDefinition(f);
    }
    for (std::size_t k = 0; k < plan_->outputs.size(); ++k) {
      const Column& column = evaluation.features[plan_->outputs[k]];
      std::transform(column.begin(), column.end(), args.outputs[k], math::CanonicalizeNan);
    }
    return Status::Ok();
  }

 private:
  // The state of one Run: the columns of the definitions computed so far.
  struct Evaluation {
    const ReferenceExecutable& executable;
    const EvalArgs& args;
    std::vector<Column> features;
    NodeId current = 0;  // the node being evaluated

    std::size_t n() const { return args.item_count; }

    // A definition's nodes are in post-order, so evaluating them in id order
    // is the recursive evaluation with the recursion unrolled: each node
    // takes its operands' fresh columns and returns a fresh column.
    Column EvaluateDefinition(std::uint32_t f) {
      const ir::FeatureDef& def = executable.ir_.features[f];
      std::vector<Column> columns(def.root - def.first_node + 1);
      for (NodeId id = def.first_node; id <= def.root; ++id) {
        const Node& node = executable.ir_.nodes[id];
        std::vector<Column> operands;
        for (NodeId operand : executable.ir_.OperandsOf(node)) {
          operands.push_back(std::move(columns[operand - def.first_node]));
        }
        columns[id - def.first_node] = EvaluateNode(id, node, std::move(operands));
      }
      return std::move(columns.back());
    }

    Column EvaluateNode(NodeId id, const Node& node, std::vector<Column> operands) {
      current = id;
      Column out(n());
      switch (ir::KindOf(node.op)) {
        case OpKind::kConstant:
          std::fill(out.begin(), out.end(), node.constant);
          break;
        case OpKind::kRef:
          return Reference(node);
        case OpKind::kUnary:
          UnaryColumnKernel(node.op)(operands[0].data(), out.data(), n());
          break;
        case OpKind::kBinary:
          BinaryColumnKernel(node.op)(operands[0].data(), operands[1].data(), out.data(), n());
          break;
        case OpKind::kConditional:
          ConditionalColumnKernel(node.op)(operands[0].data(), operands[1].data(),
                                           operands[2].data(), out.data(), n());
          break;
        case OpKind::kNary:
          return Nary(node, std::move(operands));
        case OpKind::kVector:
          Vector(node, &out);
          break;
        case OpKind::kAggregate:
          Aggregate(node, operands[0], &out);
          break;
        case OpKind::kModel:
          return EvaluateModel(node, std::move(operands));
      }
      return out;
    }

    // Output k of the model on the rows of its inputs: the model's own
    // reference evaluator (its oracle) over every output, item by item.
    Column EvaluateModel(const Node& node, std::vector<Column> operands) {
      const ir::CheckedSet& set = executable.set_;
      if (const std::vector<ir::NameId>* implied = set.ImpliedInputsOf(current)) {
        for (ir::NameId name : *implied) operands.push_back(ColumnOfName(name));
      }
      const model::Model& model = *set.models[set.model_of_name[node.name]];
      std::vector<const float*> model_inputs;
      for (const Column& operand : operands) model_inputs.push_back(operand.data());
      std::vector<Column> outputs(model.summary().output_count, Column(n()));
      std::vector<float*> output_pointers;
      for (Column& output : outputs) output_pointers.push_back(output.data());
      model.EvaluateReference(model_inputs.data(), n(), output_pointers.data());
      return std::move(outputs[node.output]);
    }

    Column Reference(const Node& node) { return ColumnOfName(node.name); }

    Column ColumnOfName(ir::NameId name) {
      const ir::Symbol& symbol = executable.set_.SymbolOf(name);
      if (symbol.kind == ir::Symbol::Kind::kFeature) return features[symbol.index];
      const InputView& input = args.inputs[executable.plan_->input_to_slot[symbol.index]];
      if (input.layout == InputLayout::kBroadcast) return Column(n(), input.data[0]);
      return Column(input.data, input.data + n());
    }

    // A left fold in operand order (spec section 3).
    Column Nary(const Node& node, std::vector<Column> operands) {
      const ir::OpInfo& info = ir::Info(node.op);
      const BinaryColumnFn fold = BinaryColumnKernel(FoldOperator(node.op));
      Column acc = std::move(operands[0]);
      if (info.weighted) {
        // w0*x0 fold w1*x1 fold ..., each product rounded.
        const BinaryColumnFn multiply = BinaryColumnKernel(Op::kMul);
        const auto weights = executable.ir_.WeightsOf(node);
        const Column first_weight(n(), weights[0]);
        multiply(first_weight.data(), acc.data(), acc.data(), n());
        for (std::size_t k = 1; k < operands.size(); ++k) {
          const Column weight(n(), weights[k]);
          multiply(weight.data(), operands[k].data(), operands[k].data(), n());
          fold(acc.data(), operands[k].data(), acc.data(), n());
        }
        return acc;
      }
      for (std::size_t k = 1; k < operands.size(); ++k) {
        fold(acc.data(), operands[k].data(), acc.data(), n());
      }
      if (info.divides_by_count) {
        const Column count(n(), static_cast<float>(operands.size()));
        BinaryColumnKernel(Op::kDiv)(acc.data(), count.data(), acc.data(), n());
      }
      return acc;
    }

    void Vector(const Node& node, Column* out) {
      const VectorItemFn kernel = VectorItemKernel(node.op);
      const InputView& a = VectorInput(node.name);
      // An lhs_only row (norm) has no rhs; it reads its lhs twice, harmlessly.
      const InputView& b = ir::Info(node.op).lhs_only ? a : VectorInput(node.name2);
      const std::size_t d = a.dimension;
      auto row = [&](const InputView& v, std::size_t i) {
        return v.layout == InputLayout::kItemVector ? v.data + i * d : v.data;
      };
      for (std::size_t i = 0; i < n(); ++i) (*out)[i] = kernel(row(a, i), row(b, i), d);
    }

    const InputView& VectorInput(ir::NameId name) {
      const ir::Symbol& symbol = executable.set_.SymbolOf(name);
      return args.inputs[executable.plan_->input_to_slot[symbol.index]];
    }

    // (The IR holds no optimizer-only row, so no bound is ever read here.)
    void Aggregate(const Node& node, const Column& x, Column* out) {
      std::vector<std::uint64_t> scratch(static_cast<std::size_t>(ir::ScratchKeysPerItem(node.op)) *
                                         x.size());
      AggregateColumnKernel(node.op)(x, *out, scratch, node.constant);
    }
  };

  std::shared_ptr<const ir::EvalPlan> plan_;
  const ir::CheckedSet& set_;
  const ir::FeatureSetIr& ir_;
};

}  // namespace

std::unique_ptr<Executable> MakeReferenceExecutable(std::shared_ptr<const ir::EvalPlan> plan) {
  return std::make_unique<ReferenceExecutable>(std::move(plan));
}

}  // namespace calcjit::backend
