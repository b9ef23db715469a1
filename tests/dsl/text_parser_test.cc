// The text syntax (spec section 4), read into the IR: every statement form,
// every operator with its precedence and associativity, every function, names,
// number literals, comments and line breaks, and every syntax error with its
// exact message and "line:column" location (spec section 5).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "calcjit/feature_set.h"
#include "calcjit/model_format.h"
#include "dsl/text_parser.h"
#include "ir/limits.h"
#include "runtime/internal.h"
#include "tests/dsl/ir_test_util.h"

namespace calcjit {
namespace {

using ir_test::Bits;
using ir_test::Dump;
using ir_test::ErrorsOf;
using ir_test::OnlyErrorOf;
using ir_test::ParseConstant;
using ir_test::ParseShape;
using ::testing::ElementsAre;

struct ShapeCase {
  const char* text;
  const char* shape;
};

void ExpectShapes(const std::vector<ShapeCase>& cases) {
  for (const ShapeCase& c : cases) {
    EXPECT_EQ(ParseShape(c.text), c.shape) << "reading: " << c.text;
  }
}

// The set as the syntax reader gives it (not checked), or the errors.
std::string DumpOf(std::string_view source) {
  Result<ir::FeatureSetIr> ir = dsl::ReadText(source);
  if (!ir.ok()) return "error: " + ir.status().ToString();
  return Dump(*ir);
}

// ---------------------------------------------------------------------------
// Statements.

TEST(TextSyntaxInput, DeclaresAnItemScalarByDefault) {
  EXPECT_EQ(DumpOf("input price;"), "input price item[0]\n");
}

TEST(TextSyntaxInput, DeclaresEveryScopeAndDimension) {
  EXPECT_EQ(DumpOf("input a: item;\n"
                   "input b: query;\n"
                   "input item_emb: item[64];\n"
                   "input user_emb: query[64];\n"),
            "input a item[0]\n"
            "input b query[0]\n"
            "input item_emb item[64]\n"
            "input user_emb query[64]\n");
}

TEST(TextSyntaxInput, DeclaresDefaultValues) {
  EXPECT_EQ(DumpOf("input user_age: query = 30;\n"
                   "input a = 0.5;\n"
                   "input b: item = -1.5;\n"
                   "input c = inf;\n"
                   "input d = -inf;\n"
                   "input e = nan;\n"
                   "input g = 1e-3;\n"),
            "input user_age query[0] = 30\n"
            "input a item[0] = 0.5\n"
            "input b item[0] = -1.5\n"
            "input c item[0] = inf\n"
            "input d item[0] = -inf\n"
            "input e item[0] = nan\n"
            "input g item[0] = 0.00100000005\n");
}

TEST(TextSyntaxInput, NegativeZeroDefaultKeepsItsSign) {
  Result<ir::FeatureSetIr> ir = dsl::ReadText("input z = -0;");
  ASSERT_TRUE(ir.ok()) << ir.status().ToString();
  ASSERT_TRUE(ir->inputs[0].default_value.has_value());
  EXPECT_EQ(Bits(*ir->inputs[0].default_value), 0x80000000u);
}

TEST(TextSyntaxInput, DeclaresInputsInSourceOrderInTheSchema) {
  Result<FeatureSet> set = FeatureSet::Parse(
      "input b: query;\ninput a;\ninput v: item[3];\nf = a + b;\n", Format::kText);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  const Schema& schema = set->schema();
  ASSERT_EQ(schema.inputs.size(), 3u);
  EXPECT_EQ(schema.inputs[0].name, "b");
  EXPECT_EQ(schema.inputs[0].scope, Scope::kQuery);
  EXPECT_EQ(schema.inputs[1].name, "a");
  EXPECT_EQ(schema.inputs[1].scope, Scope::kItem);
  EXPECT_EQ(schema.inputs[2].name, "v");
  EXPECT_EQ(schema.inputs[2].dimension, 3u);
  EXPECT_TRUE(schema.inputs[2].declared);
}

TEST(TextSyntaxDefinition, DefinesFeaturesInOrder) {
  EXPECT_EQ(DumpOf("f_qux = f_foo / (f_bar + f_baz);\nscore = f_qux * 2;\n"),
            "f_qux = Div(f_foo, Add(f_bar, f_baz))\n"
            "score = Mul(f_qux, 2)\n");
}

TEST(TextSyntaxDefinition, ReadsTheSpecExample) {
  Result<FeatureSet> set = FeatureSet::Parse(
      "# a comment runs to the end of the line\n"
      "input price;                     # item scalar (the default)\n"
      "input user_age: query = 30;      # query scalar with a default value\n"
      "input item_emb: item[64];        # item vector\n"
      "input user_emb: query[64];       # query vector\n"
      "model ranker = xgboost(\"ranker.json\");   # models: section 6\n"
      "\n"
      "f_qux = f_foo / (f_bar + f_baz);\n"
      "score = sigmoid(0.3 * log1p(price) + if(rating >= 4.5, 1, 0)) - rank(price) / 100;\n"
      "relevance = model(ranker, score, price, rating)[0];\n",
      Format::kText, ir_test::NoModels());
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_EQ(set->schema().outputs, (std::vector<std::string>{"f_qux", "score", "relevance"}));
  EXPECT_EQ(DumpOf("score = sigmoid(0.3 * log1p(price) + if(rating >= 4.5, 1, 0)) - "
                   "rank(price) / 100;"),
            "score = Sub(Sigmoid(Add(Mul(0.300000012, Log1p(price)), If(Ge(rating, 4.5), 1, "
            "0))), Div(Rank(price), 100))\n");
  EXPECT_EQ(DumpOf("model ranker = xgboost(\"ranker.json\");\n"
                   "relevance = model(ranker, score, price, rating)[0];"),
            "model ranker format 1 path [ranker.json]\n"
            "relevance = Model(ranker[0], score, price, rating)\n");
}

TEST(TextSyntaxDefinition, AcceptsAnEmptySource) {
  EXPECT_EQ(DumpOf(""), "");
  EXPECT_EQ(DumpOf("  # only a comment\n\n"), "");
}

// ---------------------------------------------------------------------------
// Operators: precedence, lowest first: || && (== !=) (< <= > >=) (+ -) (* /)
// unary ^.

TEST(TextSyntaxOperators, EveryInfixOperatorReadsAsItsBinary) {
  ExpectShapes({
      {"a || b", "Or(a, b)"},
      {"a && b", "And(a, b)"},
      {"a == b", "Eq(a, b)"},
      {"a != b", "Ne(a, b)"},
      {"a < b", "Lt(a, b)"},
      {"a <= b", "Le(a, b)"},
      {"a > b", "Gt(a, b)"},
      {"a >= b", "Ge(a, b)"},
      {"a + b", "Add(a, b)"},
      {"a - b", "Sub(a, b)"},
      {"a * b", "Mul(a, b)"},
      {"a / b", "Div(a, b)"},
      {"a ^ b", "Pow(a, b)"},
      {"-a", "Neg(a)"},
      {"!a", "Not(a)"},
  });
}

TEST(TextSyntaxOperators, EachLevelBindsTighterThanTheOneBefore) {
  ExpectShapes({
      {"a || b && c", "Or(a, And(b, c))"},
      {"a && b || c", "Or(And(a, b), c)"},
      {"a && b == c", "And(a, Eq(b, c))"},
      {"a != b && c", "And(Ne(a, b), c)"},
      {"a == b < c", "Eq(a, Lt(b, c))"},
      {"a >= b != c", "Ne(Ge(a, b), c)"},
      {"a < b + c", "Lt(a, Add(b, c))"},
      {"a - b <= c", "Le(Sub(a, b), c)"},
      {"a + b * c", "Add(a, Mul(b, c))"},
      {"a / b - c", "Sub(Div(a, b), c)"},
      {"a * b ^ c", "Mul(a, Pow(b, c))"},
      {"a ^ b / c", "Div(Pow(a, b), c)"},
      {"-a * b", "Mul(Neg(a), b)"},
      {"a * -b", "Mul(a, Neg(b))"},
      {"!a == b", "Eq(Not(a), b)"},
      {"!a && b", "And(Not(a), b)"},
      {"-a ^ b", "Neg(Pow(a, b))"},
      {"!a ^ b", "Not(Pow(a, b))"},
      {"a || b && c == d < e + f * -g ^ h",
       "Or(a, And(b, Eq(c, Lt(d, Add(e, Mul(f, Neg(Pow(g, h))))))))"},
      {"a ^ -b * c < d + e == f && g || h",
       "Or(And(Eq(Lt(Mul(Pow(a, Neg(b)), c), Add(d, e)), f), g), h)"},
  });
}

TEST(TextSyntaxOperators, ParenthesesGroup) {
  ExpectShapes({
      {"(a + b) * c", "Mul(Add(a, b), c)"},
      {"a - (b - c)", "Sub(a, Sub(b, c))"},
      {"(a || b) && c", "And(Or(a, b), c)"},
      {"((a))", "a"},
      {"-(a + b)", "Neg(Add(a, b))"},
      {"(a ^ b) ^ c", "Pow(Pow(a, b), c)"},
  });
}

TEST(TextSyntaxOperators, BinaryOperatorsOtherThanPowerAreLeftAssociative) {
  ExpectShapes({
      {"a + b + c", "Add(Add(a, b), c)"},
      {"a - b - c", "Sub(Sub(a, b), c)"},
      {"a - b + c", "Add(Sub(a, b), c)"},
      {"a + b - c", "Sub(Add(a, b), c)"},
      {"a / b / c", "Div(Div(a, b), c)"},
      {"a / b * c", "Mul(Div(a, b), c)"},
      {"a == b != c", "Ne(Eq(a, b), c)"},
      {"a < b >= c", "Ge(Lt(a, b), c)"},
      {"a && b && c", "And(And(a, b), c)"},
      {"a || b || c", "Or(Or(a, b), c)"},
  });
}

TEST(TextSyntaxOperators, PowerIsRightAssociative) {
  ExpectShapes({
      {"2^3^2", "Pow(2, Pow(3, 2))"},
      {"a ^ b ^ c ^ d", "Pow(a, Pow(b, Pow(c, d)))"},
  });
}

TEST(TextSyntaxOperators, PowerBindsTighterThanUnaryMinusOnItsLeft) {
  ExpectShapes({
      {"-2^2", "Neg(Pow(2, 2))"},
      {"-2 ^ 2", "Neg(Pow(2, 2))"},
      {"-x^2", "Neg(Pow(x, 2))"},
      {"--2^2", "Neg(Neg(Pow(2, 2)))"},
      {"!-2^2", "Not(Neg(Pow(2, 2)))"},
      {"(-2)^2", "Pow(-2, 2)"},
      {"-2.5e1^2", "Neg(Pow(25, 2))"},
      {"-inf^2", "Neg(Pow(inf, 2))"},
  });
}

TEST(TextSyntaxOperators, PowerExponentMayBeAUnaryExpression) {
  ExpectShapes({
      {"2^-1", "Pow(2, -1)"},
      {"2 ^ -x", "Pow(2, Neg(x))"},
      {"2 ^ !x", "Pow(2, Not(x))"},
      {"2 ^ --1", "Pow(2, Neg(-1))"},
      {"2^-x^y", "Pow(2, Neg(Pow(x, y)))"},
      // "-1" is the base of the second '^', so the '-' is an operator.
      {"2^-1^2", "Pow(2, Neg(Pow(1, 2)))"},
      {"2^-x*3", "Mul(Pow(2, Neg(x)), 3)"},
      {"2^-1*3", "Mul(Pow(2, -1), 3)"},
  });
}

TEST(TextSyntaxOperators, MinusBeforeABareLiteralIsPartOfTheLiteral) {
  ExpectShapes({
      {"-2", "-2"},
      {"a*-2", "Mul(a, -2)"},
      {"a * - 2", "Mul(a, -2)"},
      {"-2 * a", "Mul(-2, a)"},
      {"a - -2", "Sub(a, -2)"},
      {"a + -0.5", "Add(a, -0.5)"},
      {"-inf", "-inf"},
      {"min(-1, -2)", "Min(-1, -2)"},
      {"!-2", "Not(-2)"},
      {"--2", "Neg(-2)"},
  });
  EXPECT_EQ(Bits(ParseConstant("-0").value_or(1.0f)), 0x80000000u);
  EXPECT_EQ(Bits(ParseConstant("-16777217").value_or(1.0f)), Bits(-16777216.0f));
}

TEST(TextSyntaxOperators, MinusBeforeAnythingElseIsNegation) {
  ExpectShapes({
      {"-(2)", "Neg(2)"},
      {"-(-2)", "Neg(-2)"},
      {"--x", "Neg(Neg(x))"},
      {"- -x", "Neg(Neg(x))"},
      {"-!a", "Neg(Not(a))"},
      {"!!a", "Not(Not(a))"},
      {"-abs(x)", "Neg(Abs(x))"},
      {"-(0)", "Neg(0)"},
  });
}

TEST(TextSyntaxOperators, MinusAfterAnOperandIsSubtraction) {
  ExpectShapes({
      {"a-2", "Sub(a, 2)"},
      {"2-1", "Sub(2, 1)"},
      {"(a)-2", "Sub(a, 2)"},
      {"abs(a)-2", "Sub(Abs(a), 2)"},
      {"a - 2 ^ 2", "Sub(a, Pow(2, 2))"},
  });
}

// ---------------------------------------------------------------------------
// Functions.

TEST(TextSyntaxFunctions, UnaryOperatorsByTheirLowerCaseNames) {
  ExpectShapes({
      {"abs(x)", "Abs(x)"},
      {"exp(x)", "Exp(x)"},
      {"log(x)", "Log(x)"},
      {"log1p(x)", "Log1p(x)"},
      {"sqrt(x)", "Sqrt(x)"},
      {"sigmoid(x)", "Sigmoid(x)"},
      {"tanh(x)", "Tanh(x)"},
      {"floor(x)", "Floor(x)"},
      {"ceil(x)", "Ceil(x)"},
      {"round(x)", "Round(x)"},
      {"sign(x)", "Sign(x)"},
      {"is_nan(x)", "IsNan(x)"},
      {"abs(a + b * c)", "Abs(Add(a, Mul(b, c)))"},
      {"exp(log(x))", "Exp(Log(x))"},
  });
}

TEST(TextSyntaxFunctions, PowIsTheBinaryPower) {
  ExpectShapes({
      {"pow(x, y)", "Pow(x, y)"},
      {"pow(-2, 0.5)", "Pow(-2, 0.5)"},
      {"pow(a + b, -c)", "Pow(Add(a, b), Neg(c))"},
  });
}

TEST(TextSyntaxFunctions, MinAndMaxGiveBinaryForTwoArgumentsAndNaryOtherwise) {
  ExpectShapes({
      {"min(a)", "NaryMin(a)"},
      {"min(a, b)", "Min(a, b)"},
      {"min(a, b, c)", "NaryMin(a, b, c)"},
      {"min(a, b, c, d)", "NaryMin(a, b, c, d)"},
      {"max(a)", "NaryMax(a)"},
      {"max(a, b)", "Max(a, b)"},
      {"max(a, b, c)", "NaryMax(a, b, c)"},
      {"min(max(a, b), c)", "Min(Max(a, b), c)"},
  });
}

TEST(TextSyntaxFunctions, SumProductAndMeanAreNary) {
  ExpectShapes({
      {"sum(a)", "Sum(a)"},
      {"sum(a, b)", "Sum(a, b)"},
      {"sum(a, b, c)", "Sum(a, b, c)"},
      {"product(a, b)", "Product(a, b)"},
      {"product(a)", "Product(a)"},
      {"mean(a, b, c)", "Mean(a, b, c)"},
      {"sum(a + b, c * d)", "Sum(Add(a, b), Mul(c, d))"},
  });
}

TEST(TextSyntaxFunctions, WeightedSumTakesLiteralWeightsFirst) {
  ExpectShapes({
      {"weighted_sum([0.5], a)", "WeightedSum([0.5], a)"},
      {"weighted_sum([0.5, -1, 2e3], a, b, c)", "WeightedSum([0.5, -1, 2000], a, b, c)"},
      {"weighted_sum([-0.25, inf, -inf, nan], a, b, c, d)",
       "WeightedSum([-0.25, inf, -inf, nan], a, b, c, d)"},
      {"weighted_sum([1, 2], a + b, -c)", "WeightedSum([1, 2], Add(a, b), Neg(c))"},
  });
  Result<ir::FeatureSetIr> ir = dsl::ReadText("f = weighted_sum([-0, 0.1], a, b);");
  ASSERT_TRUE(ir.ok()) << ir.status().ToString();
  ASSERT_EQ(ir->weights.size(), 2u);
  EXPECT_EQ(Bits(ir->weights[0]), 0x80000000u);
  EXPECT_EQ(Bits(ir->weights[1]), 0x3dcccccdu);
}

TEST(TextSyntaxFunctions, IfIsTheConditional) {
  ExpectShapes({
      {"if(c, a, b)", "If(c, a, b)"},
      {"if(x >= 4.5, 1, 0)", "If(Ge(x, 4.5), 1, 0)"},
      {"if(a, if(b, 1, 2), 3)", "If(a, If(b, 1, 2), 3)"},
  });
}

TEST(TextSyntaxFunctions, VectorFunctionsTakeVectorInputNames) {
  ExpectShapes({
      {"dot(u, v)", "Dot(u, v)"},
      {"cosine(u, v)", "Cosine(u, v)"},
      {"l2_distance(u, v)", "L2Distance(u, v)"},
      {"norm(u)", "Norm(u)"},
      {"dot(`item emb`, user.emb)", "Dot(`item emb`, user.emb)"},
      {"1 - cosine(u, v) * 2", "Sub(1, Mul(Cosine(u, v), 2))"},
  });
}

TEST(TextSyntaxFunctions, AggregatesByTheirNames) {
  ExpectShapes({
      {"batch_min(x)", "BatchMin(x)"},
      {"batch_max(x)", "BatchMax(x)"},
      {"batch_sum(x)", "BatchSum(x)"},
      {"batch_mean(x)", "BatchMean(x)"},
      {"batch_std(x)", "BatchStd(x)"},
      {"batch_count(x)", "BatchCount(x)"},
      {"rank(x)", "Rank(x)"},
      {"softmax(x)", "Softmax(x)"},
      {"min_max_scale(x)", "MinMaxScale(x)"},
      {"zscore(x)", "Zscore(x)"},
      {"rank(-price) / 100", "Div(Rank(Neg(price)), 100)"},
  });
}

// ---------------------------------------------------------------------------
// Names.

TEST(TextSyntaxNames, PlainNamesMayContainDigitsUnderscoresAndDots) {
  ExpectShapes({
      {"a.b.c", "a.b.c"},
      {"_x1 + X_.9", "Add(_x1, X_.9)"},
      {"user.age2", "user.age2"},
      {"a.", "a."},
  });
}

TEST(TextSyntaxNames, NamesAreCaseSensitive) {
  Result<ir::FeatureSetIr> ir = dsl::ReadText("f = x + X;");
  ASSERT_TRUE(ir.ok()) << ir.status().ToString();
  const ir::Node& add = ir->nodes[ir->features[0].root];
  const auto operands = ir->OperandsOf(add);
  EXPECT_NE(ir->nodes[operands[0]].name, ir->nodes[operands[1]].name);
  EXPECT_EQ(OnlyErrorOf("f = Abs(x);"), "1:5: unknown function 'Abs'");
}

TEST(TextSyntaxNames, BackquotesHoldAnyOtherName) {
  ExpectShapes({
      {"`my feature` * 2", "Mul(`my feature`, 2)"},
      {"`a``b`", "`a``b`"},
      {"````", "````"},
      {"`9lives`", "`9lives`"},
      {"`x-y` - `x+y`", "Sub(`x-y`, `x+y`)"},
      {"`naïve`", "`naïve`"},
      {"`#not a comment`", "`#not a comment`"},
      {"`plain`", "plain"},
  });
  Result<ir::FeatureSetIr> ir = dsl::ReadText("f = `a``b`;");
  ASSERT_TRUE(ir.ok()) << ir.status().ToString();
  EXPECT_EQ(ir->NameOf(ir->nodes[ir->features[0].root].name), "a`b");
}

TEST(TextSyntaxNames, ReservedWordsAreNamesWhenBackquoted) {
  EXPECT_EQ(DumpOf("input `input`;\n"
                   "`model` = `inf` + `nan`;\n"
                   "`inf` = `input` * 2;\n"),
            "input `input` item[0]\n"
            "`model` = Add(`inf`, `nan`)\n"
            "`inf` = Mul(`input`, 2)\n");
}

TEST(TextSyntaxNames, AFunctionNameNotFollowedByAParenthesisNamesAFeature) {
  EXPECT_EQ(DumpOf("log = 1;\n"
                   "rank = log + 2;\n"
                   "f = log(log) + rank(rank) * rank;\n"
                   "g = if + sum - min;\n"),
            "log = 1\n"
            "rank = Add(log, 2)\n"
            "f = Add(Log(log), Mul(Rank(rank), rank))\n"
            "g = Sub(Add(if, sum), min)\n");
  // And the set loads: `log` and `rank` are definitions, used as columns.
  EXPECT_EQ(ErrorsOf("log = 1;\nrank = log + 2;\nf = log(log) + rank(rank) * rank;\n"),
            std::vector<std::string>{});
}

TEST(TextSyntaxNames, InputScopeWordsAreNotReserved) {
  EXPECT_EQ(DumpOf("input item: query;\ninput query;\nf = item + query;\n"),
            "input item query[0]\ninput query item[0]\nf = Add(item, query)\n");
}

// ---------------------------------------------------------------------------
// Number literals: digits [. digits*] | . digits, optional exponent, inf, nan;
// each converts directly to the nearest float32.

TEST(TextSyntaxNumbers, AcceptsEveryLiteralForm) {
  EXPECT_EQ(ParseConstant(".5"), 0.5f);
  EXPECT_EQ(ParseConstant("1."), 1.0f);
  EXPECT_EQ(ParseConstant("1.e2"), 100.0f);
  EXPECT_EQ(ParseConstant("42"), 42.0f);
  EXPECT_EQ(ParseConstant("1e5"), 100000.0f);
  EXPECT_EQ(ParseConstant("1E-3"), 0.001f);
  EXPECT_EQ(ParseConstant("1.5e+2"), 150.0f);
  EXPECT_EQ(ParseConstant(".25E1"), 2.5f);
  EXPECT_EQ(ParseConstant("007"), 7.0f);
  EXPECT_EQ(ParseConstant("0"), 0.0f);
  EXPECT_EQ(ParseConstant("inf"), std::numeric_limits<float>::infinity());
  EXPECT_EQ(ParseConstant("-inf"), -std::numeric_limits<float>::infinity());
  const std::optional<float> nan = ParseConstant("nan");
  ASSERT_TRUE(nan.has_value());
  EXPECT_TRUE(std::isnan(*nan));
}

TEST(TextSyntaxNumbers, RoundToTheNearestFloat32) {
  EXPECT_EQ(Bits(ParseConstant("16777217").value_or(0)), Bits(16777216.0f));
  EXPECT_EQ(Bits(ParseConstant("16777219").value_or(0)), Bits(16777220.0f));  // tie to even
  EXPECT_EQ(Bits(ParseConstant("0.1").value_or(0)), 0x3dcccccdu);
  EXPECT_EQ(Bits(ParseConstant("3.4028235e38").value_or(0)), 0x7f7fffffu);
  // Just below the midpoint between FLT_MAX and 2^128: still FLT_MAX.
  EXPECT_EQ(Bits(ParseConstant("3.4028235677973366e38").value_or(0)), 0x7f7fffffu);
  EXPECT_EQ(Bits(ParseConstant("1.17549435e-38").value_or(0)), 0x00800000u);
}

TEST(TextSyntaxNumbers, ConvertDirectlyNotThroughDouble) {
  // 1 + 2^-24 + 2^-70: through double it becomes the midpoint 1 + 2^-24 and
  // then rounds to even (1.0); the nearest float32 is 1 + 2^-23.
  EXPECT_EQ(Bits(ParseConstant("1.0000000596046447755").value_or(0)), 0x3f800001u);
  // Just above half the smallest subnormal: through double it is 2^-150 and
  // rounds to 0; the nearest float32 is the smallest subnormal.
  EXPECT_EQ(Bits(ParseConstant("7.0064923216240854e-46").value_or(0)), 0x00000001u);
}

TEST(TextSyntaxNumbers, KeepSubnormalsAndUnderflowToZero) {
  EXPECT_EQ(Bits(ParseConstant("1e-45").value_or(1)), 0x00000001u);
  EXPECT_EQ(Bits(ParseConstant("1.4e-45").value_or(1)), 0x00000001u);
  EXPECT_EQ(Bits(ParseConstant("1e-40").value_or(1)), 0x000116c2u);
  EXPECT_EQ(Bits(ParseConstant("7e-46").value_or(1)), 0x00000000u);
  EXPECT_EQ(Bits(ParseConstant("1e-50").value_or(1)), 0x00000000u);
  EXPECT_EQ(Bits(ParseConstant("1e-400").value_or(1)), 0x00000000u);
  EXPECT_EQ(Bits(ParseConstant("0.000001e-99999").value_or(1)), 0x00000000u);
  EXPECT_EQ(Bits(ParseConstant("-1e-50").value_or(1)), 0x80000000u);
}

TEST(TextSyntaxNumbers, BeyondTheFloat32RangeIsAnError) {
  EXPECT_EQ(OnlyErrorOf("f = 1e39;"), "1:5: number 1e39 is beyond the float32 range");
  EXPECT_EQ(OnlyErrorOf("f = 3.40282357e38;"),
            "1:5: number 3.40282357e38 is beyond the float32 range");
  EXPECT_EQ(OnlyErrorOf("f = 0.00001e44;"), "1:5: number 0.00001e44 is beyond the float32 range");
  EXPECT_EQ(OnlyErrorOf("f = -1e39;"), "1:6: number 1e39 is beyond the float32 range");
  EXPECT_EQ(OnlyErrorOf("input a = 1e99;"), "1:11: number 1e99 is beyond the float32 range");
  EXPECT_EQ(OnlyErrorOf("f = weighted_sum([1e40], a);"),
            "1:19: number 1e40 is beyond the float32 range");
}

// ---------------------------------------------------------------------------
// Comments, line breaks, whitespace.

TEST(TextSyntaxLayout, CommentsRunToTheEndOfTheLine) {
  EXPECT_EQ(DumpOf("# leading comment\n"
                   "f = a # + b;\n"
                   "  + c; # trailing comment without a newline at the end"),
            "f = Add(a, c)\n");
}

TEST(TextSyntaxLayout, CrLfTabsAndNewlinesAreWhitespace) {
  EXPECT_EQ(DumpOf("input\ta\t:\tquery;\r\nf\t=\ta\r\n  *\r\n  2;\r\n"),
            "input a query[0]\nf = Mul(a, 2)\n");
}

TEST(TextSyntaxLayout, StatementsMayShareALineOrSpanSeveral) {
  EXPECT_EQ(DumpOf("f = 1; g = f\n+\n1;input x;"), "input x item[0]\nf = 1\ng = Add(f, 1)\n");
}

// ---------------------------------------------------------------------------
// Errors: message and location, 1-based line:column in characters.

TEST(TextSyntaxErrors, UnexpectedCharacter) {
  EXPECT_EQ(OnlyErrorOf("f = a $ b;"), "1:7: unexpected character '$'");
  EXPECT_EQ(OnlyErrorOf("f = a & b;"), "1:7: unexpected character '&'");
  EXPECT_EQ(OnlyErrorOf("f = a | b;"), "1:7: unexpected character '|'");
  EXPECT_EQ(OnlyErrorOf("f = a € b;"), "1:7: unexpected character '€'");
  EXPECT_EQ(OnlyErrorOf("@f = 1;"), "1:1: unexpected character '@'");
  EXPECT_EQ(OnlyErrorOf("f = a . b;"), "1:7: unexpected character '.'");
  EXPECT_EQ(OnlyErrorOf("f = a \xff b;"), "1:7: invalid UTF-8 byte '\\xff' in the source");
  EXPECT_EQ(OnlyErrorOf("f = `a\xff"
                        "b`;"),
            "1:5: invalid UTF-8 in a `name`");
}

// Control characters and bytes that are not UTF-8 never reach a message raw
// (a NUL would cut a C caller's string, a newline forge a line): the Status
// shows them as \xNN, wherever the text came from.
TEST(TextSyntaxErrors, ControlCharactersAreShownEscaped) {
  using namespace std::string_literals;
  EXPECT_EQ(OnlyErrorOf("f = a \0 b;"s), "1:7: unexpected character '\\x00'");
  EXPECT_EQ(OnlyErrorOf("f = a \x01 b;"), "1:7: unexpected character '\\x01'");
  EXPECT_EQ(OnlyErrorOf("f = a \x1b b;"), "1:7: unexpected character '\\x1b'");
  EXPECT_EQ(OnlyErrorOf("f = a \x7f b;"), "1:7: unexpected character '\\x7f'");
  // A name may hold any character; messages that quote it escape them.
  const std::vector<std::string> errors = ErrorsOf("`x\ty` = 1;\n`x\ty` = 2;");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors.front().find('\t'), std::string::npos) << errors.front();
  EXPECT_NE(errors.front().find("x\\x09y"), std::string::npos) << errors.front();
}

// A UTF-8 byte order mark at the very start is skipped, as the JSON reader
// and the CSV reader skip it; columns count from after it. Anywhere else it
// is an unexpected character.
TEST(TextSyntaxErrors, ByteOrderMarkAtTheStartIsSkipped) {
  EXPECT_EQ(DumpOf("\xEF\xBB\xBF"
                   "f = 1;"),
            DumpOf("f = 1;"));
  EXPECT_EQ(OnlyErrorOf("\xEF\xBB\xBF f = $;"), "1:6: unexpected character '$'");
  EXPECT_EQ(OnlyErrorOf("f = 1;\n\xEF\xBB\xBF"
                        "g = 2;"),
            "2:1: unexpected byte order mark (U+FEFF): one is only skipped at the very start of "
            "the text");
}

TEST(TextSyntaxErrors, MalformedNumber) {
  EXPECT_EQ(OnlyErrorOf("f = 1.2.3;"), "1:5: malformed number '1.2.3'");
  EXPECT_EQ(OnlyErrorOf("f = 1e;"), "1:5: malformed number '1e'");
  EXPECT_EQ(OnlyErrorOf("f = 2x + 1;"), "1:5: malformed number '2x'");
  EXPECT_EQ(OnlyErrorOf("f = 1e5e5;"), "1:5: malformed number '1e5e5'");
}

TEST(TextSyntaxErrors, UnterminatedBackquote) {
  EXPECT_EQ(OnlyErrorOf("f = 1;\ng = `abc + 1;\n"), "2:5: unterminated `name`");
}

TEST(TextSyntaxErrors, UnterminatedString) {
  EXPECT_EQ(OnlyErrorOf("model m = xgboost(\"ranker.json);\n"), "1:19: unterminated string");
}

TEST(TextSyntaxErrors, EmptyBackquotedName) {
  EXPECT_EQ(OnlyErrorOf("f = `` + 1;"), "1:5: a name is never empty");
  EXPECT_EQ(OnlyErrorOf("input ``;"), "1:7: a name is never empty");
}

TEST(TextSyntaxErrors, MissingSemicolon) {
  EXPECT_EQ(OnlyErrorOf("f = a\ng = b;\n"), "2:1: expected ';' or an operator, found name 'g'");
  EXPECT_EQ(OnlyErrorOf("f = a"), "1:6: expected ';' or an operator, found end of input");
  EXPECT_EQ(OnlyErrorOf("input a"), "1:8: expected ';', found end of input");
}

TEST(TextSyntaxErrors, MissingClosingParenthesis) {
  EXPECT_EQ(OnlyErrorOf("f = (a + b;"), "1:11: expected ')' to close the '(' at 1:5, found ';'");
  EXPECT_EQ(OnlyErrorOf("f = abs(a;"),
            "1:10: expected ')' or ',' in the call of abs at 1:5, found ';'");
  EXPECT_EQ(OnlyErrorOf("f = dot(u, v;"), "1:13: expected ')', found ';'");
}

TEST(TextSyntaxErrors, MissingOperand) {
  EXPECT_EQ(OnlyErrorOf("f = ;"), "1:5: expected an expression, found ';'");
  EXPECT_EQ(OnlyErrorOf("f = a + ;"), "1:9: expected an expression, found ';'");
  EXPECT_EQ(OnlyErrorOf("f = abs(a, );"), "1:12: expected an expression, found ')'");
  EXPECT_EQ(OnlyErrorOf("f = ();"), "1:6: expected an expression, found ')'");
}

TEST(TextSyntaxErrors, StatementsStartWithInputModelOrADefinition) {
  EXPECT_EQ(OnlyErrorOf("f + 1;"), "1:3: expected '=' after the feature name, found '+'");
  EXPECT_EQ(OnlyErrorOf("f == 1;"), "1:3: expected '=' after the feature name, found '=='");
  EXPECT_EQ(OnlyErrorOf("f = 1;;"),
            "1:7: expected a statement ('input', 'model' or NAME = expression;), found ';'");
  EXPECT_EQ(OnlyErrorOf("1 = f;"),
            "1:1: expected a statement ('input', 'model' or NAME = expression;), found number 1");
  EXPECT_EQ(OnlyErrorOf("inf = 1;"),
            "1:1: expected a statement ('input', 'model' or NAME = expression;), found number inf");
  EXPECT_EQ(OnlyErrorOf("input inf;"), "1:7: expected an input name, found number inf");
}

TEST(TextSyntaxErrors, UnknownFunction) {
  EXPECT_EQ(OnlyErrorOf("f = foo(a);"), "1:5: unknown function 'foo'");
  EXPECT_EQ(OnlyErrorOf("f = 1 + logarithm(a, b);"), "1:9: unknown function 'logarithm'");
}

TEST(TextSyntaxErrors, WrongArgumentCounts) {
  EXPECT_EQ(OnlyErrorOf("f = abs(a, b);"), "1:5: abs takes 1 argument, got 2");
  EXPECT_EQ(OnlyErrorOf("f = abs();"), "1:5: abs takes 1 argument, got 0");
  EXPECT_EQ(OnlyErrorOf("f = pow(a);"), "1:5: pow takes 2 arguments, got 1");
  EXPECT_EQ(OnlyErrorOf("f = pow(a, b, c);"), "1:5: pow takes 2 arguments, got 3");
  EXPECT_EQ(OnlyErrorOf("f = if(a, b);"),
            "1:5: if takes 3 arguments (condition, then, otherwise), got 2");
  EXPECT_EQ(OnlyErrorOf("f = rank(a, b);"), "1:5: rank takes 1 argument, got 2");
  EXPECT_EQ(OnlyErrorOf("input u: item[2];\ninput v: item[2];\ninput w: item[2];\n"
                        "f = dot(u, v, w);"),
            "4:5: dot takes at most two vector inputs, got 3");
  EXPECT_EQ(OnlyErrorOf("f = dot();"), "1:9: expected a vector input name, found ')'");
  // Nary needs at least one operand; weighted_sum one weight per operand.
  EXPECT_EQ(OnlyErrorOf("f = sum();"), "1:5: sum needs at least one operand");
  EXPECT_EQ(OnlyErrorOf("f = min();"), "1:5: min needs at least one operand");
  EXPECT_EQ(OnlyErrorOf("f = weighted_sum([]);"), "1:5: weighted_sum needs at least one operand");
  EXPECT_EQ(OnlyErrorOf("f = weighted_sum([1, 2], a);"),
            "1:5: weighted_sum needs one weight per operand: 2 weights for 1 operands");
  EXPECT_EQ(OnlyErrorOf("f = weighted_sum(a, b);"),
            "1:18: expected '[' and the weights, found name 'a'");
  EXPECT_EQ(OnlyErrorOf("f = weighted_sum([w], a);"),
            "1:19: expected a weight (a number literal), found name 'w'");
}

TEST(TextSyntaxErrors, InputDeclarationErrors) {
  EXPECT_EQ(OnlyErrorOf("input a: vector;"),
            "1:10: expected 'item' or 'query', found name 'vector'");
  EXPECT_EQ(OnlyErrorOf("input v: item[0];"), "1:15: dimension 0 is out of range (1 to 65536)");
  EXPECT_EQ(OnlyErrorOf("input v: item[2.5];"),
            "1:15: expected a dimension (a positive integer), found number 2.5");
  EXPECT_EQ(OnlyErrorOf("input v: item[3;"), "1:16: expected ']', found ';'");
  EXPECT_EQ(OnlyErrorOf("input a = b;"),
            "1:11: expected a default value (a number), found name 'b'");
  EXPECT_EQ(OnlyErrorOf("input 1;"), "1:7: expected an input name, found number 1");
}

// ---------------------------------------------------------------------------
// Models (spec section 6.1).

TEST(TextSyntaxModels, DeclarationsNameAFormatAndAPath) {
  EXPECT_EQ(DumpOf("model ranker = xgboost(\"ranker.json\");\n"
                   "model `my nn` = onnx(\"nets/m.onnx\");\n"
                   "model gbm = lightgbm(\"\");\n"),
            "model ranker format 1 path [ranker.json]\n"
            "model `my nn` format 3 path [nets/m.onnx]\n"
            "model gbm format 2 path []\n");
  // \" and \\ are escapes; any other backslash stands for itself.
  EXPECT_EQ(DumpOf("model m = xgboost(\"a \\\"b\\\" \\\\c \\d.json\");"),
            "model m format 1 path [a \"b\" \\c \\d.json]\n");
  // Declarations keep their order, wherever they are in the source.
  EXPECT_EQ(DumpOf("f = 1;\nmodel b = onnx(\"b\");\ninput x;\nmodel a = onnx(\"a\");"),
            "input x item[0]\nmodel b format 3 path [b]\nmodel a format 3 path [a]\nf = 1\n");
}

TEST(TextSyntaxModels, CallsTakeTheModelInputsAndARequiredOutputIndex) {
  const std::string models = "model ranker = xgboost(\"r.json\");\nmodel nn = onnx(\"n.onnx\");\n";
  EXPECT_EQ(DumpOf(models + "f = model(ranker, a, b * 2, -c)[0];"),
            "model ranker format 1 path [r.json]\nmodel nn format 3 path [n.onnx]\n"
            "f = Model(ranker[0], a, Mul(b, 2), Neg(c))\n");
  // No inputs: the model's own feature names (resolved when it is loaded).
  EXPECT_EQ(ParseShape("model(nn)[3]"), "Model(nn[3])");
  EXPECT_EQ(ParseShape("model(`a b`, x)[4294967295]"), "Model(`a b`[4294967295], x)");
  EXPECT_EQ(ParseShape("model(m, x)[007]"), "Model(m[7], x)");
  // A call is an atom: it binds like any function call.
  EXPECT_EQ(ParseShape("1 + 2 * model(m, x)[1] ^ 2"), "Add(1, Mul(2, Pow(Model(m[1], x), 2)))");
  EXPECT_EQ(ParseShape("-model(m, model(m, x)[0])[1]"), "Neg(Model(m[1], Model(m[0], x)))");
  // A model name is its own namespace: a feature may be named like a model.
  EXPECT_EQ(DumpOf("model ranker = xgboost(\"r.json\");\nranker = model(ranker, ranker)[0];"),
            "model ranker format 1 path [r.json]\nranker = Model(ranker[0], ranker)\n");
}

TEST(TextSyntaxModels, DeclarationErrors) {
  // The formats listed are the format table's rows.
  EXPECT_EQ(ModelFormatNameList(), "'xgboost', 'lightgbm', 'onnx' or 'catboost'");
  EXPECT_EQ(
      OnlyErrorOf("model m = tensorflow(\"m\");"),
      "1:11: expected a model format (" + ModelFormatNameList() + "), found name 'tensorflow'");
  EXPECT_EQ(OnlyErrorOf("model m = `xgboost`(\"m\");"),
            "1:11: expected a model format (" + ModelFormatNameList() + "), found name 'xgboost'");
  // The path is a string literal, nothing else.
  EXPECT_EQ(OnlyErrorOf("model m = xgboost(ranker.json);"),
            "1:19: expected the model's path as a \"string\", found name 'ranker.json'");
  EXPECT_EQ(OnlyErrorOf("model m = xgboost(1);"),
            "1:19: expected the model's path as a \"string\", found number 1");
  EXPECT_EQ(OnlyErrorOf("model m = xgboost();"),
            "1:19: expected the model's path as a \"string\", found ')'");
  EXPECT_EQ(OnlyErrorOf("model m = xgboost(\"ranker.json);\n"), "1:19: unterminated string");
  EXPECT_EQ(OnlyErrorOf("model = xgboost(\"m\");"), "1:7: expected a model name, found '='");
  EXPECT_EQ(OnlyErrorOf("model m xgboost(\"m\");"), "1:9: expected '=', found name 'xgboost'");
  EXPECT_EQ(OnlyErrorOf("model m = xgboost(\"m\")"), "1:23: expected ';', found end of input");
  // A duplicate is the checker's: at the second declaration.
  EXPECT_EQ(OnlyErrorOf("model m = xgboost(\"a\");\n  model m = onnx(\"b\");"),
            "2:9: model 'm' is declared twice (first at 1:7)");
}

TEST(TextSyntaxModels, CallErrors) {
  // [k] is required, and k is a plain non-negative integer.
  EXPECT_EQ(OnlyErrorOf("f = model(m, a);"),
            "1:16: expected '[' and the index of the model's output, found ';'");
  EXPECT_EQ(OnlyErrorOf("f = model(m)[1.5];"),
            "1:14: expected the index of the model's output, found number 1.5");
  EXPECT_EQ(OnlyErrorOf("f = model(m)[-1];"),
            "1:14: expected the index of the model's output, found '-'");
  EXPECT_EQ(OnlyErrorOf("f = model(m)[x];"),
            "1:14: expected the index of the model's output, found name 'x'");
  EXPECT_EQ(OnlyErrorOf("f = model(m)[4294967296];"),
            "1:14: model output index 4294967296 is out of range (0 to 4294967295)");
  EXPECT_EQ(OnlyErrorOf("f = model(m)[0;"), "1:15: expected ']', found ';'");
  EXPECT_EQ(OnlyErrorOf("f = model(1, a)[0];"), "1:11: expected a model name, found number 1");
  EXPECT_EQ(OnlyErrorOf("f = model + 1;"), "1:5: expected an expression, found 'model'");
  // An unknown model is the checker's, at the call.
  EXPECT_EQ(OnlyErrorOf("f = 1 + model(ranker, x)[0];"),
            "1:9: unknown model 'ranker' (declare it, e.g. model ranker = "
            "xgboost(\"ranker.json\");)");
  // Parsing goes on after an error in a call, so later errors are reported too.
  EXPECT_THAT(ErrorsOf("f = model(m, a)[x] + 1;\ng = foo(1);"),
              ElementsAre("1:17: expected the index of the model's output, found name 'x'",
                          "2:5: unknown function 'foo'"));
}

TEST(TextSyntaxModels, TheInputsNestLikeAnyOperands) {
  std::string deep = "x";
  for (int i = 1; i < 10'000; ++i) deep = "model(m, " + deep + ")[0]";
  Result<ir::FeatureSetIr> ir = dsl::ReadText("f = " + deep + ";");
  ASSERT_TRUE(ir.ok()) << ir.status().ToString().substr(0, 200);
  EXPECT_EQ(ir_test::DepthOf(*ir, ir->features[0]), 10'000u);
  const std::vector<std::string> errors = ErrorsOf("f = model(m, " + deep + ")[0];");
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].find("expression nested deeper than 10000 levels"), std::string::npos)
      << errors[0];
}

TEST(TextSyntaxErrors, EverySyntaxErrorIsReportedInOneRun) {
  EXPECT_THAT(
      ErrorsOf("f = a $ b;\n"
               "ok = 1;\n"
               "g = (1 + 2;\n"
               "model m = xgboost(m.json);\n"
               "h = foo(1);\n"
               "i = 1e39;\n"
               "j = abs(1, 2);\n"
               "k = 1\n"),
      ElementsAre("1:7: unexpected character '$'",
                  "3:11: expected ')' to close the '(' at 3:5, found ';'",
                  "4:19: expected the model's path as a \"string\", found name 'm.json'",
                  "5:5: unknown function 'foo'", "6:5: number 1e39 is beyond the float32 range",
                  "7:5: abs takes 1 argument, got 2",
                  "9:1: expected ';' or an operator, found end of input"));
}

// ---------------------------------------------------------------------------
// Locations are 1-based line:column in characters (spec section 5).

TEST(TextSyntaxLocations, CountCharactersNotBytes) {
  // "é" is two bytes, "€" three and "😀" four: each is one column.
  EXPECT_EQ(OnlyErrorOf("`é€😀` = a $ b;"), "1:11: unexpected character '$'");
  EXPECT_EQ(OnlyErrorOf("# Größe und Maß — ünïcödé\nf = a $ b;"), "2:7: unexpected character '$'");
  EXPECT_EQ(OnlyErrorOf("f = `naïve` + `😀` $;"), "1:19: unexpected character '$'");
}

TEST(TextSyntaxLocations, CrLfIsOneLineBreak) {
  EXPECT_EQ(OnlyErrorOf("a = 1;\r\n\r\nb = $;\r\n"), "3:5: unexpected character '$'");
  EXPECT_EQ(OnlyErrorOf("# comment\r\na = 1;\r\n  b = 2 $;"), "3:9: unexpected character '$'");
}

TEST(TextSyntaxLocations, ATabIsOneCharacter) {
  EXPECT_EQ(OnlyErrorOf("\tf\t=\t$;"), "1:6: unexpected character '$'");
}

TEST(TextSyntaxLocations, NewlinesInsideBackquotedNamesCount) {
  EXPECT_EQ(OnlyErrorOf("f = `two\nlines` $;"), "2:8: unexpected character '$'");
}

// ---------------------------------------------------------------------------
// Depth: at least 2,000 levels accepted on a 1 MiB stack; ir::kMaxDepth
// (10,000) is the documented limit, beyond which a clear error.

std::string NestedNegation(std::uint32_t levels) {  // depth `levels`
  return std::string(levels - 1, '-') + "x";
}
std::string NestedCalls(std::uint32_t levels) {
  std::string text;
  for (std::uint32_t i = 1; i < levels; ++i) text += "abs(";
  text += "x";
  text += std::string(levels - 1, ')');
  return text;
}
std::string NestedRightPowers(std::uint32_t levels) {
  std::string text = "x";
  for (std::uint32_t i = 1; i < levels; ++i) text += "^x";
  return text;
}
std::string NestedParenthesizedSums(std::uint32_t levels) {
  std::string text;
  for (std::uint32_t i = 1; i < levels; ++i) text += "1+(";
  text += "x";
  text += std::string(levels - 1, ')');
  return text;
}
std::string LeftSums(std::uint32_t levels) {
  std::string text = "x";
  for (std::uint32_t i = 1; i < levels; ++i) text += "+x";
  return text;
}
std::string MixedNesting(std::uint32_t levels) {
  // -(a * -(a * -(...))) alternating Neg and Mul, `levels` deep.
  std::string text;
  std::uint32_t depth = 1;
  std::uint32_t open = 0;
  while (depth < levels) {
    if (depth % 2 == 1) {
      text += "-(";
      ++open;
    } else {
      text += "a*";
    }
    ++depth;
  }
  return text + "x" + std::string(open, ')');
}

struct DeepForm {
  const char* name;
  std::string (*make)(std::uint32_t);
};
const DeepForm kDeepForms[] = {
    {"negation", NestedNegation},        {"calls", NestedCalls},
    {"right powers", NestedRightPowers}, {"parenthesized sums", NestedParenthesizedSums},
    {"left-associative sums", LeftSums}, {"mixed", MixedNesting},
};

// Parses "f = <expression>;" and reports the definition's depth.
std::string DepthReport(const std::string& expression) {
  Result<FeatureSet> set = FeatureSet::Parse("f = " + expression + ";", Format::kText);
  if (!set.ok()) return "error: " + set.status().ToString();
  const ir::FeatureSetIr& ir = set->loaded().set->ir;
  return "depth " + std::to_string(ir_test::DepthOf(ir, ir.features[0]));
}

TEST(TextSyntaxDepth, TheLimitOfTenThousandLevelsIsAccepted) {
  for (const DeepForm& form : kDeepForms) {
    EXPECT_EQ(DepthReport(form.make(ir::kMaxDepth)), "depth 10000") << form.name;
  }
}

TEST(TextSyntaxDepth, OneLevelMoreIsAClearError) {
  for (const DeepForm& form : kDeepForms) {
    const std::string report = DepthReport(form.make(ir::kMaxDepth + 1));
    EXPECT_NE(report.find("expression nested deeper than 10000 levels"), std::string::npos)
        << form.name << ": " << report.substr(0, 300);
    // One error, at a text location.
    EXPECT_EQ(ErrorsOf("f = " + form.make(ir::kMaxDepth + 1) + ";").size(), 1u) << form.name;
    EXPECT_EQ(report.rfind("error: 1:", 0), 0u) << form.name << ": " << report.substr(0, 300);
  }
}

TEST(TextSyntaxDepth, ParsesAndPrintsOnAOneMebibyteStack) {
  for (const std::uint32_t levels : {2000u, ir::kMaxDepth}) {
    for (const DeepForm& form : kDeepForms) {
      std::string report;
      std::string reprinted;
      ASSERT_TRUE(ir_test::RunWithStack(ir_test::kJvmStack, [&] {
        Result<FeatureSet> set = FeatureSet::Parse("f = " + form.make(levels) + ";", Format::kText);
        if (!set.ok()) {
          report = set.status().ToString().substr(0, 300);
          return;
        }
        const std::string text = set->Serialize(Format::kText);
        Result<FeatureSet> again = FeatureSet::Parse(text, Format::kText);
        report = again.ok() ? "ok" : again.status().ToString().substr(0, 300);
        if (again.ok()) reprinted = again->Serialize(Format::kText) == text ? "same" : "differs";
      }));
      EXPECT_EQ(report, "ok") << form.name << " at " << levels << " levels";
      EXPECT_EQ(reprinted, "same") << form.name << " at " << levels << " levels";
    }
  }
}

TEST(TextSyntaxDepth, ReferencesToOtherFeaturesDoNotAddToTheDepth) {
  // Five definitions of 9,000 levels each, every one using the one before.
  std::string source;
  for (int f = 0; f < 5; ++f) {
    std::string expression = NestedNegation(9'000);
    expression.back() = 'f';
    expression += f == 0 ? std::string("x") : std::to_string(f - 1);
    source += "f" + std::to_string(f) + " = " + expression + ";\n";
  }
  std::string report;
  ASSERT_TRUE(ir_test::RunWithStack(ir_test::kJvmStack, [&] {
    Result<FeatureSet> set = FeatureSet::Parse(source, Format::kText);
    report = set.ok() ? "ok" : set.status().ToString().substr(0, 300);
  }));
  EXPECT_EQ(report, "ok");
}

TEST(TextSyntaxDepth, NaryOperandsDoNotAddToTheDepth) {
  std::string wide = "sum(x";
  for (int i = 1; i < 50'000; ++i) wide += ", -x";
  wide += ")";
  EXPECT_EQ(DepthReport(wide), "depth 3");
}

TEST(TextSyntaxDepth, DeepErrorsAreReportedOnAOneMebibyteStack) {
  std::vector<std::string> errors;
  ASSERT_TRUE(ir_test::RunWithStack(
      ir_test::kJvmStack, [&] { errors = ErrorsOf("f = " + NestedCalls(100'000) + ";"); }));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("expression nested deeper than 10000 levels"), std::string::npos)
      << errors[0];
}

}  // namespace
}  // namespace calcjit
