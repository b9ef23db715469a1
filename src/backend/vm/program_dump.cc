#include <cmath>
#include <string>

#include "backend/vm/program.h"
#include "dsl/float_text.h"

namespace calcjit::vm {

namespace {

std::string OperandText(const Operand& operand) {
  const std::string index = std::to_string(operand.index);
  switch (operand.loc) {
    case Loc::kRegister:
      return "r" + index;
    case Loc::kInput:
      return "in" + index;
    case Loc::kColumn:
      return "col" + index;
    case Loc::kScalar:
      return "s" + index;
    case Loc::kOutput:
      return "out" + index;
    case Loc::kNone:
      break;
  }
  return "-";
}

std::string FormText(Form form) {
  switch (form) {
    case Form::kUnary:
      return "unary";
    case Form::kBinary:
      return "binary";
    case Form::kScalarB:
      return "binary.cs";
    case Form::kScalarA:
      return "binary.sc";
    case Form::kIf:
      return "if";
    case Form::kFill:
      return "fill";
    case Form::kMulAdd:
      return "muladd";
    case Form::kVector:
      return "vector";
    case Form::kStore:
      return "store";
    case Form::kFold:
      return "fold";
  }
  return "?";
}

std::string InstructionText(const Instruction& in, const std::vector<Operand>& fold_operands) {
  std::string text = "  " + FormText(in.form);
  if (in.form == Form::kStore) {
    return text + " out" + std::to_string(in.slot) + " = " + OperandText(in.a) + "\n";
  }
  if (in.form != Form::kFill && in.form != Form::kMulAdd) {
    text += " " + std::string(ir::Info(in.op).name);
  }
  text += " " + OperandText(in.out) + " =";
  if (in.form == Form::kFold) {
    for (std::uint32_t t = 0; t < in.slot2; ++t) {
      text += (t ? ", " : " ") + OperandText(fold_operands[in.slot + t]);
    }
  } else if (in.form == Form::kVector) {
    text += " in" + std::to_string(in.slot);
    if (in.slot2 != kNoInput) text += ", in" + std::to_string(in.slot2);
  } else if (in.form == Form::kMulAdd) {
    text += " " + OperandText(in.a) + " + " + OperandText(in.c) + " * " + OperandText(in.b);
  } else {
    bool first = true;
    for (const Operand* operand : {&in.c, &in.a, &in.b}) {
      if (operand->loc == Loc::kNone) continue;
      text += (first ? " " : ", ") + OperandText(*operand);
      first = false;
    }
  }
  return text + "   ; %" + std::to_string(in.value) + "\n";
}

std::string PieceOperandText(const NativePiece& piece, const PieceOperand& operand) {
  switch (operand.kind) {
    case PieceOperand::Kind::kRead:
      return OperandText(piece.reads[operand.index]) + "[i]";
    case PieceOperand::Kind::kScalar:
      return OperandText(piece.scalars[operand.index]);
    case PieceOperand::Kind::kNode:
      return "v" + std::to_string(operand.index);
    case PieceOperand::Kind::kConstant:
      return dsl::FormatShortestFloat(operand.constant);
  }
  return "?";
}

std::string PieceText(const NativePiece& piece) {
  std::string out = " native piece '" + piece.name + "': " + std::to_string(piece.nodes.size()) +
                    " nodes, for each item i:\n";
  for (std::size_t k = 0; k < piece.nodes.size(); ++k) {
    const PieceNode& node = piece.nodes[k];
    out += "    v" + std::to_string(k) + " = " + std::string(ir::Info(node.op).name);
    for (std::uint32_t o = 0; o < node.operand_count; ++o) {
      out += (o ? ", " : " ") + PieceOperandText(piece, piece.operands[node.first_operand + o]);
    }
    out += "   ; %" + std::to_string(node.value) + "\n";
  }
  for (const PieceWrite& write : piece.writes) {
    out += "    " + OperandText(write.target) + "[i] = v" + std::to_string(write.node) +
           (write.target.loc == Loc::kOutput ? " (NaN made canonical)" : "") + "\n";
  }
  return out;
}

}  // namespace

std::string Program::Dump() const {
  std::string out = "vm program: " + std::string(IsaName(isa)) + ", block " +
                    std::to_string(block_size) + ", " + std::to_string(registers) + " registers, " +
                    std::to_string(columns) + " columns, " + std::to_string(scalar_init.size()) +
                    " scalars (those not listed start at 0)\n";
  for (std::size_t s = 0; s < scalar_init.size(); ++s) {
    if (scalar_init[s] != 0.0f || std::signbit(scalar_init[s])) {
      out += "  s" + std::to_string(s) + " = " + dsl::FormatShortestFloat(scalar_init[s]) + "\n";
    }
  }
  for (const InputScalar& input : input_scalars) {
    out += "  s" + std::to_string(input.scalar) + " = in" + std::to_string(input.slot) + "\n";
  }
  for (std::size_t p = 0; p < phases.size(); ++p) {
    const Phase& phase = phases[p];
    out += "phase " + std::to_string(p) + "\n";
    for (const AggregateStep& step : phase.aggregates) {
      out += "  aggregate " + std::string(ir::Info(step.op).name) + " " + OperandText(step.result) +
             " = " + OperandText(step.operand) + "   ; %" + std::to_string(step.value) + "\n";
    }
    for (const Instruction& in : phase.scalars) {
      out += "  once" + InstructionText(in, fold_operands).substr(1);
    }
    if (!phase.block.empty()) out += " per block:\n";
    for (const Instruction& in : phase.block) out += "  " + InstructionText(in, fold_operands);
    for (const NativePiece& piece : phase.pieces) out += PieceText(piece);
  }
  for (const UniformOutput& output : uniform_outputs) {
    out +=
        "fill out" + std::to_string(output.output) + " = s" + std::to_string(output.scalar) + "\n";
  }
  return out;
}

}  // namespace calcjit::vm
