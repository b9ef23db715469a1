#include "dsl/lexer.h"

#include <limits>

#include "common/utf8.h"
#include "dsl/float_text.h"
#include "ir/op.h"

namespace calcjit::dsl {

namespace {

bool IsNameStart(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}
bool IsNameChar(char c) {
  return IsNameStart(c) || IsDigit(c) || c == '.';
}

// The punctuation of the statements and calls; operator symbols come from
// the operator table.
struct Punctuation {
  std::string_view text;
  TokenKind kind;
};
constexpr Punctuation kPunctuation[] = {
    {";", TokenKind::kSemicolon}, {":", TokenKind::kColon},    {",", TokenKind::kComma},
    {"=", TokenKind::kAssign},    {"(", TokenKind::kLParen},   {")", TokenKind::kRParen},
    {"[", TokenKind::kLBracket},  {"]", TokenKind::kRBracket},
};

std::string_view Spelling(TokenKind kind) {
  for (const Punctuation& p : kPunctuation) {
    if (p.kind == kind) return p.text;
  }
  return "";
}

// Whether an operator row is spelled by a symbol (not a name) in the text.
bool IsSymbolRow(const ir::OpInfo& info) {
  return info.syntax == ir::Syntax::kPrefix || info.syntax == ir::Syntax::kInfix ||
         info.syntax == ir::Syntax::kInfixRight;
}

}  // namespace

std::string Describe(const Token& token) {
  switch (token.kind) {
    case TokenKind::kEnd:
      return "end of input";
    case TokenKind::kName:
      return "name '" + token.text + "'";
    case TokenKind::kNumber:
      return "number " + std::string(token.source);
    case TokenKind::kString:
      return "string \"" + token.text + "\"";
    case TokenKind::kInput:
      return "'input'";
    case TokenKind::kModel:
      return "'model'";
    case TokenKind::kError:
      return token.text;
    case TokenKind::kOperator:
      return "'" + token.text + "'";
    default:
      return "'" + std::string(Spelling(token.kind)) + "'";
  }
}

void Lexer::Advance() {
  const char c = source_[offset_++];
  if (c == '\n') {
    ++line_;
    column_ = 1;
  } else if (c == '\r' && Peek() == '\n') {
    // CRLF is one line break: the '\n' that follows does the counting.
  } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
    ++column_;  // UTF-8 continuation bytes do not start a character
  }
}

void Lexer::SkipSpaceAndComments() {
  while (!AtEnd()) {
    const char c = Peek();
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      Advance();
    } else if (c == '#') {
      while (!AtEnd() && Peek() != '\n') Advance();
    } else {
      return;
    }
  }
}

Token Lexer::Make(TokenKind kind, ir::TextPos pos, std::size_t begin) const {
  Token token;
  token.kind = kind;
  token.pos = pos;
  token.source = source_.substr(begin, offset_ - begin);
  return token;
}

Token Lexer::Error(ir::TextPos pos, std::string message) const {
  Token token;
  token.kind = TokenKind::kError;
  token.pos = pos;
  token.text = std::move(message);
  return token;
}

Token Lexer::Next() {
  SkipSpaceAndComments();
  const ir::TextPos pos{line_, column_};
  const std::size_t begin = offset_;
  if (AtEnd()) return Make(TokenKind::kEnd, pos, begin);
  const char c = Peek();
  if (IsDigit(c) || (c == '.' && IsDigit(Peek(1)))) return LexNumber(pos, begin);
  if (IsNameStart(c)) return LexName(pos, begin);
  if (c == '`') return LexQuotedName(pos, begin);
  if (c == '"') return LexString(pos, begin);

  return LexSymbol(pos, begin);
}

Token Lexer::LexSymbol(ir::TextPos pos, std::size_t begin) {
  const std::string_view rest = source_.substr(offset_);
  std::string_view longest;
  TokenKind kind = TokenKind::kError;
  for (const Punctuation& p : kPunctuation) {
    if (rest.starts_with(p.text) && p.text.size() > longest.size()) {
      longest = p.text;
      kind = p.kind;
    }
  }
  for (const ir::OpInfo& info : ir::kOpTable) {
    if (IsSymbolRow(info) && rest.starts_with(info.spelling) &&
        info.spelling.size() > longest.size()) {
      longest = info.spelling;
      kind = TokenKind::kOperator;
    }
  }
  if (!longest.empty()) {
    for (std::size_t i = 0; i < longest.size(); ++i) Advance();
    Token token = Make(kind, pos, begin);
    if (kind == TokenKind::kOperator) token.text = std::string(longest);
    return token;
  }
  // Consume the offending character so that the parser's recovery moves on.
  const std::size_t length = Utf8SequenceLength(rest);
  const std::string shown(source_.substr(offset_, length == 0 ? 1 : length));
  for (std::size_t i = 0; i < (length == 0 ? 1 : length); ++i) Advance();
  // Status escapes control characters and invalid bytes (\x00, \xff), so
  // the message shows what is there and never carries it raw.
  if (length == 0) return Error(pos, "invalid UTF-8 byte '" + shown + "' in the source");
  if (shown == "\xEF\xBB\xBF") {
    // Invisible in an editor: named, not shown.
    return Error(pos,
                 "unexpected byte order mark (U+FEFF): one is only skipped at the very "
                 "start of the text");
  }
  return Error(pos, "unexpected character '" + shown + "'");
}

Token Lexer::LexNumber(ir::TextPos pos, std::size_t begin) {
  while (IsDigit(Peek())) Advance();
  if (Peek() == '.') {
    Advance();
    while (IsDigit(Peek())) Advance();
  }
  if ((Peek() == 'e' || Peek() == 'E') &&
      (IsDigit(Peek(1)) || ((Peek(1) == '+' || Peek(1) == '-') && IsDigit(Peek(2))))) {
    Advance();
    if (Peek() == '+' || Peek() == '-') Advance();
    while (IsDigit(Peek())) Advance();
  }
  if (IsNameChar(Peek())) {
    while (IsNameChar(Peek())) Advance();
    return Error(pos, "malformed number '" + Excerpt(source_.substr(begin, offset_ - begin)) + "'");
  }
  Token token = Make(TokenKind::kNumber, pos, begin);
  switch (ParseDecimalFloat(token.source, &token.number)) {
    case FloatParse::kOk:
      return token;
    case FloatParse::kOverflow:
      return Error(pos, "number " + Excerpt(token.source) + " is beyond the float32 range");
    case FloatParse::kSyntax:
      break;
  }
  return Error(pos, "malformed number '" + Excerpt(token.source) + "'");
}

Token Lexer::LexName(ir::TextPos pos, std::size_t begin) {
  while (IsNameChar(Peek())) Advance();
  Token token = Make(TokenKind::kName, pos, begin);
  token.text = std::string(token.source);
  if (token.source == "input") {
    token.kind = TokenKind::kInput;
  } else if (token.source == "model") {
    token.kind = TokenKind::kModel;
  } else if (token.source == "inf") {
    token.kind = TokenKind::kNumber;
    token.number = std::numeric_limits<float>::infinity();
  } else if (token.source == "nan") {
    token.kind = TokenKind::kNumber;
    token.number = std::numeric_limits<float>::quiet_NaN();
  }
  return token;
}

Token Lexer::LexQuotedName(ir::TextPos pos, std::size_t begin) {
  Advance();  // opening backquote
  std::string name;
  while (true) {
    if (AtEnd()) return Error(pos, "unterminated `name`");
    if (Peek() == '`') {
      if (Peek(1) == '`') {  // a doubled backquote stands for one
        name += '`';
        Advance();
        Advance();
        continue;
      }
      Advance();
      break;
    }
    name += Peek();
    Advance();
  }
  if (name.empty()) return Error(pos, "a name is never empty");
  if (!IsValidUtf8(name)) return Error(pos, "invalid UTF-8 in a `name`");
  Token token = Make(TokenKind::kName, pos, begin);
  token.text = std::move(name);
  token.quoted = true;
  return token;
}

Token Lexer::LexString(ir::TextPos pos, std::size_t begin) {
  Advance();  // opening quote
  std::string text;
  while (true) {
    if (AtEnd() || Peek() == '\n') return Error(pos, "unterminated string");
    const char c = Peek();
    Advance();
    if (c == '"') break;
    if (c == '\\' && (Peek() == '"' || Peek() == '\\')) {
      text += Peek();
      Advance();
      continue;
    }
    text += c;
  }
  if (!IsValidUtf8(text)) return Error(pos, "invalid UTF-8 in a string");
  Token token = Make(TokenKind::kString, pos, begin);
  token.text = std::move(text);
  return token;
}

}  // namespace calcjit::dsl
