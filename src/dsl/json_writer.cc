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
#include "ir/op.h"

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

void AppendOperator(std::string* out, ir::Op op) {
  *out += "\"operator\": \"OPERATOR_";
  *out += ir::Info(op).proto_name;
  *out += '"';
}

std::string_view NameOrEmpty(const ir::FeatureSetIr& ir, ir::NameId id) {
  return id == ir::kNone ? std::string_view() : std::string_view(ir.NameOf(id));
}

bool HasOperands(OpKind kind) {
  return ir::FixedArity(kind) != 0;
}

// The field of a fixed-arity kind's message that holds operand `index`.
std::string_view OperandKey(OpKind kind, std::uint32_t index) {
  switch (kind) {
    case OpKind::kBinary:
      return index == 0 ? "lhs" : "rhs";
    case OpKind::kConditional:
      return index == 0 ? "condition" : (index == 1 ? "then" : "otherwise");
    default:
      return "operand";  // Unary, Aggregate
  }
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
    out_ += ir_.inputs.empty() && ir_.features.empty() ? "}\n" : "\n}\n";
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

  void WriteFeature(const ir::FeatureDef& feature) {
    out_ += '{';
    if (const std::string_view name = NameOrEmpty(ir_, feature.name); !name.empty()) {
      out_ += "\"name\": ";
      AppendString(&out_, name);
      out_ += ", ";
    }
    out_ += "\"expression\": ";
    WriteExpression(feature.root);
    out_ += '}';
  }

  // Writes a leaf or Vector whole; of the others, the opening up to the
  // first operand.
  void WriteHead(ir::NodeId id) {
    const ir::Node& node = ir_.nodes[id];
    const OpKind kind = ir::KindOf(node.op);
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
    out_ += "{\"";
    out_ += ir::ExpressionFieldName(kind);
    out_ += "\": {";
    if (kind != OpKind::kConditional) AppendOperator(&out_, node.op);
    if (kind == OpKind::kVector) {
      for (const auto& [field, name] :
           {std::pair{"lhs", node.name}, std::pair{"rhs", node.name2}}) {
        if (const std::string_view text = NameOrEmpty(ir_, name); !text.empty()) {
          out_ += ", \"";
          out_ += field;
          out_ += "\": ";
          AppendString(&out_, text);
        }
      }
      out_ += "}}";
    }
  }

  // Writes what comes before operand `index` of `node`.
  void WriteOperandKey(const ir::Node& node, std::uint32_t index) {
    const OpKind kind = ir::KindOf(node.op);
    const bool after_a_field = index > 0 || kind != OpKind::kConditional;
    if (kind == OpKind::kNary) {
      out_ += index == 0 ? ", \"operands\": [" : ", ";
      return;
    }
    if (after_a_field) out_ += ", ";
    out_ += '"';
    out_ += OperandKey(kind, index);
    out_ += "\": ";
  }

  void WriteTail(const ir::Node& node) {
    if (ir::KindOf(node.op) == OpKind::kNary) {
      if (node.operand_count > 0) out_ += ']';
      if (node.weight_count > 0) {
        out_ += ", \"weights\": [";
        bool first = true;
        for (const float weight : ir_.WeightsOf(node)) {
          if (!first) out_ += ", ";
          first = false;
          AppendFloat(&out_, weight);
        }
        out_ += ']';
      }
    }
    out_ += "}}";
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
        WriteTail(node);
        stack.pop_back();
        continue;
      }
      ++stack.back().second;
      const ir::NodeId child = ir_.OperandsOf(node)[done];
      WriteOperandKey(node, done);
      WriteHead(child);
      if (HasOperands(ir::KindOf(ir_.nodes[child].op))) stack.emplace_back(child, 0);
    }
  }

  const ir::FeatureSetIr& ir_;
  std::string out_;
};

}  // namespace

std::string WriteJson(const ir::FeatureSetIr& ir) {
  return JsonWriter(ir).Write();
}

}  // namespace calcjit::dsl
