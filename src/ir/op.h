// Operators: the enum and every per-operator fact, generated from op.def.
// Stages read the facts through the accessors below; code generated per
// operator (kernel dispatch) expands op.def through op_by_kind.inc.
#ifndef CALCJIT_IR_OP_H_
#define CALCJIT_IR_OP_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "ir/kind.h"

namespace calcjit::ir {

enum class Syntax : std::uint8_t { kLeaf, kPrefix, kInfix, kInfixRight, kCall };

enum class NanRule : std::uint8_t { kPropagates, kToBool, kPassThrough, kSkipsNan, kSpecial };

// What an operator's value is, per item of a batch.
enum class ResultShape : std::uint8_t {
  kElementWise,     // item i's value depends on the operands' item i only
  kBatchStatistic,  // one value for the whole batch, the same in every item
  kBatchColumn,     // a value per item that depends on the whole batch (rank, softmax, ...)
};

// May constant folding evaluate the operator when its operands are constants?
enum class Folding : std::uint8_t { kEvaluate, kNever };

// How a compiler of element-wise loops (the JIT) runs the operator's kernel.
enum class Cost : std::uint8_t {
  kInline,      // its code is inlined into the loop
  kVectorCall,  // an expensive kernel: called through its vector variants, not inlined
};

// The statistics of a column that several aggregates derive their results
// from (spec section 3), as bits of OpInfo::statistics. Aggregates over the
// same operand share one computation of them: min, max, the striped float64
// sum with its count of non-NaN items, and the count of truthy items in one
// pass over the column; the striped sum of squared deviations from the mean
// in a second pass, only when some aggregate needs the standard deviation.
enum Statistic : std::uint8_t {
  kStatisticMin = 1,
  kStatisticMax = 2,
  kStatisticSum = 4,    // the striped sum and the non-NaN count: SUM, MEAN
  kStatisticStd = 8,    // the second pass (it reuses the sum's mean)
  kStatisticCount = 16  // the truthy items: COUNT
};

enum class Op : std::uint8_t {
#define CALCJIT_OP(name, ...) k##name,
#include "ir/op.def"
#undef CALCJIT_OP
};

struct OpInfo {
  Op op;
  std::string_view name;  // "Add": for dumps and diagnostics; the kernel's name in src/math
  OpKind kind;
  int proto_number;             // 0 when the kind has no Operator enum
  std::string_view proto_name;  // without the "OPERATOR_" prefix
  std::string_view spelling;    // text syntax symbol or function name
  Syntax syntax;
  int precedence;
  NanRule nan_rule;
  ResultShape shape;
  Folding folding;
  Cost cost;

  // Hooks: facts only some rows have. A row of op.def names the ones it needs
  // as designated initializers, in this order; the others keep these
  // defaults, which mean "nothing".
  //
  // The operands can be swapped without changing any observable bit.
  bool commutative = false;
  // A second, function-call spelling of a symbol row: pow(x, y) for x ^ y.
  std::string_view call_spelling = {};
  // Vector: takes one vector input (lhs) instead of two.
  bool lhs_only = false;
  // Nary: the Binary operator whose left fold over the operands it is.
  std::optional<Op> nary_fold = std::nullopt;
  // Nary: the fold is divided once by the operand count (mean).
  bool divides_by_count = false;
  // Nary: operand k is multiplied by weight k before the fold (weighted_sum);
  // exactly one weight per operand. Other Nary rows take no weights.
  bool weighted = false;
  // Aggregate: 64-bit keys of scratch its kernel needs per item (rank's
  // sorts and buckets: math::kRankScratchPerItem, which kernels_impl.h
  // checks against the row).
  int scratch_keys_per_item = 0;
  // Aggregate: the kernel also takes a float bound, which the optimizer
  // fixes (the DAG node's `constant`, a column step's `bound`).
  bool takes_bound = false;
  // Made by the optimizer only: no wire number and no spelling, so no reader
  // and no user's set produces it, and the printers never meet it.
  bool optimizer_only = false;
  // Aggregate: the column statistics its result is derived from (Statistic
  // bits); aggregates over the same operand then share one computation of
  // them (program/schedule.cc). 0: computed on its own (rank).
  std::uint8_t statistics = 0;
};

inline constexpr OpInfo kOpTable[] = {
// (The parameters are named apart from OpInfo's members, which the
// designators name.)
#define CALCJIT_OP(row_name, row_kind, row_number, row_proto, row_spelling, row_syntax, \
                   row_precedence, row_nan, row_shape, row_folding, row_cost, ...)      \
  {.op = Op::k##row_name,                                                               \
   .name = #row_name,                                                                   \
   .kind = OpKind::row_kind,                                                            \
   .proto_number = row_number,                                                          \
   .proto_name = row_proto,                                                             \
   .spelling = row_spelling,                                                            \
   .syntax = Syntax::row_syntax,                                                        \
   .precedence = row_precedence,                                                        \
   .nan_rule = NanRule::row_nan,                                                        \
   .shape = ResultShape::row_shape,                                                     \
   .folding = Folding::row_folding,                                                     \
   .cost = Cost::row_cost,                                                              \
   __VA_ARGS__},
#include "ir/op.def"
#undef CALCJIT_OP
};

inline constexpr int kOpCount = static_cast<int>(std::size(kOpTable));

constexpr const OpInfo& Info(Op op) {
  return kOpTable[static_cast<int>(op)];
}
constexpr OpKind KindOf(Op op) {
  return Info(op).kind;
}
constexpr ResultShape ResultShapeOf(Op op) {
  return Info(op).shape;
}
constexpr bool MayFold(Op op) {
  return Info(op).folding == Folding::kEvaluate;
}
constexpr bool IsVectorCall(Op op) {
  return Info(op).cost == Cost::kVectorCall;
}
constexpr bool IsCommutative(Op op) {
  return Info(op).commutative;
}
constexpr int ScratchKeysPerItem(Op op) {
  return Info(op).scratch_keys_per_item;
}
constexpr bool TakesBound(Op op) {
  return Info(op).takes_bound;
}
constexpr bool IsOptimizerOnly(Op op) {
  return Info(op).optimizer_only;
}

constexpr std::uint8_t StatisticsOf(Op op) {
  return Info(op).statistics;
}

// The most scratch keys per item any operator needs: what a workspace that
// runs every aggregate must hold per item.
constexpr int MaxScratchKeysPerItem() {
  int most = 0;
  for (const OpInfo& info : kOpTable) {
    most = info.scratch_keys_per_item > most ? info.scratch_keys_per_item : most;
  }
  return most;
}

// The Binary operator a Nary operator folds with (Sum, Mean, WeightedSum:
// Add; Product: Mul; NaryMin/NaryMax: Min/Max).
constexpr Op NaryFoldOf(Op nary) {
  return Info(nary).nary_fold.value_or(Op::kAdd);
}

// The text precedence of every prefix operator (unary - and !), which is
// also how tightly a negative literal binds (spec section 4).
constexpr int PrefixPrecedence() {
  int precedence = 0;
  for (const OpInfo& info : kOpTable) {
    if (info.syntax == Syntax::kPrefix) precedence = info.precedence;
  }
  return precedence;
}

constexpr bool PrefixRowsShareOnePrecedence() {
  for (const OpInfo& info : kOpTable) {
    if (info.syntax == Syntax::kPrefix && info.precedence != PrefixPrecedence()) return false;
  }
  return true;
}
static_assert(PrefixRowsShareOnePrecedence(), "the text syntax has one unary precedence level");

constexpr bool TableIsInEnumOrder() {
  for (int i = 0; i < kOpCount; ++i) {
    if (static_cast<int>(kOpTable[i].op) != i) return false;
  }
  return true;
}
static_assert(TableIsInEnumOrder());

constexpr bool NaryRowsNameABinaryFold() {
  for (const OpInfo& info : kOpTable) {
    const bool nary = info.kind == OpKind::kNary;
    if (nary != info.nary_fold.has_value()) return false;
    if (nary && Info(*info.nary_fold).kind != OpKind::kBinary) return false;
  }
  return true;
}
static_assert(NaryRowsNameABinaryFold(), "every Nary row names the Binary row it folds with");

// The prefix (Syntax::kPrefix) or infix (kInfix, kInfixRight) operator
// spelled `symbol`.
std::optional<Op> FindPrefix(std::string_view symbol);
std::optional<Op> FindInfix(std::string_view symbol);

// The operator with this number in the Operator enum of `kind`'s message.
std::optional<Op> OpFromProtoNumber(OpKind kind, int number);
// The operator of `kind` named `name` ("DIV" or "OPERATOR_DIV").
std::optional<Op> OpFromProtoName(OpKind kind, std::string_view name);
// The only operator of a kind whose message has no Operator enum (If).
std::optional<Op> SoleOpOf(OpKind kind);

// The wire name of a kind's member of Expression.kind: "unary", "binary",
// "conditional", "vector", "nary", "aggregate" ("constant", "feature" for
// leaves).
constexpr std::string_view ExpressionFieldName(OpKind kind) {
  return InfoOf(kind).member_name;
}

}  // namespace calcjit::ir

#endif  // CALCJIT_IR_OP_H_
