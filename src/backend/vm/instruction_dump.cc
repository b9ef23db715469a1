// RegionInstructions::Dump: a region's VM code as text, for `calcjit dump
// --program` and the golden tests.
#include <charconv>
#include <cmath>
#include <string>

#include "backend/vm/instructions.h"

namespace calcjit::vm {

namespace {

std::string OperandText(const Operand& operand, const std::vector<float>& constants) {
  const std::string index = std::to_string(operand.index);
  switch (operand.loc) {
    case Loc::kRegister:
      return "r" + index;
    case Loc::kRead:
      return "read" + index;
    case Loc::kWrite:
      return "write" + index;
    case Loc::kScalar:
      return "scalar" + index;
    case Loc::kConstant: {
      const float value = constants[operand.index];
      if (std::isnan(value)) return "nan";
      char buffer[32];
      return std::string(buffer, std::to_chars(buffer, buffer + sizeof buffer, value).ptr);
    }
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
    case Form::kStore:
      return "store";
    case Form::kFold:
      return "fold";
  }
  return "?";
}

}  // namespace

std::string RegionInstructions::Dump() const {
  auto text = [&](const Operand& operand) { return OperandText(operand, constants); };
  std::string out = "    vm: " + std::to_string(registers) + " registers, per block:\n";
  for (const Instruction& in : instructions) {
    std::string line = "      " + FormText(in.form);
    if (in.form == Form::kStore) {
      out += line + " " + text(in.out) + " = " + text(in.a) + "\n";
      continue;
    }
    if (in.form != Form::kFill && in.form != Form::kMulAdd) {
      line += " " + std::string(ir::Info(in.op).name);
    }
    line += " " + text(in.out) + " =";
    if (in.form == Form::kFold) {
      for (std::uint32_t t = 0; t < in.count; ++t) {
        line += (t ? ", " : " ") + text(fold_operands[in.first + t]);
      }
    } else if (in.form == Form::kMulAdd) {
      line += " " + text(in.a) + " + " + text(in.c) + " * " + text(in.b);
    } else {
      bool first = true;
      for (const Operand* operand : {&in.c, &in.a, &in.b}) {
        if (operand->loc == Loc::kNone) continue;
        line += (first ? " " : ", ") + text(*operand);
        first = false;
      }
    }
    out += line + "   ; %" + std::to_string(in.value) + "\n";
  }
  return out;
}

}  // namespace calcjit::vm
