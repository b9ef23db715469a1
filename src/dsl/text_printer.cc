#include "dsl/text_printer.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "dsl/float_text.h"
#include "ir/model_format.h"
#include "ir/walk.h"
#include "math/bits.h"

namespace calcjit::dsl {

namespace {

using ir::Node;
using ir::NodeId;
using ir::Op;
using ir::OpKind;
using ir::Syntax;

constexpr int kAtom = 100;  // calls, names, non-negative literals

bool IsNegativeLiteral(const Node& node) {
  return node.op == Op::kConstant && !std::isnan(node.constant) &&
         (math::FloatBits(node.constant) & 0x80000000u) != 0;
}

// How tightly a node's printed form binds: its operator's precedence, the
// prefix level for a negative literal (spec section 4), else an atom.
int PrecedenceOf(const Node& node) {
  const ir::OpInfo& info = ir::Info(node.op);
  switch (info.syntax) {
    case Syntax::kInfix:
    case Syntax::kInfixRight:
    case Syntax::kPrefix:
      return info.precedence;
    default:
      return IsNegativeLiteral(node) ? ir::PrefixPrecedence() : kAtom;
  }
}

// Prints one expression as a visitor of ir::ExpressionWalker: a node's
// opening (a parenthesis its place needs, a prefix symbol, a call's name and
// non-expression arguments) on Enter, separators on Between, the closing on
// Leave. Only the parentheses that precedence needs are written.
class ExpressionPrinter : public ir::WalkHooks {
 public:
  ExpressionPrinter(const ir::FeatureSetIr& ir, std::string* out) : ir_(ir), out_(*out) {}

  void Enter(NodeId id, ir::WalkPlace place) {
    const Node& node = ir_.nodes[id];
    const ir::OpInfo& info = ir::Info(node.op);
    if (NeedsParentheses(node, place)) out_ += '(';
    switch (info.syntax) {
      case Syntax::kLeaf:
        out_ += node.op == Op::kConstant ? FormatShortestFloat(node.constant)
                                         : QuoteName(ir_.NameOf(node.name));
        break;
      case Syntax::kPrefix:
        out_ += info.spelling;
        break;
      case Syntax::kInfix:
      case Syntax::kInfixRight:
        break;
      case Syntax::kCall:
        EnterCall(node, info);
        break;
    }
  }

  void Between(NodeId id, std::uint32_t /*index*/) {
    const ir::OpInfo& info = ir::Info(ir_.nodes[id].op);
    if (info.syntax == Syntax::kCall) {
      out_ += ", ";
    } else {
      out_ += ' ';
      out_ += info.spelling;
      out_ += ' ';
    }
  }

  void Leave(NodeId id, ir::WalkPlace place) {
    const Node& node = ir_.nodes[id];
    if (ir::Info(node.op).syntax == Syntax::kCall) out_ += ')';
    if (ir::KindOf(node.op) == OpKind::kModel) out_ += "[" + std::to_string(node.output) + "]";
    if (NeedsParentheses(node, place)) out_ += ')';
  }

 private:
  // Whether `node`, printed at `place`, needs parentheses to read back as
  // the same tree. Binary operators other than right-associative ones are
  // left-associative, so a right operand of the same level needs them; the
  // right operand of a right-associative operator (^) may be a unary
  // expression (2 ^ -1); -(2) is Unary(NEG, 2) while -2 is a literal.
  bool NeedsParentheses(const Node& node, ir::WalkPlace place) const {
    if (place.is_root()) return false;
    const Node& parent = ir_.nodes[place.parent];
    const ir::OpInfo& info = ir::Info(parent.op);
    const int precedence = PrecedenceOf(node);
    const int p = info.precedence;
    switch (info.syntax) {
      case Syntax::kPrefix: {
        const bool glue =
            parent.op == Op::kNeg && node.op == Op::kConstant && !IsNegativeLiteral(node);
        return glue || precedence < ir::PrefixPrecedence();
      }
      case Syntax::kInfix:
        return precedence < (place.index == 0 ? p : p + 1);
      case Syntax::kInfixRight:
        return precedence < (place.index == 0 ? p + 1 : std::min(p, ir::PrefixPrecedence()));
      case Syntax::kLeaf:
      case Syntax::kCall:
        break;
    }
    return false;
  }

  // name(, then the arguments that are not expressions: a Vector's input
  // names, a weighted row's weights, a model call's model.
  void EnterCall(const Node& node, const ir::OpInfo& info) {
    out_ += info.spelling;
    out_ += '(';
    if (info.kind == OpKind::kModel) {
      if (node.name != ir::kNone) out_ += QuoteName(ir_.NameOf(node.name));
      if (node.operand_count > 0) out_ += ", ";
      return;
    }
    if (info.kind == OpKind::kVector) {
      if (node.name != ir::kNone) out_ += QuoteName(ir_.NameOf(node.name));
      if (node.name2 != ir::kNone) out_ += ", " + QuoteName(ir_.NameOf(node.name2));
      return;
    }
    if (info.weighted) {
      out_ += '[';
      for (std::size_t i = 0; i < node.weight_count; ++i) {
        if (i > 0) out_ += ", ";
        out_ += FormatShortestFloat(ir_.WeightsOf(node)[i]);
      }
      out_ += node.operand_count == 0 ? "]" : "], ";
    }
  }

  const ir::FeatureSetIr& ir_;
  std::string& out_;
};

bool IsPlainNameStart(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool IsPlainNameChar(char c) {
  return IsPlainNameStart(c) || (c >= '0' && c <= '9') || c == '.';
}

// A string literal: backslash and double quote escaped with a backslash, as
// the lexer reads them (a path holds no line feed: readers reject one).
std::string StringLiteral(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string ScopeText(const ir::InputDecl& input) {
  std::string text = input.scope == Scope::kQuery ? "query" : "item";
  if (input.dimension > 0) text += "[" + std::to_string(input.dimension) + "]";
  return text;
}

}  // namespace

std::string QuoteName(std::string_view name) {
  bool plain = !name.empty() && IsPlainNameStart(name.front()) && name != "input" &&
               name != "model" && name != "inf" && name != "nan";
  for (char c : name) plain = plain && IsPlainNameChar(c);
  if (plain) return std::string(name);
  std::string quoted = "`";
  for (char c : name) {
    quoted += c;
    if (c == '`') quoted += '`';
  }
  quoted += '`';
  return quoted;
}

std::string ExpressionToText(const ir::FeatureSetIr& ir, NodeId root) {
  std::string out;
  ExpressionPrinter printer(ir, &out);
  ir::WalkExpression(ir, root, printer);
  return out;
}

std::string WriteText(const ir::FeatureSetIr& ir) {
  std::string out;
  for (const ir::InputDecl& input : ir.inputs) {
    out += "input ";
    out += QuoteName(ir.NameOf(input.name));
    if (input.scope != Scope::kItem || input.dimension > 0) out += ": " + ScopeText(input);
    if (input.default_value) out += " = " + FormatShortestFloat(*input.default_value);
    out += ";\n";
  }
  for (const ir::ModelDecl& model : ir.models) {
    out += "model ";
    out += QuoteName(ir.NameOf(model.name));
    out += " = ";
    out += ir::InfoOf(model.format).text_name;
    out += "(" + StringLiteral(model.path) + ");\n";
  }
  ExpressionPrinter printer(ir, &out);
  ir::ExpressionWalker walker;
  for (const ir::FeatureDef& feature : ir.features) {
    out += QuoteName(ir.NameOf(feature.name));
    out += " = ";
    walker.Walk(ir, feature.root, printer);
    out += ";\n";
  }
  return out;
}

}  // namespace calcjit::dsl
