// Differential property tests: every backend other than the reference
// interpreter gives the reference interpreter's bits (spec section 3: "all of
// them give exactly that result, bit for bit"), over random VALID feature
// sets and random inputs.
//
//  - MatchesReference/<backend>_<tier>: for every backend of the build (the
//    VM; the JIT once it is available) on every instruction-set tier, with
//    block sizes 0 (the default), 8, 64, 512 and 1024 and one random
//    configuration (an odd block size and a random set of optimizer passes
//    and VM steps switched off), every requested output equals the reference
//    interpreter's bit for bit, and every NaN is 0x7FC00000 in both.
//  - ScratchReuse/<backend>_<tier>: one Batch evaluated again and again (the
//    same n twice, then fewer items, then more, owned and caller-bound
//    outputs) gives what a fresh Batch gives: the scratch that a Batch keeps
//    for its engine leaks nothing from one evaluation into the next.
//  - CallerFpEnvironment/<backend>_<tier>: the caller's floating-point
//    environment (FTZ, DAZ, another rounding mode) changes no output bit
//    (spec section 1), whether it is set while the set is parsed and the
//    engine compiled (ParseAndCompileChangeNoResultBit) or while the batch is
//    evaluated (EvaluateChangesNoResultBit); plus the minimal cases those
//    shrank to, one test per entry point (CallerFpEnvironment.*).
//  - GeneratorCoverage: the generator reaches every operator of op.def, every
//    aggregate nested in an aggregate and in an if, the vector dimensions 8,
//    9, 16 and 17, the special constants, depth 12, chains longer than the
//    VM's longest kFold, aggregates over one column that share its
//    statistics, ... so that the properties above do test what they claim
//    to.
// A backend this build lacks (the JIT, for now) or a tier this CPU lacks is
// reported as skipped, with the reason.
//
// The sets are generated as a small tree (GenSet) with rapidcheck's
// combinators and printed as text (fully parenthesized) that FeatureSet::Parse
// reads. Operator nodes shrink to one of their operands, to fewer operands or
// to a simpler operator (Compose); references are abstract choices that the
// TextWriter maps to names so that every shrunk set stays valid (scalar inputs
// only as columns, vector operands of equal dimension, references to earlier
// definitions only). The input data come from a seed and each input's name
// (MakeData), so a failure shrinks to a minimal set and a small n, and its
// message shows the set, the output, the item, both values in hex and the
// inputs.
//
// CI budget (below): 8,000 cases per MatchesReference target, 1,500 per
// ScratchReuse and CallerFpEnvironment target: 3 x 8,000 + 4 x 1,500 +
// 2 x 4 x 1,500 = 42,000 cases, about 15 s on one idle core. A longer soak
// (every property 100,000 cases):
//
//   RC_PARAMS="max_success=100000" build/tests/property/differential_test
//
// and bigger sets with RC_PARAMS="max_success=20000 max_size=400". RC_PARAMS
// also takes seed=N (repeat a run) and reproduce=... (printed with a failure);
// --gtest_filter='*MatchesReference*vm_avx512*' picks one property.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <xmmintrin.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <ostream>
#include <random>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "calcjit/dump.h"
#include "calcjit/engine.h"
#include "calcjit/feature_set.h"
#include "calcjit/schema.h"
#include "calcjit/status.h"
#include "ir/op.h"

namespace calcjit::differential_test {
namespace {

using ir::Op;
using ir::OpKind;

// Cases per property in CI; RC_PARAMS="max_success=N" overrides them.
constexpr int kCiCasesPerTarget = 8000;  // MatchesReference, per backend and tier
constexpr int kCiCasesScratch = 1500;    // ScratchReuse, per backend and tier
constexpr int kCiCasesFpEnv = 1500;      // CallerFpEnvironment, per backend and tier
// The JIT compiles every case with LLVM (milliseconds each, not
// microseconds): its targets run this fraction of the cases in CI, and the
// soak command above gives them as many as the others.
constexpr int kJitCaseDivisor = 8;
constexpr int kCoverageSamples = 3000;  // GeneratorCoverage (no evaluation)

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr std::uint32_t kCanonicalNanBits = 0x7FC00000u;

std::uint32_t Bits(float value) {
  return std::bit_cast<std::uint32_t>(value);
}
float FromBits(std::uint32_t bits) {
  return std::bit_cast<float>(bits);
}

std::string Hex(float value) {
  char buffer[16];
  std::snprintf(buffer, sizeof(buffer), "0x%08X", Bits(value));
  return buffer;
}

// "0x7FC00000 (nan)", "0x3F800000 (1)".
std::string Describe(float value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%s (%.9g)", Hex(value).c_str(),
                static_cast<double>(value));
  return buffer;
}

// ---------------------------------------------------------------------------
// The operators, straight from the table (src/ir/op.def), so that a new row
// is generated without touching this file.

std::vector<Op> OpsOfKind(OpKind kind) {
  std::vector<Op> ops;
  for (const ir::OpInfo& info : ir::kOpTable) {
    // Optimizer-only rows are nothing a set can spell.
    if (info.kind == kind && !info.optimizer_only) ops.push_back(info.op);
  }
  return ops;
}

// Nary rows that take one weight per operand (weighted_sum), or none.
std::vector<Op> NaryOps(bool weighted) {
  std::vector<Op> ops = OpsOfKind(OpKind::kNary);
  std::erase_if(ops, [weighted](Op op) { return ir::Info(op).weighted != weighted; });
  return ops;
}

int ArityOf(OpKind kind) {
  return ir::FixedArity(kind);
}

// ---------------------------------------------------------------------------
// The generated set, before its references are resolved.

struct Expr {
  enum class Kind : std::uint8_t {
    kConstant,
    kColumn,  // a scalar input, an implicit input or an earlier definition
    kShared,  // a subexpression of the set's pool, repeated verbatim (CSE)
    kVector,  // dot / cosine / l2_distance / norm over vector inputs
    kOp,
  };
  Kind kind = Kind::kConstant;
  float constant = 0.0f;
  std::uint32_t ref = 0;   // kColumn, kShared: the choice; kVector: lhs
  std::uint32_t ref2 = 0;  // kVector: rhs; kShared: odd swaps a commutative top
  Op op = Op::kConstant;   // kVector, kOp
  std::vector<Expr> operands;
  std::vector<float> weights;  // kWeightedSum
  // kOp with a binary operator and two or more operands: the left-deep chain
  // ((x0 op x1) op x2) op ..., which the VM may run as one kFold.
  bool chain = false;
};

struct ScalarInput {
  Scope scope = Scope::kItem;
  std::optional<float> default_value;
  bool bound = true;  // false: left to its default (only with a default)
};

struct SetSpec {
  std::vector<ScalarInput> scalars;        // s0, s1, ...
  std::vector<std::uint32_t> vector_dims;  // per group k: vi<k>: item[d], vq<k>: query[d]
  std::vector<Expr> shared;                // the pool kShared leaves repeat
  std::vector<Expr> features;              // f0, f1, ... (at least one)
  std::vector<std::uint32_t> requested;    // empty: every output
};

// ---------------------------------------------------------------------------
// Generators.

float CanonicalNan() {
  return FromBits(kCanonicalNanBits);
}

// One of `values`, shrinking towards the first (rc::gen::element and
// elementOf do not shrink).
template <typename T>
rc::Gen<T> ShrinkingElementOf(std::vector<T> values) {
  return rc::gen::map(rc::gen::inRange<std::size_t>(0, values.size()),
                      [values](std::size_t i) { return values[i]; });
}

// IEEE specials, subnormals, limits, the edges of exp's and sigmoid's range.
std::vector<float> SpecialConstants() {
  return {2.0f,
          0.5f,
          kInf,
          -kInf,
          CanonicalNan(),
          std::numeric_limits<float>::denorm_min(),
          -std::numeric_limits<float>::denorm_min(),
          FromBits(0x007FFFFFu),
          std::numeric_limits<float>::min(),
          std::numeric_limits<float>::max(),
          -std::numeric_limits<float>::max(),
          3.0f,
          10.0f,
          -2.5f,
          1e-30f,
          1e30f,
          88.72284f,
          -87.33655f,
          16777216.0f,
          1e-7f};
}

// Constants that make the optimizer's identities and folding fire (0, -0, 1,
// -1), IEEE specials, subnormals, limits, decimals, and anything else.
rc::Gen<float> GenConstant() {
  return rc::gen::weightedOneOf<float>({
      {4, ShrinkingElementOf<float>({0.0f, 1.0f, -0.0f, -1.0f})},
      {5, ShrinkingElementOf(SpecialConstants())},
      // Decimal fractions, as real sets write them (0.3 * x + 0.15): most
      // have no exact float, so they test how literals are read too.
      {2, ShrinkingElementOf<float>({0.1f, 0.3f, 0.7f, 1.1f, 0.15f, 2.2f, 0.01f, -0.6f})},
      // Multiples of 1/4 in [-16, 16], shrinking towards 0.
      {2, rc::gen::map(
              rc::gen::inRange(0, 129),
              [](int i) { return static_cast<float>(i % 2 == 1 ? -(i + 1) / 2 : i / 2) / 4; })},
      // Any bit pattern: every exponent, subnormals, tiny and huge values. A
      // NaN prints as `nan` (the text syntax has no NaN payloads).
      {2, rc::gen::map(rc::gen::arbitrary<std::uint32_t>(), FromBits)},
  });
}

using ExprShrinkable = rc::Shrinkable<Expr>;
using FloatShrinkable = rc::Shrinkable<float>;

// How many operands an operator node has.
enum class Arity : std::uint8_t {
  kFixed,     // the operator's own
  kVariadic,  // Nary: one or more
  kChain,     // a left-deep chain of a binary operator: two or more
};

// An operator node from its parts, each still shrinkable. Its shrinks, in
// order: an operand in place of the node (a failure deep inside a tree shrinks
// to the subtree that matters), an operand less (variadic operators and
// chains), a simpler operator, then simpler operands and weights in place.
ExprShrinkable Compose(rc::Shrinkable<Op> op, std::vector<ExprShrinkable> operands,
                       std::vector<FloatShrinkable> weights, Arity arity) {
  Expr node;
  node.kind = Expr::Kind::kOp;
  node.op = op.value();
  node.chain = arity == Arity::kChain;
  for (const ExprShrinkable& operand : operands) node.operands.push_back(operand.value());
  for (const FloatShrinkable& weight : weights) node.weights.push_back(weight.value());

  rc::Seq<ExprShrinkable> fewer;
  const std::size_t least = arity == Arity::kChain ? 2 : 1;
  if (arity != Arity::kFixed && operands.size() > least) {
    fewer = rc::seq::map(rc::seq::range<std::size_t>(0, operands.size()), [=](std::size_t i) {
      auto kept = operands;
      kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(i));
      auto kept_weights = weights;
      if (!kept_weights.empty()) {
        kept_weights.erase(kept_weights.begin() + static_cast<std::ptrdiff_t>(i));
      }
      return Compose(op, std::move(kept), std::move(kept_weights), arity);
    });
  }
  auto simpler_op = rc::seq::map(op.shrinks(), [=](rc::Shrinkable<Op> o) {
    return Compose(std::move(o), operands, weights, arity);
  });
  auto simpler_operands =
      rc::seq::mapcat(rc::seq::range<std::size_t>(0, operands.size()), [=](std::size_t i) {
        return rc::seq::map(operands[i].shrinks(), [=](ExprShrinkable shrunk) {
          auto copy = operands;
          copy[i] = std::move(shrunk);
          return Compose(op, std::move(copy), weights, arity);
        });
      });
  auto simpler_weights =
      rc::seq::mapcat(rc::seq::range<std::size_t>(0, weights.size()), [=](std::size_t i) {
        return rc::seq::map(weights[i].shrinks(), [=](FloatShrinkable shrunk) {
          auto copy = weights;
          copy[i] = std::move(shrunk);
          return Compose(op, operands, std::move(copy), arity);
        });
      });
  return rc::shrinkable::just(
      std::move(node),
      rc::seq::concat(rc::seq::fromContainer(operands), std::move(fewer), std::move(simpler_op),
                      std::move(simpler_operands), std::move(simpler_weights)));
}

rc::Gen<std::uint32_t> GenChoice() {
  return rc::gen::inRange<std::uint32_t>(0, 64);
}

// A leaf; shrinks towards a constant, then towards 0.
rc::Gen<Expr> GenLeaf(bool shared_allowed) {
  using Kind = Expr::Kind;
  auto constant = rc::gen::map(GenConstant(), [](float c) {
    Expr e;
    e.constant = c;
    return e;
  });
  auto column = rc::gen::map(GenChoice(), [](std::uint32_t ref) {
    Expr e;
    e.kind = Kind::kColumn;
    e.ref = ref;
    return e;
  });
  auto vector = rc::gen::apply(
      [](Op op, std::uint32_t lhs, std::uint32_t rhs) {
        Expr e;
        e.kind = Kind::kVector;
        e.op = op;
        e.ref = lhs;
        e.ref2 = rhs;
        return e;
      },
      ShrinkingElementOf(OpsOfKind(OpKind::kVector)), GenChoice(), GenChoice());
  if (!shared_allowed)
    return rc::gen::weightedOneOf<Expr>({{3, constant}, {6, column}, {2, vector}});
  auto shared = rc::gen::apply(
      [](std::uint32_t ref, std::uint32_t swap) {
        Expr e;
        e.kind = Kind::kShared;
        e.ref = ref;
        e.ref2 = swap;
        return e;
      },
      GenChoice(), rc::gen::inRange<std::uint32_t>(0, 2));
  return rc::gen::weightedOneOf<Expr>({{3, constant}, {6, column}, {2, vector}, {2, shared}});
}

// Nesting deeper than this is not generated (the spec accepts 2,000 levels;
// deep_test covers those).
constexpr int kMaxDepth = 12;

rc::Gen<Expr> GenExpr(int depth, int budget, bool shared_allowed);

// A node of one of `ops` with `min_count` to `max_count` operands (and as many
// weights when `weighted`) whose subtrees share `budget` nodes in all.
rc::Gen<Expr> GenOpNode(std::vector<Op> ops, int min_count, int max_count, bool weighted, int depth,
                        int budget, bool shared_allowed, bool chain = false) {
  return rc::Gen<Expr>([=](const rc::Random& random, int size) {
    rc::Random r = random;
    rc::Shrinkable<Op> op = ShrinkingElementOf(ops)(r.split(), size);
    const int count = min_count == max_count
                          ? min_count
                          : rc::gen::inRange(min_count, max_count + 1)(r.split(), size).value();
    // Split the budget left after this node at count-1 random cuts.
    const int left = std::max(budget - 1, 0);
    std::vector<int> cuts = {0, left};
    for (int i = 1; i < count; ++i) {
      cuts.push_back(rc::gen::inRange(0, left + 1)(r.split(), size).value());
    }
    std::sort(cuts.begin(), cuts.end());
    std::vector<ExprShrinkable> operands;
    std::vector<FloatShrinkable> weights;
    for (int i = 0; i < count; ++i) {
      const int share = cuts[static_cast<std::size_t>(i) + 1] - cuts[static_cast<std::size_t>(i)];
      operands.push_back(GenExpr(depth + 1, share, shared_allowed)(r.split(), size));
    }
    if (weighted) {
      for (int i = 0; i < count; ++i) weights.push_back(GenConstant()(r.split(), size));
    }
    const Arity arity = chain                    ? Arity::kChain
                        : min_count != max_count ? Arity::kVariadic
                                                 : Arity::kFixed;
    return Compose(std::move(op), std::move(operands), std::move(weights), arity);
  });
}

ExprShrinkable ConstantLeaf(FloatShrinkable value) {
  return rc::shrinkable::map(std::move(value), [](float c) {
    Expr e;
    e.constant = c;
    return e;
  });
}

// The shapes the optimizer's rewrites look for, far likelier than at random:
// x op c and c op x with c in {0, -0, 1, -1}; op(x, x) and if(c, x, x) with
// the same subexpression twice; two unary operators in a row (--x, abs(-x));
// two aggregates over the same subexpression, which share its statistics
// (batch_mean(x) - zscore(x)).
rc::Gen<Expr> GenRewriteBait(int depth, int budget, bool shared_allowed) {
  return rc::Gen<Expr>([=](const rc::Random& random, int size) {
    rc::Random r = random;
    const int shape = rc::gen::inRange(0, 4)(r.split(), size).value();
    // Often a bare input, whose data has every special value.
    const int x_budget = rc::gen::inRange(1, std::max(2, budget - 1))(r.split(), size).value();
    ExprShrinkable x = GenExpr(depth + 2, x_budget, shared_allowed)(r.split(), size);
    if (shape == 0) {
      rc::Shrinkable<Op> op =
          ShrinkingElementOf<Op>({Op::kAdd, Op::kSub, Op::kMul, Op::kDiv, Op::kPow, Op::kMin,
                                  Op::kMax, Op::kAnd, Op::kOr, Op::kEq})(r.split(), size);
      ExprShrinkable c =
          ConstantLeaf(ShrinkingElementOf<float>({0.0f, -0.0f, 1.0f, -1.0f})(r.split(), size));
      if (rc::gen::arbitrary<bool>()(r.split(), size).value()) {
        return Compose(std::move(op), {std::move(c), std::move(x)}, {}, Arity::kFixed);
      }
      return Compose(std::move(op), {std::move(x), std::move(c)}, {}, Arity::kFixed);
    }
    if (shape == 1) {
      rc::Shrinkable<Op> op =
          ShrinkingElementOf<Op>({Op::kMin, Op::kMax, Op::kIf, Op::kSub, Op::kDiv, Op::kAdd,
                                  Op::kEq, Op::kNe, Op::kAnd})(r.split(), size);
      if (op.value() == Op::kIf) {
        ExprShrinkable condition = GenExpr(depth + 1, 3, shared_allowed)(r.split(), size);
        return Compose(std::move(op), {std::move(condition), x, x}, {}, Arity::kFixed);
      }
      return Compose(std::move(op), {x, x}, {}, Arity::kFixed);
    }
    if (shape == 3) {
      std::vector<Op> statistics = OpsOfKind(OpKind::kAggregate);
      std::erase_if(statistics, [](Op op) { return ir::StatisticsOf(op) == 0; });
      rc::Shrinkable<Op> combine =
          ShrinkingElementOf<Op>({Op::kSub, Op::kAdd, Op::kMul, Op::kDiv})(r.split(), size);
      rc::Shrinkable<Op> first = ShrinkingElementOf(statistics)(r.split(), size);
      rc::Shrinkable<Op> second = ShrinkingElementOf(statistics)(r.split(), size);
      return Compose(std::move(combine),
                     {Compose(std::move(first), {x}, {}, Arity::kFixed),
                      Compose(std::move(second), {x}, {}, Arity::kFixed)},
                     {}, Arity::kFixed);
    }
    const std::vector<Op> unary = {Op::kNeg, Op::kAbs, Op::kNot, Op::kSign, Op::kFloor};
    rc::Shrinkable<Op> inner = ShrinkingElementOf(unary)(r.split(), size);
    rc::Shrinkable<Op> outer = ShrinkingElementOf(unary)(r.split(), size);
    return Compose(std::move(outer), {Compose(std::move(inner), {std::move(x)}, {}, Arity::kFixed)},
                   {}, Arity::kFixed);
  });
}

// An expression of about `budget` nodes at nesting level `depth`.
rc::Gen<Expr> GenExpr(int depth, int budget, bool shared_allowed) {
  if (depth >= kMaxDepth || budget <= 1) return GenLeaf(shared_allowed);
  // Every row of a kind with a fixed operand count, from the table.
  const auto fixed = [=](OpKind kind) {
    return GenOpNode(OpsOfKind(kind), ArityOf(kind), ArityOf(kind), false, depth, budget,
                     shared_allowed);
  };
  return rc::gen::weightedOneOf<Expr>({
      {2, GenLeaf(shared_allowed)},
      {4, fixed(OpKind::kUnary)},
      {5, fixed(OpKind::kBinary)},
      {2, fixed(OpKind::kConditional)},
      {2, GenOpNode(NaryOps(false), 1, 4, false, depth, budget, shared_allowed)},
      {1, GenOpNode(NaryOps(true), 1, 4, true, depth, budget, shared_allowed)},
      {3, fixed(OpKind::kAggregate)},
      {2, GenRewriteBait(depth, budget, shared_allowed)},
      // Long operand lists and left-deep chains, past the VM's longest kFold
      // (16 columns), whose links run as one instruction.
      {1, GenOpNode(NaryOps(false), 5, 20, false, depth, budget, shared_allowed)},
      {1, GenOpNode({Op::kSub, Op::kDiv, Op::kAdd, Op::kMul}, 2, 20, false, depth, budget,
                    shared_allowed, /*chain=*/true)},
  });
}

// A definition's formula: up to 4 + size/3 nodes (about 37 at full size).
rc::Gen<Expr> GenFormula(bool shared_allowed) {
  return rc::gen::withSize([shared_allowed](int size) {
    return rc::gen::mapcat(rc::gen::inRange(1, 5 + size / 3), [shared_allowed](int budget) {
      return GenExpr(0, budget, shared_allowed);
    });
  });
}

rc::Gen<ScalarInput> GenScalarInput() {
  return rc::gen::apply(
      [](Scope scope, bool has_default, float value, bool bound) {
        ScalarInput input;
        input.scope = scope;
        if (has_default) input.default_value = value;
        input.bound = bound || !has_default;
        return input;
      },
      ShrinkingElementOf<Scope>({Scope::kItem, Scope::kQuery, Scope::kItem}),
      rc::gen::arbitrary<bool>(), GenConstant(), rc::gen::arbitrary<bool>());
}

rc::Gen<std::uint32_t> GenDimension() {
  return rc::gen::weightedOneOf<std::uint32_t>({
      {3, ShrinkingElementOf<std::uint32_t>({8, 9, 16, 17})},
      {2, rc::gen::inRange<std::uint32_t>(1, 21)},
  });
}

// Up to about `max` elements at full size; shrinking removes any of them.
template <typename T>
rc::Gen<std::vector<T>> SmallVector(rc::Gen<T> element, int max) {
  return rc::gen::withSize([element, max](int size) {
    return rc::gen::scale(max / 100.0,
                          rc::gen::container<std::vector<T>>(rc::gen::resize(size, element)));
  });
}

rc::Gen<SetSpec> GenSet() {
  return rc::gen::apply(
      [](std::vector<ScalarInput> scalars, std::vector<std::uint32_t> dims,
         std::vector<Expr> shared, Expr first, std::vector<Expr> more,
         rc::Maybe<std::vector<std::uint32_t>> requested) {
        SetSpec spec;
        spec.scalars = std::move(scalars);
        spec.vector_dims = std::move(dims);
        spec.shared = std::move(shared);
        spec.features.push_back(std::move(first));
        for (Expr& e : more) spec.features.push_back(std::move(e));
        if (requested) spec.requested = std::move(*requested);
        return spec;
      },
      SmallVector(GenScalarInput(), 6), SmallVector(GenDimension(), 3),
      SmallVector(GenFormula(false), 3), GenFormula(true), SmallVector(GenFormula(true), 8),
      rc::gen::maybe(rc::gen::nonEmpty(SmallVector(GenChoice(), 4))));
}

// ---------------------------------------------------------------------------
// Resolving a spec into names and text.

constexpr std::uint32_t kImplicitInputs = 2;  // u0, u1: used, never declared

std::string ScalarName(std::size_t i) {
  return "s" + std::to_string(i);
}
std::string ItemVectorName(std::size_t k) {
  return "vi" + std::to_string(k);
}
std::string QueryVectorName(std::size_t k) {
  return "vq" + std::to_string(k);
}
std::string ImplicitName(std::size_t i) {
  return "u" + std::to_string(i);
}
std::string FeatureName(std::size_t f) {
  return "f" + std::to_string(f);
}

// Shortest text that reads back to the same float32 (spec section 4).
std::string Literal(float value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

class TextWriter {
 public:
  explicit TextWriter(const SetSpec& spec) : spec_(spec) {
    for (std::size_t k = 0; k < spec.vector_dims.size(); ++k) {
      vectors_.push_back({ItemVectorName(k), spec.vector_dims[k]});
      vectors_.push_back({QueryVectorName(k), spec.vector_dims[k]});
    }
  }

  std::string Set() const {
    std::string out;
    for (std::size_t i = 0; i < spec_.scalars.size(); ++i) {
      const ScalarInput& input = spec_.scalars[i];
      out += "input " + ScalarName(i);
      if (input.scope == Scope::kQuery) out += ": query";
      if (input.default_value) out += " = " + Literal(*input.default_value);
      out += ";\n";
    }
    for (std::size_t k = 0; k < spec_.vector_dims.size(); ++k) {
      const std::string d = std::to_string(spec_.vector_dims[k]);
      out += "input " + ItemVectorName(k) + ": item[" + d + "];\n";
      out += "input " + QueryVectorName(k) + ": query[" + d + "];\n";
    }
    for (std::size_t f = 0; f < spec_.features.size(); ++f) {
      out += FeatureName(f) + " = " + Text(spec_.features[f], f) + ";\n";
    }
    return out;
  }

  // The requested outputs (empty: every definition), without repeats.
  std::vector<std::string> Requested() const {
    std::vector<std::string> names;
    for (std::uint32_t choice : spec_.requested) {
      const std::string name = FeatureName(choice % spec_.features.size());
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
    return names;
  }

 private:
  // A column in definition `feature` (kNoFeature in the shared pool: inputs
  // only, so a pool entry is valid in every definition).
  std::string Column(std::uint32_t ref, std::size_t feature) const {
    const std::size_t scalars = spec_.scalars.size();
    const std::size_t features = feature == kNoFeature ? 0 : feature;
    const std::size_t choice = ref % (scalars + kImplicitInputs + features);
    if (choice < scalars) return ScalarName(choice);
    if (choice < scalars + kImplicitInputs) return ImplicitName(choice - scalars);
    return FeatureName(choice - scalars - kImplicitInputs);
  }

  std::string Text(const Expr& e, std::size_t feature) const {
    using Kind = Expr::Kind;
    switch (e.kind) {
      case Kind::kConstant:
        return "(" + Literal(e.constant) + ")";
      case Kind::kColumn:
        return Column(e.ref, feature);
      case Kind::kShared: {
        if (spec_.shared.empty()) return Column(e.ref, feature);
        const Expr& shared = spec_.shared[e.ref % spec_.shared.size()];
        if (e.ref2 % 2 == 1 && shared.kind == Kind::kOp && ir::IsCommutative(shared.op) &&
            shared.operands.size() == 2) {
          Expr swapped = shared;
          std::swap(swapped.operands[0], swapped.operands[1]);
          return "(" + Text(swapped, kNoFeature) + ")";
        }
        return "(" + Text(shared, kNoFeature) + ")";
      }
      case Kind::kVector: {
        if (vectors_.empty()) return Column(e.ref, feature);
        const auto& [lhs, dimension] = vectors_[e.ref % vectors_.size()];
        const std::string name(ir::Info(e.op).spelling);
        if (ir::Info(e.op).lhs_only) return name + "(" + lhs + ")";
        std::vector<std::string> same;
        for (const auto& [other, other_dimension] : vectors_) {
          if (other_dimension == dimension) same.push_back(other);
        }
        return name + "(" + lhs + ", " + same[e.ref2 % same.size()] + ")";
      }
      case Kind::kOp:
        break;
    }
    const ir::OpInfo& info = ir::Info(e.op);
    std::vector<std::string> args;
    for (const Expr& operand : e.operands) args.push_back(Text(operand, feature));
    if (e.chain) {
      std::string out = args[0];
      for (std::size_t i = 1; i < args.size(); ++i) {
        out = "(" + out + " " + std::string(info.spelling) + " " + args[i] + ")";
      }
      return out;
    }
    switch (info.syntax) {
      case ir::Syntax::kPrefix:
        return std::string(info.spelling) + "(" + args[0] + ")";
      case ir::Syntax::kInfix:
      case ir::Syntax::kInfixRight:
        return "(" + args[0] + " " + std::string(info.spelling) + " " + args[1] + ")";
      default:
        break;
    }
    std::string out = std::string(info.spelling) + "(";
    if (info.weighted) {
      out += "[";
      for (std::size_t i = 0; i < e.weights.size(); ++i) {
        out += (i ? ", " : "") + Literal(e.weights[i]);
      }
      out += "], ";
    }
    for (std::size_t i = 0; i < args.size(); ++i) out += (i ? ", " : "") + args[i];
    return out + ")";
  }

  static constexpr std::size_t kNoFeature = static_cast<std::size_t>(-1);
  const SetSpec& spec_;
  std::vector<std::pair<std::string, std::uint32_t>> vectors_;  // name, dimension
};

// ---------------------------------------------------------------------------
// Input data: from a seed, rich in NaN (also with non-canonical payloads),
// infinities, signed zeros, subnormals, huge and tiny values and ties.

const std::vector<float>& SpecialValues() {
  static const std::vector<float> values = {CanonicalNan(),
                                            FromBits(0xFFC00000u),
                                            FromBits(0xFFC00001u),
                                            FromBits(0x7F800001u),
                                            FromBits(0x7FBFFFFFu),
                                            FromBits(0xFFFFFFFFu),
                                            kInf,
                                            -kInf,
                                            0.0f,
                                            -0.0f,
                                            std::numeric_limits<float>::denorm_min(),
                                            -std::numeric_limits<float>::denorm_min(),
                                            FromBits(0x007FFFFFu),
                                            FromBits(0x807FFFFFu),
                                            std::numeric_limits<float>::min(),
                                            -std::numeric_limits<float>::min(),
                                            std::numeric_limits<float>::max(),
                                            -std::numeric_limits<float>::max(),
                                            1.0f,
                                            -1.0f,
                                            0.5f,
                                            -0.5f,
                                            2.0f,
                                            1e30f,
                                            -1e30f,
                                            1e-30f,
                                            88.72284f,
                                            89.0f,
                                            -87.33655f,
                                            -103.97208f,
                                            0.6931472f,
                                            1e-7f,
                                            16777216.0f,
                                            3.0f};
  return values;
}

class DataRng {
 public:
  explicit DataRng(std::uint64_t seed) : engine_(seed) {}

  std::uint32_t Below(std::uint32_t n) {
    return std::uniform_int_distribution<std::uint32_t>(0, n - 1)(engine_);
  }
  bool OneIn(std::uint32_t n) { return Below(n) == 0; }
  std::uint32_t Word() { return static_cast<std::uint32_t>(engine_()); }

  float Special() {
    return SpecialValues()[Below(static_cast<std::uint32_t>(SpecialValues().size()))];
  }

  // A float of any magnitude: every binade from the subnormals to the largest.
  float AnyMagnitude() {
    const std::uint32_t sign = Below(2) << 31;
    const std::uint32_t exponent = Below(255);  // 0 (subnormal) .. 254
    return FromBits(sign | (exponent << 23) | (Word() & 0x7FFFFFu));
  }

 private:
  std::mt19937_64 engine_;
};

// How one input's values are drawn.
enum class Profile : std::uint8_t {
  kWild,        // specials and random bits
  kQuarters,    // multiples of 1/4 in [-10, 10] (many ties), some NaN
  kConstant,    // one value for every item (ties everywhere: std 0, max == min)
  kBoolean,     // 0, 1, -0 and NaN
  kMagnitudes,  // every binade, subnormals to huge, some specials
  kNan,         // NaN only, with several payloads
  kSmooth,      // uniform in [-3, 3) (few ties), rare NaN
  kZeros,       // signed zeros, +-1, the smallest subnormals and NaN
};

// A tame batch has values that survive a long formula (few NaN, no
// overflow), so that outputs vary per item; a wild one has every special.
Profile PickProfile(DataRng& rng, bool tame) {
  static const Profile kTame[] = {Profile::kQuarters, Profile::kQuarters, Profile::kSmooth,
                                  Profile::kSmooth,   Profile::kSmooth,   Profile::kZeros,
                                  Profile::kBoolean,  Profile::kConstant};
  static const Profile kWild[] = {Profile::kWild,     Profile::kWild,       Profile::kQuarters,
                                  Profile::kQuarters, Profile::kQuarters,   Profile::kConstant,
                                  Profile::kBoolean,  Profile::kMagnitudes, Profile::kMagnitudes,
                                  Profile::kNan,      Profile::kSmooth,     Profile::kSmooth,
                                  Profile::kSmooth,   Profile::kZeros,      Profile::kZeros};
  if (tame) return kTame[rng.Below(static_cast<std::uint32_t>(std::size(kTame)))];
  return kWild[rng.Below(static_cast<std::uint32_t>(std::size(kWild)))];
}

float Draw(DataRng& rng, Profile profile, float constant) {
  switch (profile) {
    case Profile::kWild:
      return rng.OneIn(2) ? rng.Special() : FromBits(rng.Word());
    case Profile::kQuarters:
      if (rng.OneIn(10)) return rng.OneIn(2) ? CanonicalNan() : FromBits(0xFFC00001u);
      return static_cast<float>(static_cast<int>(rng.Below(81)) - 40) / 4;
    case Profile::kConstant:
      return rng.OneIn(8) ? FromBits(0x7F800001u) : constant;
    case Profile::kBoolean: {
      static const float kValues[] = {0.0f, 1.0f, -0.0f, FromBits(kCanonicalNanBits), 1.0f};
      return kValues[rng.Below(5)];
    }
    case Profile::kMagnitudes:
      return rng.OneIn(8) ? rng.Special() : rng.AnyMagnitude();
    case Profile::kNan: {
      static const std::uint32_t kNans[] = {kCanonicalNanBits, 0xFFC00000u, 0xFFC00001u,
                                            0x7F800001u, 0x7FFFFFFFu};
      return FromBits(kNans[rng.Below(5)]);
    }
    case Profile::kSmooth:
      if (rng.OneIn(50)) return CanonicalNan();
      return static_cast<float>(rng.Below(1u << 24)) / static_cast<float>(1u << 24) * 6.0f - 3.0f;
    case Profile::kZeros: {
      static const float kValues[] = {0.0f,
                                      -0.0f,
                                      -0.0f,
                                      1.0f,
                                      -1.0f,
                                      std::numeric_limits<float>::denorm_min(),
                                      -std::numeric_limits<float>::denorm_min(),
                                      FromBits(0xFFC00001u)};
      return kValues[rng.Below(8)];
    }
  }
  return 0.0f;
}

// The data of one batch: every input of the set's schema by name (those left
// to their default are absent), `values.size()` floats each.
struct BatchData {
  std::size_t item_count = 0;
  std::map<std::string, std::vector<float>> values;
};

std::uint64_t Mix(std::uint64_t seed, std::uint64_t salt) {
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * (salt + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

BatchData MakeData(const Schema& schema, const SetSpec& spec, std::size_t item_count,
                   std::uint64_t seed) {
  BatchData data;
  data.item_count = item_count;
  const bool tame = DataRng(seed).OneIn(2);
  for (std::size_t i = 0; i < schema.inputs.size(); ++i) {
    const InputInfo& input = schema.inputs[i];
    // s<k> inputs with a default that the spec leaves unbound.
    if (input.name[0] == 's') {
      const std::size_t k = std::stoul(input.name.substr(1));
      if (k < spec.scalars.size() && !spec.scalars[k].bound) continue;
    }
    // Seeded by the name, so that an input keeps its data when a shrink
    // removes other inputs.
    DataRng rng(Mix(seed, std::hash<std::string>()(input.name)));
    const Profile profile = PickProfile(rng, tame);
    const float constant = rng.OneIn(3) ? rng.Special() : static_cast<float>(rng.Below(7)) - 3;
    std::vector<float>& values = data.values[input.name];
    values.resize(input.ValueCount(item_count));
    for (float& v : values) v = Draw(rng, profile, constant);
  }
  return data;
}

// ---------------------------------------------------------------------------
// Evaluating.

struct Evaluated {
  std::vector<std::string> names;
  std::vector<std::vector<float>> values;
};

// A poison value that no evaluation may leave in an output: a signaling NaN
// (an output NaN must be 0x7FC00000).
constexpr std::uint32_t kPoisonBits = 0x7FA5A5A5u;

// Binds `data` (the inputs the engine reads, except those left to their
// default) and evaluates; outputs with an index of parity `caller_parity` are
// bound to caller buffers (poisoned first), the others are the batch's own.
Status BindAndEvaluate(const Engine& engine, Batch& batch, const BatchData& data, int caller_parity,
                       std::vector<std::vector<float>>& caller_buffers, Evaluated* out) {
  batch.Clear();
  batch.SetItemCount(data.item_count);
  const Schema& schema = engine.schema();
  for (std::size_t i = 0; i < schema.inputs.size(); ++i) {
    const auto it = data.values.find(schema.inputs[i].name);
    if (it == data.values.end()) continue;
    CALCJIT_RETURN_IF_ERROR(batch.BindInput(i, it->second));
  }
  caller_buffers.resize(schema.outputs.size());
  for (std::size_t k = 0; k < schema.outputs.size(); ++k) {
    if (static_cast<int>(k % 2) != caller_parity) continue;
    caller_buffers[k].assign(data.item_count, FromBits(kPoisonBits));
    CALCJIT_RETURN_IF_ERROR(batch.BindOutput(k, caller_buffers[k]));
  }
  CALCJIT_RETURN_IF_ERROR(engine.Evaluate(batch));
  out->names = schema.outputs;
  out->values.clear();
  for (std::size_t k = 0; k < schema.outputs.size(); ++k) {
    const std::span<const float> values = batch.Output(k);
    out->values.emplace_back(values.begin(), values.end());
  }
  return Status::Ok();
}

struct Config {
  Backend backend = Backend::kVm;
  Isa isa = Isa::kAuto;
  std::uint32_t block_size = 0;
  std::vector<std::string> disabled;

  std::string ToString() const {
    std::string text(BackendName(backend));
    if (backend == Backend::kReference) return text;
    text += ", isa " + std::string(IsaName(isa)) + ", block " +
            (block_size == 0 ? std::string("default") : std::to_string(block_size));
    if (!disabled.empty()) {
      text += ", passes off:";
      for (const std::string& pass : disabled) text += " " + pass;
    }
    return text;
  }
};

// The optimizer passes, VM steps and scheduler steps
// EngineOptions::disabled_passes knows.
const std::vector<std::string>& PassNames() {
  static const std::vector<std::string> names = {
      "cse", "fold", "simplify", "dce", "uniform", "reuse", "fuse", "top_k", "statistics"};
  return names;
}

std::vector<std::string> PassesOf(std::uint32_t mask) {
  std::vector<std::string> passes;
  for (std::size_t i = 0; i < PassNames().size(); ++i) {
    if ((mask >> i) & 1u) passes.push_back(PassNames()[i]);
  }
  return passes;
}

Result<Engine> CompileFor(const FeatureSet& set, const std::vector<std::string>& outputs,
                          const Config& config) {
  EngineOptions options;
  options.backend = config.backend;
  options.outputs = outputs;
  options.isa = config.isa;
  options.block_size = config.block_size;
  options.disabled_passes = config.disabled;
  return Engine::Compile(set, options);
}

// The inputs of item `item` (every item when the batch is small), for a
// failure message.
std::string DescribeInputs(const Engine& engine, const BatchData& data, std::size_t item) {
  std::ostringstream os;
  const bool all = data.item_count <= 16;
  for (const InputInfo& input : engine.schema().inputs) {
    os << "  " << input.name << ": ";
    const auto it = data.values.find(input.name);
    if (it == data.values.end()) {
      os << "unbound, default " << Describe(*input.default_value) << "\n";
      continue;
    }
    const std::vector<float>& v = it->second;
    const std::size_t width = input.dimension > 0 ? input.dimension : 1;
    std::size_t begin = 0;
    std::size_t end = v.size();
    if (input.scope == Scope::kItem && !all) {
      begin = item * width;
      end = begin + width;
      os << "item " << item << " ";
    }
    os << "[";
    for (std::size_t j = begin; j < end; ++j) os << (j > begin ? " " : "") << Hex(v[j]);
    os << "]\n";
  }
  return os.str();
}

// The first output NaN whose bits are not 0x7FC00000, if any.
std::optional<std::pair<std::size_t, std::size_t>> NonCanonicalNan(const Evaluated& e) {
  for (std::size_t k = 0; k < e.values.size(); ++k) {
    for (std::size_t i = 0; i < e.values[k].size(); ++i) {
      if (std::isnan(e.values[k][i]) && Bits(e.values[k][i]) != kCanonicalNanBits) {
        return std::make_pair(k, i);
      }
    }
  }
  return std::nullopt;
}

// "" when `actual` equals `expected` bit for bit (and holds no other NaN than
// 0x7FC00000), else a message naming the first difference.
std::string Compare(const Evaluated& expected, const Evaluated& actual, const Engine& engine,
                    const BatchData& data, const std::string& what) {
  if (expected.values.size() != actual.values.size()) return what + ": output count differs";
  for (std::size_t k = 0; k < expected.values.size(); ++k) {
    if (expected.values[k].size() != actual.values[k].size()) {
      return what + ": output '" + expected.names[k] + "' has " +
             std::to_string(actual.values[k].size()) + " floats, expected " +
             std::to_string(expected.values[k].size());
    }
    for (std::size_t i = 0; i < expected.values[k].size(); ++i) {
      const float want = expected.values[k][i];
      const float got = actual.values[k][i];
      if (Bits(want) == Bits(got)) continue;
      return what + ": output '" + expected.names[k] + "', item " + std::to_string(i) + " of " +
             std::to_string(data.item_count) + ": expected " + Describe(want) + ", got " +
             Describe(got) + "\ninputs:\n" + DescribeInputs(engine, data, i);
    }
  }
  if (const auto bad = NonCanonicalNan(actual)) {
    return what + ": output '" + actual.names[bad->first] + "', item " +
           std::to_string(bad->second) + " is the NaN " +
           Hex(actual.values[bad->first][bad->second]) + ", not 0x7FC00000";
  }
  return "";
}

// ---------------------------------------------------------------------------
// Running a property with a CI budget that RC_PARAMS can raise.

bool RcParamsSet(const char* key) {
  const char* params = std::getenv("RC_PARAMS");
  return params != nullptr && std::strstr(params, key) != nullptr;
}

// Like RC_GTEST_PROP, with `ci_cases` cases unless RC_PARAMS sets max_success.
template <typename Property>
void CheckProperty(int ci_cases, Property property) {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  rc::detail::TestMetadata metadata;
  metadata.id = std::string(info->test_suite_name()) + "/" + info->name();
  metadata.description = info->name();
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  if (!RcParamsSet("max_success")) params.maxSuccess = ci_cases;
  // Each property (and each tier) its own cases: rapidcheck would start every
  // property of a run from the same seed.
  params.seed = Mix(params.seed, std::hash<std::string>()(metadata.id));
  const rc::detail::TestResult result = rc::detail::checkTestable(property, metadata, params);
  std::ostringstream message;
  rc::detail::printResultMessage(result, message);
  if (!result.template is<rc::detail::SuccessResult>()) {
    FAIL() << message.str();
  } else {
    std::cout << "[ rapidcheck] " << message.str() << std::endl;
  }
}

// A backend on an instruction-set tier (the reference interpreter has none).
struct Target {
  Backend backend = Backend::kVm;
  Isa isa = Isa::kBaseline;
};

std::string TargetName(const Target& target) {
  std::string name(BackendName(target.backend));
  if (target.backend == Backend::kReference) return name;
  switch (target.isa) {
    case Isa::kBaseline:
      return name + "_baseline";
    case Isa::kAvx2:
      return name + "_avx2";
    case Isa::kAvx512:
      return name + "_avx512";
    case Isa::kAuto:
      break;
  }
  return name + "_auto";
}

// For gtest's messages ("vm_avx512" rather than the bytes of the struct).
void PrintTo(const Target& target, std::ostream* os) {
  *os << TargetName(target);
}

// Every backend to compare with the reference interpreter, on every tier.
std::vector<Target> OtherTargets() {
  std::vector<Target> targets;
  for (Backend backend : {Backend::kVm, Backend::kJit}) {
    for (Isa isa : {Isa::kBaseline, Isa::kAvx2, Isa::kAvx512}) targets.push_back({backend, isa});
  }
  return targets;
}

// Why this build or this CPU cannot run `target` (the test is then skipped).
std::optional<std::string> WhyNotRunnable(const Target& target) {
  if (!IsBackendAvailable(target.backend)) {
    return "backend " + std::string(BackendName(target.backend)) +
           " is not available in this build: not tested";
  }
  if (target.backend != Backend::kReference && !IsIsaSupported(target.isa)) {
    return "this CPU cannot run " + std::string(IsaName(target.isa)) + " code: tier not tested";
  }
  return std::nullopt;
}

// The passes of `mask` (bits in PassNames order) that `backend` has: "reuse"
// and "fuse" are the VM's own steps.
std::vector<std::string> PassesFor(Backend backend, std::uint32_t mask) {
  std::vector<std::string> passes = PassesOf(mask);
  if (backend != Backend::kVm) {
    std::erase_if(passes, [](const std::string& p) { return p == "reuse" || p == "fuse"; });
  }
  return passes;
}

// ---------------------------------------------------------------------------
// Property 1: every other backend gives the reference interpreter's bits.

struct DiffCase {
  std::uint32_t item_count = 0;
  SetSpec set;
  std::uint64_t seed = 0;
  std::uint32_t odd_block = 0;      // the random configuration's block size
  std::uint32_t disabled_mask = 0;  // and its passes switched off (PassNames bits)
};

rc::Gen<std::uint32_t> GenItemCount() {
  return ShrinkingElementOf<std::uint32_t>({0, 1, 7, 8, 9, 255, 1000, 2001});
}

rc::Gen<DiffCase> GenDiffCase() {
  return rc::gen::apply(
      [](std::uint32_t n, SetSpec set, std::uint64_t seed, std::uint32_t block,
         std::uint32_t mask) {
        return DiffCase{n, std::move(set), seed, block, mask};
      },
      GenItemCount(), GenSet(), rc::gen::arbitrary<std::uint64_t>(),
      ShrinkingElementOf<std::uint32_t>({1, 2, 3, 5, 13, 16, 100, 255, 257, 511, 513, 2000, 4096}),
      rc::gen::inRange<std::uint32_t>(0, 1u << PassNames().size()));
}

void showValue(const DiffCase& c, std::ostream& os) {
  const TextWriter writer(c.set);
  os << "\n--- set ---\n" << writer.Set() << "--- requested outputs:";
  for (const std::string& name : writer.Requested()) os << " " << name;
  os << (writer.Requested().empty() ? " all" : "") << "\n--- items " << c.item_count
     << ", data seed " << c.seed << ", random configuration: block " << c.odd_block
     << ", passes off:";
  for (const std::string& pass : PassesOf(c.disabled_mask)) os << " " << pass;
  os << "\n";
}

void CheckAgainstReference(const Target& target, const DiffCase& c) {
  const TextWriter writer(c.set);
  const std::string text = writer.Set();
  const Result<FeatureSet> set = FeatureSet::Parse(text, Format::kText);
  if (!set.ok()) RC_FAIL("the generated set does not parse:\n" + set.status().ToString());
  const std::vector<std::string> outputs = writer.Requested();
  const BatchData data = MakeData(set->schema(), c.set, c.item_count, c.seed);

  const Config reference_config{Backend::kReference};
  const Result<Engine> reference = CompileFor(*set, outputs, reference_config);
  if (!reference.ok()) RC_FAIL("reference: " + reference.status().ToString());
  Evaluated expected;
  {
    Batch batch(*reference);
    std::vector<std::vector<float>> buffers;
    const Status status = BindAndEvaluate(*reference, batch, data, 1, buffers, &expected);
    if (!status.ok()) RC_FAIL("reference: " + status.ToString());
  }
  if (const auto bad = NonCanonicalNan(expected)) {
    RC_FAIL("the reference interpreter wrote the NaN " +
            Hex(expected.values[bad->first][bad->second]) + " (not 0x7FC00000) to output '" +
            expected.names[bad->first] + "', item " + std::to_string(bad->second) + "\nset:\n" +
            text);
  }

  std::vector<Config> configs;
  for (std::uint32_t block : {0u, 8u, 64u, 512u, 1024u}) {
    configs.push_back({target.backend, target.isa, block});
  }
  configs.push_back(
      {target.backend, target.isa, c.odd_block, PassesFor(target.backend, c.disabled_mask)});
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const Config& config = configs[i];
    const Result<Engine> engine = CompileFor(*set, outputs, config);
    if (!engine.ok()) RC_FAIL(config.ToString() + ": " + engine.status().ToString());
    Batch batch(*engine);
    std::vector<std::vector<float>> buffers;
    Evaluated actual;
    const Status status =
        BindAndEvaluate(*engine, batch, data, static_cast<int>(i % 2), buffers, &actual);
    if (!status.ok()) RC_FAIL(config.ToString() + ": " + status.ToString());
    const std::string difference = Compare(expected, actual, *engine, data, config.ToString());
    if (!difference.empty()) RC_FAIL(difference + "set:\n" + text);
  }
}

int CiCases(const Target& target, int cases) {
  return target.backend == Backend::kJit ? cases / kJitCaseDivisor : cases;
}

class MatchesReference : public ::testing::TestWithParam<Target> {};

TEST_P(MatchesReference, EveryOutputBitForBit) {
  const Target target = GetParam();
  if (const auto reason = WhyNotRunnable(target)) GTEST_SKIP() << *reason;
  CheckProperty(CiCases(target, kCiCasesPerTarget),
                [target] { CheckAgainstReference(target, *GenDiffCase()); });
}

INSTANTIATE_TEST_SUITE_P(Backends, MatchesReference, ::testing::ValuesIn(OtherTargets()),
                         [](const ::testing::TestParamInfo<Target>& target) {
                           return TargetName(target.param);
                         });

// ---------------------------------------------------------------------------
// Property 2: a Batch's scratch leaks nothing from one evaluation into the next.

struct ReuseCase {
  std::uint32_t small_count = 0;
  std::uint32_t big_count = 0;
  SetSpec set;
  std::uint64_t seed = 0;
  std::uint32_t block = 0;
  std::uint32_t disabled_mask = 0;
};

rc::Gen<ReuseCase> GenReuseCase() {
  return rc::gen::apply(
      [](std::uint32_t a, std::uint32_t b, SetSpec set, std::uint64_t seed, std::uint32_t block,
         bool disable, std::uint32_t mask) {
        return ReuseCase{std::min(a, b), std::max(a, b), std::move(set),
                         seed,           block,          disable ? mask : 0u};
      },
      GenItemCount(), GenItemCount(), GenSet(), rc::gen::arbitrary<std::uint64_t>(),
      ShrinkingElementOf<std::uint32_t>({0, 8, 64, 1024, 3, 513}),
      rc::gen::weightedOneOf<bool>({{3, rc::gen::just(false)}, {1, rc::gen::just(true)}}),
      rc::gen::inRange<std::uint32_t>(0, 1u << PassNames().size()));
}

void showValue(const ReuseCase& c, std::ostream& os) {
  const TextWriter writer(c.set);
  os << "\n--- set ---\n" << writer.Set() << "--- requested outputs:";
  for (const std::string& name : writer.Requested()) os << " " << name;
  os << (writer.Requested().empty() ? " all" : "") << "\n--- items " << c.big_count << " then "
     << c.small_count << ", data seed " << c.seed << ", block " << c.block << ", passes off:";
  for (const std::string& pass : PassesOf(c.disabled_mask)) os << " " << pass;
  os << "\n";
}

void CheckScratchReuse(const Target& target, const ReuseCase& c) {
  const TextWriter writer(c.set);
  const std::string text = writer.Set();
  const Result<FeatureSet> set = FeatureSet::Parse(text, Format::kText);
  if (!set.ok()) RC_FAIL("the generated set does not parse:\n" + set.status().ToString());
  Config config{target.backend, target.isa, c.block, PassesFor(target.backend, c.disabled_mask)};
  if (target.backend == Backend::kReference) config = Config{Backend::kReference};
  const Result<Engine> engine = CompileFor(*set, writer.Requested(), config);
  if (!engine.ok()) RC_FAIL(config.ToString() + ": " + engine.status().ToString());

  // Different data for each size (another seed), so stale values show.
  const BatchData big = MakeData(set->schema(), c.set, c.big_count, c.seed);
  const BatchData small = MakeData(set->schema(), c.set, c.small_count, Mix(c.seed, 99));
  std::vector<std::vector<float>> buffers;
  auto fresh = [&](const BatchData& data) {
    Batch batch(*engine);
    Evaluated result;
    const Status status = BindAndEvaluate(*engine, batch, data, -1, buffers, &result);
    if (!status.ok()) RC_FAIL(config.ToString() + ": " + status.ToString());
    return result;
  };
  const Evaluated expected_big = fresh(big);
  const Evaluated expected_small = fresh(small);

  // One batch: the same n twice, fewer items, more again, fewer again, with
  // owned outputs (-1) and caller-bound outputs (parity 0 or 1).
  struct Step {
    const BatchData* data;
    const Evaluated* expected;
    int caller_parity;
    const char* what;
  };
  const Step steps[] = {
      {&big, &expected_big, -1, "1st evaluation (n big, owned outputs)"},
      {&big, &expected_big, -1, "2nd evaluation (n big again, owned outputs)"},
      {&small, &expected_small, -1, "3rd evaluation (n small, owned outputs)"},
      {&big, &expected_big, 0, "4th evaluation (n big, even outputs caller-bound)"},
      {&small, &expected_small, 1, "5th evaluation (n small, odd outputs caller-bound)"},
      {&small, &expected_small, -1, "6th evaluation (n small again, owned outputs)"},
  };
  Batch batch(*engine);
  for (const Step& step : steps) {
    Evaluated actual;
    const Status status =
        BindAndEvaluate(*engine, batch, *step.data, step.caller_parity, buffers, &actual);
    if (!status.ok()) RC_FAIL(config.ToString() + ", " + step.what + ": " + status.ToString());
    const std::string difference =
        Compare(*step.expected, actual, *engine, *step.data,
                config.ToString() + ", " + step.what + " vs a fresh Batch");
    if (!difference.empty()) RC_FAIL(difference + "set:\n" + text);
  }
}

class ScratchReuse : public ::testing::TestWithParam<Target> {};

TEST_P(ScratchReuse, SameResultsAsAFreshBatch) {
  const Target target = GetParam();
  if (const auto reason = WhyNotRunnable(target)) GTEST_SKIP() << *reason;
  CheckProperty(CiCases(target, kCiCasesScratch),
                [target] { CheckScratchReuse(target, *GenReuseCase()); });
}

std::vector<Target> AllTargets() {
  std::vector<Target> targets = {{Backend::kReference, Isa::kBaseline}};
  for (const Target& target : OtherTargets()) targets.push_back(target);
  return targets;
}

INSTANTIATE_TEST_SUITE_P(Backends, ScratchReuse, ::testing::ValuesIn(AllTargets()),
                         [](const ::testing::TestParamInfo<Target>& target) {
                           return TargetName(target.param);
                         });

// ---------------------------------------------------------------------------
// Property 3: results do not depend on the caller's floating-point
// environment (spec section 1: "Results never depend on the caller's
// floating-point environment"; a JVM or a Python extension may have set
// FTZ/DAZ or another rounding mode). The set is parsed, the engine compiled
// and the batch evaluated, each under an MXCSR of the case's choosing, and the
// outputs must be those of the reference interpreter with everything done
// under the default environment; Evaluate must give the caller's MXCSR back.
// Unmasked exceptions are not tried: a trap would kill the test binary.

struct CallerEnv {
  unsigned mxcsr;
  const char* name;
};

// MXCSR: exceptions masked (bits 7-12), rounding control in bits 13-14, FTZ
// bit 15, DAZ bit 6.
constexpr CallerEnv kCallerEnvs[] = {
    {0x1F80u, "default"},       {0x9FC0u, "FTZ+DAZ"},
    {0x9F80u, "FTZ"},           {0x1FC0u, "DAZ"},
    {0x3F80u, "round down"},    {0x5F80u, "round up"},
    {0x7F80u, "round to zero"}, {0xFFC0u, "round to zero+FTZ+DAZ"}};
constexpr unsigned kMxcsrFlagBits = 0x3Fu;  // sticky exception flags

// Sets the calling thread's MXCSR for a scope.
class ScopedCallerEnv {
 public:
  explicit ScopedCallerEnv(unsigned mxcsr) : saved_(_mm_getcsr()) { _mm_setcsr(mxcsr); }
  ~ScopedCallerEnv() { _mm_setcsr(saved_); }
  ScopedCallerEnv(const ScopedCallerEnv&) = delete;
  ScopedCallerEnv& operator=(const ScopedCallerEnv&) = delete;

 private:
  unsigned saved_;
};

struct EnvCase {
  std::uint32_t parse_env = 0;  // indices into kCallerEnvs
  std::uint32_t compile_env = 0;
  std::uint32_t evaluate_env = 0;
  DiffCase diff;
};

rc::Gen<std::uint32_t> GenCallerEnv() {
  return rc::gen::inRange<std::uint32_t>(0, static_cast<std::uint32_t>(std::size(kCallerEnvs)));
}

// Which entry points run in the caller's environment (the others in the
// default one), so that a failure of one does not hide the other.
enum class EnvEntry : std::uint8_t { kEvaluate, kParseAndCompile };

rc::Gen<EnvCase> GenEnvCase(EnvEntry entry) {
  const rc::Gen<std::uint32_t> fixed = rc::gen::just<std::uint32_t>(0);
  const bool evaluate = entry == EnvEntry::kEvaluate;
  return rc::gen::apply(
      [](std::uint32_t parse, std::uint32_t compile, std::uint32_t evaluate_env, DiffCase diff) {
        return EnvCase{parse, compile, evaluate_env, std::move(diff)};
      },
      evaluate ? fixed : GenCallerEnv(), evaluate ? fixed : GenCallerEnv(),
      evaluate ? GenCallerEnv() : fixed, GenDiffCase());
}

void showValue(const EnvCase& c, std::ostream& os) {
  os << "\n--- caller's environment: parse " << kCallerEnvs[c.parse_env].name << ", compile "
     << kCallerEnvs[c.compile_env].name << ", evaluate " << kCallerEnvs[c.evaluate_env].name;
  showValue(c.diff, os);
}

void CheckCallerFpEnvironment(const Target& target, const EnvCase& c) {
  const TextWriter writer(c.diff.set);
  const std::string text = writer.Set();
  const std::vector<std::string> outputs = writer.Requested();
  const Result<FeatureSet> set = FeatureSet::Parse(text, Format::kText);
  if (!set.ok()) RC_FAIL("the generated set does not parse:\n" + set.status().ToString());
  const BatchData data = MakeData(set->schema(), c.diff.set, c.diff.item_count, c.diff.seed);
  std::vector<std::vector<float>> buffers;

  const Config reference_config{Backend::kReference};
  const Result<Engine> reference = CompileFor(*set, outputs, reference_config);
  if (!reference.ok()) RC_FAIL("reference: " + reference.status().ToString());
  Evaluated expected;
  {
    Batch batch(*reference);
    const Status status = BindAndEvaluate(*reference, batch, data, -1, buffers, &expected);
    if (!status.ok()) RC_FAIL("reference: " + status.ToString());
  }

  const CallerEnv& parse_env = kCallerEnvs[c.parse_env];
  const CallerEnv& compile_env = kCallerEnvs[c.compile_env];
  const CallerEnv& evaluate_env = kCallerEnvs[c.evaluate_env];
  std::optional<Result<FeatureSet>> caller_set;
  {
    const ScopedCallerEnv env(parse_env.mxcsr);
    caller_set.emplace(FeatureSet::Parse(text, Format::kText));
  }
  if (!caller_set->ok()) RC_FAIL("parse under " + std::string(parse_env.name) + " fails");
  Config config{target.backend, target.isa};
  if (target.backend == Backend::kReference) config = reference_config;
  std::optional<Result<Engine>> engine;
  {
    const ScopedCallerEnv env(compile_env.mxcsr);
    engine.emplace(CompileFor(**caller_set, outputs, config));
  }
  if (!(*engine).ok()) RC_FAIL(config.ToString() + ": " + (*engine).status().ToString());
  Batch batch(**engine);
  // Bind first (BindAndEvaluate also evaluates, under the default environment,
  // which is harmless), then evaluate again under the caller's environment.
  Evaluated ignored;
  const Status bound = BindAndEvaluate(**engine, batch, data, -1, buffers, &ignored);
  if (!bound.ok()) RC_FAIL(config.ToString() + ": " + bound.ToString());
  Status status;
  unsigned after = 0;
  {
    const ScopedCallerEnv env(evaluate_env.mxcsr);
    status = (*engine)->Evaluate(batch);
    after = _mm_getcsr();
  }
  if (!status.ok()) RC_FAIL(config.ToString() + ": " + status.ToString());
  if ((after & ~kMxcsrFlagBits) != evaluate_env.mxcsr) {
    char message[128];
    std::snprintf(message, sizeof(message), "Evaluate left MXCSR 0x%04X, the caller had 0x%04X",
                  after, evaluate_env.mxcsr);
    RC_FAIL(message);
  }
  Evaluated actual;
  actual.names = (*engine)->schema().outputs;
  for (std::size_t k = 0; k < actual.names.size(); ++k) {
    const std::span<const float> values = batch.Output(k);
    actual.values.emplace_back(values.begin(), values.end());
  }
  const std::string what = config.ToString() + ", parsed under " + parse_env.name +
                           ", compiled under " + compile_env.name + ", evaluated under " +
                           evaluate_env.name + ", vs the reference in the default environment";
  const std::string difference = Compare(expected, actual, **engine, data, what);
  if (!difference.empty()) RC_FAIL(difference + "set:\n" + text);
}

class CallerFpEnvironment : public ::testing::TestWithParam<Target> {};

TEST_P(CallerFpEnvironment, EvaluateChangesNoResultBit) {
  const Target target = GetParam();
  if (const auto reason = WhyNotRunnable(target)) GTEST_SKIP() << *reason;
  CheckProperty(CiCases(target, kCiCasesFpEnv),
                [target] { CheckCallerFpEnvironment(target, *GenEnvCase(EnvEntry::kEvaluate)); });
}

TEST_P(CallerFpEnvironment, ParseAndCompileChangeNoResultBit) {
  const Target target = GetParam();
  if (const auto reason = WhyNotRunnable(target)) GTEST_SKIP() << *reason;
  CheckProperty(CiCases(target, kCiCasesFpEnv), [target] {
    CheckCallerFpEnvironment(target, *GenEnvCase(EnvEntry::kParseAndCompile));
  });
}

INSTANTIATE_TEST_SUITE_P(Backends, CallerFpEnvironment, ::testing::ValuesIn(AllTargets()),
                         [](const ::testing::TestParamInfo<Target>& target) {
                           return TargetName(target.param);
                         });

// The minimal cases the property above shrank to, one per entry point that
// computes, so that a failure names the entry point.
struct MinimalEnvCase {
  const char* text;
  float expected;   // f0, with everything in the default environment
  std::size_t env;  // index into kCallerEnvs
};

// Engine::Compile folds constants with the reference kernels; in the
// caller's environment, not the contract's.
TEST(CallerFpEnvironment, CompileFoldsConstantsInTheContractsEnvironment) {
  const MinimalEnvCase cases[] = {
      {"f0 = (1e-45) + (1e-45);", FromBits(0x00000002u), 1},  // FTZ+DAZ
      {"f0 = (1e-45) + (1e-45);", FromBits(0x00000002u), 2},  // FTZ
      {"f0 = (1e-45) + (1e-45);", FromBits(0x00000002u), 3},  // DAZ
      {"f0 = (1) / (3);", FromBits(0x3EAAAAABu), 4},          // round down
      {"f0 = (1) / (3);", FromBits(0x3EAAAAABu), 6},          // round to zero
      {"f0 = (5) / (3);", FromBits(0x3FD55555u), 5},          // round up
  };
  for (const MinimalEnvCase& c : cases) {
    const Result<FeatureSet> set = FeatureSet::Parse(c.text, Format::kText);
    ASSERT_TRUE(set.ok()) << set.status().ToString();
    for (const Target& target : AllTargets()) {
      if (WhyNotRunnable(target)) continue;
      Config config{target.backend, target.isa};
      std::optional<Result<Engine>> engine;
      {
        const ScopedCallerEnv env(kCallerEnvs[c.env].mxcsr);
        engine.emplace(CompileFor(*set, {}, config));
      }
      ASSERT_TRUE(engine->ok()) << engine->status().ToString();
      Batch batch(**engine);
      batch.SetItemCount(1);
      ASSERT_TRUE((*engine)->Evaluate(batch).ok());
      EXPECT_EQ(Hex(batch.Output(0)[0]), Hex(c.expected))
          << c.text << " compiled under " << kCallerEnvs[c.env].name << " by "
          << TargetName(target);
    }
  }
}

// FeatureSet::Parse reads literals with std::from_chars, whose result (in GCC
// 12's libstdc++) follows the caller's rounding mode; spec section 4: "A
// literal converts directly to the nearest float32".
TEST(CallerFpEnvironment, ParseReadsLiteralsToTheNearestFloat) {
  const MinimalEnvCase cases[] = {
      {"f0 = (0.1);", FromBits(0x3DCCCCCDu), 4},               // round down
      {"f0 = (0.1);", FromBits(0x3DCCCCCDu), 6},               // round to zero
      {"input s0 = 0.1; f0 = s0;", FromBits(0x3DCCCCCDu), 4},  // a default value
  };
  for (const MinimalEnvCase& c : cases) {
    std::optional<Result<FeatureSet>> set;
    {
      const ScopedCallerEnv env(kCallerEnvs[c.env].mxcsr);
      set.emplace(FeatureSet::Parse(c.text, Format::kText));
    }
    ASSERT_TRUE(set->ok()) << set->status().ToString();
    const Result<Engine> engine = CompileFor(**set, {}, Config{Backend::kReference});
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    Batch batch(*engine);
    batch.SetItemCount(1);
    ASSERT_TRUE(engine->Evaluate(batch).ok());
    EXPECT_EQ(Hex(batch.Output(0)[0]), Hex(c.expected))
        << c.text << " parsed under " << kCallerEnvs[c.env].name;
  }
}

// ---------------------------------------------------------------------------
// The generator reaches what the properties claim to test.

struct Coverage {
  std::set<Op> ops;
  std::set<std::uint32_t> dimensions;
  std::set<std::uint32_t> constants;  // bits of the special constants seen
  bool aggregate_of_aggregate = false;
  bool aggregate_in_if = false;
  bool query_vector_operand = false;
  bool item_vector_operand = false;
  bool shared = false;
  bool feature_reference = false;
  bool query_scalar = false;
  bool default_unbound = false;
  bool default_bound = false;
  bool requested_subset = false;
  int max_depth = 0;
  int max_outputs = 0;
  std::size_t longest_chain = 0;
  std::size_t longest_nary = 0;

  void Walk(const Expr& e, const SetSpec& set, std::size_t feature, int depth, bool in_aggregate,
            bool in_if) {
    max_depth = std::max(max_depth, depth);
    switch (e.kind) {
      case Expr::Kind::kConstant:
        constants.insert(Bits(std::isnan(e.constant) ? CanonicalNan() : e.constant));
        return;
      case Expr::Kind::kColumn: {
        const std::size_t options = set.scalars.size() + kImplicitInputs + feature;
        if (e.ref % options >= set.scalars.size() + kImplicitInputs) feature_reference = true;
        return;
      }
      case Expr::Kind::kShared:
        shared = shared || !set.shared.empty();
        return;
      case Expr::Kind::kVector:
        if (!set.vector_dims.empty()) {
          ops.insert(e.op);
          ((e.ref % (2 * set.vector_dims.size())) % 2 == 0 ? item_vector_operand
                                                           : query_vector_operand) = true;
        }
        return;
      case Expr::Kind::kOp:
        break;
    }
    ops.insert(e.op);
    if (e.chain) longest_chain = std::max(longest_chain, e.operands.size());
    if (ir::KindOf(e.op) == OpKind::kNary) {
      longest_nary = std::max(longest_nary, e.operands.size());
    }
    const bool aggregate = ir::KindOf(e.op) == OpKind::kAggregate;
    if (aggregate && in_aggregate) aggregate_of_aggregate = true;
    if (aggregate && in_if) aggregate_in_if = true;
    for (const Expr& operand : e.operands) {
      Walk(operand, set, feature, depth + 1, in_aggregate || aggregate, in_if || e.op == Op::kIf);
    }
  }

  void Add(const SetSpec& set) {
    for (std::size_t f = 0; f < set.features.size(); ++f) {
      Walk(set.features[f], set, f, 1, false, false);
    }
    for (const std::uint32_t d : set.vector_dims) dimensions.insert(d);
    for (const ScalarInput& input : set.scalars) {
      query_scalar = query_scalar || input.scope == Scope::kQuery;
      default_unbound = default_unbound || !input.bound;
      default_bound = default_bound || (input.default_value && input.bound);
    }
    requested_subset = requested_subset || !set.requested.empty();
    max_outputs = std::max(max_outputs, static_cast<int>(set.features.size()));
  }
};

TEST(GeneratorCoverage, ReachesEveryOperatorAndShape) {
  Coverage coverage;
  const rc::Gen<SetSpec> gen = GenSet();
  for (int i = 0; i < kCoverageSamples; ++i) {
    coverage.Add(gen(rc::Random(static_cast<std::uint64_t>(i) + 1), i % 101).value());
  }
  for (const ir::OpInfo& info : ir::kOpTable) {
    if (info.kind == OpKind::kConstant || info.kind == OpKind::kRef) continue;
    // Model calls (spec section 6) are evaluated by no backend yet, so
    // there is nothing to compare; the round-trip tests generate them.
    if (info.kind == OpKind::kModel) continue;
    if (info.optimizer_only) continue;  // made by the optimizer, from rank comparisons
    EXPECT_TRUE(coverage.ops.count(info.op)) << "never generated: " << info.name;
  }
  for (std::uint32_t d : {1u, 8u, 9u, 16u, 17u, 20u}) {
    EXPECT_TRUE(coverage.dimensions.count(d)) << "no vector of dimension " << d;
  }
  for (float c : {0.0f, -0.0f, 1.0f, -1.0f, kInf, -kInf, CanonicalNan(),
                  std::numeric_limits<float>::denorm_min()}) {
    EXPECT_TRUE(coverage.constants.count(Bits(c))) << "no constant " << Hex(c);
  }
  EXPECT_TRUE(coverage.aggregate_of_aggregate);
  EXPECT_TRUE(coverage.aggregate_in_if);
  EXPECT_TRUE(coverage.item_vector_operand);
  EXPECT_TRUE(coverage.query_vector_operand);
  EXPECT_TRUE(coverage.shared);
  EXPECT_TRUE(coverage.feature_reference);
  EXPECT_TRUE(coverage.query_scalar);
  EXPECT_TRUE(coverage.default_unbound);
  EXPECT_TRUE(coverage.default_bound);
  EXPECT_TRUE(coverage.requested_subset);
  EXPECT_GE(coverage.max_depth, kMaxDepth);
  EXPECT_GE(coverage.longest_chain, 17u);  // past the VM's longest kFold (16)
  EXPECT_GE(coverage.longest_nary, 17u);
  EXPECT_GE(coverage.max_outputs, 5);
}

// Some generated sets have several aggregates over one column, which share
// that column's statistics (one statistics step of the program): the
// properties above compare that path with the reference too.
TEST(GeneratorCoverage, SharesTheStatisticsOfAColumn) {
  const rc::Gen<SetSpec> gen = GenSet();
  int sharing = 0;
  constexpr int kSets = 300;
  for (int i = 0; i < kSets; ++i) {
    const SetSpec spec = gen(rc::Random(static_cast<std::uint64_t>(i) + 11), i % 101).value();
    const Result<FeatureSet> set = FeatureSet::Parse(TextWriter(spec).Set(), Format::kText);
    ASSERT_TRUE(set.ok()) << set.status().ToString();
    const Result<std::string> program = Dump(*set, DumpKind::kProgram);
    ASSERT_TRUE(program.ok()) << program.status().ToString();
    sharing += program->find("statistics of ") != std::string::npos ? 1 : 0;
  }
  std::printf("%d of %d generated sets share a column's statistics\n", sharing, kSets);
  EXPECT_GE(sharing, kSets / 20);
}

// Every generated set parses, and its text says what the spec means.
TEST(GeneratorCoverage, GeneratedTextParses) {
  const rc::Gen<SetSpec> gen = GenSet();
  for (int i = 0; i < 300; ++i) {
    const SetSpec spec = gen(rc::Random(static_cast<std::uint64_t>(i) + 7), i % 101).value();
    const std::string text = TextWriter(spec).Set();
    const Result<FeatureSet> set = FeatureSet::Parse(text, Format::kText);
    ASSERT_TRUE(set.ok()) << set.status().ToString() << "\n" << text;
  }
  SetSpec spec;
  spec.scalars = {ScalarInput{Scope::kQuery, -0.0f, false}};
  spec.vector_dims = {9};
  Expr weighted;
  weighted.kind = Expr::Kind::kOp;
  weighted.op = Op::kWeightedSum;
  weighted.operands.resize(2);
  weighted.operands[0].constant = -kInf;
  weighted.operands[1].kind = Expr::Kind::kColumn;
  weighted.weights = {CanonicalNan(), std::numeric_limits<float>::denorm_min()};
  Expr vector;
  vector.kind = Expr::Kind::kVector;
  vector.op = Op::kDot;
  vector.ref = 0;
  vector.ref2 = 1;
  spec.features = {weighted, vector};
  EXPECT_EQ(TextWriter(spec).Set(),
            "input s0: query = -0;\n"
            "input vi0: item[9];\n"
            "input vq0: query[9];\n"
            "f0 = weighted_sum([nan, 1e-45], (-inf), s0);\n"
            "f1 = dot(vi0, vq0);\n");
}

}  // namespace
}  // namespace calcjit::differential_test
