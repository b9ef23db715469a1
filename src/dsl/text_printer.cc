#include "dsl/text_printer.h"

#include <cmath>
#include <deque>
#include <vector>

#include "dsl/float_text.h"
#include "math/bits.h"

namespace calcjit::dsl {

namespace {

using ir::Node;
using ir::NodeId;
using ir::Op;
using ir::OpKind;

constexpr int kAtom = 100;      // calls, names, non-negative literals
constexpr int kUnaryLevel = 7;  // prefix - and !, and negative literals
constexpr int kPowLevel = 8;

bool IsNegativeLiteral(const Node& node) {
  return node.op == Op::kConstant && !std::isnan(node.constant) &&
         (math::FloatBits(node.constant) & 0x80000000u) != 0;
}

// How tightly a node's printed form binds.
int PrecedenceOf(const Node& node) {
  const ir::OpInfo& info = ir::Info(node.op);
  switch (info.syntax) {
    case ir::Syntax::kInfix:
    case ir::Syntax::kInfixRight:
    case ir::Syntax::kPrefix:
      return info.precedence;
    default:
      return IsNegativeLiteral(node) ? kUnaryLevel : kAtom;
  }
}

// The printer walks the tree with an explicit stack of pieces to emit: either
// literal text or a node to print (with parentheses when its context needs
// them), so a 10,000-level formula costs heap, not native stack.
struct Piece {
  std::string_view text;
  NodeId node = ir::kNone;
  bool parenthesize = false;
};

class ExpressionPrinter {
 public:
  ExpressionPrinter(const ir::FeatureSetIr& ir, std::string* out) : ir_(ir), out_(*out) {}

  void Print(NodeId root) {
    stack_.push_back(Piece{{}, root, false});
    while (!stack_.empty()) {
      const Piece piece = stack_.back();
      stack_.pop_back();
      if (piece.node == ir::kNone) {
        out_ += piece.text;
      } else {
        Expand(piece.node, piece.parenthesize);
      }
    }
  }

 private:
  void Text(std::string_view text) { stack_.push_back(Piece{text}); }
  void Child(NodeId node, int min_precedence) {
    stack_.push_back(Piece{{}, node, PrecedenceOf(ir_.nodes[node]) < min_precedence});
  }

  // Pushes, in reverse order, what prints `id`.
  void Expand(NodeId id, bool parenthesize) {
    const Node& node = ir_.nodes[id];
    const ir::OpInfo& info = ir::Info(node.op);
    const auto operands = ir_.OperandsOf(node);
    if (parenthesize) Text(")");
    switch (info.syntax) {
      case ir::Syntax::kLeaf:
        if (node.op == Op::kConstant) {
          owned_.push_back(FormatShortestFloat(node.constant));
          Text(owned_.back());
        } else {
          owned_.push_back(QuoteName(ir_.NameOf(node.name)));
          Text(owned_.back());
        }
        break;
      case ir::Syntax::kPrefix: {
        // -(2) is Unary(NEG, 2), while -2 is the literal -2 (spec section 4).
        const Node& operand = ir_.nodes[operands[0]];
        const bool glue =
            node.op == Op::kNeg && operand.op == Op::kConstant && !IsNegativeLiteral(operand);
        stack_.push_back(Piece{{}, operands[0], glue || PrecedenceOf(operand) < kUnaryLevel});
        Text(info.spelling);
        break;
      }
      case ir::Syntax::kInfix:
      case ir::Syntax::kInfixRight: {
        const int p = info.precedence;
        if (node.op == Op::kPow) {
          // The base binds tighter than unary minus; the exponent may be a
          // unary expression (2 ^ -1).
          Child(operands[1], kUnaryLevel);
          Text(" ^ ");
          Child(operands[0], kPowLevel + 1);
        } else {
          Child(operands[1], p + 1);
          Text(" ");
          Text(info.spelling);
          Text(" ");
          Child(operands[0], p);
        }
        break;
      }
      case ir::Syntax::kCall:
        ExpandCall(node, info);
        break;
    }
    if (parenthesize) Text("(");
  }

  void ExpandCall(const Node& node, const ir::OpInfo& info) {
    const auto operands = ir_.OperandsOf(node);
    Text(")");
    if (info.kind == OpKind::kVector) {
      if (node.name2 != ir::kNone) {
        owned_.push_back(QuoteName(ir_.NameOf(node.name2)));
        Text(owned_.back());
        Text(", ");
      }
      owned_.push_back(node.name == ir::kNone ? std::string() : QuoteName(ir_.NameOf(node.name)));
      Text(owned_.back());
    } else {
      for (std::size_t i = operands.size(); i-- > 0;) {
        Child(operands[i], 0);
        if (i > 0) Text(", ");
      }
      if (node.op == Op::kWeightedSum) {
        std::string weights = "[";
        for (std::size_t i = 0; i < node.weight_count; ++i) {
          if (i > 0) weights += ", ";
          weights += FormatShortestFloat(ir_.WeightsOf(node)[i]);
        }
        weights += operands.empty() ? "]" : "], ";
        owned_.push_back(std::move(weights));
        Text(owned_.back());
      }
    }
    Text("(");
    Text(info.spelling);
  }

  const ir::FeatureSetIr& ir_;
  std::string& out_;
  std::vector<Piece> stack_;
  // Texts made while printing; a deque keeps the views in stack_ valid.
  std::deque<std::string> owned_;
};

bool IsPlainNameStart(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool IsPlainNameChar(char c) {
  return IsPlainNameStart(c) || (c >= '0' && c <= '9') || c == '.';
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
  ExpressionPrinter(ir, &out).Print(root);
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
  for (const ir::FeatureDef& feature : ir.features) {
    out += QuoteName(ir.NameOf(feature.name));
    out += " = ";
    ExpressionPrinter(ir, &out).Print(feature.root);
    out += ";\n";
  }
  return out;
}

}  // namespace calcjit::dsl
