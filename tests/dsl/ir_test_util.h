// Helpers shared by the text syntax, printer, checker and round-trip tests
// (tests/dsl, tests/ir, tests/property): a structural rendering of the IR that
// ignores text positions, an expression builder over ir::IrBuilder, the
// errors of a source as "location: message" lines, and a thread with a small
// stack.
//
// Everything here is written independently of the code under test: floats are
// rendered with printf's "%.9g" (exact for float32), names are quoted by the
// test's own reading of spec section 4, not by the printer's QuoteName.
#ifndef CALCJIT_TESTS_DSL_IR_TEST_UTIL_H_
#define CALCJIT_TESTS_DSL_IR_TEST_UTIL_H_

#include <pthread.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "calcjit/feature_set.h"
#include "calcjit/status.h"
#include "dsl/text_parser.h"
#include "ir/builder.h"
#include "ir/feature_set_ir.h"
#include "ir/op.h"

namespace calcjit::ir_test {

// A float as an unambiguous short text: "%.9g" reads back to the same float32,
// so two renderings are equal iff the floats are (every NaN is "nan", spec
// section 1: a NaN's sign and payload are not observable).
inline std::string FloatText(float value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[48];
  std::snprintf(buffer, sizeof(buffer), "%.9g", static_cast<double>(value));
  return buffer;
}

inline std::uint32_t Bits(float value) {
  return std::bit_cast<std::uint32_t>(value);
}
inline float FromBits(std::uint32_t bits) {
  return std::bit_cast<float>(bits);
}

// A name as the contract writes it (section 4): plain when it matches
// [A-Za-z_][A-Za-z0-9_.]* and is not reserved, else backquoted with inner
// backquotes doubled.
inline bool IsPlainName(std::string_view name) {
  if (name.empty() || name == "input" || name == "model" || name == "inf" || name == "nan") {
    return false;
  }
  auto start = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  if (!start(name.front())) return false;
  return std::all_of(name.begin(), name.end(),
                     [&](char c) { return start(c) || (c >= '0' && c <= '9') || c == '.'; });
}

inline std::string NameText(std::string_view name) {
  if (IsPlainName(name)) return std::string(name);
  std::string out = "`";
  for (char c : name) {
    out += c;
    if (c == '`') out += '`';
  }
  return out + "`";
}

// An expression as a tree of operator names (the `name` column of op.def),
// e.g. "Add(Add(a, b), c)", "Neg(Pow(2, 2))", "Mul(a, -2)",
// "WeightedSum([0.5, -1], a, b)", "Dot(u, v)", "Model(ranker[0], a, b)".
// Recursive: for shallow trees.
inline std::string Shape(const ir::FeatureSetIr& ir, ir::NodeId id) {
  const ir::Node& node = ir.nodes[id];
  const ir::OpInfo& info = ir::Info(node.op);
  switch (info.kind) {
    case ir::OpKind::kConstant:
      return FloatText(node.constant);
    case ir::OpKind::kRef:
      return NameText(ir.NameOf(node.name));
    case ir::OpKind::kVector: {
      std::string out = std::string(info.name) + "(";
      out += node.name == ir::kNone ? "<none>" : NameText(ir.NameOf(node.name));
      if (node.name2 != ir::kNone) out += ", " + NameText(ir.NameOf(node.name2));
      return out + ")";
    }
    default:
      break;
  }
  std::string out = std::string(info.name) + "(";
  bool first = true;
  if (info.kind == ir::OpKind::kModel) {  // Model(name[k], inputs...)
    out += node.name == ir::kNone ? "<none>" : NameText(ir.NameOf(node.name));
    out += "[" + std::to_string(node.output) + "]";
    first = false;
  }
  if (node.weight_count > 0 || node.op == ir::Op::kWeightedSum) {
    out += "[";
    for (std::size_t i = 0; i < node.weight_count; ++i) {
      if (i > 0) out += ", ";
      out += FloatText(ir.WeightsOf(node)[i]);
    }
    out += "]";
    first = false;
  }
  for (const ir::NodeId operand : ir.OperandsOf(node)) {
    if (!first) out += ", ";
    out += Shape(ir, operand);
    first = false;
  }
  return out + ")";
}

// The whole set, one line per input and definition, positions ignored: two
// sets are structurally equal (same messages, spec section 4) iff their dumps
// are.
inline std::string Dump(const ir::FeatureSetIr& ir) {
  std::string out;
  for (const ir::InputDecl& input : ir.inputs) {
    // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive)
    // about "literal" + std::string here.
    out.append("input ").append(NameText(ir.NameOf(input.name)));
    out.append(input.scope == Scope::kQuery ? " query[" : " item[");
    out.append(std::to_string(input.dimension)).append("]");
    if (input.default_value) out.append(" = ").append(FloatText(*input.default_value));
    out.append("\n");
  }
  for (const ir::ModelDecl& model : ir.models) {
    out.append("model ").append(NameText(ir.NameOf(model.name))).append(" format ");
    out.append(std::to_string(static_cast<int>(model.format))).append(" path [");
    out.append(model.path).append("]\n");
  }
  for (const ir::FeatureDef& feature : ir.features) {
    out.append(NameText(ir.NameOf(feature.name))).append(" = ");
    out.append(Shape(ir, feature.root)).append("\n");
  }
  return out;
}

// Nesting depth of a definition (1 for a leaf), without recursion: nodes are
// in post-order, so every operand comes before its user.
inline std::uint32_t DepthOf(const ir::FeatureSetIr& ir, const ir::FeatureDef& feature) {
  std::vector<std::uint32_t> depth(feature.root - feature.first_node + 1, 1);
  for (ir::NodeId id = feature.first_node; id <= feature.root; ++id) {
    for (const ir::NodeId operand : ir.OperandsOf(ir.nodes[id])) {
      depth[id - feature.first_node] =
          std::max(depth[id - feature.first_node], depth[operand - feature.first_node] + 1);
    }
  }
  return depth.back();
}

// Every diagnostic of a status as "location: message".
inline std::vector<std::string> Lines(const Status& status) {
  std::vector<std::string> lines;
  for (const Diagnostic& d : status.diagnostics()) lines.push_back(d.ToString());
  return lines;
}

// Load options that declare models without reading them.
inline LoadOptions NoModels() {
  LoadOptions options;
  options.load_models = false;
  return options;
}

// The errors FeatureSet::Parse reports for a set (empty when it loads). The
// set's models are declared, not read (LoadOptions::load_models false): these
// are the readers' and the checker's errors.
inline std::vector<std::string> ErrorsOf(std::string_view source, Format format = Format::kText) {
  const Result<FeatureSet> set = FeatureSet::Parse(source, format, NoModels());
  if (set.ok()) return {};
  return Lines(set.status());
}

// The only error of a set, or a description of what happened instead.
inline std::string OnlyErrorOf(std::string_view source, Format format = Format::kText) {
  const std::vector<std::string> errors = ErrorsOf(source, format);
  if (errors.size() == 1) return errors.front();
  std::string out = std::to_string(errors.size()) + " errors:";
  for (const std::string& e : errors) out += "\n  " + e;
  return out;
}

// The shape of `expression` read as the only definition "f = expression;"
// (syntax only, not checked), or "error: ..." with the reader's diagnostics.
inline std::string ParseShape(std::string_view expression) {
  const std::string source = "f = " + std::string(expression) + ";";
  Result<ir::FeatureSetIr> ir = dsl::ReadText(source);
  if (!ir.ok()) return "error: " + ir.status().ToString();
  if (ir->features.size() != 1) return "error: not one definition";
  return Shape(*ir, ir->features[0].root);
}

// The constant of "f = literal;" (syntax only), or nullopt when the
// definition is not a single constant.
inline std::optional<float> ParseConstant(std::string_view literal) {
  Result<ir::FeatureSetIr> ir = dsl::ReadText("f = " + std::string(literal) + ";");
  if (!ir.ok() || ir->features.size() != 1) return std::nullopt;
  const ir::Node& root = ir->nodes[ir->features[0].root];
  if (root.op != ir::Op::kConstant) return std::nullopt;
  return root.constant;
}

// Builds sets node by node for the printer and checker tests:
//   ExprBuilder b;
//   b.Define("f", b.Op(Op::kPow, {b.Const(-2), b.Ref("x")}));
class ExprBuilder {
 public:
  explicit ExprBuilder(ir::SourceFormat source = ir::SourceFormat::kText) : builder_(source) {
    builder_.BeginFeature();
  }

  ir::NodeId Const(float value) { return builder_.AddConstant(value); }
  ir::NodeId Ref(std::string_view name) { return builder_.AddRef(builder_.Intern(name)); }
  ir::NodeId Op(ir::Op op, std::initializer_list<ir::NodeId> operands) {
    return builder_.AddOp(op, std::span<const ir::NodeId>(operands.begin(), operands.size()));
  }
  ir::NodeId Nary(ir::Op op, std::initializer_list<ir::NodeId> operands,
                  std::initializer_list<float> weights) {
    return builder_.AddNary(op, std::span<const ir::NodeId>(operands.begin(), operands.size()),
                            std::span<const float>(weights.begin(), weights.size()));
  }
  ir::NodeId Vector(ir::Op op, std::string_view lhs, std::string_view rhs = {}) {
    return builder_.AddVector(op, lhs.empty() ? ir::kNone : builder_.Intern(lhs),
                              rhs.empty() ? ir::kNone : builder_.Intern(rhs));
  }
  ir::NodeId Model(std::string_view model, std::initializer_list<ir::NodeId> inputs,
                   std::uint32_t output) {
    return builder_.AddModelCall(
        builder_.Intern(model), std::span<const ir::NodeId>(inputs.begin(), inputs.size()), output);
  }
  void DeclareModel(std::string_view name, ir::ModelFormat format, std::string path) {
    builder_.AddModel(ir::ModelDecl{builder_.Intern(name), std::move(path), format, {}});
  }
  // Ends the current definition; the next nodes belong to the next one.
  void Define(std::string_view name, ir::NodeId root) {
    builder_.EndFeature(builder_.Intern(name), root);
  }
  void Input(std::string_view name, Scope scope = Scope::kItem, std::uint32_t dimension = 0,
             std::optional<float> default_value = std::nullopt) {
    ir::InputDecl decl;
    decl.name = builder_.Intern(name);
    decl.scope = scope;
    decl.dimension = dimension;
    decl.default_value = default_value;
    builder_.AddInput(decl);
  }
  ir::FeatureSetIr Finish() && { return std::move(builder_).Finish(); }

 private:
  ir::IrBuilder builder_;
};

// Runs `body` on a new thread whose stack is `stack_bytes` (a JVM's default
// is 1 MiB, spec section 5). Returns false if the thread could not be made.
inline bool RunWithStack(std::size_t stack_bytes, const std::function<void()>& body) {
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) return false;
  if (pthread_attr_setstacksize(&attr, stack_bytes) != 0) {
    pthread_attr_destroy(&attr);
    return false;
  }
  pthread_t thread;
  auto trampoline = [](void* arg) -> void* {
    (*static_cast<const std::function<void()>*>(arg))();
    return nullptr;
  };
  const int created =
      pthread_create(&thread, &attr, trampoline, const_cast<std::function<void()>*>(&body));
  pthread_attr_destroy(&attr);
  if (created != 0) return false;
  pthread_join(thread, nullptr);
  return true;
}

inline constexpr std::size_t kJvmStack = std::size_t{1} << 20;

}  // namespace calcjit::ir_test

#endif  // CALCJIT_TESTS_DSL_IR_TEST_UTIL_H_
