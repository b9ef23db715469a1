#include "backend/vm/region_lowering.h"

#include <algorithm>
#include <bit>
#include <vector>

namespace calcjit::vm {

namespace {

using ir::Op;
using ir::OpKind;
using program::Region;
using program::RegionOperand;

constexpr std::uint32_t kNoNode = 0xFFFFFFFFu;

class Lowering {
 public:
  Lowering(const Region& region, const LowerOptions& options)
      : region_(region), options_(options), n_(region.nodes.size()) {}

  RegionInstructions Run() && {
    FindUses();
    FindFusions();
    FindFolds();
    loc_.assign(n_, Operand{});
    for (std::uint32_t k = 0; k < n_; ++k) Place(k);
    AllocateRegisters();
    return std::move(code_);
  }

 private:
  const RegionOperand& OperandOf(std::uint32_t node, std::uint32_t o) const {
    return region_.OperandsOf(node)[o];
  }
  // The local node an operand is, or kNoNode for a read, scalar or constant.
  std::uint32_t NodeOf(std::uint32_t node, std::uint32_t o) const {
    const RegionOperand& operand = OperandOf(node, o);
    return operand.kind == RegionOperand::Kind::kNode ? operand.index : kNoNode;
  }
  // Scalars and constants are the same for every item.
  bool IsScalar(std::uint32_t node, std::uint32_t o) const {
    const RegionOperand::Kind kind = OperandOf(node, o).kind;
    return kind == RegionOperand::Kind::kScalar || kind == RegionOperand::Kind::kConstant;
  }
  Op OpOf(std::uint32_t node) const { return region_.nodes[node].op; }

  // How often each node is read, by later nodes and by the region's writes.
  void FindUses() {
    uses_.assign(n_, 0);
    column_write_.assign(n_, kNoNode);
    output_writes_.assign(n_, {});
    for (std::uint32_t k = 0; k < n_; ++k) {
      for (std::uint32_t o = 0; o < region_.nodes[k].operand_count; ++o) {
        if (const std::uint32_t u = NodeOf(k, o); u != kNoNode) ++uses_[u];
      }
    }
    for (std::uint32_t w = 0; w < region_.writes.size(); ++w) {
      const program::RegionWrite& write = region_.writes[w];
      ++uses_[write.node];
      if (write.target.loc == program::Loc::kColumn) {
        column_write_[write.node] = w;
      } else {
        output_writes_[write.node].push_back(w);
      }
    }
  }

  // a + s*b, where s is a scalar and the product is used nowhere else,
  // becomes one kMulAdd: the same two roundings.
  void FindFusions() {
    fused_into_.assign(n_, kNoNode);
    if (!options_.fuse) return;
    for (std::uint32_t k = 0; k < n_; ++k) {
      if (OpOf(k) != Op::kAdd) continue;
      for (std::uint32_t side = 0; side < 2; ++side) {
        const std::uint32_t product = NodeOf(k, side);
        if (product == kNoNode || IsScalar(k, 1 - side) || OpOf(product) != Op::kMul ||
            uses_[product] != 1) {
          continue;
        }
        const std::uint32_t other = NodeOf(k, 1 - side);
        if (other != kNoNode && fused_into_[other] != kNoNode) continue;
        if (IsScalar(product, 0) != IsScalar(product, 1)) {
          fused_into_[product] = k;
          break;
        }
      }
    }
  }

  bool IsFusedAdd(std::uint32_t k) const {
    for (std::uint32_t side = 0; side < 2 && OpOf(k) == Op::kAdd; ++side) {
      const std::uint32_t operand = NodeOf(k, side);
      if (operand != kNoNode && fused_into_[operand] == k) return true;
    }
    return false;
  }

  // A left-deep chain of one arithmetic operator over columns, ((x0 op x1) op
  // x2) op ..., whose inner links have no other use, becomes one kFold: the
  // running value stays in registers instead of going through a scratch
  // column per link. Chains are found from their top (users come after
  // operands, so walk backwards).
  void FindFolds() {
    fold_leaves_.assign(n_, {});
    in_fold_.assign(n_, false);
    if (!options_.fuse) return;
    auto is_link = [&](std::uint32_t k) {
      const Op op = OpOf(k);
      const bool arithmetic = op == Op::kAdd || op == Op::kSub || op == Op::kMul || op == Op::kDiv;
      return arithmetic && fused_into_[k] == kNoNode && !IsFusedAdd(k) && !IsScalar(k, 1);
    };
    for (std::uint32_t top = static_cast<std::uint32_t>(n_); top-- > 0;) {
      if (in_fold_[top] || !is_link(top)) continue;
      std::vector<std::uint32_t> inner;
      std::vector<std::uint32_t> rights;  // (node, operand 1) of each link, top first
      std::uint32_t link = top;
      while (true) {
        rights.push_back(link);
        const std::uint32_t left = NodeOf(link, 0);
        const bool extends = left != kNoNode && OpOf(left) == OpOf(top) && is_link(left) &&
                             uses_[left] == 1 && rights.size() + 2 <= kMaxFold;
        if (!extends) {
          if (inner.empty() || IsScalar(link, 0)) break;  // not a chain of columns
          std::vector<RegionOperand>& leaves = fold_leaves_[top];
          leaves.push_back(OperandOf(link, 0));
          for (auto it = rights.rbegin(); it != rights.rend(); ++it) {
            leaves.push_back(OperandOf(*it, 1));
          }
          for (std::uint32_t v : inner) in_fold_[v] = true;
          break;
        }
        inner.push_back(left);
        link = left;
      }
    }
  }

  Operand Constant(float value) {
    const auto bits = std::bit_cast<std::uint32_t>(value);
    for (std::uint32_t c = 0; c < code_.constants.size(); ++c) {
      if (std::bit_cast<std::uint32_t>(code_.constants[c]) == bits) return {Loc::kConstant, c};
    }
    code_.constants.push_back(value);
    return {Loc::kConstant, static_cast<std::uint32_t>(code_.constants.size() - 1)};
  }

  Operand Resolve(const RegionOperand& operand) {
    switch (operand.kind) {
      case RegionOperand::Kind::kRead:
        return {Loc::kRead, operand.index};
      case RegionOperand::Kind::kScalar:
        return {Loc::kScalar, operand.index};
      case RegionOperand::Kind::kNode:
        return loc_[operand.index];
      case RegionOperand::Kind::kConstant:
        return Constant(operand.constant);
    }
    return {};
  }
  Operand ResolveOperand(std::uint32_t node, std::uint32_t o) {
    return Resolve(OperandOf(node, o));
  }

  // A column that lives only within the region is a virtual register, named
  // by its node (or a temporary id past the nodes) until allocation.
  Operand VirtualRegister(std::uint32_t id) { return {Loc::kRegister, id}; }

  // A scalar operand where the kernel needs a column is broadcast into a
  // temporary register first.
  Operand Broadcast(Operand scalar, std::uint32_t value) {
    Instruction fill;
    fill.form = Form::kFill;
    fill.a = scalar;
    fill.value = value;
    fill.out = VirtualRegister(static_cast<std::uint32_t>(n_ + temporaries_++));
    code_.instructions.push_back(fill);
    return fill.out;
  }

  void Place(std::uint32_t k) {
    if (fused_into_[k] != kNoNode || in_fold_[k]) return;  // computed by its user's instruction
    const Op op = OpOf(k);
    const std::uint32_t value = region_.nodes[k].value;
    Instruction in;
    in.op = op;
    in.value = value;
    if (op == Op::kConstant) {  // a constant column (only when the uniform pass is off)
      in.form = Form::kFill;
      in.a = ResolveOperand(k, 0);
    } else if (IsFusedAdd(k)) {
      in = MulAddInstruction(k);
    } else if (!fold_leaves_[k].empty()) {
      in.form = Form::kFold;
      in.first = static_cast<std::uint32_t>(code_.fold_operands.size());
      in.count = static_cast<std::uint32_t>(fold_leaves_[k].size());
      for (const RegionOperand& leaf : fold_leaves_[k]) {
        code_.fold_operands.push_back(Resolve(leaf));
      }
    } else {
      switch (ir::KindOf(op)) {
        case OpKind::kUnary:
          in.form = Form::kUnary;
          in.a = ResolveOperand(k, 0);
          if (in.a.is_scalar()) in.a = Broadcast(in.a, value);
          break;
        case OpKind::kBinary:
          in.form = Form::kBinary;
          in.a = ResolveOperand(k, 0);
          in.b = ResolveOperand(k, 1);
          // Both scalar happens only with constant folding off.
          if (in.a.is_scalar() && in.b.is_scalar()) in.a = Broadcast(in.a, value);
          if (in.a.is_scalar()) in.form = Form::kScalarA;
          if (in.b.is_scalar()) in.form = Form::kScalarB;
          break;
        case OpKind::kConditional:
          in.form = Form::kIf;
          in.c = ResolveOperand(k, 0);
          in.a = ResolveOperand(k, 1);
          in.b = ResolveOperand(k, 2);
          for (Operand* operand : {&in.c, &in.a, &in.b}) {
            if (operand->is_scalar()) *operand = Broadcast(*operand, value);
          }
          break;
        default:
          break;
      }
    }
    // A value a later region or phase reads is computed straight into its column.
    in.out = loc_[k] =
        column_write_[k] != kNoNode ? Operand{Loc::kWrite, column_write_[k]} : VirtualRegister(k);
    code_.instructions.push_back(in);
    for (std::uint32_t w : output_writes_[k]) {
      Instruction store;
      store.form = Form::kStore;
      store.out = Operand{Loc::kWrite, w};
      store.a = loc_[k];
      store.value = value;
      code_.instructions.push_back(store);
    }
  }

  Instruction MulAddInstruction(std::uint32_t k) {
    const std::uint32_t side = NodeOf(k, 0) != kNoNode && fused_into_[NodeOf(k, 0)] == k ? 0 : 1;
    const std::uint32_t product = NodeOf(k, side);
    const std::uint32_t scalar_factor = IsScalar(product, 0) ? 0 : 1;
    Instruction in;
    in.form = Form::kMulAdd;
    in.op = Op::kAdd;
    in.value = region_.nodes[k].value;
    in.a = ResolveOperand(k, 1 - side);                 // the addend
    in.c = ResolveOperand(product, scalar_factor);      // the scalar s
    in.b = ResolveOperand(product, 1 - scalar_factor);  // the column factor
    return in;
  }

  // Linear scan over the instructions: a register is free again after the
  // last instruction that reads it, so a result may take the place of an
  // operand that dies at the same instruction (in place; every kernel allows
  // out to be one of its operands).
  void AllocateRegisters() {
    std::vector<Instruction>& instructions = code_.instructions;
    auto reads = [&](Instruction& in) {
      std::vector<Operand*> operands{&in.a, &in.b, &in.c};
      if (in.form == Form::kFold) {
        for (std::uint32_t t = 0; t < in.count; ++t) {
          operands.push_back(&code_.fold_operands[in.first + t]);
        }
      }
      return operands;
    };
    const std::size_t virtual_count = n_ + temporaries_;
    std::vector<std::size_t> last_read(virtual_count, 0);
    for (std::size_t i = 0; i < instructions.size(); ++i) {
      for (Operand* operand : reads(instructions[i])) {
        if (operand->loc == Loc::kRegister) last_read[operand->index] = i;
      }
    }
    std::vector<std::uint32_t> physical(virtual_count, 0);
    std::vector<std::uint32_t> free;
    for (std::size_t i = 0; i < instructions.size(); ++i) {
      Instruction& in = instructions[i];
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
        reg = code_.registers++;
      }
      physical[in.out.index] = reg;
      in.out.index = reg;
    }
  }

  const Region& region_;
  const LowerOptions& options_;
  const std::size_t n_;
  RegionInstructions code_;
  std::vector<std::uint32_t> uses_;
  std::vector<std::uint32_t> column_write_;                // the write to a column, if any
  std::vector<std::vector<std::uint32_t>> output_writes_;  // writes to outputs
  std::vector<std::uint32_t> fused_into_;
  std::vector<std::vector<RegionOperand>> fold_leaves_;  // by chain top: its operands in order
  std::vector<bool> in_fold_;                            // an inner link of a chain
  std::vector<Operand> loc_;
  std::size_t temporaries_ = 0;
};

}  // namespace

RegionInstructions LowerRegion(const program::Region& region, const LowerOptions& options) {
  return Lowering(region, options).Run();
}

}  // namespace calcjit::vm
