#include "ir/op.h"

namespace calcjit::ir {

namespace {

bool IsSymbolSyntax(Syntax syntax, bool infix) {
  return infix ? syntax == Syntax::kInfix || syntax == Syntax::kInfixRight
               : syntax == Syntax::kPrefix;
}

std::optional<Op> FindSymbol(std::string_view symbol, bool infix) {
  for (const OpInfo& info : kOpTable) {
    if (IsSymbolSyntax(info.syntax, infix) && info.spelling == symbol) return info.op;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Op> FindPrefix(std::string_view symbol) {
  return FindSymbol(symbol, /*infix=*/false);
}

std::optional<Op> FindInfix(std::string_view symbol) {
  return FindSymbol(symbol, /*infix=*/true);
}

std::optional<Op> OpFromProtoNumber(OpKind kind, int number) {
  if (number <= 0) return std::nullopt;  // OPERATOR_UNSPECIFIED is never valid
  for (const OpInfo& info : kOpTable) {
    if (info.kind == kind && info.proto_number == number) return info.op;
  }
  return std::nullopt;
}

std::optional<Op> OpFromProtoName(OpKind kind, std::string_view name) {
  constexpr std::string_view kPrefix = "OPERATOR_";
  if (name.substr(0, kPrefix.size()) == kPrefix) name.remove_prefix(kPrefix.size());
  for (const OpInfo& info : kOpTable) {
    if (info.kind == kind && info.proto_number > 0 && info.proto_name == name) return info.op;
  }
  return std::nullopt;
}

std::optional<Op> SoleOpOf(OpKind kind) {
  std::optional<Op> found;
  for (const OpInfo& info : kOpTable) {
    if (info.kind != kind) continue;
    if (found) return std::nullopt;  // more than one: the message needs an Operator enum
    found = info.op;
  }
  return found;
}

}  // namespace calcjit::ir
