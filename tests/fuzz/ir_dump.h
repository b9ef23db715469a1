// A canonical rendering of an IR for the fuzz targets' round-trip checks:
// one line per input, model, definition and node, names spelled out, floats
// as bits. Two IRs are structurally equal iff their dumps are (every reader
// lays nodes out in the same post-order, so node ids compare too); text
// positions are left out.
//
// `Fold` states what a format cannot carry, so that a round trip through it
// is compared on what it can:
//  - the text syntax and JSON spell every NaN "nan"/"NaN" (spec section 1: a
//    NaN's sign and payload are not observable), so kNanIsNan renders every
//    NaN as "nan";
//  - the text syntax writes a two-operand Nary MIN/MAX as min(a, b), which
//    reads back as Binary MIN/MAX (the one documented normalization of the
//    printer), so kTwoOperandMinMax renders those Nary nodes as the Binary.
#ifndef CALCJIT_TESTS_FUZZ_IR_DUMP_H_
#define CALCJIT_TESTS_FUZZ_IR_DUMP_H_

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "ir/feature_set_ir.h"
#include "ir/op.h"

namespace calcjit::fuzz {

enum Fold : unsigned { kExact = 0, kNanIsNan = 1, kTwoOperandMinMax = 2 };

inline std::string FloatText(float value, unsigned fold) {
  if ((fold & kNanIsNan) && std::isnan(value)) return "nan";
  char buffer[16];
  std::snprintf(buffer, sizeof(buffer), "%08X", std::bit_cast<std::uint32_t>(value));
  return buffer;
}

inline std::string NameText(const ir::FeatureSetIr& ir, ir::NameId id) {
  if (id == ir::kNone) return "<none>";
  const std::string& name = ir.NameOf(id);
  return std::to_string(name.size()) + ":" + name;  // length first: any bytes are unambiguous
}

inline std::string DumpIr(const ir::FeatureSetIr& ir, unsigned fold) {
  std::string out;
  for (const ir::InputDecl& input : ir.inputs) {
    out += "input " + NameText(ir, input.name) +
           " scope=" + std::to_string(static_cast<int>(input.scope)) +
           " dim=" + std::to_string(input.dimension) +
           " default=" + (input.default_value ? FloatText(*input.default_value, fold) : "none") +
           "\n";
  }
  for (const ir::ModelDecl& model : ir.models) {
    out += "model " + NameText(ir, model.name) + " path=" + std::to_string(model.path.size()) +
           ":" + model.path + " format=" + std::to_string(static_cast<int>(model.format)) + "\n";
  }
  for (const ir::FeatureDef& feature : ir.features) {
    out += "feature " + NameText(ir, feature.name) +
           " nodes=" + std::to_string(feature.first_node) + ".." + std::to_string(feature.root) +
           "\n";
  }
  for (std::size_t id = 0; id < ir.nodes.size(); ++id) {
    const ir::Node& node = ir.nodes[id];
    ir::Op op = node.op;
    if ((fold & kTwoOperandMinMax) && node.operand_count == 2) {
      if (op == ir::Op::kNaryMin) op = ir::Op::kMin;
      if (op == ir::Op::kNaryMax) op = ir::Op::kMax;
    }
    out += std::to_string(id) + ": " + std::string(ir::Info(op).name);
    switch (ir::KindOf(op)) {
      case ir::OpKind::kConstant:
        out += " " + FloatText(node.constant, fold);
        break;
      case ir::OpKind::kRef:
        out += " " + NameText(ir, node.name);
        break;
      case ir::OpKind::kVector:
        out += " " + NameText(ir, node.name) + " " + NameText(ir, node.name2);
        break;
      case ir::OpKind::kModel:
        out += " " + NameText(ir, node.name) + " [" + std::to_string(node.output) + "]";
        break;
      default:
        break;
    }
    for (const ir::NodeId operand : ir.OperandsOf(node)) out += " #" + std::to_string(operand);
    if (node.weight_count > 0) {
      out += " w=";
      for (const float weight : ir.WeightsOf(node)) out += FloatText(weight, fold) + ",";
    }
    out += "\n";
  }
  return out;
}

}  // namespace calcjit::fuzz

#endif  // CALCJIT_TESTS_FUZZ_IR_DUMP_H_
