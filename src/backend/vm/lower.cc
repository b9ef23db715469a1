#include "backend/vm/lower.h"

#include <algorithm>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "backend/vm/kernels.h"

namespace calcjit::vm {

namespace {

using ir::Op;
using ir::OpKind;
using opt::Dag;
using opt::DagNode;
using opt::Shape;
using opt::ValueId;

bool IsUniform(const Dag& dag, ValueId v) {
  return dag.node(v).shape == Shape::kUniform;
}

class Lowering {
 public:
  Lowering(const Dag& dag, const LowerOptions& options)
      : dag_(dag), options_(options), n_(dag.size()) {}

  Program Run() && {
    program_.block_size = options_.block_size;
    program_.isa = options_.isa;
    program_.kernels = &KernelsFor(options_.isa);
    AssignPhases();
    FindUsers();
    FindFusions();
    FindFolds();
    loc_.assign(n_, Operand{});
    native_nodes_.assign(program_.phases.size(), {});
    for (ValueId v = 0; v < n_; ++v) Place(v);
    if (options_.native) BuildPieces();
    for (Phase& phase : program_.phases) AllocateRegisters(phase);
    AllocateColumns();
    return std::move(program_);
  }

 private:
  // A value's earliest phase is 0 for inputs and constants, one after its
  // operand's for an aggregate (it needs the whole column), and the latest of
  // its operands' otherwise. It is then placed as late as its users allow
  // (users first: reverse topological order), so that a value is computed in
  // the phase that uses it and need not be kept as a whole column across a
  // barrier. A value only an output reads stays at its earliest phase.
  void AssignPhases() {
    std::vector<std::uint32_t> earliest(n_, 0);
    for (ValueId v = 0; v < n_; ++v) {
      std::uint32_t p = 0;
      for (ValueId operand : dag_.OperandsOf(v)) p = std::max(p, earliest[operand]);
      if (ir::KindOf(dag_.node(v).op) == OpKind::kAggregate) ++p;
      earliest[v] = p;
    }
    constexpr std::uint32_t kUnconstrained = 0xFFFFFFFFu;
    std::vector<std::uint32_t> latest(n_, kUnconstrained);
    phase_.assign(n_, 0);
    std::uint32_t last = 0;
    for (ValueId v = static_cast<ValueId>(n_); v-- > 0;) {
      phase_[v] = latest[v] == kUnconstrained ? earliest[v] : std::max(earliest[v], latest[v]);
      last = std::max(last, phase_[v]);
      const bool aggregate = ir::KindOf(dag_.node(v).op) == OpKind::kAggregate;
      for (ValueId operand : dag_.OperandsOf(v)) {
        // An aggregate's operand must be complete before the aggregate's phase.
        latest[operand] = std::min(latest[operand], aggregate ? phase_[v] - 1 : phase_[v]);
      }
    }
    program_.phases.resize(last + 1);
  }

  void FindUsers() {
    last_phase_used_.assign(n_, 0);
    use_count_.assign(n_, 0);
    output_of_.assign(n_, {});
    for (ValueId v = 0; v < n_; ++v) {
      last_phase_used_[v] = phase_[v];
      for (ValueId operand : dag_.OperandsOf(v)) {
        last_phase_used_[operand] = std::max(last_phase_used_[operand], phase_[v]);
        ++use_count_[operand];
      }
    }
    const auto& outputs = dag_.outputs();
    for (std::uint32_t k = 0; k < outputs.size(); ++k) {
      output_of_[outputs[k]].push_back(k);
      ++use_count_[outputs[k]];
    }
  }

  // a + s*b, where s is uniform and the product is used nowhere else and is
  // computed in the same phase, becomes one kMulAdd: the same two roundings.
  void FindFusions() {
    fused_into_.assign(n_, opt::kNoValue);
    if (!options_.fuse || options_.native) return;
    for (ValueId v = 0; v < n_; ++v) {
      const DagNode& node = dag_.node(v);
      if (node.op != Op::kAdd || IsUniform(dag_, v)) continue;
      const auto operands = dag_.OperandsOf(v);
      for (int side = 0; side < 2; ++side) {
        const ValueId product = operands[side];
        const ValueId other = operands[1 - side];
        if (dag_.node(product).op != Op::kMul || IsUniform(dag_, product) ||
            IsUniform(dag_, other) || use_count_[product] != 1 || phase_[product] != phase_[v] ||
            fused_into_[other] != opt::kNoValue) {
          continue;
        }
        const auto factors = dag_.OperandsOf(product);
        if (IsUniform(dag_, factors[0]) != IsUniform(dag_, factors[1])) {
          fused_into_[product] = v;
          break;
        }
      }
    }
  }

  // A left-deep chain of one arithmetic operator over columns, ((x0 op x1) op x2)
  // op ..., whose inner links have no other use and live in the same phase,
  // becomes one kFold: the running value stays in registers instead of going
  // through a scratch column per link. Chains are found from their top (users
  // come after operands, so walk backwards).
  void FindFolds() {
    fold_leaves_.assign(n_, {});
    in_fold_.assign(n_, false);
    if (!options_.fuse || options_.native) return;
    auto is_link = [&](ValueId v) {
      const DagNode& node = dag_.node(v);
      const bool arithmetic =
          node.op == Op::kAdd || node.op == Op::kSub || node.op == Op::kMul || node.op == Op::kDiv;
      return arithmetic && !IsUniform(dag_, v) && fused_into_[v] == opt::kNoValue &&
             !IsFusedAdd(v) && !IsUniform(dag_, dag_.OperandsOf(v)[1]);
    };
    for (ValueId top = static_cast<ValueId>(n_); top-- > 0;) {
      if (in_fold_[top] || !is_link(top)) continue;
      std::vector<ValueId> inner;
      std::vector<ValueId> rights;
      ValueId link = top;
      while (true) {
        rights.push_back(dag_.OperandsOf(link)[1]);
        const ValueId left = dag_.OperandsOf(link)[0];
        const bool extends = dag_.node(left).op == dag_.node(top).op && is_link(left) &&
                             use_count_[left] == 1 && phase_[left] == phase_[top] &&
                             rights.size() + 2 <= kMaxFold;
        if (!extends) {
          if (inner.empty() || IsUniform(dag_, left)) break;  // not a chain of columns
          std::vector<ValueId>& leaves = fold_leaves_[top];
          leaves.push_back(left);
          leaves.insert(leaves.end(), rights.rbegin(), rights.rend());
          for (ValueId v : inner) in_fold_[v] = true;
          break;
        }
        inner.push_back(left);
        link = left;
      }
    }
  }

  std::uint32_t NewScalar(float init = 0.0f) {
    program_.scalar_init.push_back(init);
    return static_cast<std::uint32_t>(program_.scalar_init.size() - 1);
  }

  // A column that lives only within its phase is a virtual register, named
  // by its value id (or a temporary id past the DAG) until allocation.
  Operand VirtualRegister(std::uint32_t id) { return Operand{Loc::kRegister, id}; }
  std::uint32_t NewTemporary() { return static_cast<std::uint32_t>(n_ + temporaries_++); }

  bool Materialized(ValueId v) const { return last_phase_used_[v] > phase_[v]; }

  // A column computed by a block instruction lives in a block register,
  // unless a later phase needs it whole, or native pieces read it.
  Operand ColumnDestination(ValueId v) {
    if (Materialized(v) || options_.native) return NewColumn(v);
    return VirtualRegister(v);
  }

  Operand NewColumn(ValueId v) {
    column_values_.push_back(v);
    return Operand{Loc::kColumn, static_cast<std::uint32_t>(column_values_.size() - 1)};
  }

  void Place(ValueId v) {
    const DagNode& node = dag_.node(v);
    Phase& phase = program_.phases[phase_[v]];
    const OpKind kind = ir::KindOf(node.op);
    if (IsUniform(dag_, v)) {
      PlaceUniform(v, phase);
    } else if (kind == OpKind::kRef) {
      loc_[v] = Operand{Loc::kInput, node.input};
    } else if (kind == OpKind::kAggregate) {
      loc_[v] = NewColumn(v);
      phase.aggregates.push_back(AggregateStep{node.op, loc_[dag_.OperandsOf(v)[0]], loc_[v], v});
    } else if (fused_into_[v] != opt::kNoValue || in_fold_[v]) {
      return;  // computed by the kMulAdd or the kFold of its user
    } else if (IsNative(v)) {
      // Computed, and written where needed (outputs too), by a native piece.
      native_nodes_[phase_[v]].push_back(v);
      if (Materialized(v)) loc_[v] = NewColumn(v);
      return;
    } else {
      PlaceColumn(v, phase);
    }
    for (std::uint32_t k : output_of_[v]) {
      if (IsUniform(dag_, v)) {
        program_.uniform_outputs.push_back({k, loc_[v].index});
      } else {
        Instruction store;
        store.form = Form::kStore;
        store.a = loc_[v];
        store.slot = k;
        store.value = v;
        phase.block.push_back(store);
      }
    }
  }

  void PlaceUniform(ValueId v, Phase& phase) {
    const DagNode& node = dag_.node(v);
    const auto operands = dag_.OperandsOf(v);
    switch (ir::KindOf(node.op)) {
      case OpKind::kConstant:
        loc_[v] = Operand{Loc::kScalar, NewScalar(node.constant)};
        return;
      case OpKind::kRef:
        loc_[v] = Operand{Loc::kScalar, NewScalar()};
        program_.input_scalars.push_back({node.input, loc_[v].index});
        return;
      case OpKind::kAggregate:
        loc_[v] = Operand{Loc::kScalar, NewScalar()};
        phase.aggregates.push_back(AggregateStep{node.op, loc_[operands[0]], loc_[v], v});
        return;
      default:
        break;
    }
    Instruction step = ComputeInstruction(v);
    step.out = loc_[v] = Operand{Loc::kScalar, NewScalar()};
    phase.scalars.push_back(step);
  }

  // The instruction computing v from its operands' locations (out unset).
  Instruction ComputeInstruction(ValueId v) {
    const DagNode& node = dag_.node(v);
    const auto operands = dag_.OperandsOf(v);
    Instruction in;
    in.op = node.op;
    in.value = v;
    switch (ir::KindOf(node.op)) {
      case OpKind::kUnary:
        in.form = Form::kUnary;
        in.a = loc_[operands[0]];
        break;
      case OpKind::kBinary:
        in.form = Form::kBinary;
        in.a = loc_[operands[0]];
        in.b = loc_[operands[1]];
        break;
      case OpKind::kConditional:
        in.form = Form::kIf;
        in.c = loc_[operands[0]];
        in.a = loc_[operands[1]];
        in.b = loc_[operands[2]];
        break;
      case OpKind::kVector:
        in.form = Form::kVector;
        in.slot = node.input;
        in.slot2 = node.input2 == opt::kNoValue ? kNoInput : node.input2;
        break;
      default:
        break;
    }
    return in;
  }

  // A scalar operand of a column instruction that has no scalar form is
  // broadcast into a temporary register first.
  Operand Broadcast(Operand scalar, Phase& phase, ValueId user) {
    Instruction fill;
    fill.form = Form::kFill;
    fill.a = scalar;
    fill.value = user;
    fill.out = VirtualRegister(NewTemporary());
    phase.block.push_back(fill);
    return fill.out;
  }

  void PlaceColumn(ValueId v, Phase& phase) {
    const DagNode& node = dag_.node(v);
    Instruction in;
    if (node.op == Op::kConstant) {  // only when the uniform pass is off
      const Operand scalar{Loc::kScalar, NewScalar(node.constant)};
      in.form = Form::kFill;
      in.a = scalar;
      in.value = v;
    } else if (node.op == Op::kAdd && IsFusedAdd(v)) {
      in = MulAddInstruction(v);
    } else if (!fold_leaves_[v].empty()) {
      in.form = Form::kFold;
      in.op = node.op;
      in.value = v;
      in.slot = static_cast<std::uint32_t>(program_.fold_operands.size());
      in.slot2 = static_cast<std::uint32_t>(fold_leaves_[v].size());
      for (ValueId leaf : fold_leaves_[v]) program_.fold_operands.push_back(loc_[leaf]);
    } else {
      in = ComputeInstruction(v);
      if (in.form == Form::kBinary) {
        if (in.a.loc == Loc::kScalar) in.form = Form::kScalarA;
        if (in.b.loc == Loc::kScalar) in.form = Form::kScalarB;
      } else if (in.form == Form::kIf) {
        for (Operand* operand : {&in.c, &in.a, &in.b}) {
          if (operand->loc == Loc::kScalar) *operand = Broadcast(*operand, phase, v);
        }
      }
    }
    in.out = loc_[v] = ColumnDestination(v);
    phase.block.push_back(in);
  }

  // In native mode, the element-wise column values (and constants the
  // uniform pass left as columns) are computed by native pieces.
  bool IsNative(ValueId v) const {
    if (!options_.native || IsUniform(dag_, v)) return false;
    const OpKind kind = ir::KindOf(dag_.node(v).op);
    return kind == OpKind::kUnary || kind == OpKind::kBinary || kind == OpKind::kConditional ||
           kind == OpKind::kConstant;
  }

  // Splits each phase's native values into pieces and builds their local
  // programs. Pieces are cut between the values of two features, where the
  // feature's name hashes to a multiple of 8 once the piece has a quarter of
  // its maximum size (or at the maximum): cuts then depend on the formulas
  // near them, not on everything before, so editing one formula leaves the
  // other pieces, and their cached code, unchanged. A value read by another
  // piece is written to a whole column.
  void BuildPieces() {
    std::vector<std::uint32_t> piece_of(n_, kNoPiece);
    local_index_.assign(n_, 0);
    std::uint32_t piece = 0;  // numbered across phases: a value of another phase is a read
    for (std::size_t p = 0; p < native_nodes_.size(); ++p) {
      const std::vector<ValueId>& nodes = native_nodes_[p];
      if (nodes.empty()) continue;
      ++piece;
      std::uint32_t size = 0;
      for (std::size_t k = 0; k < nodes.size(); ++k) {
        const ValueId v = nodes[k];
        const bool boundary = k > 0 && dag_.node(v).feature != dag_.node(nodes[k - 1]).feature;
        const bool cut = (boundary && size >= options_.max_piece_nodes / 4 &&
                          FeatureHash(dag_.node(v).feature) % 8 == 0) ||
                         size >= options_.max_piece_nodes;
        if (cut) {
          ++piece;
          size = 0;
        }
        piece_of[v] = piece;
        ++size;
      }
      for (ValueId v : nodes) {
        for (ValueId u : dag_.OperandsOf(v)) {
          const bool other_piece = piece_of[u] != kNoPiece && piece_of[u] != piece_of[v];
          if (other_piece && loc_[u].loc != Loc::kColumn && dag_.node(u).op != Op::kConstant) {
            loc_[u] = NewColumn(u);
          }
        }
      }
      std::size_t begin = 0;
      while (begin < nodes.size()) {
        std::size_t end = begin;
        while (end < nodes.size() && piece_of[nodes[end]] == piece_of[nodes[begin]]) ++end;
        program_.phases[p].pieces.push_back(
            MakePiece(std::span<const ValueId>(nodes).subspan(begin, end - begin), piece_of));
        begin = end;
      }
    }
  }

  // An input's name, or the name of the feature whose formula made the value.
  std::string NameOf(ValueId v) const {
    const DagNode& node = dag_.node(v);
    if (node.op == Op::kRef) return dag_.NameOfInput(node.input);
    return node.feature == opt::kNoValue ? "value" : dag_.NameOfFeature(node.feature);
  }

  std::uint64_t FeatureHash(std::uint32_t feature) const {
    if (feature == opt::kNoValue) return 0;
    return std::hash<std::string>()(dag_.NameOfFeature(feature));
  }

  NativePiece MakePiece(std::span<const ValueId> nodes,
                        const std::vector<std::uint32_t>& piece_of) {
    NativePiece piece;
    for (std::uint32_t k = 0; k < nodes.size(); ++k) local_index_[nodes[k]] = k;
    auto add_unique = [&](std::vector<Operand>& list, std::vector<std::string>& names, ValueId u) {
      const Operand operand = loc_[u];
      for (std::uint32_t i = 0; i < list.size(); ++i) {
        if (list[i].loc == operand.loc && list[i].index == operand.index) return i;
      }
      list.push_back(operand);
      names.push_back(NameOf(u));
      return static_cast<std::uint32_t>(list.size() - 1);
    };
    const std::uint32_t this_piece = piece_of[nodes.front()];
    for (ValueId v : nodes) {
      PieceNode node;
      node.op = dag_.node(v).op;
      node.value = v;
      node.name = NameOf(v);
      node.first_operand = static_cast<std::uint32_t>(piece.operands.size());
      if (node.op == Op::kConstant) {
        piece.operands.push_back({PieceOperand::Kind::kConstant, 0, dag_.node(v).constant});
      }
      for (ValueId u : dag_.OperandsOf(v)) {
        PieceOperand operand;
        if (dag_.node(u).op == Op::kConstant) {
          operand = {PieceOperand::Kind::kConstant, 0, dag_.node(u).constant};
        } else if (piece_of[u] == this_piece) {
          operand = {PieceOperand::Kind::kNode, local_index_[u], 0.0f};
        } else if (IsUniform(dag_, u)) {
          operand = {PieceOperand::Kind::kScalar, add_unique(piece.scalars, piece.scalar_names, u),
                     0.0f};
        } else {
          operand = {PieceOperand::Kind::kRead, add_unique(piece.reads, piece.read_names, u), 0.0f};
          if (loc_[u].loc == Loc::kInput &&
              std::find(program_.whole_input_slots.begin(), program_.whole_input_slots.end(),
                        loc_[u].index) == program_.whole_input_slots.end()) {
            program_.whole_input_slots.push_back(loc_[u].index);
          }
        }
        piece.operands.push_back(operand);
      }
      node.operand_count = static_cast<std::uint32_t>(piece.operands.size()) - node.first_operand;
      const std::uint32_t index = static_cast<std::uint32_t>(piece.nodes.size());
      piece.nodes.push_back(node);
      for (std::uint32_t k : output_of_[v]) piece.writes.push_back({index, {Loc::kOutput, k}});
      if (loc_[v].loc == Loc::kColumn) piece.writes.push_back({index, loc_[v]});
    }
    const std::uint32_t first = dag_.node(nodes.front()).feature;
    const std::uint32_t last = dag_.node(nodes.back()).feature;
    piece.name = first == opt::kNoValue ? "constants" : dag_.NameOfFeature(first);
    if (last != first && last != opt::kNoValue) piece.name += ".." + dag_.NameOfFeature(last);
    return piece;
  }

  static constexpr std::uint32_t kNoPiece = 0xFFFFFFFFu;

  bool IsFusedAdd(ValueId v) const {
    for (ValueId operand : dag_.OperandsOf(v)) {
      if (fused_into_[operand] == v) return true;
    }
    return false;
  }

  Instruction MulAddInstruction(ValueId v) {
    const auto operands = dag_.OperandsOf(v);
    const ValueId product = fused_into_[operands[0]] == v ? operands[0] : operands[1];
    const ValueId addend = product == operands[0] ? operands[1] : operands[0];
    const auto factors = dag_.OperandsOf(product);
    const bool first_uniform = IsUniform(dag_, factors[0]);
    Instruction in;
    in.form = Form::kMulAdd;
    in.op = Op::kAdd;
    in.value = v;
    in.a = loc_[addend];
    in.c = loc_[first_uniform ? factors[0] : factors[1]];  // the scalar s
    in.b = loc_[first_uniform ? factors[1] : factors[0]];
    return in;
  }

  // Linear scan over a phase's block instructions: a register is free again
  // after the last instruction that reads it, so a result may take the place
  // of an operand that dies at the same instruction (in place).
  void AllocateRegisters(Phase& phase) {
    std::vector<std::size_t> last_read;
    auto reads = [&](Instruction& in) {
      std::vector<Operand*> operands{&in.a, &in.b, &in.c};
      if (in.form == Form::kFold) {
        for (std::uint32_t t = 0; t < in.slot2; ++t) {
          operands.push_back(&program_.fold_operands[in.slot + t]);
        }
      }
      return operands;
    };
    const std::size_t virtual_count = n_ + temporaries_;
    last_read.assign(virtual_count, 0);
    for (std::size_t i = 0; i < phase.block.size(); ++i) {
      for (Operand* operand : reads(phase.block[i])) {
        if (operand->loc == Loc::kRegister) last_read[operand->index] = i;
      }
    }
    std::vector<std::uint32_t> physical(virtual_count, 0);
    std::vector<std::uint32_t> free;
    for (std::size_t i = 0; i < phase.block.size(); ++i) {
      Instruction& in = phase.block[i];
      for (Operand* operand : reads(in)) {
        if (operand->loc != Loc::kRegister) continue;
        const std::uint32_t virtual_register = operand->index;
        operand->index = physical[virtual_register];
        if (last_read[virtual_register] == i && options_.reuse_registers &&
            std::find(free.begin(), free.end(), operand->index) == free.end()) {
          free.push_back(operand->index);
        }
      }
      if (in.out.loc != Loc::kRegister) continue;
      std::uint32_t reg;
      if (!free.empty()) {
        reg = free.back();
        free.pop_back();
      } else {
        reg = program_.registers++;
      }
      physical[in.out.index] = reg;
      in.out.index = reg;
    }
  }

  // Whole-batch columns, reused across phases: a buffer is free for a value
  // defined in a phase after the last phase that reads the previous value.
  void AllocateColumns() {
    std::vector<std::uint32_t> buffer_of(column_values_.size());
    std::vector<std::uint32_t> busy_until;  // by buffer: last phase reading it
    for (std::size_t c = 0; c < column_values_.size(); ++c) {
      const ValueId v = column_values_[c];
      std::uint32_t buffer = static_cast<std::uint32_t>(busy_until.size());
      if (options_.reuse_registers) {
        for (std::uint32_t b = 0; b < busy_until.size(); ++b) {
          if (busy_until[b] < phase_[v]) {
            buffer = b;
            break;
          }
        }
      }
      if (buffer == busy_until.size()) busy_until.push_back(0);
      busy_until[buffer] = last_phase_used_[v];
      buffer_of[c] = buffer;
    }
    program_.columns = static_cast<std::uint32_t>(busy_until.size());
    auto rename = [&](Operand& operand) {
      if (operand.loc == Loc::kColumn) operand.index = buffer_of[operand.index];
    };
    for (Phase& phase : program_.phases) {
      for (AggregateStep& step : phase.aggregates) {
        rename(step.operand);
        rename(step.result);
      }
      for (Instruction& in : phase.block) {
        for (Operand* operand : {&in.out, &in.a, &in.b, &in.c}) rename(*operand);
      }
    }
    for (Operand& operand : program_.fold_operands) rename(operand);
    for (Phase& phase : program_.phases) {
      for (NativePiece& piece : phase.pieces) {
        for (Operand& read : piece.reads) rename(read);
        for (PieceWrite& write : piece.writes) rename(write.target);
      }
    }
  }

  const Dag& dag_;
  const LowerOptions& options_;
  const std::size_t n_;
  Program program_;
  std::vector<std::uint32_t> phase_;
  std::vector<std::uint32_t> last_phase_used_;
  std::vector<std::uint32_t> use_count_;
  std::vector<std::vector<std::uint32_t>> output_of_;
  std::vector<std::vector<ValueId>> native_nodes_;  // by phase, in order
  std::vector<std::uint32_t> local_index_;          // a native value's index in its piece
  std::vector<ValueId> fused_into_;
  std::vector<std::vector<ValueId>> fold_leaves_;  // by chain top: its columns in order
  std::vector<bool> in_fold_;                      // an inner link of a chain
  std::vector<Operand> loc_;
  std::vector<ValueId> column_values_;  // by provisional column index
  std::size_t temporaries_ = 0;
};

}  // namespace

Program Lower(const opt::Dag& dag, const LowerOptions& options) {
  return Lowering(dag, options).Run();
}

}  // namespace calcjit::vm
