#include "dsl/proto_writer.h"

#include <bit>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "dsl/wire_format.h"
#include "dsl/wire_schema.h"
#include "ir/kind.h"
#include "ir/model_format.h"
#include "ir/walk.h"

namespace calcjit::dsl {

namespace {

using ir::OpKind;
using wire::WireType;
namespace field = wire::field;

std::string_view NameOrEmpty(const ir::FeatureSetIr& ir, ir::NameId id) {
  return id == ir::kNone ? std::string_view() : std::string_view(ir.NameOf(id));
}

// The k-th name field of a node's message: Vector's lhs and rhs.
ir::NameId NameField(const ir::Node& node, std::size_t k) {
  return k == 0 ? node.name : node.name2;
}

bool IsExpressionField(ir::FieldType type) {
  return type == ir::FieldType::kOperand || type == ir::FieldType::kOperands;
}

std::size_t LenFieldSize(std::size_t content) {
  return wire::kSmallTagSize + wire::VarintSize(content) + content;
}
std::size_t StringFieldSize(std::string_view text) {
  return text.empty() ? 0 : LenFieldSize(text.size());
}
std::size_t OperatorSize(ir::Op op) {
  const int number = ir::Info(op).proto_number;
  return number == 0 ? 0
                     : wire::kSmallTagSize + wire::VarintSize(static_cast<std::uint64_t>(number));
}

class ProtoWriter {
 public:
  explicit ProtoWriter(const ir::FeatureSetIr& ir) : ir_(ir) {}

  std::string Write() {
    ComputeSizes();
    std::size_t total = 0;
    for (const ir::InputDecl& input : ir_.inputs) total += LenFieldSize(InputSize(input));
    for (const ir::FeatureDef& feature : ir_.features) {
      total += LenFieldSize(FeatureSize(feature));
    }
    for (const ir::ModelDecl& model : ir_.models) total += LenFieldSize(ModelSize(model));
    out_.reserve(total);
    for (const ir::InputDecl& input : ir_.inputs) WriteInput(input);
    for (const ir::FeatureDef& feature : ir_.features) WriteFeature(feature);
    for (const ir::ModelDecl& model : ir_.models) WriteModel(model);
    return std::move(out_);
  }

 private:
  // Operands precede their users, so one pass in id order sees every
  // operand's size before it is needed.
  void ComputeSizes() {
    expression_size_.resize(ir_.nodes.size());
    member_size_.resize(ir_.nodes.size());
    for (std::size_t id = 0; id < ir_.nodes.size(); ++id) {
      const ir::Node& node = ir_.nodes[id];
      const OpKind kind = ir::KindOf(node.op);
      if (kind == OpKind::kConstant) {
        expression_size_[id] = wire::kSmallTagSize + 4;
        continue;
      }
      if (kind == OpKind::kRef) {
        const std::size_t length = NameOrEmpty(ir_, node.name).size();
        expression_size_[id] = LenFieldSize(length);  // a oneof member: even if empty
        continue;
      }
      const ir::KindInfo& info = ir::InfoOf(kind);
      std::size_t member = 0;
      std::size_t names = 0;
      for (std::size_t f = 0; f < info.field_count; ++f) {
        switch (info.fields[f].type) {
          case ir::FieldType::kOperator:
            member += OperatorSize(node.op);
            break;
          case ir::FieldType::kName:
            member += StringFieldSize(NameOrEmpty(ir_, NameField(node, names++)));
            break;
          case ir::FieldType::kOperand:
          case ir::FieldType::kOperands:
            break;  // all operands at once, below
          case ir::FieldType::kWeights:
            if (node.weight_count > 0) member += LenFieldSize(4 * std::size_t{node.weight_count});
            break;
          case ir::FieldType::kIndex:
            if (node.output != 0) member += wire::kSmallTagSize + wire::VarintSize(node.output);
            break;
        }
      }
      for (const ir::NodeId operand : ir_.OperandsOf(node)) {
        member += LenFieldSize(expression_size_[operand]);
      }
      member_size_[id] = member;
      expression_size_[id] = LenFieldSize(member);
    }
  }

  std::size_t InputSize(const ir::InputDecl& input) const {
    std::size_t size = StringFieldSize(NameOrEmpty(ir_, input.name));
    if (input.scope != Scope::kItem) size += wire::kSmallTagSize + 1;
    if (input.dimension != 0) size += wire::kSmallTagSize + wire::VarintSize(input.dimension);
    if (input.default_value) size += wire::kSmallTagSize + 4;
    return size;
  }

  std::size_t FeatureSize(const ir::FeatureDef& feature) const {
    return StringFieldSize(NameOrEmpty(ir_, feature.name)) +
           LenFieldSize(expression_size_[feature.root]);
  }

  std::size_t ModelSize(const ir::ModelDecl& model) const {
    return StringFieldSize(NameOrEmpty(ir_, model.name)) + StringFieldSize(model.path) +
           wire::kSmallTagSize +
           wire::VarintSize(static_cast<std::uint64_t>(ir::ProtoNumberOf(model.format)));
  }

  void WriteModel(const ir::ModelDecl& model) {
    wire::AppendTag(&out_, field::kSetModels, WireType::kLen);
    wire::AppendVarint(&out_, ModelSize(model));
    WriteString(field::kModelName, NameOrEmpty(ir_, model.name));
    WriteString(field::kModelPath, model.path);
    wire::AppendTag(&out_, field::kModelFormat, WireType::kVarint);
    wire::AppendVarint(&out_, static_cast<std::uint64_t>(ir::ProtoNumberOf(model.format)));
  }

  void WriteString(std::uint32_t number, std::string_view text) {
    if (text.empty()) return;
    wire::AppendTag(&out_, number, WireType::kLen);
    wire::AppendVarint(&out_, text.size());
    out_.append(text);
  }

  void WriteInput(const ir::InputDecl& input) {
    wire::AppendTag(&out_, field::kSetInputs, WireType::kLen);
    wire::AppendVarint(&out_, InputSize(input));
    WriteString(field::kInputName, NameOrEmpty(ir_, input.name));
    if (input.scope != Scope::kItem) {
      wire::AppendTag(&out_, field::kInputScope, WireType::kVarint);
      wire::AppendVarint(&out_, static_cast<std::uint64_t>(input.scope));
    }
    if (input.dimension != 0) {
      wire::AppendTag(&out_, field::kInputDimension, WireType::kVarint);
      wire::AppendVarint(&out_, input.dimension);
    }
    if (input.default_value) {
      wire::AppendTag(&out_, field::kInputDefault, WireType::kFixed32);
      wire::AppendFixed32(&out_, std::bit_cast<std::uint32_t>(*input.default_value));
    }
  }

  void WriteFeature(const ir::FeatureDef& feature) {
    wire::AppendTag(&out_, field::kSetFeatures, WireType::kLen);
    wire::AppendVarint(&out_, FeatureSize(feature));
    WriteString(field::kFeatureName, NameOrEmpty(ir_, feature.name));
    wire::AppendTag(&out_, field::kFeatureExpression, WireType::kLen);
    wire::AppendVarint(&out_, expression_size_[feature.root]);
    walker_.Walk(ir_, feature.root, *this);
  }

  // The hooks of ir::ExpressionWalker. An Expression is written from its
  // head (a leaf whole; of a message, its tag, length and the fields before
  // its operands) in Enter, after the tag and length of the parent's field
  // that holds it; its tail (the fields after the operands) in Leave.
  friend class ir::ExpressionWalker;
  void Enter(ir::NodeId id, ir::WalkPlace place) {
    if (!place.is_root()) {
      const ir::Node& parent = ir_.nodes[place.parent];
      wire::AppendTag(&out_, ir::OperandFieldOf(ir::KindOf(parent.op), place.index)->number,
                      WireType::kLen);
      wire::AppendVarint(&out_, expression_size_[id]);
    }
    WriteHead(id);
  }
  void Between(ir::NodeId /*id*/, std::uint32_t /*index*/) {}
  void Leave(ir::NodeId id, ir::WalkPlace /*place*/) { WriteFields(id, /*after_operands=*/true); }

  void WriteHead(ir::NodeId id) {
    const ir::Node& node = ir_.nodes[id];
    const OpKind kind = ir::KindOf(node.op);
    if (kind == OpKind::kConstant) {
      wire::AppendTag(&out_, field::kExprConstant, WireType::kFixed32);
      wire::AppendFixed32(&out_, std::bit_cast<std::uint32_t>(node.constant));
      return;
    }
    if (kind == OpKind::kRef) {
      const std::string_view name = NameOrEmpty(ir_, node.name);
      wire::AppendTag(&out_, field::kExprFeature, WireType::kLen);
      wire::AppendVarint(&out_, name.size());
      out_.append(name);
      return;
    }
    wire::AppendTag(&out_, ir::InfoOf(kind).member, WireType::kLen);
    wire::AppendVarint(&out_, member_size_[id]);
    WriteFields(id, /*after_operands=*/false);
  }

  // The fields of a node's message that are not operands and are set
  // (proto3 leaves out the defaults): those before its operands, or those
  // after them.
  void WriteFields(ir::NodeId id, bool after_operands) {
    const ir::Node& node = ir_.nodes[id];
    const ir::KindInfo& info = ir::InfoOf(ir::KindOf(node.op));
    bool past_operands = false;
    std::size_t names = 0;
    for (std::size_t f = 0; f < info.field_count; ++f) {
      const ir::MessageField& message_field = info.fields[f];
      if (IsExpressionField(message_field.type)) {
        past_operands = true;
        continue;
      }
      const bool write = past_operands == after_operands;
      switch (message_field.type) {
        case ir::FieldType::kOperator:
          if (!write) break;
          wire::AppendTag(&out_, message_field.number, WireType::kVarint);
          wire::AppendVarint(&out_, static_cast<std::uint64_t>(ir::Info(node.op).proto_number));
          break;
        case ir::FieldType::kName: {
          const std::string_view name = NameOrEmpty(ir_, NameField(node, names++));
          if (write) WriteString(message_field.number, name);
          break;
        }
        case ir::FieldType::kWeights:
          if (!write || node.weight_count == 0) break;
          wire::AppendTag(&out_, message_field.number, WireType::kLen);
          wire::AppendVarint(&out_, 4 * std::size_t{node.weight_count});
          for (const float weight : ir_.WeightsOf(node)) {
            wire::AppendFixed32(&out_, std::bit_cast<std::uint32_t>(weight));
          }
          break;
        case ir::FieldType::kIndex:
          if (!write || node.output == 0) break;
          wire::AppendTag(&out_, message_field.number, WireType::kVarint);
          wire::AppendVarint(&out_, node.output);
          break;
        case ir::FieldType::kOperand:
        case ir::FieldType::kOperands:
          break;
      }
    }
  }

  ir::ExpressionWalker walker_;
  const ir::FeatureSetIr& ir_;
  std::vector<std::size_t> expression_size_;  // the Expression message of each node
  std::vector<std::size_t> member_size_;      // its Unary/Binary/... message
  std::string out_;
};

}  // namespace

std::string WriteProto(const ir::FeatureSetIr& ir) {
  return ProtoWriter(ir).Write();
}

}  // namespace calcjit::dsl
