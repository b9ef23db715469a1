#include "dsl/json_reader.h"

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "dsl/expression_reader.h"
#include "dsl/json_dom.h"
#include "dsl/json_scalars.h"
#include "dsl/model_declarations.h"
#include "ir/builder.h"
#include "ir/kind.h"
#include "ir/model_format.h"
#include "ir/op.h"

namespace calcjit::dsl {

namespace {

constexpr std::uint32_t kAbsent = ExprRef::kAbsent;

// A field as JSON may spell it: the original name or lowerCamelCase.
struct FieldName {
  std::string_view name;
  std::string_view camel;
};

constexpr FieldName kSetFields[] = {
    {"inputs", "inputs"}, {"features", "features"}, {"models", "models"}};
constexpr FieldName kInputFields[] = {{"name", "name"},
                                      {"scope", "scope"},
                                      {"dimension", "dimension"},
                                      {"default_value", "defaultValue"}};
constexpr FieldName kFeatureFields[] = {{"name", "name"}, {"expression", "expression"}};
constexpr FieldName kModelFields[] = {{"name", "name"}, {"path", "path"}, {"format", "format"}};
// The members of Expression.kind, in field-number order (index + 1 is the
// member's number), from the kind table (ir/kind.h).
constexpr std::uint32_t kExpressionMembers = ir::LastMember();
constexpr std::array<FieldName, kExpressionMembers> ExpressionFields() {
  std::array<FieldName, kExpressionMembers> fields{};
  for (std::uint32_t m = 0; m < kExpressionMembers; ++m) {
    if (const std::optional<ir::OpKind> kind = ir::KindOfMember(m + 1)) {
      fields[m] = {ir::InfoOf(*kind).member_name, ir::InfoOf(*kind).member_name};
    }
  }
  return fields;
}
constexpr std::array<FieldName, kExpressionMembers> kExpressionFields = ExpressionFields();
// No message has more fields than Expression.
constexpr std::size_t kMostFields = kExpressionMembers;

std::string Join(std::string_view prefix, std::string_view field) {
  std::string path(prefix);
  if (!path.empty()) path += '.';
  path += field;
  return path;
}

std::string Indexed(std::string_view path, std::size_t index) {
  return std::string(path) + "[" + std::to_string(index) + "]";
}

// Finds the members of the JSON object `object` among `fields`: found[i] is
// the node of fields[i], or kAbsent when it is missing or null. Unknown and
// repeated fields are errors at `prefix`.field.
Status CollectFields(const JsonDom& dom, std::uint32_t object, std::span<const FieldName> fields,
                     std::string_view message, std::string_view prefix,
                     std::span<std::uint32_t> found) {
  std::array<std::string_view, kMostFields> seen{};  // the spelling each field was given in
  if (fields.size() > kMostFields) return InternalError("too many fields");
  for (std::uint32_t& f : found) f = kAbsent;
  const std::uint32_t end = dom.node(object).end;
  for (std::uint32_t m = object + 1; m < end; m = dom.node(m).end) {
    const JsonNode& member = dom.node(m);
    const std::string_view key = dom.Key(member);
    std::size_t i = 0;
    while (i < fields.size() && key != fields[i].name && key != fields[i].camel) ++i;
    if (i == fields.size()) {
      return UserError("unknown field \"" + std::string(key) + "\" in " + std::string(message),
                       Join(prefix, key.empty() ? "\"\"" : key));
    }
    if (!seen[i].empty()) {
      std::string what = "field \"" + std::string(key) + "\" given twice";
      if (seen[i] != key) {
        what = "field " + std::string(fields[i].name) + " given twice, as \"" +
               std::string(seen[i]) + "\" and \"" + std::string(key) + "\"";
      }
      return UserError(std::move(what), Join(prefix, fields[i].name));
    }
    seen[i] = key;
    if (member.type != JsonType::kNull) found[i] = m;
  }
  return Status::Ok();
}

// An enum value: its name (looked up by the caller into `named`), a JSON
// number, or a string holding a number (protobuf accepts that too).
std::string EnumNumber(const JsonDom& dom, const JsonNode& node, std::optional<int> named,
                       std::string_view what, std::int32_t* number) {
  if (named) {
    *number = *named;
    return "";
  }
  if (node.type != JsonType::kString && node.type != JsonType::kNumber) {
    return "expected a " + std::string(what) + " name or number";
  }
  std::int64_t value = 0;
  const std::string error = JsonToInteger(dom, node, std::numeric_limits<std::int32_t>::min(),
                                          std::numeric_limits<std::int32_t>::max(), &value);
  if (!error.empty()) {
    if (node.type == JsonType::kString) {
      return "unknown " + std::string(what) + " \"" + std::string(dom.String(node)) + "\"";
    }
    return error;
  }
  *number = static_cast<std::int32_t>(value);
  return "";
}

// Decodes Expression objects for the ExpressionReader; an ExprRef is a node.
class JsonExpressionDecoder final : public ExpressionDecoder {
 public:
  explicit JsonExpressionDecoder(const JsonDom& dom) : dom_(dom) {}

  Status Decode(ExprRef expr, DecodedExpr* out, std::vector<ExprRef>* operands,
                std::vector<float>* weights) override;

 private:
  Status DecodeMessage(ir::OpKind kind, std::uint32_t index, DecodedExpr* out,
                       std::vector<ExprRef>* operands, std::vector<float>* weights);

  const JsonDom& dom_;
};

Status JsonExpressionDecoder::Decode(ExprRef expr, DecodedExpr* out, std::vector<ExprRef>* operands,
                                     std::vector<float>* weights) {
  if (dom_.node(expr.first).type != JsonType::kObject) {
    return UserError("expected a JSON object for an Expression");
  }
  std::array<std::uint32_t, std::size(kExpressionFields)> found;
  CALCJIT_RETURN_IF_ERROR(
      CollectFields(dom_, expr.first, kExpressionFields, "Expression", "", found));
  std::size_t member = found.size();
  for (std::size_t i = 0; i < found.size(); ++i) {
    if (found[i] == kAbsent) continue;
    if (member != found.size()) {
      return UserError("more than one member of Expression.kind is set: \"" +
                       std::string(kExpressionFields[member].name) + "\" and \"" +
                       std::string(kExpressionFields[i].name) + "\"");
    }
    member = i;
  }
  if (member == found.size()) return Status::Ok();  // no kind: the reader reports it
  const ir::OpKind kind = *ir::KindOfMember(static_cast<std::uint32_t>(member) + 1);
  const JsonNode& value = dom_.node(found[member]);
  out->kind = kind;
  switch (kind) {
    case ir::OpKind::kConstant:
      if (std::string error = JsonToFloat(dom_, value, &out->constant); !error.empty()) {
        return UserError(std::move(error), "constant");
      }
      return Status::Ok();
    case ir::OpKind::kRef:
      if (value.type != JsonType::kString) return UserError("expected a string", "feature");
      out->name = dom_.String(value);
      return Status::Ok();
    default:
      break;
  }
  return DecodeMessage(kind, found[member], out, operands, weights);
}

Status JsonExpressionDecoder::DecodeMessage(ir::OpKind kind, std::uint32_t index, DecodedExpr* out,
                                            std::vector<ExprRef>* operands,
                                            std::vector<float>* weights) {
  const ir::KindInfo& info = ir::InfoOf(kind);
  const std::string message(info.message);
  const std::string member(info.member_name);
  if (dom_.node(index).type != JsonType::kObject) {
    return UserError("expected a JSON object for " + message, member);
  }
  std::array<FieldName, ir::kMaxMessageFields> fields{};
  for (std::size_t f = 0; f < info.field_count; ++f) {
    fields[f] = {info.fields[f].name, info.fields[f].json_name};
  }
  std::array<std::uint32_t, ir::kMaxMessageFields> found;
  CALCJIT_RETURN_IF_ERROR(CollectFields(dom_, index, std::span(fields).first(info.field_count),
                                        message, member, std::span(found).first(info.field_count)));

  std::size_t names = 0;
  for (std::size_t f = 0; f < info.field_count; ++f) {
    const ir::MessageField& field = info.fields[f];
    const std::string path = member + "." + std::string(field.name);
    switch (field.type) {
      case ir::FieldType::kOperator: {
        if (found[f] == kAbsent) break;
        const JsonNode& node = dom_.node(found[f]);
        std::optional<int> named;
        if (node.type == JsonType::kString) {
          const std::string_view name = dom_.String(node);
          if (name == "OPERATOR_UNSPECIFIED") named = 0;
          if (name.starts_with("OPERATOR_")) {
            if (const auto op = ir::OpFromProtoName(kind, name)) {
              named = ir::Info(*op).proto_number;
            }
          }
        }
        if (std::string error = EnumNumber(dom_, node, named, message + " operator", &out->op);
            !error.empty()) {
          return UserError(std::move(error), path);
        }
        break;
      }
      case ir::FieldType::kName: {
        std::string_view& name = names++ == 0 ? out->name : out->name2;
        if (found[f] == kAbsent) break;
        const JsonNode& node = dom_.node(found[f]);
        if (node.type != JsonType::kString) return UserError("expected a string", path);
        name = dom_.String(node);
        break;
      }
      case ir::FieldType::kOperand:
        operands->push_back(found[f] == kAbsent ? ExprRef{} : ExprRef{found[f], 1});
        break;
      case ir::FieldType::kOperands: {
        if (found[f] == kAbsent) break;
        const JsonNode& list = dom_.node(found[f]);
        if (list.type != JsonType::kArray) return UserError("expected an array", path);
        std::size_t k = 0;
        for (std::uint32_t e = found[f] + 1; e < list.end; e = dom_.node(e).end, ++k) {
          if (dom_.node(e).type == JsonType::kNull) {
            return UserError("null is not allowed in a repeated field", Indexed(path, k));
          }
          operands->push_back({e, 1});
        }
        break;
      }
      case ir::FieldType::kIndex: {
        if (found[f] == kAbsent) break;
        std::int64_t value = 0;
        if (std::string error = JsonToInteger(dom_, dom_.node(found[f]), 0,
                                              std::numeric_limits<std::uint32_t>::max(), &value);
            !error.empty()) {
          return UserError(std::move(error), path);
        }
        out->output = static_cast<std::uint32_t>(value);
        break;
      }
      case ir::FieldType::kWeights: {
        if (found[f] == kAbsent) break;
        const JsonNode& list = dom_.node(found[f]);
        if (list.type != JsonType::kArray) return UserError("expected an array", path);
        std::size_t k = 0;
        for (std::uint32_t e = found[f] + 1; e < list.end; e = dom_.node(e).end, ++k) {
          float weight = 0.0f;
          if (std::string error = JsonToFloat(dom_, dom_.node(e), &weight); !error.empty()) {
            return UserError(std::move(error), Indexed(path, k));
          }
          weights->push_back(weight);
        }
        break;
      }
    }
  }
  return Status::Ok();
}

// The elements of the array field `index` (kAbsent: none), each checked to be
// an object; calls visit(element, path).
template <typename Visit>
Status ForEachObject(const JsonDom& dom, std::uint32_t index, std::string_view field,
                     std::string_view message, Visit&& visit) {
  if (index == kAbsent) return Status::Ok();
  const std::uint32_t end = dom.node(index).end;
  std::size_t k = 0;
  for (std::uint32_t e = index + 1; e < end; e = dom.node(e).end, ++k) {
    const std::string path = Indexed(field, k);
    const JsonType type = dom.node(e).type;
    if (type == JsonType::kNull) return UserError("null is not allowed in a repeated field", path);
    if (type != JsonType::kObject) {
      return UserError("expected a JSON object for " + std::string(message), path);
    }
    CALCJIT_RETURN_IF_ERROR(visit(e, path));
  }
  return Status::Ok();
}

Status ReadInput(const JsonDom& dom, std::uint32_t index, const std::string& path,
                 ir::IrBuilder* builder) {
  std::array<std::uint32_t, std::size(kInputFields)> found;
  CALCJIT_RETURN_IF_ERROR(CollectFields(dom, index, kInputFields, "InputDeclaration", path, found));
  std::string_view name;
  if (found[0] != kAbsent) {
    const JsonNode& node = dom.node(found[0]);
    if (node.type != JsonType::kString) return UserError("expected a string", path + ".name");
    name = dom.String(node);
  }
  std::int32_t scope = 0;
  if (found[1] != kAbsent) {
    const JsonNode& node = dom.node(found[1]);
    std::optional<int> named;
    if (node.type == JsonType::kString && dom.String(node) == "SCOPE_ITEM") named = 0;
    if (node.type == JsonType::kString && dom.String(node) == "SCOPE_QUERY") named = 1;
    if (std::string error = EnumNumber(dom, node, named, "Scope", &scope); !error.empty()) {
      return UserError(std::move(error), path + ".scope");
    }
  }
  ir::InputDecl decl;
  if (found[2] != kAbsent) {
    std::int64_t dimension = 0;
    if (std::string error = JsonToInteger(dom, dom.node(found[2]), 0,
                                          std::numeric_limits<std::uint32_t>::max(), &dimension);
        !error.empty()) {
      return UserError(std::move(error), path + ".dimension");
    }
    decl.dimension = static_cast<std::uint32_t>(dimension);
  }
  if (found[3] != kAbsent) {
    float value = 0.0f;
    if (std::string error = JsonToFloat(dom, dom.node(found[3]), &value); !error.empty()) {
      return UserError(std::move(error), path + ".default_value");
    }
    decl.default_value = value;
  }
  if (name.empty()) return UserError("input name is empty", path + ".name");
  if (scope != 0 && scope != 1) {
    return UserError("unknown Scope value " + std::to_string(scope), path + ".scope");
  }
  decl.name = builder->Intern(name);
  decl.scope = scope == 1 ? Scope::kQuery : Scope::kItem;
  builder->AddInput(decl);
  return Status::Ok();
}

Status ReadModel(const JsonDom& dom, std::uint32_t index, const std::string& path,
                 ir::IrBuilder* builder) {
  std::array<std::uint32_t, std::size(kModelFields)> found;
  CALCJIT_RETURN_IF_ERROR(CollectFields(dom, index, kModelFields, "ModelDeclaration", path, found));
  std::string_view strings[2];  // name, path
  for (std::size_t f = 0; f < 2; ++f) {
    if (found[f] == kAbsent) continue;
    const JsonNode& node = dom.node(found[f]);
    if (node.type != JsonType::kString) {
      return UserError("expected a string", path + "." + std::string(kModelFields[f].name));
    }
    strings[f] = dom.String(node);
  }
  std::int32_t format = 0;
  if (found[2] != kAbsent) {
    const JsonNode& node = dom.node(found[2]);
    std::optional<int> named;
    if (node.type == JsonType::kString) {
      const std::string_view name = dom.String(node);
      if (name == "FORMAT_UNSPECIFIED") named = 0;
      if (name.starts_with("FORMAT_")) {
        if (const auto known = ir::ModelFormatFromProtoName(name)) {
          named = ir::ProtoNumberOf(*known);
        }
      }
    }
    if (std::string error = EnumNumber(dom, node, named, "Format", &format); !error.empty()) {
      return UserError(std::move(error), path + ".format");
    }
  }
  return AddModel(strings[0], strings[1], format, path, builder);
}

Status ReadFeature(const JsonDom& dom, std::uint32_t index, const std::string& path,
                   ir::IrBuilder* builder, ExpressionReader* reader) {
  std::array<std::uint32_t, std::size(kFeatureFields)> found;
  CALCJIT_RETURN_IF_ERROR(
      CollectFields(dom, index, kFeatureFields, "FeatureDefinition", path, found));
  std::string_view name;
  if (found[0] != kAbsent) {
    const JsonNode& node = dom.node(found[0]);
    if (node.type != JsonType::kString) return UserError("expected a string", path + ".name");
    name = dom.String(node);
  }
  if (name.empty()) return UserError("feature name is empty", path + ".name");
  if (found[1] == kAbsent) return UserError("feature has no expression", path + ".expression");
  const ir::NameId name_id = builder->Intern(name);
  builder->BeginFeature();
  Result<ir::NodeId> root = reader->Read(ExprRef{found[1], 1}, path + ".expression");
  if (!root.ok()) return root.status();
  builder->EndFeature(name_id, *root);
  return Status::Ok();
}

}  // namespace

Result<ir::FeatureSetIr> ReadJson(std::string_view text) {
  Result<JsonDom> parsed = JsonDom::Parse(text);
  if (!parsed.ok()) return parsed.status();
  const JsonDom& dom = *parsed;

  std::array<std::uint32_t, std::size(kSetFields)> found;
  CALCJIT_RETURN_IF_ERROR(CollectFields(dom, 0, kSetFields, "FeatureSet", "", found));
  for (std::size_t i = 0; i < found.size(); ++i) {
    if (found[i] != kAbsent && dom.node(found[i]).type != JsonType::kArray) {
      return UserError("expected an array", std::string(kSetFields[i].name));
    }
  }

  ir::IrBuilder builder(ir::SourceFormat::kJson);
  CALCJIT_RETURN_IF_ERROR(ForEachObject(
      dom, found[0], "inputs", "an InputDeclaration",
      [&](std::uint32_t e, const std::string& path) { return ReadInput(dom, e, path, &builder); }));

  JsonExpressionDecoder decoder(dom);
  ExpressionReader reader(&builder, &decoder);
  CALCJIT_RETURN_IF_ERROR(ForEachObject(dom, found[1], "features", "a FeatureDefinition",
                                        [&](std::uint32_t e, const std::string& path) {
                                          return ReadFeature(dom, e, path, &builder, &reader);
                                        }));

  CALCJIT_RETURN_IF_ERROR(ForEachObject(
      dom, found[2], "models", "a ModelDeclaration",
      [&](std::uint32_t e, const std::string& path) { return ReadModel(dom, e, path, &builder); }));
  return std::move(builder).Finish();
}

}  // namespace calcjit::dsl
