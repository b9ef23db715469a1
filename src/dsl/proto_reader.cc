#include "dsl/proto_reader.h"

#include <bit>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "dsl/expression_reader.h"
#include "dsl/model_declarations.h"
#include "dsl/proto_validator.h"
#include "dsl/wire_format.h"
#include "dsl/wire_schema.h"
#include "ir/builder.h"
#include "ir/kind.h"

namespace calcjit::dsl {

namespace {

using wire::WireField;
using wire::WireType;
namespace field = wire::field;

// A byte range of the input: one occurrence of a message. A message that
// occurs several times is the list of its ranges, read as if concatenated
// (protobuf's merge).
struct Range {
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
};

Range PayloadOf(const WireField& f) {
  return {static_cast<std::uint32_t>(f.payload_begin), static_cast<std::uint32_t>(f.payload_end)};
}

std::string_view Slice(std::string_view bytes, Range range) {
  return bytes.substr(range.begin, range.end - range.begin);
}

// Enum and int32 fields keep the low 32 bits of the varint, as in protobuf.
std::int32_t AsInt32(std::uint64_t varint) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(varint));
}

// Calls `visit` for every field in `range` except groups, which are skipped.
// The bytes were checked by CheckFeatureSetBytes, so a failure here is a bug.
template <typename Visit>
Status ForEachField(std::string_view bytes, Range range, Visit&& visit) {
  std::size_t pos = range.begin;
  wire::WireError error;
  while (pos < range.end) {
    WireField f;
    bool ok = wire::ReadField(bytes, &pos, range.end, &f, &error);
    if (ok && f.type == WireType::kStartGroup) {
      ok =
          wire::SkipGroup(bytes, &pos, range.end, f.number, f.tag_offset, kMaxGroupNesting, &error);
    } else if (ok && f.type == WireType::kEndGroup) {
      ok = false;
      error = {f.tag_offset, "stray end-group tag"};
    } else if (ok) {
      visit(f);
    }
    if (!ok) {
      // (No location: inside an expression the reader prefixes its path.)
      return InternalError("malformed bytes at byte " + std::to_string(error.offset) +
                           " after the wire check: " + error.message);
    }
  }
  return Status::Ok();
}

// Decodes Expression messages for the ExpressionReader. An ExprRef is a run
// of pieces_: the byte ranges of every occurrence of that Expression field.
class ProtoExpressionDecoder final : public ExpressionDecoder {
 public:
  explicit ProtoExpressionDecoder(std::string_view bytes) : bytes_(bytes) {}

  ExprRef AddPieces(std::span<const Range> ranges) {
    const auto first = static_cast<std::uint32_t>(pieces_.size());
    pieces_.insert(pieces_.end(), ranges.begin(), ranges.end());
    return {first, static_cast<std::uint32_t>(ranges.size())};
  }

  Status Decode(ExprRef expr, DecodedExpr* out, std::vector<ExprRef>* operands,
                std::vector<float>* weights) override;

  std::size_t Mark() const override { return pieces_.size(); }
  void Release(std::size_t mark) override { pieces_.resize(mark); }

 private:
  // Whether Expression field `number` is a member that holds a message.
  static bool IsMessageMember(std::uint32_t number);
  Status DecodeOperands(ir::OpKind kind, DecodedExpr* out, std::vector<ExprRef>* operands,
                        std::vector<float>* weights);

  std::string_view bytes_;
  std::vector<Range> pieces_;
  std::vector<Range> member_;                           // occurrences of the oneof member that won
  std::vector<std::pair<std::uint32_t, Range>> slots_;  // (operand index, occurrence)
};

Status ProtoExpressionDecoder::Decode(ExprRef expr, DecodedExpr* out,
                                      std::vector<ExprRef>* operands, std::vector<float>* weights) {
  // The oneof: the last member set wins; a message member that occurs again
  // without another member in between is merged, a different one replaces it.
  const std::uint32_t constant_member = ir::InfoOf(ir::OpKind::kConstant).member;
  const std::uint32_t feature_member = ir::InfoOf(ir::OpKind::kRef).member;
  std::uint32_t member = 0;  // none yet
  Range name;
  member_.clear();
  for (std::uint32_t i = 0; i < expr.count; ++i) {
    const Range range = pieces_[expr.first + i];
    CALCJIT_RETURN_IF_ERROR(ForEachField(bytes_, range, [&](const WireField& f) {
      if (f.number == constant_member && f.type == WireType::kFixed32) {
        member = f.number;
        out->constant = std::bit_cast<float>(f.fixed32);
        member_.clear();
      } else if (f.number == feature_member && f.type == WireType::kLen) {
        member = f.number;
        name = PayloadOf(f);
        member_.clear();
      } else if (f.type == WireType::kLen && IsMessageMember(f.number)) {
        if (member != f.number) {
          member = f.number;
          member_.clear();
        }
        member_.push_back(PayloadOf(f));
      }
    }));
  }
  if (member == 0) return Status::Ok();  // no kind: the reader reports it
  const ir::OpKind kind = *ir::KindOfMember(member);
  out->kind = kind;
  if (kind == ir::OpKind::kRef) out->name = Slice(bytes_, name);
  if (ir::InfoOf(kind).message.empty()) return Status::Ok();
  return DecodeOperands(kind, out, operands, weights);
}

bool ProtoExpressionDecoder::IsMessageMember(std::uint32_t number) {
  const std::optional<ir::OpKind> kind = ir::KindOfMember(number);
  return kind && !ir::InfoOf(*kind).message.empty();
}

Status ProtoExpressionDecoder::DecodeOperands(ir::OpKind kind, DecodedExpr* out,
                                              std::vector<ExprRef>* operands,
                                              std::vector<float>* weights) {
  const ir::KindInfo& info = ir::InfoOf(kind);
  // The position of each field among the fields of its type: name k is lhs
  // (k = 0) or rhs (k = 1), operand slot k the k-th kOperand field.
  auto rank_of = [&info](std::size_t field) {
    std::size_t rank = 0;
    for (std::size_t g = 0; g < field; ++g) rank += info.fields[g].type == info.fields[field].type;
    return rank;
  };
  std::uint32_t arity = 0;
  for (std::size_t f = 0; f < info.field_count; ++f) {
    arity += info.fields[f].type == ir::FieldType::kOperand;
  }
  Range names[2];
  slots_.clear();
  for (const Range range : member_) {
    CALCJIT_RETURN_IF_ERROR(ForEachField(bytes_, range, [&](const WireField& f) {
      std::size_t index = 0;
      while (index < info.field_count && info.fields[index].number != f.number) ++index;
      if (index == info.field_count) return;  // an unknown field
      switch (info.fields[index].type) {
        case ir::FieldType::kOperator:
          if (f.type == WireType::kVarint) out->op = AsInt32(f.varint);
          return;
        case ir::FieldType::kName:
          if (f.type == WireType::kLen) names[rank_of(index)] = PayloadOf(f);
          return;
        case ir::FieldType::kOperands:
          if (f.type == WireType::kLen) {
            // A repeated message: every occurrence is a new element.
            operands->push_back({static_cast<std::uint32_t>(pieces_.size()), 1});
            pieces_.push_back(PayloadOf(f));
          }
          return;
        case ir::FieldType::kWeights:
          if (f.type == WireType::kLen) {
            for (std::size_t p = f.payload_begin; p + 4 <= f.payload_end; p += 4) {
              weights->push_back(std::bit_cast<float>(wire::LoadFixed32(bytes_.data() + p)));
            }
          } else if (f.type == WireType::kFixed32) {
            weights->push_back(std::bit_cast<float>(f.fixed32));
          }
          return;
        case ir::FieldType::kOperand:
          if (f.type == WireType::kLen) {
            slots_.emplace_back(static_cast<std::uint32_t>(rank_of(index)), PayloadOf(f));
          }
          return;
        case ir::FieldType::kIndex:
          // uint32 keeps the low 32 bits of the varint, as in protobuf.
          if (f.type == WireType::kVarint) out->output = static_cast<std::uint32_t>(f.varint);
          return;
      }
    }));
  }
  out->name = Slice(bytes_, names[0]);
  out->name2 = Slice(bytes_, names[1]);
  // A singular message field that occurs several times is merged: gather each
  // operand's occurrences, in order, into one run of pieces.
  for (std::uint32_t slot = 0; slot < arity; ++slot) {
    const auto first = static_cast<std::uint32_t>(pieces_.size());
    for (const auto& [index, range] : slots_) {
      if (index == slot) pieces_.push_back(range);
    }
    const auto count = static_cast<std::uint32_t>(pieces_.size() - first);
    operands->push_back(count > 0 ? ExprRef{first, count} : ExprRef{});
  }
  return Status::Ok();
}

Result<ir::InputDecl> ReadInput(std::string_view bytes, Range range, std::size_t index,
                                ir::IrBuilder* builder) {
  Range name;
  std::int32_t scope = 0;
  ir::InputDecl decl;
  CALCJIT_RETURN_IF_ERROR(ForEachField(bytes, range, [&](const WireField& f) {
    if (f.number == field::kInputName && f.type == WireType::kLen) name = PayloadOf(f);
    if (f.number == field::kInputScope && f.type == WireType::kVarint) scope = AsInt32(f.varint);
    if (f.number == field::kInputDimension && f.type == WireType::kVarint) {
      decl.dimension = static_cast<std::uint32_t>(f.varint);  // uint32 keeps the low bits
    }
    if (f.number == field::kInputDefault && f.type == WireType::kFixed32) {
      decl.default_value = std::bit_cast<float>(f.fixed32);
    }
  }));
  const std::string path = "inputs[" + std::to_string(index) + "]";
  if (name.begin == name.end) return UserError("input name is empty", path + ".name");
  if (scope != 0 && scope != 1) {
    return UserError("unknown Scope value " + std::to_string(scope), path + ".scope");
  }
  decl.name = builder->Intern(Slice(bytes, name));
  decl.scope = scope == 1 ? Scope::kQuery : Scope::kItem;
  return decl;
}

}  // namespace

Result<ir::FeatureSetIr> ReadProto(std::string_view bytes) {
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
    return UserError("a serialized FeatureSet must be smaller than 2 GiB", "byte 0");
  }
  CALCJIT_RETURN_IF_ERROR(CheckFeatureSetBytes(bytes));

  std::vector<Range> inputs;
  std::vector<Range> features;
  std::vector<Range> models;
  const Range whole{0, static_cast<std::uint32_t>(bytes.size())};
  CALCJIT_RETURN_IF_ERROR(ForEachField(bytes, whole, [&](const WireField& f) {
    if (f.type != WireType::kLen) return;
    if (f.number == field::kSetInputs) inputs.push_back(PayloadOf(f));
    if (f.number == field::kSetFeatures) features.push_back(PayloadOf(f));
    if (f.number == field::kSetModels) models.push_back(PayloadOf(f));
  }));

  ir::IrBuilder builder(ir::SourceFormat::kProto);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    Result<ir::InputDecl> decl = ReadInput(bytes, inputs[i], i, &builder);
    if (!decl.ok()) return decl.status();
    builder.AddInput(*decl);
  }

  ProtoExpressionDecoder decoder(bytes);
  ExpressionReader reader(&builder, &decoder);
  std::vector<Range> expression;
  for (std::size_t i = 0; i < features.size(); ++i) {
    Range name;
    expression.clear();
    CALCJIT_RETURN_IF_ERROR(ForEachField(bytes, features[i], [&](const WireField& f) {
      if (f.type != WireType::kLen) return;
      if (f.number == field::kFeatureName) name = PayloadOf(f);
      if (f.number == field::kFeatureExpression) expression.push_back(PayloadOf(f));
    }));
    const std::string path = "features[" + std::to_string(i) + "]";
    if (name.begin == name.end) return UserError("feature name is empty", path + ".name");
    if (expression.empty()) return UserError("feature has no expression", path + ".expression");
    const ir::NameId name_id = builder.Intern(Slice(bytes, name));
    builder.BeginFeature();
    const std::size_t mark = decoder.Mark();
    const ExprRef root = decoder.AddPieces(expression);
    Result<ir::NodeId> root_id = reader.Read(root, path + ".expression");
    if (!root_id.ok()) return root_id.status();
    decoder.Release(mark);
    builder.EndFeature(name_id, *root_id);
  }

  for (std::size_t i = 0; i < models.size(); ++i) {
    Range name;
    Range path;
    std::int64_t format = 0;
    CALCJIT_RETURN_IF_ERROR(ForEachField(bytes, models[i], [&](const WireField& f) {
      if (f.number == field::kModelName && f.type == WireType::kLen) name = PayloadOf(f);
      if (f.number == field::kModelPath && f.type == WireType::kLen) path = PayloadOf(f);
      if (f.number == field::kModelFormat && f.type == WireType::kVarint) {
        format = AsInt32(f.varint);  // an enum keeps the low 32 bits
      }
    }));
    CALCJIT_RETURN_IF_ERROR(AddModel(Slice(bytes, name), Slice(bytes, path), format,
                                     "models[" + std::to_string(i) + "]", &builder));
  }
  return std::move(builder).Finish();
}

}  // namespace calcjit::dsl
