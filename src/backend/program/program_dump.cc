// Program::Dump: the shared program as text, for `calcjit dump --program`,
// the golden tests and people reading what the scheduler made of a set.
#include <charconv>
#include <cmath>
#include <string>

#include "backend/program/program.h"

namespace calcjit::program {

namespace {

// The shortest decimal that reads back to the same float32.
std::string FloatText(float value) {
  if (std::isnan(value)) return "nan";
  char buffer[32];
  return std::string(buffer, std::to_chars(buffer, buffer + sizeof buffer, value).ptr);
}

std::string OperandText(const Operand& operand) {
  const std::string index = std::to_string(operand.index);
  switch (operand.loc) {
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

std::string OpName(ir::Op op) {
  return std::string(ir::Info(op).name);
}

std::string StepText(const ColumnStep& step) {
  std::string text = "  step " + OpName(step.op) + " " + OperandText(step.result) + " = ";
  if (ir::KindOf(step.op) == ir::OpKind::kVector) {
    text += "in" + std::to_string(step.input);
    if (step.input2 != kNoInput) text += ", in" + std::to_string(step.input2);
  } else {
    text += OperandText(step.operand);
    if (ir::TakesBound(step.op)) text += ", bound " + FloatText(step.bound);
  }
  return text + "   ; %" + std::to_string(step.value) + "\n";
}

// One line for the shared pass, one per member.
std::string StatisticsText(const StatisticsStep& step) {
  bool with_std = false;
  for (const ColumnStep& member : step.members) {
    with_std = with_std || (ir::StatisticsOf(member.op) & ir::kStatisticStd) != 0;
  }
  std::string text = "  statistics of " + OperandText(step.operand) + ": one pass" +
                     (with_std ? " and the deviations" : "") + "\n";
  for (const ColumnStep& member : step.members) {
    text += "    " + OpName(member.op) + " " + OperandText(member.result) + "   ; %" +
            std::to_string(member.value) + "\n";
  }
  return text;
}

std::string ModelText(const Program& program, const ModelStep& step) {
  std::string text = "  model '" + program.model_names[step.model] + "'";
  text += step.uniform ? " once" : "";
  text += " [";
  for (std::size_t k = 0; k < step.outputs.size(); ++k) {
    text += (k ? ", " : "") + OperandText(step.outputs[k]);
  }
  text += "] =";
  for (std::size_t j = 0; j < step.features.size(); ++j) {
    text += (j ? ", " : " ") + OperandText(step.features[j]);
  }
  return text + "   ; %" + std::to_string(step.value) + "\n";
}

std::string ScalarText(const ScalarStep& step) {
  std::string text = "  once " + OpName(step.op) + " " + OperandText(step.result) + " =";
  bool first = true;
  for (const Operand* operand : {&step.c, &step.a, &step.b}) {
    if (operand->loc == Loc::kNone) continue;
    text += (first ? " " : ", ") + OperandText(*operand);
    first = false;
  }
  return text + "   ; %" + std::to_string(step.value) + "\n";
}

std::string RegionOperandText(const Region& region, const RegionOperand& operand) {
  switch (operand.kind) {
    case RegionOperand::Kind::kRead:
      return OperandText(region.reads[operand.index]) + "[i]";
    case RegionOperand::Kind::kScalar:
      return OperandText(region.scalars[operand.index]);
    case RegionOperand::Kind::kNode:
      return "v" + std::to_string(operand.index);
    case RegionOperand::Kind::kConstant:
      return FloatText(operand.constant);
  }
  return "?";
}

std::string RegionText(const Region& region) {
  std::string out = "  region '" + region.name + "': " + std::to_string(region.nodes.size()) +
                    " nodes, for each item i:\n";
  for (std::uint32_t k = 0; k < region.nodes.size(); ++k) {
    const RegionNode& node = region.nodes[k];
    out += "    v" + std::to_string(k) + " = " + OpName(node.op);
    const char* separator = " ";
    for (const RegionOperand& operand : region.OperandsOf(k)) {
      out += separator + RegionOperandText(region, operand);
      separator = ", ";
    }
    out += "   ; %" + std::to_string(node.value) + "\n";
  }
  for (const RegionWrite& write : region.writes) {
    out += "    " + OperandText(write.target) + "[i] = v" + std::to_string(write.node) +
           (write.target.loc == Loc::kOutput ? " (NaN made canonical)" : "") + "\n";
  }
  return out;
}

}  // namespace

std::string Program::Dump() const {
  std::string out = "program: " + std::to_string(phases.size()) + " phases, " +
                    std::to_string(columns) + " columns, " + std::to_string(scalar_init.size()) +
                    " scalars (those not listed start at 0)\n";
  for (std::size_t s = 0; s < scalar_init.size(); ++s) {
    if (scalar_init[s] != 0.0f || std::signbit(scalar_init[s])) {
      out += "  s" + std::to_string(s) + " = " + FloatText(scalar_init[s]) + "\n";
    }
  }
  for (const InputScalar& input : input_scalars) {
    out += "  s" + std::to_string(input.scalar) + " = in" + std::to_string(input.slot) + "\n";
  }
  for (std::size_t p = 0; p < phases.size(); ++p) {
    const Phase& phase = phases[p];
    out += "phase " + std::to_string(p) + "\n";
    for (const ColumnStep& step : phase.steps) out += StepText(step);
    for (const StatisticsStep& step : phase.statistics) out += StatisticsText(step);
    for (const ModelStep& step : phase.models) out += ModelText(*this, step);
    for (const ScalarStep& step : phase.scalars) out += ScalarText(step);
    for (const Region& region : phase.regions) out += RegionText(region);
    for (const Store& store : phase.stores) {
      out += "  store out" + std::to_string(store.output) + " = " + OperandText(store.value) +
             " (NaN made canonical)\n";
    }
  }
  for (const UniformOutput& output : uniform_outputs) {
    out +=
        "fill out" + std::to_string(output.output) + " = s" + std::to_string(output.scalar) + "\n";
  }
  return out;
}

}  // namespace calcjit::program
