#include "wire_test_util.h"

#include <pthread.h>

#include <bit>
#include <cstdio>
#include <exception>
#include <limits>
#include <stdexcept>
#include <utility>

#include <google/protobuf/util/field_comparator.h>
#include <google/protobuf/util/message_differencer.h>

#include "ir/builder.h"
#include "ir/location.h"
#include "ir/op.h"

namespace calcjit::wire_test {

namespace {

std::string Hex(std::uint32_t bits) {
  char buffer[16];
  std::snprintf(buffer, sizeof(buffer), "%08x", bits);
  return buffer;
}

std::string FloatBits(float value) {
  return Hex(std::bit_cast<std::uint32_t>(value));
}

std::string NameText(const ir::FeatureSetIr& ir, ir::NameId id) {
  return id == ir::kNone ? std::string("<none>") : "\"" + ir.NameOf(id) + "\"";
}

}  // namespace

std::string DumpIr(const ir::FeatureSetIr& ir) {
  std::string out;
  for (const ir::InputDecl& input : ir.inputs) {
    out += "input " + NameText(ir, input.name) +
           " scope=" + std::to_string(static_cast<int>(input.scope)) +
           " dim=" + std::to_string(input.dimension) +
           " default=" + (input.default_value ? FloatBits(*input.default_value) : "none") + "\n";
  }
  for (const ir::ModelDecl& model : ir.models) {
    out += "model " + NameText(ir, model.name) + " path=\"" + model.path +
           "\" format=" + std::to_string(static_cast<int>(model.format)) + "\n";
  }
  for (const ir::FeatureDef& feature : ir.features) {
    out += "feature " + NameText(ir, feature.name) +
           " nodes=" + std::to_string(feature.first_node) + ".." + std::to_string(feature.root) +
           "\n";
  }
  for (std::size_t id = 0; id < ir.nodes.size(); ++id) {
    const ir::Node& node = ir.nodes[id];
    out += std::to_string(id) + ": " + std::string(ir::Info(node.op).name);
    switch (ir::KindOf(node.op)) {
      case ir::OpKind::kConstant:
        out += ' ';
        out += FloatBits(node.constant);
        break;
      case ir::OpKind::kRef:
        out += ' ';
        out += NameText(ir, node.name);
        break;
      case ir::OpKind::kVector:
        out += ' ';
        out += NameText(ir, node.name);
        out += ' ';
        out += NameText(ir, node.name2);
        break;
      case ir::OpKind::kModel:
        out += ' ';
        out += NameText(ir, node.name);
        out += " [" + std::to_string(node.output) + "]";
        break;
      default:
        break;
    }
    for (const ir::NodeId operand : ir.OperandsOf(node)) out += " #" + std::to_string(operand);
    if (node.weight_count > 0) {
      out += " w=";
      for (const float weight : ir.WeightsOf(node)) out += FloatBits(weight) + ",";
    }
    out += "\n";
  }
  return out;
}

void RunWithStack(std::size_t stack_bytes, const std::function<void()>& body) {
  struct Payload {
    const std::function<void()>* body;
    std::exception_ptr error;
  } payload{&body, nullptr};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  if (pthread_attr_setstacksize(&attr, stack_bytes) != 0) {
    throw std::runtime_error("pthread_attr_setstacksize failed");
  }
  pthread_t thread;
  const int created = pthread_create(
      &thread, &attr,
      [](void* arg) -> void* {
        auto* p = static_cast<Payload*>(arg);
        try {
          (*p->body)();
        } catch (...) {
          p->error = std::current_exception();
        }
        return nullptr;
      },
      &payload);
  pthread_attr_destroy(&attr);
  if (created != 0) throw std::runtime_error("pthread_create failed");
  pthread_join(thread, nullptr);
  if (payload.error) std::rethrow_exception(payload.error);
}

ir::FeatureSetIr DeepChain(std::uint32_t levels) {
  ir::IrBuilder builder(ir::SourceFormat::kProto);
  const ir::NameId deep = builder.Intern("deep");
  const ir::NameId x = builder.Intern("x");
  builder.BeginFeature();
  ir::NodeId id = builder.AddRef(x);
  for (std::uint32_t level = levels - 1; level >= 1; --level) {
    if (level % 2 == 1) {
      const ir::NodeId rhs = builder.AddRef(x);
      const ir::NodeId operands[] = {id, rhs};
      id = builder.AddOp(ir::Op::kAdd, operands);
    } else {
      const ir::NodeId operands[] = {id};
      id = builder.AddOp(ir::Op::kNeg, operands);
    }
  }
  builder.EndFeature(deep, id);
  return std::move(builder).Finish();
}

std::string DeepChainLeafPath(std::uint32_t levels) {
  std::string path = "features[0].expression";
  for (std::uint32_t level = 1; level < levels; ++level) {
    path += level % 2 == 1 ? ".binary.lhs" : ".unary.operand";
  }
  return path;
}

std::string Varint(std::uint64_t value) {
  std::string out;
  while (value >= 0x80) {
    out += static_cast<char>((value & 0x7F) | 0x80);
    value >>= 7;
  }
  out += static_cast<char>(value);
  return out;
}

std::string Tag(std::uint32_t field, int wire_type) {
  return Varint((std::uint64_t{field} << 3) | static_cast<std::uint64_t>(wire_type));
}

std::string VarintField(std::uint32_t field, std::uint64_t value) {
  return Tag(field, 0) + Varint(value);
}

std::string LenField(std::uint32_t field, std::string_view payload) {
  return Tag(field, 2) + Varint(payload.size()) + std::string(payload);
}

std::string Fixed32Field(std::uint32_t field, float value) {
  std::string out = Tag(field, 5);
  const auto bits = std::bit_cast<std::uint32_t>(value);
  for (int i = 0; i < 4; ++i) out += static_cast<char>((bits >> (8 * i)) & 0xFF);
  return out;
}

// ---------------------------------------------------------------------------
// The reference semantics, written independently of src/dsl: recursive, on
// libprotobuf's parsed message.

namespace {

Status CheckOperator(int number, ir::OpKind kind, std::string_view message, const std::string& path,
                     ir::Op* op) {
  if (number == 0) return UserError("unset operator", path);
  const std::optional<ir::Op> found = ir::OpFromProtoNumber(kind, number);
  if (!found) {
    return UserError("unknown " + std::string(message) + " operator " + std::to_string(number),
                     path);
  }
  *op = *found;
  return Status::Ok();
}

Result<ir::NodeId> Convert(const v1::Expression& e, const std::string& path,
                           ir::IrBuilder& builder) {
  std::vector<ir::NodeId> operands;
  auto convert_all =
      [&](const std::vector<std::pair<const v1::Expression*, std::string>>& list) -> Status {
    for (const auto& [operand, operand_path] : list) {
      Result<ir::NodeId> id = Convert(*operand, operand_path, builder);
      if (!id.ok()) return id.status();
      operands.push_back(*id);
    }
    return Status::Ok();
  };
  ir::Op op = ir::Op::kIf;
  switch (e.kind_case()) {
    case v1::Expression::KIND_NOT_SET:
      return UserError("no kind", path);
    case v1::Expression::kModel: {
      const v1::Model& m = e.model();
      if (m.name().empty()) return UserError("empty", path + ".model.name");
      std::vector<std::pair<const v1::Expression*, std::string>> list;
      for (int i = 0; i < m.inputs_size(); ++i) {
        list.emplace_back(&m.inputs(i), path + ".model.inputs[" + std::to_string(i) + "]");
      }
      const ir::NameId name = builder.Intern(m.name());
      CALCJIT_RETURN_IF_ERROR(convert_all(list));
      return builder.AddModelCall(name, operands, m.output());
    }
    case v1::Expression::kConstant:
      return builder.AddConstant(e.constant());
    case v1::Expression::kFeature:
      if (e.feature().empty()) return UserError("empty", path + ".feature");
      return builder.AddRef(builder.Intern(e.feature()));
    case v1::Expression::kVector: {
      CALCJIT_RETURN_IF_ERROR(CheckOperator(e.vector().operator_(), ir::OpKind::kVector, "Vector",
                                            path + ".vector.operator", &op));
      const std::string& lhs = e.vector().lhs();
      const std::string& rhs = e.vector().rhs();
      return builder.AddVector(op, lhs.empty() ? ir::kNone : builder.Intern(lhs),
                               rhs.empty() ? ir::kNone : builder.Intern(rhs));
    }
    case v1::Expression::kUnary: {
      const v1::Unary& u = e.unary();
      CALCJIT_RETURN_IF_ERROR(
          CheckOperator(u.operator_(), ir::OpKind::kUnary, "Unary", path + ".unary.operator", &op));
      if (!u.has_operand()) return UserError("missing", path + ".unary.operand");
      CALCJIT_RETURN_IF_ERROR(convert_all({{&u.operand(), path + ".unary.operand"}}));
      return builder.AddOp(op, operands);
    }
    case v1::Expression::kAggregate: {
      const v1::Aggregate& a = e.aggregate();
      CALCJIT_RETURN_IF_ERROR(CheckOperator(a.operator_(), ir::OpKind::kAggregate, "Aggregate",
                                            path + ".aggregate.operator", &op));
      if (!a.has_operand()) return UserError("missing", path + ".aggregate.operand");
      CALCJIT_RETURN_IF_ERROR(convert_all({{&a.operand(), path + ".aggregate.operand"}}));
      return builder.AddOp(op, operands);
    }
    case v1::Expression::kBinary: {
      const v1::Binary& b = e.binary();
      CALCJIT_RETURN_IF_ERROR(CheckOperator(b.operator_(), ir::OpKind::kBinary, "Binary",
                                            path + ".binary.operator", &op));
      if (!b.has_lhs()) return UserError("missing", path + ".binary.lhs");
      if (!b.has_rhs()) return UserError("missing", path + ".binary.rhs");
      CALCJIT_RETURN_IF_ERROR(
          convert_all({{&b.lhs(), path + ".binary.lhs"}, {&b.rhs(), path + ".binary.rhs"}}));
      return builder.AddOp(op, operands);
    }
    case v1::Expression::kConditional: {
      const v1::Conditional& c = e.conditional();
      if (!c.has_condition()) return UserError("missing", path + ".conditional.condition");
      if (!c.has_then()) return UserError("missing", path + ".conditional.then");
      if (!c.has_otherwise()) return UserError("missing", path + ".conditional.otherwise");
      CALCJIT_RETURN_IF_ERROR(convert_all({{&c.condition(), path + ".conditional.condition"},
                                           {&c.then(), path + ".conditional.then"},
                                           {&c.otherwise(), path + ".conditional.otherwise"}}));
      return builder.AddOp(op, operands);
    }
    case v1::Expression::kNary: {
      const v1::Nary& n = e.nary();
      CALCJIT_RETURN_IF_ERROR(
          CheckOperator(n.operator_(), ir::OpKind::kNary, "Nary", path + ".nary.operator", &op));
      if (n.operands_size() == 0) return UserError("no operands", path + ".nary.operands");
      std::vector<std::pair<const v1::Expression*, std::string>> list;
      for (int i = 0; i < n.operands_size(); ++i) {
        list.emplace_back(&n.operands(i), path + ".nary.operands[" + std::to_string(i) + "]");
      }
      CALCJIT_RETURN_IF_ERROR(convert_all(list));
      const std::vector<float> weights(n.weights().begin(), n.weights().end());
      return builder.AddNary(op, operands, weights);
    }
  }
  return InternalError("unhandled kind");
}

void FillExpression(const ir::FeatureSetIr& ir, ir::NodeId id, v1::Expression* e) {
  const ir::Node& node = ir.nodes[id];
  const auto operands = ir.OperandsOf(node);
  const int number = ir::Info(node.op).proto_number;
  switch (ir::KindOf(node.op)) {
    case ir::OpKind::kConstant:
      e->set_constant(node.constant);
      return;
    case ir::OpKind::kRef:
      e->set_feature(ir.NameOf(node.name));
      return;
    case ir::OpKind::kVector: {
      v1::Vector* v = e->mutable_vector();
      v->set_operator_(static_cast<v1::Vector::Operator>(number));
      if (node.name != ir::kNone) v->set_lhs(ir.NameOf(node.name));
      if (node.name2 != ir::kNone) v->set_rhs(ir.NameOf(node.name2));
      return;
    }
    case ir::OpKind::kUnary:
      e->mutable_unary()->set_operator_(static_cast<v1::Unary::Operator>(number));
      FillExpression(ir, operands[0], e->mutable_unary()->mutable_operand());
      return;
    case ir::OpKind::kAggregate:
      e->mutable_aggregate()->set_operator_(static_cast<v1::Aggregate::Operator>(number));
      FillExpression(ir, operands[0], e->mutable_aggregate()->mutable_operand());
      return;
    case ir::OpKind::kBinary:
      e->mutable_binary()->set_operator_(static_cast<v1::Binary::Operator>(number));
      FillExpression(ir, operands[0], e->mutable_binary()->mutable_lhs());
      FillExpression(ir, operands[1], e->mutable_binary()->mutable_rhs());
      return;
    case ir::OpKind::kConditional:
      FillExpression(ir, operands[0], e->mutable_conditional()->mutable_condition());
      FillExpression(ir, operands[1], e->mutable_conditional()->mutable_then());
      FillExpression(ir, operands[2], e->mutable_conditional()->mutable_otherwise());
      return;
    case ir::OpKind::kNary: {
      v1::Nary* n = e->mutable_nary();
      n->set_operator_(static_cast<v1::Nary::Operator>(number));
      for (const ir::NodeId operand : operands) FillExpression(ir, operand, n->add_operands());
      for (const float weight : ir.WeightsOf(node)) n->add_weights(weight);
      return;
    }
    case ir::OpKind::kModel: {
      v1::Model* m = e->mutable_model();
      if (node.name != ir::kNone) m->set_name(ir.NameOf(node.name));
      for (const ir::NodeId operand : operands) FillExpression(ir, operand, m->add_inputs());
      m->set_output(node.output);
      return;
    }
  }
}

}  // namespace

Result<ir::FeatureSetIr> IrFromMessage(const v1::FeatureSet& message) {
  ir::IrBuilder builder(ir::SourceFormat::kProto);
  for (int i = 0; i < message.inputs_size(); ++i) {
    const v1::InputDeclaration& input = message.inputs(i);
    const std::string path = "inputs[" + std::to_string(i) + "]";
    if (input.name().empty()) return UserError("empty", path + ".name");
    if (input.scope() != 0 && input.scope() != 1) return UserError("scope", path + ".scope");
    ir::InputDecl decl;
    decl.name = builder.Intern(input.name());
    decl.scope = input.scope() == 1 ? Scope::kQuery : Scope::kItem;
    decl.dimension = input.dimension();
    if (input.has_default_value()) decl.default_value = input.default_value();
    builder.AddInput(decl);
  }
  for (int i = 0; i < message.features_size(); ++i) {
    const v1::FeatureDefinition& feature = message.features(i);
    const std::string path = "features[" + std::to_string(i) + "]";
    if (feature.name().empty()) return UserError("empty", path + ".name");
    if (!feature.has_expression()) return UserError("missing", path + ".expression");
    const ir::NameId name = builder.Intern(feature.name());
    builder.BeginFeature();
    Result<ir::NodeId> root = Convert(feature.expression(), path + ".expression", builder);
    if (!root.ok()) return root.status();
    builder.EndFeature(name, *root);
  }
  for (int i = 0; i < message.models_size(); ++i) {
    const v1::ModelDeclaration& model = message.models(i);
    const std::string path = "models[" + std::to_string(i) + "]";
    if (model.name().empty()) return UserError("empty", path + ".name");
    if (model.format() == v1::ModelDeclaration::FORMAT_UNSPECIFIED) {
      return UserError("unspecified", path + ".format");
    }
    if (!v1::ModelDeclaration::Format_IsValid(model.format())) {
      return UserError("unknown", path + ".format");
    }
    if (model.path().find('\n') != std::string::npos) return UserError("line feed", path + ".path");
    builder.AddModel(ir::ModelDecl{builder.Intern(model.name()),
                                   model.path(),
                                   static_cast<ir::ModelFormat>(model.format()),
                                   {}});
  }
  return std::move(builder).Finish();
}

v1::FeatureSet MessageFromIr(const ir::FeatureSetIr& ir) {
  v1::FeatureSet message;
  for (const ir::InputDecl& input : ir.inputs) {
    v1::InputDeclaration* out = message.add_inputs();
    out->set_name(ir.NameOf(input.name));
    out->set_scope(static_cast<v1::InputDeclaration::Scope>(input.scope));
    out->set_dimension(input.dimension);
    if (input.default_value) out->set_default_value(*input.default_value);
  }
  for (const ir::FeatureDef& feature : ir.features) {
    v1::FeatureDefinition* out = message.add_features();
    out->set_name(ir.NameOf(feature.name));
    FillExpression(ir, feature.root, out->mutable_expression());
  }
  for (const ir::ModelDecl& model : ir.models) {
    v1::ModelDeclaration* out = message.add_models();
    out->set_name(ir.NameOf(model.name));
    out->set_path(model.path);
    out->set_format(static_cast<v1::ModelDeclaration::Format>(model.format));
  }
  return message;
}

bool MessagesEqual(const v1::FeatureSet& a, const v1::FeatureSet& b, std::string* report) {
  google::protobuf::util::DefaultFieldComparator comparator;
  comparator.set_treat_nan_as_equal(true);
  google::protobuf::util::MessageDifferencer differencer;
  differencer.set_field_comparator(&comparator);
  differencer.ReportDifferencesToString(report);
  return differencer.Compare(a, b);
}

// ---------------------------------------------------------------------------
// Random sets.

namespace {

const char* const kNames[] = {"x",    "price", "f_qux",  "größe",    "a\"b\\c", "tab\there\n",
                              "\x01", "日本",  "emoji😀", "user.age", "rank",    "`q`"};

float RandomFloat(Choices& choices, bool allow_nan) {
  static const float kFloats[] = {0.0f,
                                  -0.0f,
                                  1.0f,
                                  -1.5f,
                                  0.1f,
                                  30.0f,
                                  std::numeric_limits<float>::max(),
                                  -std::numeric_limits<float>::max(),
                                  std::numeric_limits<float>::min(),
                                  std::numeric_limits<float>::denorm_min(),
                                  std::numeric_limits<float>::infinity(),
                                  -std::numeric_limits<float>::infinity(),
                                  16777216.0f,
                                  1e10f,
                                  123456.789f,
                                  3.0e-39f};
  if (choices.OneIn(2)) return kFloats[choices.Below(std::size(kFloats))];
  const std::uint32_t bits = choices.Below(0xFFFFFFFFu) * 2654435761u;  // spread small values
  float value = std::bit_cast<float>(bits);
  if (value != value) value = allow_nan ? std::bit_cast<float>(0x7FC00000u) : 2.5f;
  return value;
}

std::vector<ir::Op> OpsOf(ir::OpKind kind) {
  std::vector<ir::Op> ops;
  for (const ir::OpInfo& info : ir::kOpTable) {
    // Optimizer-only rows are nothing a set can spell.
    if (info.kind == kind && !info.optimizer_only) ops.push_back(info.op);
  }
  return ops;
}

ir::NodeId RandomNode(Choices& choices, ir::IrBuilder& builder, std::uint32_t depth,
                      std::uint32_t max_depth, bool allow_nan) {
  auto name = [&] { return builder.Intern(kNames[choices.Below(std::size(kNames))]); };
  // Every kind of the kind table; at the depth limit only those without
  // operands.
  std::vector<ir::OpKind> kinds;
  for (const ir::KindInfo& info : ir::kKindTable) {
    if (depth < max_depth || !ir::HasOperands(info.kind)) kinds.push_back(info.kind);
  }
  const ir::OpKind kind = kinds[choices.Below(static_cast<std::uint32_t>(kinds.size()))];
  if (kind == ir::OpKind::kConstant) return builder.AddConstant(RandomFloat(choices, allow_nan));
  if (kind == ir::OpKind::kRef) return builder.AddRef(name());
  if (kind == ir::OpKind::kModel) {
    const ir::NameId model = name();
    const std::uint32_t output = choices.OneIn(2) ? 0 : choices.Below(0xFFFFFFFFu);
    std::vector<ir::NodeId> inputs;
    const std::uint32_t count = choices.Below(4);  // none: the model's own feature names
    for (std::uint32_t i = 0; i < count; ++i) {
      inputs.push_back(RandomNode(choices, builder, depth + 1, max_depth, allow_nan));
    }
    return builder.AddModelCall(model, inputs, output);
  }
  const std::vector<ir::Op> ops = OpsOf(kind);
  const ir::Op op = ops[choices.Below(static_cast<std::uint32_t>(ops.size()))];
  if (kind == ir::OpKind::kVector) {
    const ir::NameId lhs = choices.OneIn(5) ? ir::kNone : name();
    const ir::NameId rhs = choices.OneIn(3) ? ir::kNone : name();
    return builder.AddVector(op, lhs, rhs);
  }
  const int arity = ir::FixedArity(kind);
  const std::uint32_t count = arity > 0 ? static_cast<std::uint32_t>(arity) : 1 + choices.Below(4);
  std::vector<ir::NodeId> operands;
  for (std::uint32_t i = 0; i < count; ++i) {
    operands.push_back(RandomNode(choices, builder, depth + 1, max_depth, allow_nan));
  }
  if (kind != ir::OpKind::kNary) return builder.AddOp(op, operands);
  std::vector<float> weights;
  const std::uint32_t weight_count = choices.OneIn(2) ? 0 : choices.Below(5);
  for (std::uint32_t i = 0; i < weight_count; ++i) {
    weights.push_back(RandomFloat(choices, allow_nan));
  }
  return builder.AddNary(op, operands, weights);
}

}  // namespace

std::vector<std::uint32_t> RandomChoices(std::mt19937& rng, std::size_t count) {
  std::vector<std::uint32_t> values(count);
  for (std::uint32_t& value : values) value = static_cast<std::uint32_t>(rng());
  return values;
}

ir::FeatureSetIr RandomIr(Choices& choices, std::uint32_t max_depth, bool allow_nan) {
  ir::IrBuilder builder(ir::SourceFormat::kProto);
  const std::uint32_t input_count = choices.Below(4);
  for (std::uint32_t i = 0; i < input_count; ++i) {
    ir::InputDecl decl;
    decl.name = builder.Intern(kNames[choices.Below(std::size(kNames))]);
    decl.scope = choices.OneIn(2) ? Scope::kItem : Scope::kQuery;
    static const std::uint32_t kDimensions[] = {0, 0, 1, 64, 65536, 4294967295u};
    decl.dimension = kDimensions[choices.Below(std::size(kDimensions))];
    if (!choices.OneIn(3)) decl.default_value = RandomFloat(choices, allow_nan);
    builder.AddInput(decl);
  }
  const std::uint32_t model_count = choices.Below(3);
  for (std::uint32_t i = 0; i < model_count; ++i) {
    static const char* const kPaths[] = {"ranker.json", "", "models/a \"b\" \\c.txt", "/abs/m.onnx",
                                         "größe\t\r.json"};
    const ir::NameId name = builder.Intern(kNames[choices.Below(std::size(kNames))]);
    const auto format = ir::kModelFormats[choices.Below(std::size(ir::kModelFormats))].format;
    builder.AddModel(ir::ModelDecl{name, kPaths[choices.Below(std::size(kPaths))], format, {}});
  }
  const std::uint32_t feature_count = 1 + choices.Below(3);
  for (std::uint32_t i = 0; i < feature_count; ++i) {
    const ir::NameId name = builder.Intern(kNames[choices.Below(std::size(kNames))]);
    builder.BeginFeature();
    const ir::NodeId root = RandomNode(choices, builder, 1, max_depth, allow_nan);
    builder.EndFeature(name, root);
  }
  return std::move(builder).Finish();
}

namespace {

int RandomOperator(std::mt19937& rng, int count, bool break_rules) {
  const int roll = static_cast<int>(rng() % 20);
  if (break_rules && roll == 0) return 0;
  if (break_rules && roll == 1) return 99;
  return 1 + static_cast<int>(rng() % static_cast<unsigned>(count));
}

std::string RandomName(std::mt19937& rng, bool break_rules) {
  if (break_rules && rng() % 12 == 0) return "";
  return kNames[rng() % std::size(kNames)];
}

void RandomExpression(std::mt19937& rng, int depth, bool break_rules, v1::Expression* e) {
  const unsigned pick = depth >= 4 ? rng() % 3 : rng() % (break_rules ? 11 : 10);
  auto present = [&] { return !break_rules || rng() % 16 != 0; };
  switch (pick) {
    case 0:
      e->set_constant(std::bit_cast<float>(static_cast<std::uint32_t>(rng())));
      if (e->constant() != e->constant()) e->set_constant(0.5f);
      return;
    case 1:
      e->set_feature(RandomName(rng, break_rules));
      return;
    case 2: {
      v1::Vector* v = e->mutable_vector();
      v->set_operator_(static_cast<v1::Vector::Operator>(RandomOperator(rng, 4, break_rules)));
      if (present()) v->set_lhs(RandomName(rng, break_rules));
      if (rng() % 2) v->set_rhs(RandomName(rng, break_rules));
      return;
    }
    case 3:
      e->mutable_unary()->set_operator_(
          static_cast<v1::Unary::Operator>(RandomOperator(rng, 14, break_rules)));
      if (present())
        RandomExpression(rng, depth + 1, break_rules, e->mutable_unary()->mutable_operand());
      return;
    case 4: {
      v1::Binary* b = e->mutable_binary();
      b->set_operator_(static_cast<v1::Binary::Operator>(RandomOperator(rng, 15, break_rules)));
      if (present()) RandomExpression(rng, depth + 1, break_rules, b->mutable_lhs());
      if (present()) RandomExpression(rng, depth + 1, break_rules, b->mutable_rhs());
      return;
    }
    case 5: {
      v1::Conditional* c = e->mutable_conditional();
      if (present()) RandomExpression(rng, depth + 1, break_rules, c->mutable_condition());
      if (present()) RandomExpression(rng, depth + 1, break_rules, c->mutable_then());
      if (present()) RandomExpression(rng, depth + 1, break_rules, c->mutable_otherwise());
      return;
    }
    case 6:
    case 7: {
      v1::Nary* n = e->mutable_nary();
      n->set_operator_(static_cast<v1::Nary::Operator>(RandomOperator(rng, 6, break_rules)));
      const unsigned count = break_rules && rng() % 10 == 0 ? 0 : 1 + rng() % 3;
      for (unsigned i = 0; i < count; ++i)
        RandomExpression(rng, depth + 1, break_rules, n->add_operands());
      const unsigned weights = rng() % 4;
      for (unsigned i = 0; i < weights; ++i) n->add_weights(static_cast<float>(rng() % 100) / 8);
      return;
    }
    case 8:
      e->mutable_aggregate()->set_operator_(
          static_cast<v1::Aggregate::Operator>(RandomOperator(rng, 10, break_rules)));
      if (present())
        RandomExpression(rng, depth + 1, break_rules, e->mutable_aggregate()->mutable_operand());
      return;
    case 9: {
      v1::Model* m = e->mutable_model();
      if (present()) m->set_name(RandomName(rng, break_rules));
      const unsigned count = rng() % 3;
      for (unsigned i = 0; i < count; ++i) {
        RandomExpression(rng, depth + 1, break_rules, m->add_inputs());
      }
      if (rng() % 2) m->set_output(rng() % 2 ? rng() % 3 : static_cast<std::uint32_t>(rng()));
      return;
    }
    default:
      if (rng() % 2) e->set_feature("f");
      return;  // otherwise: no kind set
  }
}

}  // namespace

v1::FeatureSet RandomMessage(std::mt19937& rng, bool break_rules) {
  v1::FeatureSet message;
  const unsigned inputs = rng() % 3;
  for (unsigned i = 0; i < inputs; ++i) {
    v1::InputDeclaration* input = message.add_inputs();
    input->set_name(RandomName(rng, break_rules));
    const unsigned scope = rng() % 10;
    input->set_scope(static_cast<v1::InputDeclaration::Scope>(
        scope < 5 ? 0 : (scope < 9 || !break_rules ? 1 : 7)));
    if (rng() % 2) input->set_dimension(rng() % 100);
    if (rng() % 2) input->set_default_value(static_cast<float>(rng() % 1000) / 16);
  }
  const unsigned features = rng() % 4;
  for (unsigned i = 0; i < features; ++i) {
    v1::FeatureDefinition* feature = message.add_features();
    feature->set_name(RandomName(rng, break_rules));
    if (!break_rules || rng() % 16 != 0) {
      RandomExpression(rng, 1, break_rules, feature->mutable_expression());
    }
  }
  const unsigned models = rng() % 3;
  for (unsigned i = 0; i < models; ++i) {
    v1::ModelDeclaration* model = message.add_models();
    model->set_name(RandomName(rng, break_rules));
    static const char* const kPaths[] = {"ranker.json", "", "a \"b\" \\c.txt", "x\ny"};
    model->set_path(kPaths[rng() % (break_rules ? 4 : 3)]);
    const unsigned format = rng() % 10;
    model->set_format(static_cast<v1::ModelDeclaration::Format>(
        format < 9 || !break_rules ? 1 + format % 3 : (rng() % 2 ? 0 : 7)));
  }
  return message;
}

}  // namespace calcjit::wire_test
