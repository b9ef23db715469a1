#include "dsl/json_writer.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "dsl/float_text.h"
#include "dsl/wire_format.h"
#include "ir/kind.h"
#include "ir/model_format.h"
#include "ir/op.h"
#include "ir/walk.h"

namespace calcjit::dsl {

namespace {

using ir::OpKind;

void AppendEscaped(std::string* out, std::string_view text) {
  constexpr char kHex[] = "0123456789abcdef";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        *out += "\\\"";
        break;
      case '\\':
        *out += "\\\\";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\r':
        *out += "\\r";
        break;
      case '\t':
        *out += "\\t";
        break;
      case '\b':
        *out += "\\b";
        break;
      case '\f':
        *out += "\\f";
        break;
      default:
        if (byte < 0x20) {
          *out += "\\u00";
          *out += kHex[byte >> 4];
          *out += kHex[byte & 0xF];
        } else {
          *out += c;
        }
    }
  }
}

void AppendString(std::string* out, std::string_view text) {
  *out += '"';
  while (!text.empty()) {
    const std::optional<std::size_t> bad = wire::FindInvalidUtf8(text);
    AppendEscaped(out, text.substr(0, bad.value_or(text.size())));
    if (!bad) break;
    *out += "\\ufffd";
    text.remove_prefix(*bad + 1);
  }
  *out += '"';
}

// The shortest text that reads back to `value` (FormatShortestFloat). JSON
// readers, ours and protobuf's, read a float as decimal -> nearest double ->
// float; should that double rounding ever miss `value` for its shortest
// text, the shortest text of the exact double value is written instead,
// which reads back exactly.
void AppendFloat(std::string* out, float value) {
  if (std::isnan(value)) {
    *out += "\"NaN\"";
    return;
  }
  if (std::isinf(value)) {
    *out += value > 0 ? "\"Infinity\"" : "\"-Infinity\"";
    return;
  }
  const std::string text = FormatShortestFloat(value);
  double read = 0.0;
  const auto parsed = std::from_chars(text.data(), text.data() + text.size(), read);
  if (parsed.ec == std::errc() && std::bit_cast<std::uint32_t>(static_cast<float>(read)) ==
                                      std::bit_cast<std::uint32_t>(value)) {
    *out += text;
    return;
  }
  char buffer[32];
  const auto written = std::to_chars(buffer, buffer + sizeof(buffer), static_cast<double>(value));
  out->append(buffer, written.ptr);
}

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

class JsonWriter {
 public:
  explicit JsonWriter(const ir::FeatureSetIr& ir) : ir_(ir) {}

  std::string Write() {
    out_ += '{';
    if (!ir_.inputs.empty()) {
      out_ += "\n  \"inputs\": [";
      for (std::size_t i = 0; i < ir_.inputs.size(); ++i) {
        out_ += i == 0 ? "\n    " : ",\n    ";
        WriteInput(ir_.inputs[i]);
      }
      out_ += "\n  ]";
    }
    if (!ir_.features.empty()) {
      out_ += ir_.inputs.empty() ? "\n" : ",\n";
      out_ += "  \"features\": [";
      for (std::size_t i = 0; i < ir_.features.size(); ++i) {
        out_ += i == 0 ? "\n    " : ",\n    ";
        WriteFeature(ir_.features[i]);
      }
      out_ += "\n  ]";
    }
    if (!ir_.models.empty()) {
      out_ += ir_.inputs.empty() && ir_.features.empty() ? "\n" : ",\n";
      out_ += "  \"models\": [";
      for (std::size_t i = 0; i < ir_.models.size(); ++i) {
        out_ += i == 0 ? "\n    " : ",\n    ";
        WriteModel(ir_.models[i]);
      }
      out_ += "\n  ]";
    }
    const bool empty = ir_.inputs.empty() && ir_.features.empty() && ir_.models.empty();
    out_ += empty ? "}\n" : "\n}\n";
    return std::move(out_);
  }

 private:
  void WriteInput(const ir::InputDecl& input) {
    out_ += '{';
    bool first = true;
    auto next_field = [&](std::string_view name) {
      if (!first) out_ += ", ";
      first = false;
      out_ += '"';
      out_ += name;
      out_ += "\": ";
    };
    if (const std::string_view name = NameOrEmpty(ir_, input.name); !name.empty()) {
      next_field("name");
      AppendString(&out_, name);
    }
    if (input.scope == Scope::kQuery) {
      next_field("scope");
      out_ += "\"SCOPE_QUERY\"";
    }
    if (input.dimension != 0) {
      next_field("dimension");
      out_ += std::to_string(input.dimension);
    }
    if (input.default_value) {
      next_field("default_value");
      AppendFloat(&out_, *input.default_value);
    }
    out_ += '}';
  }

  void WriteModel(const ir::ModelDecl& model) {
    out_ += '{';
    if (const std::string_view name = NameOrEmpty(ir_, model.name); !name.empty()) {
      out_ += "\"name\": ";
      AppendString(&out_, name);
      out_ += ", ";
    }
    if (!model.path.empty()) {
      out_ += "\"path\": ";
      AppendString(&out_, model.path);
      out_ += ", ";
    }
    out_ += "\"format\": \"FORMAT_";
    out_ += ir::InfoOf(model.format).proto_name;
    out_ += "\"}";
  }

  void WriteFeature(const ir::FeatureDef& feature) {
    out_ += '{';
    if (const std::string_view name = NameOrEmpty(ir_, feature.name); !name.empty()) {
      out_ += "\"name\": ";
      AppendString(&out_, name);
      out_ += ", ";
    }
    out_ += "\"expression\": ";
    walker_.Walk(ir_, feature.root, *this);
    out_ += '}';
  }

  // The hooks of ir::ExpressionWalker. An Expression is written from its
  // head (a leaf whole; of a message, the fields before its operands) in
  // Enter, after the field of the parent that holds it; its tail (the
  // fields after the operands) in Leave.
  friend class ir::ExpressionWalker;
  void Enter(ir::NodeId id, ir::WalkPlace place) {
    if (!place.is_root()) WriteOperandKey(ir_.nodes[place.parent], place.index);
    WriteHead(ir_.nodes[id]);
  }
  void Between(ir::NodeId /*id*/, std::uint32_t /*index*/) {}
  void Leave(ir::NodeId id, ir::WalkPlace /*place*/) {
    const ir::Node& node = ir_.nodes[id];
    if (ir::InfoOf(ir::KindOf(node.op)).message.empty()) return;  // a leaf: written whole
    WriteTail(node);
  }

  void WriteHead(const ir::Node& node) {
    const ir::OpKind kind = ir::KindOf(node.op);
    if (kind == OpKind::kConstant) {
      out_ += "{\"constant\": ";
      AppendFloat(&out_, node.constant);
      out_ += '}';
      return;
    }
    if (kind == OpKind::kRef) {
      out_ += "{\"feature\": ";
      AppendString(&out_, NameOrEmpty(ir_, node.name));
      out_ += '}';
      return;
    }
    const ir::KindInfo& info = ir::InfoOf(kind);
    out_ += "{\"";
    out_ += info.member_name;
    out_ += "\": {";
    wrote_field_.push_back(false);
    std::size_t names = 0;
    for (std::size_t f = 0; f < info.field_count && !IsExpressionField(info.fields[f].type); ++f) {
      WriteScalarField(node, info.fields[f], &names);
    }
  }

  // Writes what comes before operand `index` of `node`: its field's key, or
  // for a repeated field the list's opening or a separator.
  void WriteOperandKey(const ir::Node& node, std::uint32_t index) {
    const ir::MessageField& field = *ir::OperandFieldOf(ir::KindOf(node.op), index);
    if (field.type == ir::FieldType::kOperands && index > 0) {
      out_ += ", ";
      return;
    }
    NextField(field.name);
    if (field.type == ir::FieldType::kOperands) out_ += '[';
  }

  void WriteTail(const ir::Node& node) {
    const ir::KindInfo& info = ir::InfoOf(ir::KindOf(node.op));
    std::size_t f = 0;
    while (f < info.field_count && !IsExpressionField(info.fields[f].type)) ++f;
    std::size_t names = 0;
    for (std::size_t g = 0; g < f; ++g) names += info.fields[g].type == ir::FieldType::kName;
    for (; f < info.field_count; ++f) {
      const ir::MessageField& field = info.fields[f];
      if (field.type == ir::FieldType::kOperands && node.operand_count > 0) out_ += ']';
      if (!IsExpressionField(field.type)) WriteScalarField(node, field, &names);
    }
    wrote_field_.pop_back();
    out_ += "}}";
  }

  // A field that is not an operand, if it is set (proto3 leaves out the
  // defaults). `names` counts the name fields written so far.
  void WriteScalarField(const ir::Node& node, const ir::MessageField& field, std::size_t* names) {
    switch (field.type) {
      case ir::FieldType::kOperator:
        NextField(field.name);
        out_ += "\"OPERATOR_";
        out_ += ir::Info(node.op).proto_name;
        out_ += '"';
        return;
      case ir::FieldType::kName:
        if (const std::string_view text = NameOrEmpty(ir_, NameField(node, (*names)++));
            !text.empty()) {
          NextField(field.name);
          AppendString(&out_, text);
        }
        return;
      case ir::FieldType::kWeights:
        if (node.weight_count == 0) return;
        NextField(field.name);
        out_ += '[';
        for (std::size_t i = 0; i < node.weight_count; ++i) {
          if (i > 0) out_ += ", ";
          AppendFloat(&out_, ir_.WeightsOf(node)[i]);
        }
        out_ += ']';
        return;
      case ir::FieldType::kIndex:
        if (node.output == 0) return;
        NextField(field.name);
        out_ += std::to_string(node.output);
        return;
      case ir::FieldType::kOperand:
      case ir::FieldType::kOperands:
        return;
    }
  }

  // The key of the next field of the innermost open message.
  void NextField(std::string_view name) {
    if (wrote_field_.back()) out_ += ", ";
    wrote_field_.back() = true;
    out_ += '"';
    out_ += name;
    out_ += "\": ";
  }

  ir::ExpressionWalker walker_;
  // Per open message (innermost last): whether a field has been written.
  std::vector<bool> wrote_field_;
  const ir::FeatureSetIr& ir_;
  std::string out_;
};

}  // namespace

std::string WriteJson(const ir::FeatureSetIr& ir) {
  return JsonWriter(ir).Write();
}

}  // namespace calcjit::dsl
