#include "dsl/expression_reader.h"

#include <optional>
#include <span>
#include <utility>

#include "ir/limits.h"
#include "ir/location.h"

namespace calcjit::dsl {

namespace {

// The message name of a kind, as errors spell it ("Expression" for leaves).
std::string MessageName(ir::OpKind kind) {
  const std::string_view message = ir::InfoOf(kind).message;
  return message.empty() ? "Expression" : std::string(message);
}

// "one of constant, feature, unary, ...": every member of Expression.kind,
// in field-number order.
std::string MemberList() {
  std::string list;
  for (std::uint32_t member = 1; member <= ir::LastMember(); ++member) {
    const std::optional<ir::OpKind> kind = ir::KindOfMember(member);
    if (!kind) continue;
    if (!list.empty()) list += ", ";
    list += ir::InfoOf(*kind).member_name;
  }
  return list;
}

}  // namespace

ExpressionReader::ExpressionReader(ir::IrBuilder* builder, ExpressionDecoder* decoder)
    : builder_(builder), decoder_(decoder) {}

Result<ir::NodeId> ExpressionReader::Read(ExprRef root, std::string_view root_path) {
  root_path_ = std::string(root_path);
  frames_.clear();
  operands_.clear();
  built_.clear();
  weights_.clear();
  pending_nodes_ = 1;
  CALCJIT_RETURN_IF_ERROR(Visit(root));
  while (!frames_.empty()) {
    const Frame& top = frames_.back();
    const std::size_t done = built_.size() - top.built_begin;
    if (done < top.operand_count) {
      // Copied: Visit may grow operands_ and push frames.
      const ExprRef next = operands_[top.operands_begin + done];
      CALCJIT_RETURN_IF_ERROR(Visit(next));
    } else {
      Close();
    }
  }
  if (built_.size() != 1) return InternalError("expression reader lost track of its nodes");
  return built_.front();
}

Status ExpressionReader::Visit(ExprRef expr) {
  if (frames_.size() + 1 > ir::kMaxDepth) {
    return ErrorAt("",
                   "expression nested deeper than " + std::to_string(ir::kMaxDepth) + " levels");
  }
  if (builder_->node_count() + pending_nodes_ > ir::kMaxNodes) return NodeLimitError();
  if (!expr.present()) return InternalError("expression reader visited an absent operand");
  const Scratch scratch{decoder_->Mark(), static_cast<std::uint32_t>(operands_.size()),
                        static_cast<std::uint32_t>(weights_.size())};
  DecodedExpr decoded;
  if (Status status = decoder_->Decode(expr, &decoded, &operands_, &weights_); !status.ok()) {
    return Status::Error(status.kind(), status.message(), PathOf(status.location()));
  }
  if (!decoded.kind) return ErrorAt("", "expression has no kind set (one of " + MemberList() + ")");
  const ir::OpKind kind = *decoded.kind;
  switch (kind) {
    case ir::OpKind::kConstant:
      return AddLeaf(builder_->AddConstant(decoded.constant), scratch);
    case ir::OpKind::kRef:
      if (decoded.name.empty()) return ErrorAt("feature", "feature name is empty");
      return AddLeaf(builder_->AddRef(builder_->Intern(decoded.name)), scratch);
    default:
      break;
  }
  std::optional<ir::Op> op = ir::SoleOpOf(kind);  // a message without an Operator enum
  if (ir::HasOperatorField(kind)) {
    const std::string field = std::string(ir::ExpressionFieldName(kind)) + ".operator";
    const std::string message = MessageName(kind);
    if (decoded.op == 0) {
      return ErrorAt(field, message + " operator is OPERATOR_UNSPECIFIED (not set)");
    }
    op = ir::OpFromProtoNumber(kind, decoded.op);
    if (!op)
      return ErrorAt(field, "unknown " + message + " operator " + std::to_string(decoded.op));
  }
  if (!op) return InternalError("no operator for " + MessageName(kind));
  if (kind == ir::OpKind::kModel && decoded.name.empty()) {
    return ErrorAt("model.name", "model name is empty");
  }
  if (kind == ir::OpKind::kVector) {
    const ir::NameId lhs = decoded.name.empty() ? ir::kNone : builder_->Intern(decoded.name);
    const ir::NameId rhs = decoded.name2.empty() ? ir::kNone : builder_->Intern(decoded.name2);
    return AddLeaf(builder_->AddVector(*op, lhs, rhs), scratch);
  }
  return Open(*op, decoded, scratch);
}

Status ExpressionReader::AddLeaf(ir::NodeId id, const Scratch& scratch) {
  operands_.resize(scratch.operands_begin);
  weights_.resize(scratch.weights_begin);
  decoder_->Release(scratch.decoder_mark);
  built_.push_back(id);
  --pending_nodes_;
  return Status::Ok();
}

Status ExpressionReader::Open(ir::Op op, const DecodedExpr& decoded, const Scratch& scratch) {
  const ir::OpKind kind = ir::KindOf(op);
  const auto count = static_cast<std::uint32_t>(operands_.size() - scratch.operands_begin);
  const int arity = ir::FixedArity(kind);
  if (arity >= 0) {
    if (count != static_cast<std::uint32_t>(arity)) {
      return InternalError("decoder returned the wrong number of operands");
    }
    for (std::uint32_t i = 0; i < count; ++i) {
      if (!operands_[scratch.operands_begin + i].present()) {
        return ErrorAt(ir::OperandPath(kind, i),
                       "missing operand: " + MessageName(kind) + "." +
                           std::string(ir::OperandFieldOf(kind, i)->name) + " is not set");
      }
    }
  } else if (count < ir::InfoOf(kind).min_operands) {
    const ir::MessageField& field = *ir::OperandFieldOf(kind, 0);
    return ErrorAt(std::string(ir::ExpressionFieldName(kind)) + "." + std::string(field.name),
                   MessageName(kind) + " has no operands (it needs at least one)");
  }
  pending_nodes_ += count;
  if (builder_->node_count() + pending_nodes_ > ir::kMaxNodes) return NodeLimitError();
  const ir::NameId name = kind == ir::OpKind::kModel ? builder_->Intern(decoded.name) : ir::kNone;
  frames_.push_back(Frame{op, name, decoded.output, scratch.operands_begin, count,
                          static_cast<std::uint32_t>(built_.size()), scratch.weights_begin,
                          static_cast<std::uint32_t>(weights_.size() - scratch.weights_begin),
                          scratch.decoder_mark});
  return Status::Ok();
}

void ExpressionReader::Close() {
  const Frame frame = frames_.back();
  frames_.pop_back();
  const std::span<const ir::NodeId> operands(built_.data() + frame.built_begin,
                                             frame.operand_count);
  const std::span<const float> weights(weights_.data() + frame.weights_begin, frame.weight_count);
  ir::NodeId id = 0;
  switch (ir::KindOf(frame.op)) {
    case ir::OpKind::kNary:
      id = builder_->AddNary(frame.op, operands, weights);
      break;
    case ir::OpKind::kModel:
      id = builder_->AddModelCall(frame.name, operands, frame.output);
      break;
    default:
      id = builder_->AddOp(frame.op, operands);
      break;
  }
  built_.resize(frame.built_begin);
  operands_.resize(frame.operands_begin);
  weights_.resize(frame.weights_begin);
  decoder_->Release(frame.decoder_mark);
  built_.push_back(id);
  --pending_nodes_;
}

std::string ExpressionReader::PathOf(std::string_view field) const {
  std::string path = root_path_;
  for (std::size_t k = 0; k < frames_.size(); ++k) {
    // The operand of frame k being read is the one after those it has built.
    const std::size_t end = k + 1 < frames_.size() ? frames_[k + 1].built_begin : built_.size();
    path += '.';
    path += ir::OperandField(frames_[k].op, end - frames_[k].built_begin);
  }
  if (!field.empty()) {
    path += '.';
    path += field;
  }
  return path;
}

Status ExpressionReader::ErrorAt(std::string_view field, std::string message) const {
  return UserError(std::move(message), PathOf(field));
}

Status ExpressionReader::NodeLimitError() const {
  return ErrorAt(
      "", "the feature set has more than " + std::to_string(ir::kMaxNodes) + " expression nodes");
}

}  // namespace calcjit::dsl
