#include "opt/dag.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "dsl/float_text.h"
#include "dsl/text_printer.h"

namespace calcjit::opt {

namespace {

std::uint64_t Mix(std::uint64_t h, std::uint64_t v) {
  // splitmix64's finalizer over the running hash.
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  h ^= h >> 30;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 27;
  return h;
}

std::uint32_t Bits(float v) {
  return std::bit_cast<std::uint32_t>(v);
}

}  // namespace

std::uint64_t Dag::HashOf(const DagNode& node, std::span<const ValueId> operands,
                          std::span<const float> weights) const {
  std::uint64_t h = static_cast<std::uint64_t>(node.op);
  h = Mix(h, Bits(node.constant));
  h = Mix(h, node.input);
  h = Mix(h, node.input2);
  for (ValueId v : operands) h = Mix(h, v);
  for (float w : weights) h = Mix(h, Bits(w));
  return h;
}

bool Dag::SameAs(ValueId existing, const DagNode& node, std::span<const ValueId> operands,
                 std::span<const float> weights) const {
  const DagNode& other = nodes_[existing];
  if (other.op != node.op || Bits(other.constant) != Bits(node.constant) ||
      other.input != node.input || other.input2 != node.input2 ||
      other.operand_count != operands.size() || other.weight_count != weights.size()) {
    return false;
  }
  const auto other_operands = OperandsOf(existing);
  const auto other_weights = WeightsOf(existing);
  for (std::size_t i = 0; i < operands.size(); ++i) {
    if (other_operands[i] != operands[i]) return false;
  }
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (Bits(other_weights[i]) != Bits(weights[i])) return false;
  }
  return true;
}

ValueId Dag::Intern(const DagNode& node, std::span<const ValueId> operands,
                    std::span<const float> weights) {
  std::uint64_t hash = 0;
  if (hash_consing_) {
    hash = HashOf(node, operands, weights);
    const auto [begin, end] = interned_.equal_range(hash);
    for (auto it = begin; it != end; ++it) {
      if (SameAs(it->second, node, operands, weights)) return it->second;
    }
  }
  DagNode added = node;
  added.first_operand = static_cast<std::uint32_t>(operands_.size());
  added.operand_count = static_cast<std::uint32_t>(operands.size());
  added.first_weight = static_cast<std::uint32_t>(weights_.size());
  added.weight_count = static_cast<std::uint32_t>(weights.size());
  operands_.insert(operands_.end(), operands.begin(), operands.end());
  weights_.insert(weights_.end(), weights.begin(), weights.end());
  const auto id = static_cast<ValueId>(nodes_.size());
  nodes_.push_back(added);
  if (hash_consing_) interned_.emplace(hash, id);
  return id;
}

DagRewriter::DagRewriter(const Dag& from)
    : from_(from), to_(from.shared_plan()), map_(from.size(), kNoValue) {
  to_.set_hash_consing(from.hash_consing());
}

ValueId DagRewriter::Copy(ValueId old_id) {
  scratch_.clear();
  for (ValueId operand : from_.OperandsOf(old_id)) scratch_.push_back(map_[operand]);
  const ValueId new_id = to_.Intern(from_.node(old_id), scratch_, from_.WeightsOf(old_id));
  map_[old_id] = new_id;
  return new_id;
}

Dag DagRewriter::Finish() && {
  for (ValueId output : from_.outputs()) to_.mutable_outputs().push_back(map_[output]);
  return std::move(to_);
}

std::string Dag::NameOfInput(std::uint32_t slot) const {
  return plan_->schema.inputs[slot].name;
}

std::string Dag::NameOfFeature(std::uint32_t feature) const {
  const ir::FeatureSetIr& ir = plan_->set->ir;
  return ir.NameOf(ir.features[feature].name);
}

std::string Dag::Dump() const {
  std::string out;
  for (ValueId id = 0; id < nodes_.size(); ++id) {
    const DagNode& node = nodes_[id];
    std::string line = "%" + std::to_string(id) + " = ";
    const ir::OpInfo& info = ir::Info(node.op);
    if (node.op == ir::Op::kConstant) {
      line += "const " + dsl::FormatShortestFloat(node.constant);
    } else if (node.op == ir::Op::kRef) {
      line += "input " + dsl::QuoteName(NameOfInput(node.input));
    } else {
      line += std::string(info.name);
      if (info.kind == ir::OpKind::kVector) {
        line += " " + dsl::QuoteName(NameOfInput(node.input));
        if (node.input2 != kNoValue) line += ", " + dsl::QuoteName(NameOfInput(node.input2));
      }
      if (info.kind == ir::OpKind::kModel) {
        const ir::FeatureSetIr& ir = plan_->set->ir;
        line += " " + dsl::QuoteName(ir.NameOf(ir.models[node.input].name)) + "[" +
                std::to_string(node.input2) + "]";
      }
      if (node.weight_count > 0) {
        line += " [";
        for (std::size_t i = 0; i < node.weight_count; ++i) {
          line += (i ? ", " : "") + dsl::FormatShortestFloat(WeightsOf(id)[i]);
        }
        line += "]";
      }
      bool first = true;
      for (ValueId operand : OperandsOf(id)) {
        line += (first ? " %" : ", %") + std::to_string(operand);
        first = false;
      }
      if (info.takes_bound) line += ", bound " + dsl::FormatShortestFloat(node.constant);
    }
    line.resize(std::max<std::size_t>(line.size(), 40), ' ');
    line += node.shape == Shape::kUniform ? "  uniform" : "  column ";
    if (node.feature != kNoValue) line += "  " + dsl::QuoteName(NameOfFeature(node.feature));
    out += line + "\n";
  }
  for (std::size_t k = 0; k < outputs_.size(); ++k) {
    out += "output " + dsl::QuoteName(plan_->schema.outputs[k]) + " = %" +
           std::to_string(outputs_[k]) + "\n";
  }
  return out;
}

}  // namespace calcjit::opt
