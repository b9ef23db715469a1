#include "dsl/text_parser.h"

#include <charconv>
#include <cmath>
#include <deque>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "dsl/functions.h"
#include "dsl/lexer.h"
#include "ir/builder.h"
#include "ir/limits.h"
#include "ir/location.h"
#include "ir/model_format.h"

namespace calcjit::dsl {

namespace {

using ir::NodeId;
using ir::Op;
using ir::TextPos;

constexpr std::size_t kMaxErrors = 100;

// The operator rows of the table (ir/op.def) a symbol token spells.
std::optional<Op> InfixOf(const Token& token) {
  return token.kind == TokenKind::kOperator ? ir::FindInfix(token.text) : std::nullopt;
}
std::optional<Op> PrefixOf(const Token& token) {
  return token.kind == TokenKind::kOperator ? ir::FindPrefix(token.text) : std::nullopt;
}

// The sign of a number literal is unary minus's symbol.
bool IsMinus(const Token& token) {
  return token.kind == TokenKind::kOperator && token.text == ir::Info(Op::kNeg).spelling;
}

// Whether `token` is an infix operator that binds tighter than the prefix
// operators (^): "-2 ^ 2" is -(2 ^ 2), not (-2) ^ 2 (spec section 4).
bool BindsTighterThanPrefix(const Token& token) {
  const std::optional<Op> infix = InfixOf(token);
  return infix && ir::Info(*infix).precedence > ir::PrefixPrecedence();
}

// An operator, parenthesis or call that waits for its operands: the explicit
// stack of the shunting-yard parser, which replaces the native recursion of a
// recursive-descent parser so that nesting costs heap, not stack.
struct Pending {
  enum class Kind : unsigned char { kPrefix, kInfix, kParen, kCall };
  Kind kind;
  Op op = Op::kConstant;
  int precedence = 0;
  bool right_assoc = false;
  TextPos pos;
  // Calls only.
  FunctionSpec spec{};
  std::string function;          // as written, for messages; model(): the model's name
  std::size_t operand_base = 0;  // operands of the call start here
  std::size_t commas = 0;
  std::vector<float> weights;  // weighted_sum
};

class TextParser {
 public:
  explicit TextParser(std::string_view source)
      : lexer_(source), builder_(ir::SourceFormat::kText) {}

  Result<ir::FeatureSetIr> Parse();

 private:
  const Token& Peek(std::size_t ahead = 0);
  Token Take();
  bool Expect(TokenKind kind, std::string_view what);
  void Error(TextPos pos, std::string message);
  void ErrorAt(const Token& token, std::string_view expected);
  void SkipStatement();

  bool ParseStatement();
  bool ParseInput();
  bool ParseModelDeclaration();
  bool ParseDefinition();
  std::optional<NodeId> ParseExpression();
  bool ParseSignedNumber(float* value, std::string_view what);

  // Expression machinery.
  enum class CallStart : unsigned char { kError, kOpen, kDone };
  // After `name (`: pushes a call that waits for its arguments (kOpen), or
  // parses the whole call when its arguments are not expressions (kDone).
  CallStart BeginCall();
  void PushCall(Pending call);
  bool CloseCall(Pending& call);
  bool ParseVectorCall(const FunctionSpec& spec, const std::string& function, TextPos pos);
  bool FinishModelCall(const Pending& call, std::span<const NodeId> inputs);
  bool Reduce(const Pending& entry);
  bool Push(NodeId node, TextPos pos);
  bool CheckNesting(TextPos pos);

  Lexer lexer_;
  std::deque<Token> lookahead_;
  ir::IrBuilder builder_;
  std::vector<Diagnostic> errors_;
  bool fatal_ = false;

  // State of the expression being parsed.
  std::vector<Pending> stack_;
  std::vector<NodeId> operands_;
  std::size_t open_parens_ = 0;
  std::size_t open_operators_ = 0;
};

const Token& TextParser::Peek(std::size_t ahead) {
  while (lookahead_.size() <= ahead) lookahead_.push_back(lexer_.Next());
  return lookahead_[ahead];
}

Token TextParser::Take() {
  Peek();
  Token token = std::move(lookahead_.front());
  lookahead_.pop_front();
  return token;
}

void TextParser::Error(TextPos pos, std::string message) {
  if (errors_.size() == kMaxErrors) {
    errors_.push_back(Diagnostic{ir::FormatTextPos(pos), "too many errors; stopping here"});
    fatal_ = true;
    return;
  }
  if (errors_.size() < kMaxErrors) {
    errors_.push_back(Diagnostic{ir::FormatTextPos(pos), std::move(message)});
  }
}

void TextParser::ErrorAt(const Token& token, std::string_view expected) {
  if (token.kind == TokenKind::kError) {
    Error(token.pos, token.text);
  } else {
    Error(token.pos, "expected " + std::string(expected) + ", found " + Describe(token));
  }
}

bool TextParser::Expect(TokenKind kind, std::string_view what) {
  if (Peek().kind != kind) {
    ErrorAt(Peek(), what);
    return false;
  }
  Take();
  return true;
}

void TextParser::SkipStatement() {
  while (Peek().kind != TokenKind::kSemicolon && Peek().kind != TokenKind::kEnd) Take();
  if (Peek().kind == TokenKind::kSemicolon) Take();
}

Result<ir::FeatureSetIr> TextParser::Parse() {
  while (Peek().kind != TokenKind::kEnd && !fatal_) {
    if (!ParseStatement() && !fatal_) SkipStatement();
  }
  if (!errors_.empty()) return Status::Errors(ErrorKind::kUser, std::move(errors_));
  return std::move(builder_).Finish();
}

bool TextParser::ParseStatement() {
  switch (Peek().kind) {
    case TokenKind::kInput:
      return ParseInput();
    case TokenKind::kModel:
      return ParseModelDeclaration();
    case TokenKind::kName:
      return ParseDefinition();
    default:
      ErrorAt(Peek(), "a statement ('input', 'model' or NAME = expression;)");
      return false;
  }
}

bool TextParser::ParseSignedNumber(float* value, std::string_view what) {
  const bool negative = IsMinus(Peek());
  if (negative) Take();
  if (Peek().kind != TokenKind::kNumber) {
    ErrorAt(Peek(), what);
    return false;
  }
  const float number = Take().number;
  *value = negative ? -number : number;
  return true;
}

// input NAME [: item|query [ "[" D "]" ]] [= NUMBER];
bool TextParser::ParseInput() {
  Take();  // input
  if (Peek().kind != TokenKind::kName) {
    ErrorAt(Peek(), "an input name");
    return false;
  }
  const Token name = Take();
  ir::InputDecl decl;
  decl.name = builder_.Intern(name.text);
  decl.pos = name.pos;
  if (Peek().kind == TokenKind::kColon) {
    Take();
    const Token& scope = Peek();
    if (scope.kind != TokenKind::kName || scope.quoted ||
        (scope.text != "item" && scope.text != "query")) {
      ErrorAt(scope, "'item' or 'query'");
      return false;
    }
    decl.scope = Take().text == "query" ? Scope::kQuery : Scope::kItem;
    if (Peek().kind == TokenKind::kLBracket) {
      Take();
      const Token& dim = Peek();
      std::uint32_t dimension = 0;
      const auto parsed =
          std::from_chars(dim.source.data(), dim.source.data() + dim.source.size(), dimension);
      if (dim.kind != TokenKind::kNumber || parsed.ec == std::errc::invalid_argument ||
          parsed.ptr != dim.source.data() + dim.source.size()) {
        ErrorAt(dim, "a dimension (a positive integer)");
        return false;
      }
      if (parsed.ec == std::errc::result_out_of_range || dimension == 0) {
        Error(dim.pos, "dimension " + std::string(dim.source) + " is out of range (1 to " +
                           std::to_string(ir::kMaxDimension) + ")");
        return false;
      }
      Take();
      decl.dimension = dimension;
      if (!Expect(TokenKind::kRBracket, "']'")) return false;
    }
  }
  if (Peek().kind == TokenKind::kAssign) {
    Take();
    float value = 0.0f;
    if (!ParseSignedNumber(&value, "a default value (a number)")) return false;
    decl.default_value = value;
  }
  if (!Expect(TokenKind::kSemicolon, "';'")) return false;
  builder_.AddInput(decl);
  return true;
}

// model NAME = FORMAT("PATH");  (spec section 6.1)
bool TextParser::ParseModelDeclaration() {
  Take();  // model
  if (Peek().kind != TokenKind::kName) {
    ErrorAt(Peek(), "a model name");
    return false;
  }
  const Token name = Take();
  if (!Expect(TokenKind::kAssign, "'='")) return false;
  const Token& format_token = Peek();
  const std::optional<ir::ModelFormat> format =
      format_token.kind == TokenKind::kName && !format_token.quoted
          ? ir::ModelFormatFromTextName(format_token.text)
          : std::nullopt;
  if (!format) {
    ErrorAt(format_token, "a model format (" + ModelFormatNameList() + ")");
    return false;
  }
  Take();
  if (!Expect(TokenKind::kLParen, "'('")) return false;
  if (Peek().kind != TokenKind::kString) {
    ErrorAt(Peek(), "the model's path as a \"string\"");
    return false;
  }
  std::string path = Take().text;
  if (!Expect(TokenKind::kRParen, "')'") || !Expect(TokenKind::kSemicolon, "';'")) return false;
  builder_.AddModel(ir::ModelDecl{builder_.Intern(name.text), std::move(path), *format, name.pos});
  return true;
}

// NAME = expression;
bool TextParser::ParseDefinition() {
  const Token name = Take();
  if (!Expect(TokenKind::kAssign, "'=' after the feature name")) return false;
  builder_.BeginFeature();
  const std::optional<NodeId> root = ParseExpression();
  if (!root) return false;
  if (!Expect(TokenKind::kSemicolon, "';' or an operator")) return false;
  builder_.EndFeature(builder_.Intern(name.text), *root, name.pos);
  return true;
}

bool TextParser::CheckNesting(TextPos pos) {
  if (open_operators_ > ir::kMaxDepth || open_parens_ > ir::kMaxDepth) {
    Error(pos, "expression nested deeper than " + std::to_string(ir::kMaxDepth) + " levels");
    fatal_ = true;
    return false;
  }
  return true;
}

bool TextParser::Push(NodeId node, TextPos pos) {
  if (builder_.DepthOf(node) > ir::kMaxDepth) {
    Error(pos, "expression nested deeper than " + std::to_string(ir::kMaxDepth) + " levels");
    fatal_ = true;
    return false;
  }
  if (builder_.node_count() > ir::kMaxNodes) {
    Error(pos, "more than " + std::to_string(ir::kMaxNodes) + " expression nodes in the set");
    fatal_ = true;
    return false;
  }
  operands_.push_back(node);
  return true;
}

bool TextParser::Reduce(const Pending& entry) {
  --open_operators_;
  if (entry.kind == Pending::Kind::kPrefix) {
    const NodeId operand = operands_.back();
    operands_.pop_back();
    return Push(builder_.AddOp(entry.op, {&operand, 1}, entry.pos), entry.pos);
  }
  const NodeId pair[2] = {operands_[operands_.size() - 2], operands_.back()};
  operands_.resize(operands_.size() - 2);
  return Push(builder_.AddOp(entry.op, pair, entry.pos), entry.pos);
}

std::optional<NodeId> TextParser::ParseExpression() {
  stack_.clear();
  operands_.clear();
  open_parens_ = 0;
  open_operators_ = 0;
  bool expect_operand = true;

  // Pops operators until one of the given kinds (or the bottom) is on top.
  auto reduce_to_group = [&]() -> bool {
    while (!stack_.empty() && (stack_.back().kind == Pending::Kind::kPrefix ||
                               stack_.back().kind == Pending::Kind::kInfix)) {
      const Pending entry = std::move(stack_.back());
      stack_.pop_back();
      if (!Reduce(entry)) return false;
    }
    return true;
  };

  while (true) {
    const Token& token = Peek();
    if (expect_operand) {
      switch (token.kind) {
        case TokenKind::kOperator: {
          const std::optional<Op> prefix = PrefixOf(token);
          if (!prefix) {
            ErrorAt(token, "an expression");
            return std::nullopt;
          }
          // A '-' whose operand is a bare number literal that is not the base
          // of '^' is part of the literal (spec section 4).
          if (*prefix == Op::kNeg && Peek(1).kind == TokenKind::kNumber &&
              !BindsTighterThanPrefix(Peek(2))) {
            const TextPos pos = Take().pos;
            const float value = Take().number;
            if (!Push(builder_.AddConstant(-value, pos), pos)) return std::nullopt;
            expect_operand = false;
            break;
          }
          Pending entry{Pending::Kind::kPrefix};
          entry.op = *prefix;
          entry.precedence = ir::Info(entry.op).precedence;
          entry.pos = token.pos;
          Take();
          stack_.push_back(std::move(entry));
          ++open_operators_;
          if (!CheckNesting(stack_.back().pos)) return std::nullopt;
          break;
        }
        case TokenKind::kNumber: {
          const Token number = Take();
          if (!Push(builder_.AddConstant(number.number, number.pos), number.pos)) {
            return std::nullopt;
          }
          expect_operand = false;
          break;
        }
        case TokenKind::kModel:  // model(name, inputs...)[k]: the reserved word as a call
          if (Peek(1).kind != TokenKind::kLParen) {
            ErrorAt(token, "an expression");
            return std::nullopt;
          }
          [[fallthrough]];
        case TokenKind::kName:
          if (!token.quoted && Peek(1).kind == TokenKind::kLParen) {
            const CallStart start = BeginCall();
            if (start == CallStart::kError) return std::nullopt;
            expect_operand = start == CallStart::kOpen;
          } else {
            const Token name = Take();
            if (!Push(builder_.AddRef(builder_.Intern(name.text), name.pos), name.pos)) {
              return std::nullopt;
            }
            expect_operand = false;
          }
          break;
        case TokenKind::kLParen: {
          Pending entry{Pending::Kind::kParen};
          entry.pos = Take().pos;
          stack_.push_back(std::move(entry));
          ++open_parens_;
          if (!CheckNesting(stack_.back().pos)) return std::nullopt;
          break;
        }
        case TokenKind::kRParen:
          // f(): a call without arguments.
          if (!stack_.empty() && stack_.back().kind == Pending::Kind::kCall &&
              stack_.back().commas == 0 && operands_.size() == stack_.back().operand_base) {
            Take();
            Pending call = std::move(stack_.back());
            stack_.pop_back();
            --open_operators_;
            if (!CloseCall(call)) return std::nullopt;
            expect_operand = false;
            break;
          }
          ErrorAt(token, "an expression");
          return std::nullopt;
        default:
          ErrorAt(token, "an expression");
          return std::nullopt;
      }
      continue;
    }

    // Expecting an operator (or the end of the expression).
    if (const std::optional<Op> infix = InfixOf(token)) {
      const int precedence = ir::Info(*infix).precedence;
      const bool right_assoc = ir::Info(*infix).syntax == ir::Syntax::kInfixRight;
      while (!stack_.empty() && (stack_.back().kind == Pending::Kind::kPrefix ||
                                 stack_.back().kind == Pending::Kind::kInfix)) {
        const Pending& top = stack_.back();
        if (top.precedence < precedence || (top.precedence == precedence && right_assoc)) {
          break;
        }
        const Pending entry = std::move(stack_.back());
        stack_.pop_back();
        if (!Reduce(entry)) return std::nullopt;
      }
      Pending entry{Pending::Kind::kInfix};
      entry.op = *infix;
      entry.precedence = precedence;
      entry.right_assoc = right_assoc;
      entry.pos = Take().pos;
      stack_.push_back(std::move(entry));
      ++open_operators_;
      if (!CheckNesting(stack_.back().pos)) return std::nullopt;
      expect_operand = true;
      continue;
    }
    if (token.kind == TokenKind::kComma || token.kind == TokenKind::kRParen) {
      if (!reduce_to_group()) return std::nullopt;
      if (!stack_.empty()) {
        Pending& top = stack_.back();
        if (token.kind == TokenKind::kComma) {
          if (top.kind == Pending::Kind::kParen) {
            ErrorAt(token, "')'");
            return std::nullopt;
          }
          Take();
          ++top.commas;
          expect_operand = true;
          continue;
        }
        Take();
        if (top.kind == Pending::Kind::kParen) {
          stack_.pop_back();
          --open_parens_;
          continue;  // the parenthesized expression is an operand: still expect an operator
        }
        Pending call = std::move(top);
        stack_.pop_back();
        --open_operators_;
        if (!CloseCall(call)) return std::nullopt;
        continue;
      }
      // A ',' or ')' outside any group ends the expression; the caller says
      // what it expected instead.
    }
    // The end of the expression.
    if (!reduce_to_group()) return std::nullopt;
    if (!stack_.empty()) {
      const Pending& open = stack_.back();
      const std::string what =
          open.kind == Pending::Kind::kParen
              ? "')' to close the '(' at " + ir::FormatTextPos(open.pos)
              : "')' or ',' in the call of " + open.function + " at " + ir::FormatTextPos(open.pos);
      ErrorAt(token, what);
      return std::nullopt;
    }
    return operands_.back();
  }
}

void TextParser::PushCall(Pending call) {
  stack_.push_back(std::move(call));
  ++open_operators_;
}

TextParser::CallStart TextParser::BeginCall() {
  const Token name = Take();
  Take();  // '('
  const std::optional<FunctionSpec> spec = LookupFunction(name.text);
  if (!spec) {
    Error(name.pos, "unknown function '" + name.text + "'");
    return CallStart::kError;
  }
  Pending call{Pending::Kind::kCall};
  call.spec = *spec;
  call.function = name.text;
  call.pos = name.pos;
  call.operand_base = operands_.size();
  switch (spec->shape) {
    case CallShape::kVector:
      return ParseVectorCall(*spec, name.text, name.pos) ? CallStart::kDone : CallStart::kError;
    case CallShape::kModel: {
      if (Peek().kind != TokenKind::kName) {
        ErrorAt(Peek(), "a model name");
        return CallStart::kError;
      }
      call.function = Take().text;  // the model's name
      if (Peek().kind == TokenKind::kRParen) {
        Take();
        return CloseCall(call) ? CallStart::kDone : CallStart::kError;
      }
      if (!Expect(TokenKind::kComma, "',' or ')'")) return CallStart::kError;
      call.commas = 1;  // the comma after the name: an argument must follow
      break;
    }
    case CallShape::kWeightedSum: {
      if (!Expect(TokenKind::kLBracket, "'[' and the weights")) return CallStart::kError;
      if (Peek().kind != TokenKind::kRBracket) {
        while (true) {
          float weight = 0.0f;
          if (!ParseSignedNumber(&weight, "a weight (a number literal)")) return CallStart::kError;
          call.weights.push_back(weight);
          if (Peek().kind != TokenKind::kComma) break;
          Take();
        }
      }
      if (!Expect(TokenKind::kRBracket, "']'")) return CallStart::kError;
      if (Peek().kind == TokenKind::kRParen) {
        Take();
        return CloseCall(call) ? CallStart::kDone : CallStart::kError;
      }
      if (!Expect(TokenKind::kComma, "',' or ')'")) return CallStart::kError;
      call.commas = 1;
      break;
    }
    default:
      break;
  }
  const TextPos pos = call.pos;
  PushCall(std::move(call));
  return CheckNesting(pos) ? CallStart::kOpen : CallStart::kError;
}

bool TextParser::ParseVectorCall(const FunctionSpec& spec, const std::string& function,
                                 TextPos pos) {
  std::vector<ir::NameId> names;
  while (true) {
    if (Peek().kind != TokenKind::kName) {
      ErrorAt(Peek(), "a vector input name");
      return false;
    }
    names.push_back(builder_.Intern(Take().text));
    if (Peek().kind != TokenKind::kComma) break;
    Take();
  }
  if (!Expect(TokenKind::kRParen, "')'")) return false;
  if (names.size() > 2) {
    Error(pos, function + " takes at most two vector inputs, got " + std::to_string(names.size()));
    return false;
  }
  const ir::NameId rhs = names.size() > 1 ? names[1] : ir::kNone;
  return Push(builder_.AddVector(spec.op, names[0], rhs, pos), pos);
}

// After model(NAME, inputs...): the required [k].
bool TextParser::FinishModelCall(const Pending& call, std::span<const NodeId> inputs) {
  if (!Expect(TokenKind::kLBracket, "'[' and the index of the model's output")) return false;
  const Token& index = Peek();
  if (index.kind != TokenKind::kNumber ||
      index.source.find_first_not_of("0123456789") != std::string_view::npos) {
    ErrorAt(index, "the index of the model's output");
    return false;
  }
  std::uint32_t output = 0;
  const auto parsed =
      std::from_chars(index.source.data(), index.source.data() + index.source.size(), output);
  if (parsed.ec != std::errc()) {
    Error(index.pos, "model output index " + std::string(index.source) + " is out of range (0 to " +
                         std::to_string(std::numeric_limits<std::uint32_t>::max()) + ")");
    return false;
  }
  Take();
  if (!Expect(TokenKind::kRBracket, "']'")) return false;
  return Push(builder_.AddModelCall(builder_.Intern(call.function), inputs, output, call.pos),
              call.pos);
}

bool TextParser::CloseCall(Pending& call) {
  const std::size_t count = operands_.size() - call.operand_base;
  const std::vector<NodeId> args(operands_.begin() + static_cast<std::ptrdiff_t>(call.operand_base),
                                 operands_.end());
  operands_.resize(call.operand_base);
  auto arity_error = [&](std::string_view expected) {
    Error(call.pos,
          call.function + " takes " + std::string(expected) + ", got " + std::to_string(count));
    return false;
  };
  NodeId node = 0;
  switch (call.spec.shape) {
    case CallShape::kUnary:
    case CallShape::kAggregate:
      if (count != 1) return arity_error("1 argument");
      node = builder_.AddOp(call.spec.op, args, call.pos);
      break;
    case CallShape::kBinary:
      if (count != 2) return arity_error("2 arguments");
      node = builder_.AddOp(call.spec.op, args, call.pos);
      break;
    case CallShape::kConditional:
      if (count != 3) return arity_error("3 arguments (condition, then, otherwise)");
      node = builder_.AddOp(call.spec.op, args, call.pos);
      break;
    case CallShape::kMinMax:
      // Two arguments give Binary, one or three and more Nary (spec section 4).
      node = builder_.AddOp(count == 2 ? call.spec.op : call.spec.nary_op, args, call.pos);
      break;
    case CallShape::kNary:
      node = builder_.AddOp(call.spec.op, args, call.pos);
      break;
    case CallShape::kWeightedSum:
      node = builder_.AddNary(call.spec.op, args, call.weights, call.pos);
      break;
    case CallShape::kModel:
      return FinishModelCall(call, args);
    case CallShape::kVector:
      return false;  // parsed by ParseVectorCall, never pushed
  }
  return Push(node, call.pos);
}

}  // namespace

Result<ir::FeatureSetIr> ReadText(std::string_view source) {
  TextParser parser(source);
  return parser.Parse();
}

}  // namespace calcjit::dsl
