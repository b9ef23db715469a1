#include "dsl/proto_writer.h"

#include <bit>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "dsl/wire_format.h"
#include "dsl/wire_schema.h"

namespace calcjit::dsl {

namespace {

using ir::OpKind;
using wire::WireType;
namespace field = wire::field;

std::string_view NameOrEmpty(const ir::FeatureSetIr& ir, ir::NameId id) {
  return id == ir::kNone ? std::string_view() : std::string_view(ir.NameOf(id));
}

// The Expression.kind field that holds a node of this kind.
std::uint32_t ExpressionField(OpKind kind) {
  switch (kind) {
    case OpKind::kConstant:
      return field::kExprConstant;
    case OpKind::kRef:
      return field::kExprFeature;
    case OpKind::kUnary:
      return field::kExprUnary;
    case OpKind::kBinary:
      return field::kExprBinary;
    case OpKind::kConditional:
      return field::kExprConditional;
    case OpKind::kVector:
      return field::kExprVector;
    case OpKind::kNary:
      return field::kExprNary;
    case OpKind::kAggregate:
      return field::kExprAggregate;
  }
  return 0;
}

// The field of the kind's message that holds operand `index`.
std::uint32_t OperandFieldNumber(OpKind kind, std::size_t index) {
  switch (kind) {
    case OpKind::kConditional:
      return field::kConditionalFirst + static_cast<std::uint32_t>(index);
    case OpKind::kBinary:
      return field::kFirstOperand + static_cast<std::uint32_t>(index);
    default:
      return field::kFirstOperand;  // Unary, Aggregate; Nary repeats it
  }
}

bool HasOperands(OpKind kind) {
  return ir::FixedArity(kind) != 0;
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
    out_.reserve(total);
    for (const ir::InputDecl& input : ir_.inputs) WriteInput(input);
    for (const ir::FeatureDef& feature : ir_.features) WriteFeature(feature);
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
      std::size_t member = 0;
      switch (kind) {
        case OpKind::kConstant:
          expression_size_[id] = wire::kSmallTagSize + 4;
          continue;
        case OpKind::kRef: {
          const std::size_t length = NameOrEmpty(ir_, node.name).size();
          expression_size_[id] = LenFieldSize(length);  // a oneof member: even if empty
          continue;
        }
        case OpKind::kVector:
          member = OperatorSize(node.op) + StringFieldSize(NameOrEmpty(ir_, node.name)) +
                   StringFieldSize(NameOrEmpty(ir_, node.name2));
          break;
        case OpKind::kUnary:
        case OpKind::kBinary:
        case OpKind::kConditional:
        case OpKind::kNary:
        case OpKind::kAggregate:
          member = OperatorSize(node.op);
          for (const ir::NodeId operand : ir_.OperandsOf(node)) {
            member += LenFieldSize(expression_size_[operand]);
          }
          if (node.weight_count > 0) member += LenFieldSize(4 * std::size_t{node.weight_count});
          break;
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
    WriteExpression(feature.root);
  }

  // Writes the contents of the Expression `id` up to its first operand:
  // the whole of a leaf or Vector, the member's tag, length and operator of
  // the others.
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
    wire::AppendTag(&out_, ExpressionField(kind), WireType::kLen);
    wire::AppendVarint(&out_, member_size_[id]);
    if (const int number = ir::Info(node.op).proto_number; number != 0) {
      wire::AppendTag(&out_, field::kOperator, WireType::kVarint);
      wire::AppendVarint(&out_, static_cast<std::uint64_t>(number));
    }
    if (kind == OpKind::kVector) {
      WriteString(field::kVectorLhs, NameOrEmpty(ir_, node.name));
      WriteString(field::kVectorRhs, NameOrEmpty(ir_, node.name2));
    }
  }

  // Fields after the operands: Nary weights, packed.
  void WriteTail(ir::NodeId id) {
    const ir::Node& node = ir_.nodes[id];
    if (node.weight_count == 0) return;
    wire::AppendTag(&out_, field::kNaryWeights, WireType::kLen);
    wire::AppendVarint(&out_, 4 * std::size_t{node.weight_count});
    for (const float weight : ir_.WeightsOf(node)) {
      wire::AppendFixed32(&out_, std::bit_cast<std::uint32_t>(weight));
    }
  }

  void WriteExpression(ir::NodeId root) {
    // (node, operands written so far), for nodes whose operands are open.
    std::vector<std::pair<ir::NodeId, std::uint32_t>> stack;
    WriteHead(root);
    if (HasOperands(ir::KindOf(ir_.nodes[root].op))) stack.emplace_back(root, 0);
    while (!stack.empty()) {
      const auto [id, done] = stack.back();
      const ir::Node& node = ir_.nodes[id];
      if (done == node.operand_count) {
        WriteTail(id);
        stack.pop_back();
        continue;
      }
      ++stack.back().second;
      const ir::NodeId child = ir_.OperandsOf(node)[done];
      wire::AppendTag(&out_, OperandFieldNumber(ir::KindOf(node.op), done), WireType::kLen);
      wire::AppendVarint(&out_, expression_size_[child]);
      WriteHead(child);
      if (HasOperands(ir::KindOf(ir_.nodes[child].op))) stack.emplace_back(child, 0);
    }
  }

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
