// Property tests of the text syntax and its printer against the other two
// formats (spec sections 2 and 4), over random VALID feature sets:
//
//  - the printed text is a fixed point: printing what was read from printed
//    text gives the same text;
//  - parsing printed text gives back the same messages (structurally, with
//    the one documented normalization: Nary MIN/MAX with exactly two operands
//    prints as min(a, b) and reads back as Binary MIN/MAX);
//  - proto -> text -> proto and JSON -> text -> JSON give the same bytes;
//  - text written by an independent, noisy renderer (redundant parentheses,
//    pow() calls, comments, CRLF, other number spellings, needless
//    backquotes, inputs declared between definitions) reads as the same IR.
//
// Sets are generated as a small tree (GenSet) with rapidcheck's combinators;
// operator nodes also shrink to one of their operands or to fewer operands
// (Compose), so a failure shrinks to a minimal set. References are abstract
// indices that BuildIr resolves deterministically, which keeps every shrunk
// set valid (scalar inputs only as columns, vector inputs of equal dimension,
// earlier definitions only: no cycles). Each property runs rapidcheck's
// default 100 cases (RC_PARAMS="max_success=N" for more).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <ostream>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "calcjit/feature_set.h"
#include "dsl/json_writer.h"
#include "dsl/proto_writer.h"
#include "dsl/text_parser.h"
#include "dsl/text_printer.h"
#include "ir/builder.h"
#include "ir/model_format.h"
#include "ir/op.h"
#include "runtime/internal.h"
#include "tests/dsl/ir_test_util.h"

namespace calcjit::roundtrip_test {
namespace {

using ir::Op;
using ir_test::Dump;

constexpr float kInf = std::numeric_limits<float>::infinity();

// ---------------------------------------------------------------------------
// The generated set, before its references are resolved.

struct GenExprNode {
  enum class Kind : std::uint8_t { kConstant, kInput, kFeature, kImplicit, kVector, kOp };
  Kind kind = Kind::kConstant;
  float constant = 0.0f;
  std::uint32_t a = 0;  // reference choices (kInput, kFeature, kImplicit, kVector lhs)
  std::uint32_t b = 0;  // kVector rhs choice
  Op op = Op::kConstant;
  std::vector<GenExprNode> operands;
  std::vector<float> weights;
};

struct GenInput {
  std::uint32_t style = 0;
  Scope scope = Scope::kItem;
  std::uint32_t dimension = 0;
  std::optional<float> default_value;  // dropped for vectors
};

struct GenFeature {
  std::uint32_t style = 0;
  GenExprNode expression;
};

// model NAME = FORMAT("PATH"); the name and the path by style.
struct GenModel {
  std::uint32_t style = 0;
  std::uint32_t format = 0;  // index into ir::kModelFormats
  std::uint32_t path = 0;    // index into kModelPaths
};

struct GenSetSpec {
  std::vector<GenInput> inputs;
  std::vector<GenFeature> features;
  std::uint32_t noise_seed = 0;  // for the noisy renderer only
  std::vector<GenModel> models;
};

// Model paths with everything a string literal must carry: quotes and
// backslashes (escaped, or a lone backslash), spaces, a tab, a CR, non-ASCII,
// '#' and ';' (not comments or ends inside a string), the empty path.
const char* const kModelPaths[] = {
    "ranker.json", "models/a b/c.txt", "q\"uote\"d.onnx", "C:\\dir\\m.json",
    "trail\\",     "tab\tcr\r#;.txt",  "größe/日本.onnx", "",
    "\\\"\\"};

// ---------------------------------------------------------------------------
// Generators.

float CanonicalNan() {
  return ir_test::FromBits(0x7fc00000u);
}

rc::Gen<float> GenFloat() {
  return rc::gen::weightedOneOf<float>({
      {5, rc::gen::element<float>(
              0.0f, 1.0f, -1.0f, 2.0f, 0.5f, -0.0f, 0.1f, -2.5f, kInf, -kInf, CanonicalNan(),
              std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::denorm_min(),
              ir_test::FromBits(0x007fffffu), std::numeric_limits<float>::min(),
              std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(), 1e10f,
              16777216.0f, 1e-7f, 3.0f, 100.0f, 1e-30f, -1e30f)},
      // Any bit pattern: every exponent, subnormals, tiny and huge values.
      // NaNs become the quiet NaN (the sign and payload of a NaN are not
      // observable; see NonCanonicalNanConstants below).
      {3, rc::gen::map(rc::gen::arbitrary<std::uint32_t>(),
                       [](std::uint32_t bits) {
                         const float value = ir_test::FromBits(bits);
                         return std::isnan(value) ? CanonicalNan() : value;
                       })},
      {2, rc::gen::map(rc::gen::inRange(-4000, 4000), [](int i) { return i / 16.0f; })},
  });
}

// The operators, straight from the table (src/ir/op.def), so that a new row
// is generated without touching this file (GeneratorReachesEveryOperator
// checks it is).
std::vector<Op> OpsOf(ir::OpKind kind) {
  std::vector<Op> ops;
  for (const ir::OpInfo& info : ir::kOpTable) {
    // Optimizer-only rows are nothing a set can spell.
    if (info.kind == kind && !info.optimizer_only) ops.push_back(info.op);
  }
  return ops;
}

// Nary rows that take weights (weighted_sum), or those that do not.
std::vector<Op> NaryOps(bool weighted) {
  std::vector<Op> ops;
  for (const Op op : OpsOf(ir::OpKind::kNary)) {
    if (ir::Info(op).weighted == weighted) ops.push_back(op);
  }
  return ops;
}

rc::Gen<Op> GenOpOf(std::vector<Op> ops) {
  return rc::gen::elementOf(std::move(ops));
}

// A node of a kind with a fixed number of operands.
int ArityOf(ir::OpKind kind) {
  return ir::FixedArity(kind);
}

rc::Gen<GenExprNode> GenLeaf() {
  using Kind = GenExprNode::Kind;
  auto reference = [](Kind kind) {
    return rc::gen::map(rc::gen::inRange<std::uint32_t>(0, 16), [kind](std::uint32_t a) {
      GenExprNode e;
      e.kind = kind;
      e.a = a;
      return e;
    });
  };
  // Shrinks towards the first alternative: a constant, then 0.
  return rc::gen::oneOf(
      rc::gen::map(GenFloat(),
                   [](float c) {
                     GenExprNode e;
                     e.constant = c;
                     return e;
                   }),
      reference(Kind::kInput), reference(Kind::kFeature), reference(Kind::kImplicit),
      rc::gen::apply(
          [](Op op, std::uint32_t a, std::uint32_t b) {
            GenExprNode e;
            e.kind = Kind::kVector;
            e.op = op;
            e.a = a;
            e.b = b;
            return e;
          },
          GenOpOf(OpsOf(ir::OpKind::kVector)), rc::gen::inRange<std::uint32_t>(0, 16),
          rc::gen::inRange<std::uint32_t>(0, 16)));
}

using ExprShrinkable = rc::Shrinkable<GenExprNode>;
using FloatShrinkable = rc::Shrinkable<float>;

// An operator node from its parts, each still shrinkable. Its shrinks, tried
// in order: an operand in place of the node (so a failure deep inside a tree
// shrinks to the subtree that matters), an operand less (variadic
// operators), a simpler operator, then simpler operands and weights in place.
ExprShrinkable Compose(rc::Shrinkable<Op> op, std::vector<ExprShrinkable> operands,
                       std::vector<FloatShrinkable> weights, bool variadic) {
  GenExprNode node;
  node.kind = GenExprNode::Kind::kOp;
  node.op = op.value();
  for (const ExprShrinkable& operand : operands) node.operands.push_back(operand.value());
  for (const FloatShrinkable& weight : weights) node.weights.push_back(weight.value());

  rc::Seq<ExprShrinkable> fewer;
  if (variadic && operands.size() > 1) {
    fewer = rc::seq::map(rc::seq::range<std::size_t>(0, operands.size()), [=](std::size_t i) {
      auto kept = operands;
      kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(i));
      auto kept_weights = weights;
      if (!kept_weights.empty())
        kept_weights.erase(kept_weights.begin() + static_cast<std::ptrdiff_t>(i));
      return Compose(op, std::move(kept), std::move(kept_weights), variadic);
    });
  }
  auto simpler_op = rc::seq::map(op.shrinks(), [=](rc::Shrinkable<Op> o) {
    return Compose(std::move(o), operands, weights, variadic);
  });
  auto simpler_operands =
      rc::seq::mapcat(rc::seq::range<std::size_t>(0, operands.size()), [=](std::size_t i) {
        return rc::seq::map(operands[i].shrinks(), [=](ExprShrinkable shrunk) {
          auto copy = operands;
          copy[i] = std::move(shrunk);
          return Compose(op, std::move(copy), weights, variadic);
        });
      });
  auto simpler_weights =
      rc::seq::mapcat(rc::seq::range<std::size_t>(0, weights.size()), [=](std::size_t i) {
        return rc::seq::map(weights[i].shrinks(), [=](FloatShrinkable shrunk) {
          auto copy = weights;
          copy[i] = std::move(shrunk);
          return Compose(op, operands, std::move(copy), variadic);
        });
      });
  return rc::shrinkable::just(
      std::move(node),
      rc::seq::concat(rc::seq::fromContainer(operands), std::move(fewer), std::move(simpler_op),
                      std::move(simpler_operands), std::move(simpler_weights)));
}

rc::Gen<GenExprNode> GenExpr(int depth);

// A node of one of `ops` with `min_count` to `max_count` operands (and as
// many weights when `weighted`), `depth` levels deep at most.
rc::Gen<GenExprNode> GenOpNode(rc::Gen<Op> ops, int min_count, int max_count, bool weighted,
                               int depth) {
  return rc::Gen<GenExprNode>([=](const rc::Random& random, int size) {
    rc::Random r = random;
    rc::Shrinkable<Op> op = ops(r.split(), size);
    const int count = min_count == max_count
                          ? min_count
                          : rc::gen::inRange(min_count, max_count + 1)(r.split(), size).value();
    const rc::Gen<GenExprNode> operand = GenExpr(depth - 1);
    std::vector<ExprShrinkable> operands;
    std::vector<FloatShrinkable> weights;
    for (int i = 0; i < count; ++i) operands.push_back(operand(r.split(), size));
    if (weighted) {
      for (int i = 0; i < count; ++i) weights.push_back(GenFloat()(r.split(), size));
    }
    return Compose(std::move(op), std::move(operands), std::move(weights), min_count != max_count);
  });
}

// A model call: operands from GenOpNode (none to three), the model and the
// output k chosen apart (mostly small; sometimes the largest uint32).
rc::Gen<GenExprNode> GenModelCall(int depth) {
  return rc::gen::apply(
      [](GenExprNode call, std::uint32_t model, std::uint32_t output) {
        call.a = model;
        call.b = output;
        return call;
      },
      GenOpNode(GenOpOf(OpsOf(ir::OpKind::kModel)), 0, 3, false, depth),
      rc::gen::inRange<std::uint32_t>(0, 16),
      rc::gen::weightedOneOf<std::uint32_t>(
          {{6, rc::gen::inRange<std::uint32_t>(0, 4)},
           {1, rc::gen::just(std::numeric_limits<std::uint32_t>::max())},
           {1, rc::gen::arbitrary<std::uint32_t>()}}));
}

rc::Gen<GenExprNode> GenExpr(int depth) {
  using ir::OpKind;
  if (depth <= 0) return GenLeaf();
  const auto fixed = [depth](OpKind kind) {
    return GenOpNode(GenOpOf(OpsOf(kind)), ArityOf(kind), ArityOf(kind), false, depth);
  };
  return rc::gen::weightedOneOf<GenExprNode>({
      {4, GenLeaf()},
      {3, fixed(OpKind::kUnary)},
      {5, fixed(OpKind::kBinary)},
      {1, fixed(OpKind::kConditional)},
      {2, GenOpNode(GenOpOf(NaryOps(false)), 1, 4, false, depth)},
      {1, GenOpNode(GenOpOf(NaryOps(true)), 1, 4, true, depth)},
      {1, fixed(OpKind::kAggregate)},
      {1, GenModelCall(depth)},
  });
}

constexpr std::uint32_t kNameStyles = 8;

rc::Gen<GenInput> GenInputSpec() {
  return rc::gen::apply(
      [](std::uint32_t style, Scope scope, std::uint32_t dimension, bool has_default, float value) {
        GenInput input;
        input.style = style;
        input.scope = scope;
        input.dimension = dimension;
        if (has_default) input.default_value = value;
        return input;
      },
      rc::gen::inRange<std::uint32_t>(0, kNameStyles),
      rc::gen::element(Scope::kItem, Scope::kQuery),
      rc::gen::element<std::uint32_t>(0, 0, 0, 1, 3, 3, 8, 65536), rc::gen::arbitrary<bool>(),
      GenFloat());
}

rc::Gen<GenFeature> GenFeatureSpec() {
  return rc::gen::apply(
      [](std::uint32_t style, GenExprNode e) {
        return GenFeature{style, std::move(e)};
      },
      rc::gen::inRange<std::uint32_t>(0, kNameStyles), GenExpr(5));
}

// A vector of up to about 6 elements (shrinking removes any of them); the
// elements are generated at the full size.
template <typename T>
rc::Gen<std::vector<T>> SmallVector(rc::Gen<T> element) {
  return rc::gen::withSize([element](int size) {
    return rc::gen::scale(0.06, rc::gen::container<std::vector<T>>(rc::gen::resize(size, element)));
  });
}

rc::Gen<GenModel> GenModelSpec() {
  return rc::gen::apply(
      [](std::uint32_t style, std::uint32_t format, std::uint32_t path) {
        return GenModel{style, format, path};
      },
      rc::gen::inRange<std::uint32_t>(0, kNameStyles),
      rc::gen::inRange<std::uint32_t>(0, std::size(ir::kModelFormats)),
      rc::gen::inRange<std::uint32_t>(0, std::size(kModelPaths)));
}

rc::Gen<GenSetSpec> GenSet() {
  // The noise seed comes first so that it shrinks first (0: no noise).
  return rc::gen::apply(
      [](std::uint32_t seed, std::vector<GenInput> inputs, GenFeature first,
         std::vector<GenFeature> more, std::vector<GenModel> models) {
        GenSetSpec spec{std::move(inputs), {std::move(first)}, seed, std::move(models)};
        for (GenFeature& f : more) spec.features.push_back(std::move(f));
        return spec;
      },
      rc::gen::arbitrary<std::uint32_t>(), SmallVector(GenInputSpec()), GenFeatureSpec(),
      SmallVector(GenFeatureSpec()), SmallVector(GenModelSpec()));
}

// ---------------------------------------------------------------------------
// Resolving a spec into names and IR.

// Unique names of every style: plain, with dots, needing backquotes (space,
// backquote, leading digit, non-ASCII, control characters), and reserved
// words or function names
// (each kind has its own list, so names never collide).
std::string StyledName(char kind, std::uint32_t index, std::uint32_t style) {
  static const char* const kInputSpecial[] = {"input", "item", "query", "abs", "pow", "Inf"};
  static const char* const kFeatureSpecial[] = {"model", "log", "rank", "min", "if", "NaN"};
  static const char* const kImplicitSpecial[] = {"inf", "nan", "sum", "dot", "norm", "softmax"};
  // Model names are a namespace of their own: some are also feature names.
  static const char* const kModelSpecial[] = {"model", "xgboost", "log", "rank", "if", "onnx"};
  const std::string base = std::string(1, kind) + std::to_string(index);
  switch (style % kNameStyles) {
    case 0:
      return base;
    case 1:
      return base + ".x_y.";
    case 2:
      return base + " with space";
    case 3:
      return base + "`tick";
    case 4:
      return std::to_string(index) + base;
    case 5:
      return "é" + base;
    case 6:  // line breaks, a tab, a NUL, '#', quotes: all inside backquotes
      return base + std::string("\r\n#\t\0\"\\'\n", 9);
    default: {
      const char* const* list = kind == 'i'   ? kInputSpecial
                                : kind == 'f' ? kFeatureSpecial
                                : kind == 'm' ? kModelSpecial
                                              : kImplicitSpecial;
      return index < 6 ? list[index] : base;
    }
  }
}

constexpr std::uint32_t kImplicitNames = 5;
std::string ImplicitName(std::uint32_t choice) {
  const std::uint32_t index = choice % kImplicitNames;
  return StyledName('u', index, (index * 3 + choice / kImplicitNames) % kNameStyles);
}

// What each abstract reference of a spec resolves to, fixed per set.
class Resolver {
 public:
  explicit Resolver(const GenSetSpec& spec) {
    for (std::uint32_t i = 0; i < spec.inputs.size(); ++i) {
      const GenInput& input = spec.inputs[i];
      input_names_.push_back(StyledName('i', i, input.style));
      if (input.dimension == 0) {
        scalars_.push_back(i);
      } else {
        vectors_.push_back(i);
      }
    }
    for (std::uint32_t f = 0; f < spec.features.size(); ++f) {
      feature_names_.push_back(StyledName('f', f, spec.features[f].style));
    }
    for (const GenInput& input : spec.inputs) dimensions_.push_back(input.dimension);
    for (std::uint32_t m = 0; m < spec.models.size(); ++m) {
      model_names_.push_back(StyledName('m', m, spec.models[m].style));
    }
  }

  const std::string& InputName(std::uint32_t i) const { return input_names_[i]; }
  const std::string& ModelName(std::uint32_t m) const { return model_names_[m]; }
  // The model a call names, or nullopt when the set declares none (the node
  // then reads an implicit column).
  std::optional<std::string> CalledModel(const GenExprNode& e) const {
    if (model_names_.empty()) return std::nullopt;
    return model_names_[e.a % model_names_.size()];
  }
  const std::string& FeatureName(std::uint32_t f) const { return feature_names_[f]; }

  // The name a column reference in definition `feature` stands for, and
  // whether it is an implicit input.
  std::pair<std::string, bool> Column(const GenExprNode& e, std::uint32_t feature) const {
    using Kind = GenExprNode::Kind;
    if (e.kind == Kind::kInput && !scalars_.empty()) {
      return {input_names_[scalars_[e.a % scalars_.size()]], false};
    }
    if (e.kind == Kind::kFeature && feature > 0) return {feature_names_[e.a % feature], false};
    return {ImplicitName(e.a), true};
  }

  // The vector operands of a Vector node (rhs empty for NORM), or nullopt when
  // the set has no vector input (the node then reads an implicit column).
  std::optional<std::pair<std::string, std::string>> Vectors(const GenExprNode& e) const {
    if (vectors_.empty()) return std::nullopt;
    const std::uint32_t lhs = vectors_[e.a % vectors_.size()];
    if (ir::Info(e.op).lhs_only) return std::make_pair(input_names_[lhs], std::string());
    std::vector<std::uint32_t> same;
    for (std::uint32_t v : vectors_) {
      if (dimensions_[v] == dimensions_[lhs]) same.push_back(v);
    }
    return std::make_pair(input_names_[lhs], input_names_[same[e.b % same.size()]]);
  }

 private:
  std::vector<std::string> input_names_;
  std::vector<std::string> feature_names_;
  std::vector<std::string> model_names_;
  std::vector<std::uint32_t> scalars_;
  std::vector<std::uint32_t> vectors_;
  std::vector<std::uint32_t> dimensions_;
};

// Nary MIN/MAX with two operands as the text syntax reads them back: a call
// spelling shared by a Binary row and a Nary row is the Binary row with two
// arguments (spec section 4).
Op Normalized(Op op, std::size_t operand_count, bool normalize) {
  if (!normalize || operand_count != 2 || ir::KindOf(op) != ir::OpKind::kNary) return op;
  for (const Op binary : OpsOf(ir::OpKind::kBinary)) {
    if (ir::Info(binary).syntax == ir::Syntax::kCall &&
        ir::Info(binary).spelling == ir::Info(op).spelling) {
      return binary;
    }
  }
  return op;
}

class IrEmitter {
 public:
  IrEmitter(const Resolver& resolver, bool normalize, ir::SourceFormat source)
      : resolver_(resolver), normalize_(normalize), builder_(source) {}

  ir::FeatureSetIr Build(const GenSetSpec& spec, std::vector<std::string>* implicit_inputs) {
    implicit_ = implicit_inputs;
    for (std::uint32_t i = 0; i < spec.inputs.size(); ++i) {
      const GenInput& input = spec.inputs[i];
      ir::InputDecl decl;
      decl.name = builder_.Intern(resolver_.InputName(i));
      decl.scope = input.scope;
      decl.dimension = input.dimension;
      if (input.dimension == 0) decl.default_value = input.default_value;
      builder_.AddInput(decl);
    }
    for (std::uint32_t m = 0; m < spec.models.size(); ++m) {
      const GenModel& model = spec.models[m];
      builder_.AddModel(ir::ModelDecl{builder_.Intern(resolver_.ModelName(m)),
                                      kModelPaths[model.path],
                                      ir::kModelFormats[model.format].format,
                                      {}});
    }
    for (std::uint32_t f = 0; f < spec.features.size(); ++f) {
      builder_.BeginFeature();
      const ir::NodeId root = Emit(spec.features[f].expression, f);
      builder_.EndFeature(builder_.Intern(resolver_.FeatureName(f)), root);
    }
    return std::move(builder_).Finish();
  }

 private:
  ir::NodeId Emit(const GenExprNode& e, std::uint32_t feature) {
    using Kind = GenExprNode::Kind;
    switch (e.kind) {
      case Kind::kConstant:
        return builder_.AddConstant(e.constant);
      case Kind::kInput:
      case Kind::kFeature:
      case Kind::kImplicit:
        return Column(e, feature);
      case Kind::kVector: {
        const auto names = resolver_.Vectors(e);
        if (!names) return Column(e, feature);
        return builder_.AddVector(
            e.op, builder_.Intern(names->first),
            names->second.empty() ? ir::kNone : builder_.Intern(names->second));
      }
      case Kind::kOp:
        break;
    }
    std::optional<std::string> model;
    if (ir::KindOf(e.op) == ir::OpKind::kModel) {
      model = resolver_.CalledModel(e);
      if (!model) return Column(e, feature);  // before any operand is emitted
    }
    std::vector<ir::NodeId> operands;
    for (const GenExprNode& operand : e.operands) operands.push_back(Emit(operand, feature));
    if (model) return builder_.AddModelCall(builder_.Intern(*model), operands, e.b);
    const Op op = Normalized(e.op, operands.size(), normalize_);
    if (ir::Info(op).weighted) return builder_.AddNary(op, operands, e.weights);
    return builder_.AddOp(op, operands);
  }

  ir::NodeId Column(const GenExprNode& e, std::uint32_t feature) {
    const auto [name, implicit] = resolver_.Column(e, feature);
    if (implicit && implicit_ != nullptr &&
        std::find(implicit_->begin(), implicit_->end(), name) == implicit_->end()) {
      implicit_->push_back(name);
    }
    return builder_.AddRef(builder_.Intern(name));
  }

  const Resolver& resolver_;
  bool normalize_;
  ir::IrBuilder builder_;
  std::vector<std::string>* implicit_ = nullptr;
};

// The set as IR; `normalize` gives what the text syntax reads back.
ir::FeatureSetIr BuildIr(const GenSetSpec& spec, bool normalize,
                         std::vector<std::string>* implicit_inputs = nullptr,
                         ir::SourceFormat source = ir::SourceFormat::kText) {
  const Resolver resolver(spec);
  return IrEmitter(resolver, normalize, source).Build(spec, implicit_inputs);
}

// Shown by rapidcheck for a (shrunk) counterexample.
void showValue(const GenSetSpec& spec, std::ostream& os) {
  const ir::FeatureSetIr ir = BuildIr(spec, /*normalize=*/false);
  os << "\n--- set (as the printer writes it) ---\n"
     << dsl::WriteText(ir) << "--- structure ---\n"
     << Dump(ir);
}

// ---------------------------------------------------------------------------
// An independent text renderer with noise: it follows spec section 4 by its
// own precedence table and adds redundant parentheses, whitespace, comments,
// CRLF, pow() calls, other number spellings and needless backquotes.

class NoisyRenderer {
 public:
  // Seed 0 renders without noise (single spaces, minimal parentheses, "%.9g"
  // numbers): a shrunk counterexample is then as plain as the printer's text.
  NoisyRenderer(const ir::FeatureSetIr& ir, std::uint32_t seed)
      : ir_(ir), rng_(seed), noise_(seed != 0) {}

  std::string Render() {
    std::string out;
    // Inputs, model declarations and definitions interleaved, each kind in
    // its own order.
    std::size_t next_input = 0;
    std::size_t next_model = 0;
    std::size_t next_feature = 0;
    while (next_input < ir_.inputs.size() || next_model < ir_.models.size() ||
           next_feature < ir_.features.size()) {
      const bool features_left = next_feature < ir_.features.size();
      if (next_input < ir_.inputs.size() && (!features_left || OneIn(2))) {
        out += RenderInput(ir_.inputs[next_input++]);
      } else if (next_model < ir_.models.size() && (!features_left || OneIn(2))) {
        out += RenderModel(ir_.models[next_model++]);
      } else {
        out += RenderFeature(ir_.features[next_feature++]);
      }
      out += Space(true);
    }
    return out;
  }

 private:
  bool OneIn(std::uint32_t n) {
    return noise_ && std::uniform_int_distribution<std::uint32_t>(0, n - 1)(rng_) == 0;
  }
  int Pick(int count) {
    return noise_ ? std::uniform_int_distribution<int>(0, count - 1)(rng_) : 0;
  }

  // Whitespace between tokens; `required` when two tokens would merge.
  std::string Space(bool required = false) {
    if (!noise_) return " ";
    switch (Pick(10)) {
      case 0:
        return "\t";
      case 1:
        return "\r\n";
      case 2:
        return "  # a comment ( ) ; `\n";
      case 3:
        return "\n";
      case 4:
      case 5:
        return required ? " " : "";
      default:
        return " ";
    }
  }

  std::string Name(const std::string& name) {
    if (ir_test::IsPlainName(name) && OneIn(4)) return "`" + name + "`";
    return ir_test::NameText(name);
  }

  // A non-negative finite float, in one of several exact decimal spellings.
  std::string Magnitude(float value) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return "inf";
    static const char* const kFormats[] = {"%.9g", "%.9e", "%.17g", "%.12E", "%.10g"};
    char buffer[64];
    std::snprintf(buffer, sizeof(buffer), kFormats[Pick(5)], static_cast<double>(value));
    std::string text = buffer;
    if (text.rfind("0.", 0) == 0 && OneIn(2)) text.erase(0, 1);  // ".5"
    return text;
  }

  static bool Negative(float value) { return !std::isnan(value) && std::signbit(value); }

  // A literal: a negative one is "-" and its magnitude.
  std::string Literal(float value) {
    if (Negative(value)) {
      std::string out(1, '-');  // appended: GCC 12 -Wrestrict false positive on "-" + string
      out.append(Space()).append(Magnitude(-value));
      return out;
    }
    return Magnitude(value);
  }

  std::string RenderInput(const ir::InputDecl& input) {
    std::string out = "input" + Space(true) + Name(ir_.NameOf(input.name)) + Space();
    if (input.scope == Scope::kQuery || input.dimension > 0 || OneIn(3)) {
      out += ":" + Space() + (input.scope == Scope::kQuery ? "query" : "item") + Space();
      if (input.dimension > 0) {
        out += "[" + Space() + std::to_string(input.dimension) + Space() + "]" + Space();
      }
    }
    if (input.default_value) out += "=" + Space() + Literal(*input.default_value) + Space();
    return out + ";";
  }

  // A string literal, by spec section 4's reading: \" and \\ escape; a
  // backslash before any other character stands for itself, so noise may
  // leave such a backslash bare.
  std::string String(std::string_view text) {
    std::string out = "\"";
    for (std::size_t i = 0; i < text.size(); ++i) {
      const char c = text[i];
      const bool bare_ok =
          c == '\\' && i + 1 < text.size() && text[i + 1] != '"' && text[i + 1] != '\\';
      if (c == '"' || (c == '\\' && !(bare_ok && OneIn(2)))) out += '\\';
      out += c;
    }
    return out + "\"";
  }

  std::string RenderModel(const ir::ModelDecl& model) {
    return "model" + Space(true) + Name(ir_.NameOf(model.name)) + Space() + "=" + Space() +
           std::string(ir::InfoOf(model.format).text_name) + Space() + "(" + Space() +
           String(model.path) + Space() + ")" + Space() + ";";
  }

  std::string RenderFeature(const ir::FeatureDef& feature) {
    return Name(ir_.NameOf(feature.name)) + Space() + "=" + Space() + Expr(feature.root, 0) +
           Space() + ";";
  }

  // Binding levels (spec section 4, from the table): || 1, && 2, == != 3,
  // < <= > >= 4, + - 5, * / 6, unary 7, ^ 8, atoms 10. A negative literal
  // binds like unary.
  static int InfixLevel(Op op) {
    const ir::OpInfo& info = ir::Info(op);
    const bool infix = info.syntax == ir::Syntax::kInfix || info.syntax == ir::Syntax::kInfixRight;
    return infix ? info.precedence : 0;
  }

  // Renders `id` so that it binds at least at `min_level`; returns the text
  // and, through `level`, how tightly it binds.
  std::string Expr(ir::NodeId id, int min_level) {
    int level = 10;
    std::string text = Bare(id, &level);
    if (level < min_level || OneIn(6)) {
      std::string out(1, '(');  // built by appending: GCC 12 -Wrestrict false positive
      out.append(Space()).append(text).append(Space()).append(")");
      return out;
    }
    return text;
  }

  std::string Call(std::string_view name, std::span<const ir::NodeId> operands,
                   std::string prefix = {}) {
    std::string out = std::string(name) + Space() + "(" + Space() + prefix;
    for (std::size_t i = 0; i < operands.size(); ++i) {
      if (i > 0 || !prefix.empty()) out += Space() + "," + Space();
      out += Expr(operands[i], 0);
    }
    return out + Space() + ")";
  }

  std::string Bare(ir::NodeId id, int* level) {
    const ir::Node& node = ir_.nodes[id];
    const auto operands = ir_.OperandsOf(node);
    *level = 10;
    switch (node.op) {
      case Op::kConstant:
        if (Negative(node.constant)) *level = ir::PrefixPrecedence();
        return Literal(node.constant);
      case Op::kRef:
        return Name(ir_.NameOf(node.name));
      default:
        break;
    }
    const ir::OpInfo& info = ir::Info(node.op);
    if (info.kind == ir::OpKind::kModel) {
      // model(NAME, inputs...)[k], k possibly with leading zeros.
      std::string index = std::to_string(node.output);
      if (OneIn(4)) index = "00" + index;
      return Call(info.spelling, operands, Name(ir_.NameOf(node.name))) + Space() + "[" + Space() +
             index + Space() + "]";
    }
    if (info.syntax == ir::Syntax::kPrefix) {
      *level = ir::PrefixPrecedence();
      const ir::Node& operand = ir_.nodes[operands[0]];
      std::string inner = Expr(operands[0], *level);
      // "-2" would be the literal -2: NEG of a non-negative constant needs
      // parentheses.
      if (node.op == Op::kNeg && operand.op == Op::kConstant && !Negative(operand.constant) &&
          inner.front() != '(') {
        inner = "(" + inner + ")";
      }
      return std::string(info.spelling) + Space() + inner;
    }
    if (info.syntax == ir::Syntax::kInfixRight) {
      // The call spelling (pow), or base ^ exponent: the base binds tighter
      // than unary minus, the exponent may be a unary expression.
      if (!info.call_spelling.empty() && OneIn(3)) return Call(info.call_spelling, operands);
      *level = info.precedence;
      return Expr(operands[0], info.precedence + 1) + Space() + std::string(info.spelling) +
             Space() + Expr(operands[1], std::min(info.precedence, ir::PrefixPrecedence()));
    }
    if (info.weighted) {
      std::string weights = "[" + Space();
      for (std::size_t i = 0; i < node.weight_count; ++i) {
        if (i > 0) weights += Space() + "," + Space();
        weights += Literal(ir_.WeightsOf(node)[i]);
      }
      return Call(info.spelling, operands, weights + Space() + "]");
    }
    if (const int infix = InfixLevel(node.op); infix > 0) {
      *level = infix;
      return Expr(operands[0], infix) + Space() + std::string(info.spelling) + Space() +
             Expr(operands[1], infix + 1);
    }
    if (info.kind == ir::OpKind::kVector) {
      std::string out =
          std::string(info.spelling) + Space() + "(" + Space() + Name(ir_.NameOf(node.name));
      if (node.name2 != ir::kNone) out += Space() + "," + Space() + Name(ir_.NameOf(node.name2));
      return out + Space() + ")";
    }
    return Call(info.spelling, operands);  // unary calls, if, Nary, aggregates
  }

  const ir::FeatureSetIr& ir_;
  std::mt19937 rng_;
  bool noise_;
};

// ---------------------------------------------------------------------------
// Helpers.

// A FeatureSet from bytes, or a failed property with the reader's errors.
// Models are declared, not read: these properties are about the formats.
FeatureSet MustParse(const std::string& data, Format format, const char* what) {
  LoadOptions no_models;
  no_models.load_models = false;
  Result<FeatureSet> set = FeatureSet::Parse(data, format, no_models);
  if (!set.ok()) {
    RC_FAIL(std::string(what) + " does not load: " + set.status().ToString() + "\n" +
            (format == Format::kProto ? std::string("<binary>") : data));
  }
  return std::move(set).value();
}

const ir::FeatureSetIr& IrOf(const FeatureSet& set) {
  return set.loaded().set->ir;
}

// ---------------------------------------------------------------------------
// Properties.

RC_GTEST_PROP(TextRoundTrip, PrintedTextIsAFixedPoint, ()) {
  const GenSetSpec spec = *GenSet();
  const std::string printed = dsl::WriteText(BuildIr(spec, /*normalize=*/false));
  const FeatureSet once = MustParse(printed, Format::kText, "printed text");
  const std::string reprinted = once.Serialize(Format::kText);
  RC_ASSERT(reprinted == printed);
  const FeatureSet twice = MustParse(reprinted, Format::kText, "reprinted text");
  RC_ASSERT(twice.Serialize(Format::kText) == reprinted);
}

RC_GTEST_PROP(TextRoundTrip, ParsingPrintedTextGivesBackTheSameMessages, ()) {
  const GenSetSpec spec = *GenSet();
  const std::string printed = dsl::WriteText(BuildIr(spec, /*normalize=*/false));
  const FeatureSet set = MustParse(printed, Format::kText, "printed text");
  // Structurally equal, modulo the documented Nary MIN/MAX normalization.
  RC_ASSERT(Dump(IrOf(set)) == Dump(BuildIr(spec, /*normalize=*/true)));
}

RC_GTEST_PROP(TextRoundTrip, ImplicitInputsAreListedInOrderOfFirstUse, ()) {
  const GenSetSpec spec = *GenSet();
  std::vector<std::string> implicit;
  const std::string printed = dsl::WriteText(BuildIr(spec, /*normalize=*/false, &implicit));
  const FeatureSet set = MustParse(printed, Format::kText, "printed text");
  RC_ASSERT(set.ImplicitInputs() == implicit);
  // The schema: declared inputs in order, then the implicit ones.
  std::vector<std::string> names;
  for (const InputInfo& input : set.schema().inputs) names.push_back(input.name);
  const Resolver resolver(spec);
  std::vector<std::string> expected;
  for (std::uint32_t i = 0; i < spec.inputs.size(); ++i) expected.push_back(resolver.InputName(i));
  expected.insert(expected.end(), implicit.begin(), implicit.end());
  RC_ASSERT(names == expected);
}

RC_GTEST_PROP(WireRoundTrip, ProtoToTextToProtoGivesTheSameBytes, ()) {
  const GenSetSpec spec = *GenSet();
  const std::string proto =
      dsl::WriteProto(BuildIr(spec, false, nullptr, ir::SourceFormat::kProto));
  const FeatureSet from_proto = MustParse(proto, Format::kProto, "protobuf");
  RC_ASSERT(from_proto.Serialize(Format::kProto) == proto);
  const std::string text = from_proto.Serialize(Format::kText);
  const FeatureSet from_text = MustParse(text, Format::kText, "text printed from protobuf");
  // Nary MIN/MAX of two operands come back as Binary (documented).
  const std::string expected =
      dsl::WriteProto(BuildIr(spec, /*normalize=*/true, nullptr, ir::SourceFormat::kProto));
  RC_ASSERT(from_text.Serialize(Format::kProto) == expected);
}

RC_GTEST_PROP(WireRoundTrip, JsonToTextToJsonGivesTheSameBytes, ()) {
  const GenSetSpec spec = *GenSet();
  const std::string json = dsl::WriteJson(BuildIr(spec, false, nullptr, ir::SourceFormat::kJson));
  const FeatureSet from_json = MustParse(json, Format::kJson, "JSON");
  RC_ASSERT(from_json.Serialize(Format::kJson) == json);
  const std::string text = from_json.Serialize(Format::kText);
  const FeatureSet from_text = MustParse(text, Format::kText, "text printed from JSON");
  const std::string expected =
      dsl::WriteJson(BuildIr(spec, /*normalize=*/true, nullptr, ir::SourceFormat::kJson));
  RC_ASSERT(from_text.Serialize(Format::kJson) == expected);
}

RC_GTEST_PROP(WireRoundTrip, TextToProtoToTextGivesTheSameText, ()) {
  const GenSetSpec spec = *GenSet();
  const std::string text = dsl::WriteText(BuildIr(spec, /*normalize=*/false));
  const FeatureSet from_text = MustParse(text, Format::kText, "printed text");
  for (const Format format : {Format::kProto, Format::kJson}) {
    const FeatureSet wire = MustParse(from_text.Serialize(format), format, "serialized set");
    RC_ASSERT(wire.Serialize(Format::kText) == text);
  }
}

RC_GTEST_PROP(TextRoundTrip, NoisyTextReadsAsTheSameIr, ()) {
  const GenSetSpec spec = *GenSet();
  const ir::FeatureSetIr ir = BuildIr(spec, /*normalize=*/true);
  const std::string noisy = NoisyRenderer(ir, spec.noise_seed).Render();
  RC_LOG() << "noisy text:\n" << noisy << "\n";
  const FeatureSet set = MustParse(noisy, Format::kText, "noisy text");
  RC_ASSERT(Dump(IrOf(set)) == Dump(ir));
  // text -> IR -> text: one print reaches the printer's form, a fixed point.
  const std::string printed = set.Serialize(Format::kText);
  RC_ASSERT(printed == dsl::WriteText(ir));
  RC_ASSERT(MustParse(printed, Format::kText, "printed text").Serialize(Format::kText) == printed);
}

// Any token soup: reading never crashes; a failure lists errors, each at a
// "line:column" inside the source (or just past its end); a success prints to
// a fixed point.
RC_GTEST_PROP(TextRoundTrip, AnyTokenSequenceGivesASetOrLocatedErrors, ()) {
  static const std::vector<std::string> kTokens = {"f",     "g",      "x",
                                                   "u",     "=",      ";",
                                                   "(",     ")",      ",",
                                                   "-",     "+",      "*",
                                                   "/",     "^",      "!",
                                                   "==",    "<=",     "&&",
                                                   "||",    "2",      ".5",
                                                   "1e39",  "1e-50",  "inf",
                                                   "nan",   "abs",    "min",
                                                   "max",   "sum",    "pow",
                                                   "if",    "rank",   "weighted_sum",
                                                   "dot",   "norm",   "[",
                                                   "]",     "input",  ":",
                                                   "query", "item",   "model",
                                                   "`a b`", "`",      "\"s\"",
                                                   "# c\n", "\r\n",   "\n",
                                                   "\t",    " ",      "é",
                                                   "$",     "xgboost"};
  const std::vector<std::size_t> picks = *rc::gen::container<std::vector<std::size_t>>(
      rc::gen::inRange<std::size_t>(0, kTokens.size()));
  std::string source;
  for (std::size_t i : picks) source += kTokens[i] + (i % 3 == 0 ? " " : "");
  RC_LOG() << "source: " << source << "\n";
  std::size_t lines = 1;
  for (char c : source) lines += c == '\n';
  Result<FeatureSet> set = FeatureSet::Parse(source, Format::kText);
  if (!set.ok()) {
    RC_ASSERT(!set.status().diagnostics().empty());
    for (const Diagnostic& d : set.status().diagnostics()) {
      RC_ASSERT(!d.message.empty());
      unsigned line = 0;
      unsigned column = 0;
      char tail = 0;
      RC_ASSERT(std::sscanf(d.location.c_str(), "%u:%u%c", &line, &column, &tail) == 2);
      RC_ASSERT(line >= 1u);
      RC_ASSERT(line <= lines);
      RC_ASSERT(column >= 1u);
      RC_ASSERT(column <= source.size() + 1);
    }
    return;
  }
  const std::string printed = set->Serialize(Format::kText);
  const FeatureSet again = MustParse(printed, Format::kText, "printed text");
  RC_ASSERT(again.Serialize(Format::kText) == printed);
  RC_ASSERT(Dump(IrOf(again)) == Dump(IrOf(*set)) || printed.find("min(") != std::string::npos ||
            printed.find("max(") != std::string::npos);
}

// The generator reaches every row of the operator table, so that a new
// operator is round-tripped as soon as it has a row.
TEST(RoundTripGenerator, ReachesEveryOperator) {
  std::vector<bool> seen(ir::kOpCount, false);
  const rc::Gen<GenSetSpec> gen = GenSet();
  for (int i = 0; i < 2000; ++i) {
    const GenSetSpec spec = gen(rc::Random(static_cast<std::uint64_t>(i) + 1), i % 101).value();
    const ir::FeatureSetIr ir = BuildIr(spec, /*normalize=*/false);
    for (const ir::Node& node : ir.nodes) seen[static_cast<int>(node.op)] = true;
  }
  for (const ir::OpInfo& info : ir::kOpTable) {
    if (info.optimizer_only) continue;  // no set can spell it
    EXPECT_TRUE(seen[static_cast<int>(info.op)]) << "never generated: " << info.name;
  }
}

// ---------------------------------------------------------------------------
// Deep sets: the round trips hold at the depth limit, on a 1 MiB stack (spec
// section 5: at least 2,000 levels in all three formats).

TEST(DeepRoundTrip, TextProtoAndJsonRoundTripsHoldAtTenThousandLevelsOnASmallStack) {
  std::string negations = std::string(9'999, '-') + "x";
  std::string calls;
  for (int i = 1; i < 10'000; ++i) calls += i % 2 ? "abs(" : "sigmoid(";
  calls += "x" + std::string(9'999, ')');
  std::string powers = "x";  // x^-x^x^-x...: Pow and Neg interleaved, 10,000 levels
  for (int depth = 1; depth < 10'000;) {
    const bool negate = depth % 3 != 0 && depth + 2 <= 10'000;
    powers += negate ? "^-x" : "^x";
    depth += negate ? 2 : 1;
  }
  std::string mixed;  // (2 - (2 - (... - x)))
  for (int i = 1; i < 10'000; ++i) mixed += "2-(";
  mixed += "x" + std::string(9'999, ')');
  for (const std::string& expression : {negations, calls, powers, mixed}) {
    const std::string source = "deep = " + expression + ";\n";
    std::vector<std::string> failures;
    ASSERT_TRUE(ir_test::RunWithStack(ir_test::kJvmStack, [&] {
      Result<FeatureSet> set = FeatureSet::Parse(source, Format::kText);
      if (!set.ok()) {
        failures.push_back("text: " + set.status().ToString().substr(0, 300));
        return;
      }
      const std::string text = set->Serialize(Format::kText);
      for (const Format format : {Format::kProto, Format::kJson}) {
        const std::string bytes = set->Serialize(format);
        Result<FeatureSet> again = FeatureSet::Parse(bytes, format);
        if (!again.ok()) {
          failures.push_back(std::string(FormatName(format)) + ": " +
                             again.status().ToString().substr(0, 300));
          continue;
        }
        if (again->Serialize(Format::kText) != text) {
          failures.push_back(std::string(FormatName(format)) + ": text differs");
        }
        if (again->Serialize(format) != bytes) {
          failures.push_back(std::string(FormatName(format)) + ": bytes differ");
        }
      }
    }));
    EXPECT_TRUE(failures.empty()) << ::testing::PrintToString(failures) << " for "
                                  << expression.substr(0, 40) << "...";
  }
}

// ---------------------------------------------------------------------------
// NaN constants other than the quiet NaN 0x7FC00000 (a negative NaN from the
// text "-nan", or any payload in a protobuf message). Their sign and payload
// are not observable (spec section 1), and the printer writes every NaN as
// "nan"; a round trip through text must still give back the same message.

std::string ProtoWithConstant(std::uint32_t bits) {
  ir_test::ExprBuilder b(ir::SourceFormat::kProto);
  b.Define("f", b.Const(ir_test::FromBits(bits)));
  return dsl::WriteProto(std::move(b).Finish());
}

TEST(NonCanonicalNanConstants, ProtoToTextToProtoGivesTheSameBytes) {
  for (const std::uint32_t bits : {0xffc00000u, 0x7fc00001u, 0x7f800001u}) {
    const std::string proto = ProtoWithConstant(bits);
    Result<FeatureSet> from_proto = FeatureSet::Parse(proto, Format::kProto);
    ASSERT_TRUE(from_proto.ok()) << from_proto.status().ToString();
    const std::string text = from_proto->Serialize(Format::kText);
    EXPECT_EQ(text, "f = nan;\n");
    Result<FeatureSet> from_text = FeatureSet::Parse(text, Format::kText);
    ASSERT_TRUE(from_text.ok()) << from_text.status().ToString();
    EXPECT_EQ(from_text->Serialize(Format::kProto), from_proto->Serialize(Format::kProto))
        << "constant bits 0x" << std::hex << bits;
  }
}

TEST(NonCanonicalNanConstants, MinusNanInTextSerializesLikeNan) {
  Result<FeatureSet> minus = FeatureSet::Parse("f = -nan;", Format::kText);
  Result<FeatureSet> plain = FeatureSet::Parse("f = nan;", Format::kText);
  ASSERT_TRUE(minus.ok() && plain.ok());
  EXPECT_EQ(minus->Serialize(Format::kText), "f = nan;\n");
  // "-nan" prints as "nan", so text -> proto must not depend on the sign.
  EXPECT_EQ(minus->Serialize(Format::kProto), plain->Serialize(Format::kProto));
}

}  // namespace
}  // namespace calcjit::roundtrip_test
