// The optimizer's representation: one hash-consed DAG for the whole engine.
//
// Every requested output and everything it needs becomes one graph in which a
// subexpression that several definitions share (after references to other
// definitions are inlined) is one node, so it is computed once: common
// subexpressions across features. Nodes are in topological order (operands
// first), like the IR, so every pass is a loop.
#ifndef CALCJIT_OPT_DAG_H_
#define CALCJIT_OPT_DAG_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/op.h"
#include "ir/plan.h"

namespace calcjit::opt {

using ValueId = std::uint32_t;
inline constexpr std::uint32_t kNoValue = 0xFFFFFFFFu;

// Whether a value is the same for every item of a batch (constants, query
// scalars, per-batch statistics and anything computed from those only) or
// varies per item. Uniform values are computed once per batch and broadcast,
// never materialized as columns.
enum class Shape : std::uint8_t { kColumn, kUniform };

struct DagNode {
  ir::Op op = ir::Op::kConstant;
  std::uint32_t first_operand = 0;  // Dag::operands[first_operand, +operand_count)
  std::uint32_t operand_count = 0;
  std::uint32_t first_weight = 0;  // Dag::weights (WeightedSum)
  std::uint32_t weight_count = 0;
  float constant = 0.0f;  // kConstant
  // kRef: the engine input slot; Vector: lhs slot; Model: the model (index of
  // its declaration in the set).
  std::uint32_t input = kNoValue;
  // Vector: rhs slot (kNoValue for norm); Model: which of its outputs (k).
  std::uint32_t input2 = kNoValue;
  Shape shape = Shape::kColumn;
  // The first definition (index into the set's features) whose formula made
  // this node: names in dumps and, later, in generated code.
  std::uint32_t feature = kNoValue;
};

class Dag {
 public:
  explicit Dag(std::shared_ptr<const ir::EvalPlan> plan) : plan_(std::move(plan)) {}

  const ir::EvalPlan& plan() const { return *plan_; }
  const std::shared_ptr<const ir::EvalPlan>& shared_plan() const { return plan_; }

  std::size_t size() const { return nodes_.size(); }
  const DagNode& node(ValueId id) const { return nodes_[id]; }
  DagNode& mutable_node(ValueId id) { return nodes_[id]; }
  std::span<const ValueId> OperandsOf(ValueId id) const {
    const DagNode& n = nodes_[id];
    return {operands_.data() + n.first_operand, n.operand_count};
  }
  std::span<const float> WeightsOf(ValueId id) const {
    const DagNode& n = nodes_[id];
    return {weights_.data() + n.first_weight, n.weight_count};
  }

  // The value of each engine output, in the engine's output order.
  const std::vector<ValueId>& outputs() const { return outputs_; }
  std::vector<ValueId>& mutable_outputs() { return outputs_; }

  // Adds a node, or returns the existing identical one when hash-consing is
  // on (same operator, operands, constant bits, weights and inputs).
  ValueId Intern(const DagNode& node, std::span<const ValueId> operands,
                 std::span<const float> weights = {});
  void set_hash_consing(bool on) { hash_consing_ = on; }
  bool hash_consing() const { return hash_consing_; }

  // A readable listing, one node per line: "%3 = div %0, %2   [column] f_qux".
  std::string Dump() const;
  std::string NameOfInput(std::uint32_t slot) const;
  std::string NameOfFeature(std::uint32_t feature) const;

 private:
  std::uint64_t HashOf(const DagNode& node, std::span<const ValueId> operands,
                       std::span<const float> weights) const;
  bool SameAs(ValueId existing, const DagNode& node, std::span<const ValueId> operands,
              std::span<const float> weights) const;

  std::shared_ptr<const ir::EvalPlan> plan_;
  std::vector<DagNode> nodes_;
  std::vector<ValueId> operands_;
  std::vector<float> weights_;
  std::vector<ValueId> outputs_;
  bool hash_consing_ = true;
  std::unordered_multimap<std::uint64_t, ValueId> interned_;
};

// Rebuilds a DAG node by node, in order: a rewriting pass maps each old node
// to a new one (a copy, a folded constant, an operand it simplifies to), and
// the new DAG is hash-consed again, so rewrites that make two nodes equal
// merge them.
class DagRewriter {
 public:
  explicit DagRewriter(const Dag& from);

  // The new id of an old node (already visited).
  ValueId Map(ValueId old_id) const { return map_[old_id]; }
  void Set(ValueId old_id, ValueId new_id) { map_[old_id] = new_id; }
  // Adds old node `old_id` unchanged but for its operands, mapped.
  ValueId Copy(ValueId old_id);
  ValueId Add(const DagNode& node, std::span<const ValueId> operands,
              std::span<const float> weights = {}) {
    return to_.Intern(node, operands, weights);
  }
  const Dag& from() const { return from_; }
  const Dag& to() const { return to_; }
  // The new DAG, its outputs mapped.
  Dag Finish() &&;

 private:
  const Dag& from_;
  Dag to_;
  std::vector<ValueId> map_;
  std::vector<ValueId> scratch_;  // Copy's mapped operands, reused
};

}  // namespace calcjit::opt

#endif  // CALCJIT_OPT_DAG_H_
