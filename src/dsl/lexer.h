// Tokens of the text syntax (spec section 4).
#ifndef CALCJIT_DSL_LEXER_H_
#define CALCJIT_DSL_LEXER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "ir/feature_set_ir.h"

namespace calcjit::dsl {

enum class TokenKind : std::uint8_t {
  kEnd,
  kName,    // plain or `backquoted`; `text` holds the name itself
  kNumber,  // a literal, also `inf` and `nan`; `number` holds its float32 value
  kString,  // "..." (model paths); `text` holds the contents
  kInput,   // reserved word `input`
  kModel,   // reserved word `model`
  kSemicolon,
  kColon,
  kComma,
  kAssign,
  kLParen,
  kRParen,
  kLBracket,
  kRBracket,
  // The symbol of a prefix or infix row of the operator table (ir/op.def):
  // "+", "-", "==", "!", ...; `text` holds it. A symbol that is both (-) is
  // one token: the parser tells prefix from infix by its place.
  kOperator,
  kError,  // a lexical error; `text` holds the message
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  ir::TextPos pos;
  std::string text;  // see TokenKind
  float number = 0.0f;
  bool quoted = false;      // a `backquoted` name: never a function call
  std::string_view source;  // the token as written
};

// Describes a token for error messages: "';'", "name 'price'", "end of input".
std::string Describe(const Token& token);

class Lexer {
 public:
  // A UTF-8 byte order mark at the very start is skipped (editors on Windows
  // write one; the JSON reader skips it too); it does not count as a column.
  explicit Lexer(std::string_view source)
      : source_(source), offset_(source.starts_with("\xEF\xBB\xBF") ? 3 : 0) {}

  Token Next();

 private:
  char Peek(std::size_t ahead = 0) const {
    return offset_ + ahead < source_.size() ? source_[offset_ + ahead] : '\0';
  }
  bool AtEnd() const { return offset_ >= source_.size(); }
  // Advances one byte, keeping line and column (in characters) up to date.
  void Advance();
  void SkipSpaceAndComments();
  Token Make(TokenKind kind, ir::TextPos pos, std::size_t begin) const;
  Token Error(ir::TextPos pos, std::string message) const;
  Token LexNumber(ir::TextPos pos, std::size_t begin);
  Token LexName(ir::TextPos pos, std::size_t begin);
  Token LexQuotedName(ir::TextPos pos, std::size_t begin);
  Token LexString(ir::TextPos pos, std::size_t begin);
  // Punctuation or an operator symbol: the longest one at the offset.
  Token LexSymbol(ir::TextPos pos, std::size_t begin);

  std::string_view source_;
  std::size_t offset_;
  std::uint32_t line_ = 1;
  std::uint32_t column_ = 1;
};

}  // namespace calcjit::dsl

#endif  // CALCJIT_DSL_LEXER_H_
