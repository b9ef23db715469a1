// The text printer (spec section 4): declared inputs first, then model
// declarations, then definitions in order, one statement per line, only the parentheses precedence
// needs, shortest floats, backquoted names; printing is idempotent and parsing the printed text
// gives back the same messages.
#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "calcjit/feature_set.h"
#include "dsl/text_parser.h"
#include "dsl/text_printer.h"
#include "ir/op.h"
#include "tests/dsl/ir_test_util.h"

namespace calcjit {
namespace {

using ir::Op;
using ir_test::Bits;
using ir_test::Dump;
using ir_test::ExprBuilder;
using ir_test::FromBits;

constexpr float kInf = std::numeric_limits<float>::infinity();

// Prints the only definition of `b` (whose root is `root`) as "f = ...;".
std::string PrintOne(ExprBuilder b, ir::NodeId root) {
  b.Define("f", root);
  const ir::FeatureSetIr ir = std::move(b).Finish();
  return dsl::WriteText(ir);
}

// Prints a set, reads the text back and compares the two IRs structurally.
// Returns "" when they are equal, else both dumps.
std::string ReadBackDifference(const ir::FeatureSetIr& ir) {
  const std::string text = dsl::WriteText(ir);
  Result<ir::FeatureSetIr> again = dsl::ReadText(text);
  if (!again.ok()) return "printed text does not read back:\n" + text + again.status().ToString();
  if (Dump(*again) == Dump(ir)) return "";
  return "printed:\n" + text + "was:\n" + Dump(ir) + "reads back as:\n" + Dump(*again);
}

// The shortest round-trip text of a float, as the contract defines it.
std::string ToChars(float value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

// ---------------------------------------------------------------------------
// Parentheses: only those that precedence needs.

struct PrinterCase {
  const char* what;
  std::string expected;
  ir::FeatureSetIr ir;
};

// Each case is an IR (built node by node) and the exact text the printer
// must give; every case must also read back to the same IR.
std::vector<PrinterCase> ParenthesisCases() {
  std::vector<PrinterCase> cases;
  auto add = [&](const char* what, std::string expected, auto build) {
    ExprBuilder b;
    const ir::NodeId root = build(b);
    b.Define("f", root);
    cases.push_back(PrinterCase{what, "f = " + expected + ";\n", std::move(b).Finish()});
  };
  using B = ExprBuilder;
  add("negative literal as the base of ^", "(-2) ^ x", [](B& b) {
    return b.Op(Op::kPow, {b.Const(-2), b.Ref("x")});
  });
  add("negative zero as the base of ^", "(-0) ^ x", [](B& b) {
    return b.Op(Op::kPow, {b.Const(-0.0f), b.Ref("x")});
  });
  add("-inf as the base of ^", "(-inf) ^ 2", [](B& b) {
    return b.Op(Op::kPow, {b.Const(-kInf), b.Const(2)});
  });
  add("positive literal as the base of ^", "2 ^ x", [](B& b) {
    return b.Op(Op::kPow, {b.Const(2), b.Ref("x")});
  });
  add("NEG of a positive constant", "-(2)", [](B& b) { return b.Op(Op::kNeg, {b.Const(2)}); });
  add("NEG of +0", "-(0)", [](B& b) { return b.Op(Op::kNeg, {b.Const(0)}); });
  add("NEG of inf", "-(inf)", [](B& b) { return b.Op(Op::kNeg, {b.Const(kInf)}); });
  add("NEG of nan", "-(nan)",
      [](B& b) { return b.Op(Op::kNeg, {b.Const(std::numeric_limits<float>::quiet_NaN())}); });
  add("NEG of a negative constant", "--2", [](B& b) { return b.Op(Op::kNeg, {b.Const(-2)}); });
  add("NEG of a positive constant as the base of ^", "(-(2)) ^ x", [](B& b) {
    return b.Op(Op::kPow, {b.Op(Op::kNeg, {b.Const(2)}), b.Ref("x")});
  });
  add("NEG of a positive constant as the exponent", "x ^ -(2)", [](B& b) {
    return b.Op(Op::kPow, {b.Ref("x"), b.Op(Op::kNeg, {b.Const(2)})});
  });
  add("NEG as the exponent", "2 ^ -x", [](B& b) {
    return b.Op(Op::kPow, {b.Const(2), b.Op(Op::kNeg, {b.Ref("x")})});
  });
  add("NOT as the exponent", "2 ^ !x", [](B& b) {
    return b.Op(Op::kPow, {b.Const(2), b.Op(Op::kNot, {b.Ref("x")})});
  });
  add("negative literal as the exponent", "2 ^ -1", [](B& b) {
    return b.Op(Op::kPow, {b.Const(2), b.Const(-1)});
  });
  add("negative literal exponent followed by *", "x ^ -2 * y", [](B& b) {
    return b.Op(Op::kMul, {b.Op(Op::kPow, {b.Ref("x"), b.Const(-2)}), b.Ref("y")});
  });
  add("power with a negative base as an exponent", "2 ^ (-1) ^ x", [](B& b) {
    return b.Op(Op::kPow, {b.Const(2), b.Op(Op::kPow, {b.Const(-1), b.Ref("x")})});
  });
  add("NEG of a power", "-x ^ y", [](B& b) {
    return b.Op(Op::kNeg, {b.Op(Op::kPow, {b.Ref("x"), b.Ref("y")})});
  });
  add("NEG of a power of a constant", "-2 ^ 2", [](B& b) {
    return b.Op(Op::kNeg, {b.Op(Op::kPow, {b.Const(2), b.Const(2)})});
  });
  add("NEG of a power of a negative constant", "-(-2) ^ 2", [](B& b) {
    return b.Op(Op::kNeg, {b.Op(Op::kPow, {b.Const(-2), b.Const(2)})});
  });
  add("NEG as the base of ^", "(-x) ^ y", [](B& b) {
    return b.Op(Op::kPow, {b.Op(Op::kNeg, {b.Ref("x")}), b.Ref("y")});
  });
  add("NEG in the exponent of a power", "x ^ -y ^ z", [](B& b) {
    return b.Op(Op::kPow, {b.Ref("x"), b.Op(Op::kNeg, {b.Op(Op::kPow, {b.Ref("y"), b.Ref("z")})})});
  });
  add("power of power on the left", "(a ^ b) ^ c", [](B& b) {
    return b.Op(Op::kPow, {b.Op(Op::kPow, {b.Ref("a"), b.Ref("b")}), b.Ref("c")});
  });
  add("power of power on the right", "a ^ b ^ c", [](B& b) {
    return b.Op(Op::kPow, {b.Ref("a"), b.Op(Op::kPow, {b.Ref("b"), b.Ref("c")})});
  });
  add("NOT of a negative literal", "!-2", [](B& b) { return b.Op(Op::kNot, {b.Const(-2)}); });
  add("NOT of a positive literal", "!2", [](B& b) { return b.Op(Op::kNot, {b.Const(2)}); });
  add("double negation", "--x",
      [](B& b) { return b.Op(Op::kNeg, {b.Op(Op::kNeg, {b.Ref("x")})}); });
  add("NEG of NOT", "-!x", [](B& b) { return b.Op(Op::kNeg, {b.Op(Op::kNot, {b.Ref("x")})}); });
  add("NOT of NEG", "!-x", [](B& b) { return b.Op(Op::kNot, {b.Op(Op::kNeg, {b.Ref("x")})}); });
  add("subtraction nested on the right", "a - (b - c)", [](B& b) {
    return b.Op(Op::kSub, {b.Ref("a"), b.Op(Op::kSub, {b.Ref("b"), b.Ref("c")})});
  });
  add("subtraction nested on the left", "a - b - c", [](B& b) {
    return b.Op(Op::kSub, {b.Op(Op::kSub, {b.Ref("a"), b.Ref("b")}), b.Ref("c")});
  });
  add("addition nested on the right", "a + (b + c)", [](B& b) {
    return b.Op(Op::kAdd, {b.Ref("a"), b.Op(Op::kAdd, {b.Ref("b"), b.Ref("c")})});
  });
  add("division of a product", "a / (b * c)", [](B& b) {
    return b.Op(Op::kDiv, {b.Ref("a"), b.Op(Op::kMul, {b.Ref("b"), b.Ref("c")})});
  });
  add("product of a quotient", "a / b * c", [](B& b) {
    return b.Op(Op::kMul, {b.Op(Op::kDiv, {b.Ref("a"), b.Ref("b")}), b.Ref("c")});
  });
  add("sum times", "(a + b) * c", [](B& b) {
    return b.Op(Op::kMul, {b.Op(Op::kAdd, {b.Ref("a"), b.Ref("b")}), b.Ref("c")});
  });
  add("plus product", "a + b * c", [](B& b) {
    return b.Op(Op::kAdd, {b.Ref("a"), b.Op(Op::kMul, {b.Ref("b"), b.Ref("c")})});
  });
  add("minus a negative literal", "a - -2", [](B& b) {
    return b.Op(Op::kSub, {b.Ref("a"), b.Const(-2)});
  });
  add("times a negative literal", "a * -2", [](B& b) {
    return b.Op(Op::kMul, {b.Ref("a"), b.Const(-2)});
  });
  add("negative literal times", "-2 * a", [](B& b) {
    return b.Op(Op::kMul, {b.Const(-2), b.Ref("a")});
  });
  add("minus a negation", "a - -b", [](B& b) {
    return b.Op(Op::kSub, {b.Ref("a"), b.Op(Op::kNeg, {b.Ref("b")})});
  });
  add("NEG of a sum", "-(a + b)", [](B& b) {
    return b.Op(Op::kNeg, {b.Op(Op::kAdd, {b.Ref("a"), b.Ref("b")})});
  });
  add("NEG of a product", "-(a * b)", [](B& b) {
    return b.Op(Op::kNeg, {b.Op(Op::kMul, {b.Ref("a"), b.Ref("b")})});
  });
  add("product of a NEG", "-a * b", [](B& b) {
    return b.Op(Op::kMul, {b.Op(Op::kNeg, {b.Ref("a")}), b.Ref("b")});
  });
  add("NOT of a comparison", "!(a == b)", [](B& b) {
    return b.Op(Op::kNot, {b.Op(Op::kEq, {b.Ref("a"), b.Ref("b")})});
  });
  add("comparison of a NOT", "!a == b", [](B& b) {
    return b.Op(Op::kEq, {b.Op(Op::kNot, {b.Ref("a")}), b.Ref("b")});
  });
  add("and inside or", "a && b || c", [](B& b) {
    return b.Op(Op::kOr, {b.Op(Op::kAnd, {b.Ref("a"), b.Ref("b")}), b.Ref("c")});
  });
  add("or inside and", "(a || b) && c", [](B& b) {
    return b.Op(Op::kAnd, {b.Op(Op::kOr, {b.Ref("a"), b.Ref("b")}), b.Ref("c")});
  });
  add("or on the right of or", "a || (b || c)", [](B& b) {
    return b.Op(Op::kOr, {b.Ref("a"), b.Op(Op::kOr, {b.Ref("b"), b.Ref("c")})});
  });
  add("equality chain", "a == b != c", [](B& b) {
    return b.Op(Op::kNe, {b.Op(Op::kEq, {b.Ref("a"), b.Ref("b")}), b.Ref("c")});
  });
  add("equality on the right", "a == (b != c)", [](B& b) {
    return b.Op(Op::kEq, {b.Ref("a"), b.Op(Op::kNe, {b.Ref("b"), b.Ref("c")})});
  });
  add("comparison inside equality", "a < b == c >= d", [](B& b) {
    return b.Op(Op::kEq,
                {b.Op(Op::kLt, {b.Ref("a"), b.Ref("b")}), b.Op(Op::kGe, {b.Ref("c"), b.Ref("d")})});
  });
  add("equality inside comparison", "(a == b) < c", [](B& b) {
    return b.Op(Op::kLt, {b.Op(Op::kEq, {b.Ref("a"), b.Ref("b")}), b.Ref("c")});
  });
  add("sum inside comparison", "a <= b + c", [](B& b) {
    return b.Op(Op::kLe, {b.Ref("a"), b.Op(Op::kAdd, {b.Ref("b"), b.Ref("c")})});
  });
  add("comparison inside sum", "a + (b > c)", [](B& b) {
    return b.Op(Op::kAdd, {b.Ref("a"), b.Op(Op::kGt, {b.Ref("b"), b.Ref("c")})});
  });
  add("product of powers", "a ^ b * c ^ d", [](B& b) {
    return b.Op(Op::kMul, {b.Op(Op::kPow, {b.Ref("a"), b.Ref("b")}),
                           b.Op(Op::kPow, {b.Ref("c"), b.Ref("d")})});
  });
  add("power of a sum", "(a + b) ^ (c * d)", [](B& b) {
    return b.Op(Op::kPow, {b.Op(Op::kAdd, {b.Ref("a"), b.Ref("b")}),
                           b.Op(Op::kMul, {b.Ref("c"), b.Ref("d")})});
  });
  add("power of a call", "abs(x) ^ 2", [](B& b) {
    return b.Op(Op::kPow, {b.Op(Op::kAbs, {b.Ref("x")}), b.Const(2)});
  });
  add("call arguments never need parentheses", "min(a + b, c || d)", [](B& b) {
    return b.Op(Op::kMin, {b.Op(Op::kAdd, {b.Ref("a"), b.Ref("b")}),
                           b.Op(Op::kOr, {b.Ref("c"), b.Ref("d")})});
  });
  add("NEG of a call", "-abs(x)",
      [](B& b) { return b.Op(Op::kNeg, {b.Op(Op::kAbs, {b.Ref("x")})}); });
  return cases;
}

TEST(TextPrinterParentheses, OnlyThoseThatPrecedenceNeeds) {
  for (const PrinterCase& c : ParenthesisCases()) {
    EXPECT_EQ(dsl::WriteText(c.ir), c.expected) << c.what;
  }
}

TEST(TextPrinterParentheses, EveryTrickyCaseReadsBackAsTheSameIr) {
  for (const PrinterCase& c : ParenthesisCases()) {
    EXPECT_EQ(ReadBackDifference(c.ir), "") << c.what;
  }
}

// ---------------------------------------------------------------------------
// Functions print by name; pow prints as ^.

TEST(TextPrinterFunctions, PrintEveryCallByItsName) {
  const char* const kUnary[] = {"abs",  "exp",   "log",  "log1p", "sqrt", "sigmoid",
                                "tanh", "floor", "ceil", "round", "sign", "is_nan"};
  const char* const kAggregates[] = {"batch_min",     "batch_max",   "batch_sum", "batch_mean",
                                     "batch_std",     "batch_count", "rank",      "softmax",
                                     "min_max_scale", "zscore"};
  std::string source = "input u: item[4];\ninput v: query[4];\n";
  for (const char* name : kUnary) source += std::string("f_") + name + " = " + name + "(x);\n";
  for (const char* name : kAggregates) source += std::string("g_") + name + " = " + name + "(x);\n";
  source +=
      "h1 = min(a, b);\n"
      "h2 = min(a);\n"
      "h3 = min(a, b, c);\n"
      "h4 = max(a, b);\n"
      "h5 = max(a);\n"
      "h6 = max(a, b, c, d);\n"
      "h7 = sum(a);\n"
      "h8 = product(a, b);\n"
      "h9 = mean(a, b, c);\n"
      "h10 = weighted_sum([0.5, -1, 2], a, b, c);\n"
      "h11 = if(a, b, c);\n"
      "h12 = dot(u, v);\n"
      "h13 = cosine(u, v);\n"
      "h14 = l2_distance(v, u);\n"
      "h15 = norm(u);\n"
      "h16 = a ^ b;\n";
  Result<FeatureSet> set = FeatureSet::Parse(source, Format::kText);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_EQ(set->Serialize(Format::kText), source);
}

TEST(TextPrinterFunctions, PowCallPrintsAsCaret) {
  Result<FeatureSet> set = FeatureSet::Parse("f = pow(a, b) + pow(-2, pow(x, y));", Format::kText);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_EQ(set->Serialize(Format::kText), "f = a ^ b + (-2) ^ x ^ y;\n");
}

TEST(TextPrinterFunctions, NaryMinAndMaxWithTwoOperandsPrintAsTheBinaryCall) {
  // The documented normalization: Nary MIN/MAX of exactly two operands prints
  // as min(a, b), which reads back as Binary MIN (the same values).
  ExprBuilder b;
  b.Define("f", b.Nary(Op::kNaryMin, {b.Ref("a"), b.Ref("b")}, {}));
  b.Define("g", b.Nary(Op::kNaryMax, {b.Ref("a"), b.Const(-1)}, {}));
  const ir::FeatureSetIr ir = std::move(b).Finish();
  const std::string text = dsl::WriteText(ir);
  EXPECT_EQ(text, "f = min(a, b);\ng = max(a, -1);\n");
  Result<ir::FeatureSetIr> again = dsl::ReadText(text);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(Dump(*again), "f = Min(a, b)\ng = Max(a, -1)\n");
}

TEST(TextPrinterFunctions, WeightsPrintAsShortestLiterals) {
  ExprBuilder b;
  b.Define("f", b.Nary(Op::kWeightedSum, {b.Ref("a"), b.Ref("b"), b.Ref("c"), b.Ref("d")},
                       {0.1f, -0.0f, -kInf, std::numeric_limits<float>::quiet_NaN()}));
  const ir::FeatureSetIr ir = std::move(b).Finish();
  EXPECT_EQ(dsl::WriteText(ir), "f = weighted_sum([0.1, -0, -inf, nan], a, b, c, d);\n");
  EXPECT_EQ(ReadBackDifference(ir), "");
}

// ---------------------------------------------------------------------------
// Statements.

TEST(TextPrinterStatements, DeclaredInputsFirstThenDefinitionsInOrder) {
  Result<FeatureSet> set = FeatureSet::Parse(
      "z = a + 1;\n"
      "input a;\n"
      "y = z * b;\n"
      "input b: query = -1.5;\n"
      "input u: item[8];   # a comment is not kept\n"
      "x = norm(u) + y;\n"
      "input v: query[3];\n"
      "input `the default` = 30;\n",
      Format::kText);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_EQ(set->Serialize(Format::kText),
            "input a;\n"
            "input b: query = -1.5;\n"
            "input u: item[8];\n"
            "input v: query[3];\n"
            "input `the default` = 30;\n"
            "z = a + 1;\n"
            "y = z * b;\n"
            "x = norm(u) + y;\n");
}

TEST(TextPrinterModels, DeclarationsAfterTheInputsThenCallsWithTheirIndex) {
  ExprBuilder b;
  b.Input("price");
  b.DeclareModel("ranker", ir::ModelFormat::kXgboostJson, "ranker.json");
  b.DeclareModel("my nn", ir::ModelFormat::kOnnx, "nets/a \"b\" \\c.onnx");
  b.DeclareModel("model", ir::ModelFormat::kLightgbmText, "");
  b.Define("f", b.Op(Op::kAdd, {b.Model("ranker", {b.Ref("price"), b.Const(-2)}, 0),
                                b.Op(Op::kMul, {b.Model("my nn", {}, 3), b.Const(2)})}));
  b.Define("g", b.Op(Op::kPow, {b.Model("model", {b.Model("ranker", {b.Ref("x")}, 1)}, 4294967295u),
                                b.Const(2)}));
  const ir::FeatureSetIr ir = std::move(b).Finish();
  EXPECT_EQ(dsl::WriteText(ir),
            "input price;\n"
            "model ranker = xgboost(\"ranker.json\");\n"
            "model `my nn` = onnx(\"nets/a \\\"b\\\" \\\\c.onnx\");\n"
            "model `model` = lightgbm(\"\");\n"
            "f = model(ranker, price, -2)[0] + model(`my nn`)[3] * 2;\n"
            "g = model(`model`, model(ranker, x)[1])[4294967295] ^ 2;\n");
  EXPECT_EQ(ReadBackDifference(ir), "");
}

TEST(TextPrinterStatements, OneStatementPerLine) {
  Result<FeatureSet> set =
      FeatureSet::Parse("input a; f = a\n  +\n  1; g = f;   h =\r\n g;", Format::kText);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_EQ(set->Serialize(Format::kText), "input a;\nf = a + 1;\ng = f;\nh = g;\n");
}

TEST(TextPrinterStatements, ImplicitInputsAreNotDeclared) {
  Result<FeatureSet> set = FeatureSet::Parse("f = price * 2;", Format::kText);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_EQ(set->Serialize(Format::kText), "f = price * 2;\n");
}

TEST(TextPrinterStatements, InputDefaultsKeepTheirValue) {
  ExprBuilder b;
  b.Input("a", Scope::kItem, 0, -0.0f);
  b.Input("b", Scope::kQuery, 0, kInf);
  b.Input("c", Scope::kItem, 0, -kInf);
  b.Input("d", Scope::kQuery, 0, std::numeric_limits<float>::quiet_NaN());
  b.Input("e", Scope::kItem, 0, FromBits(1));
  b.Input("g", Scope::kQuery, 65536);
  const ir::FeatureSetIr ir = std::move(b).Finish();
  EXPECT_EQ(dsl::WriteText(ir),
            "input a = -0;\n"
            "input b: query = inf;\n"
            "input c = -inf;\n"
            "input d: query = nan;\n"
            "input e = 1e-45;\n"
            "input g: query[65536];\n");
  EXPECT_EQ(ReadBackDifference(ir), "");
  Result<ir::FeatureSetIr> again = dsl::ReadText(dsl::WriteText(ir));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(Bits(*again->inputs[0].default_value), 0x80000000u);
}

// ---------------------------------------------------------------------------
// Floats: the shortest form that reads back to the same float32.

TEST(TextPrinterFloats, PrintsTheShortestRoundTripForm) {
  struct FloatCase {
    float value;
    const char* text;
  };
  const FloatCase cases[] = {
      {0.1f, "0.1"},
      {1e10f, "1e+10"},
      {-0.0f, "-0"},
      {0.0f, "0"},
      {kInf, "inf"},
      {-kInf, "-inf"},
      {std::numeric_limits<float>::quiet_NaN(), "nan"},
      {FromBits(0x00000001), "1e-45"},
      {FromBits(0x80000001), "-1e-45"},
      {FromBits(0x007fffff), "1.1754942e-38"},
      {std::numeric_limits<float>::min(), "1.1754944e-38"},
      {std::numeric_limits<float>::max(), "3.4028235e+38"},
      {-std::numeric_limits<float>::max(), "-3.4028235e+38"},
      {16777216.0f, "16777216"},
      {0.5f, "0.5"},
      {-1.5f, "-1.5"},
      {100.0f, "100"},
      {1e-7f, "1e-07"},
      {0.3f, "0.3"},
      {1.0f / 3.0f, "0.33333334"},
  };
  for (const FloatCase& c : cases) {
    ExprBuilder one;
    const ir::NodeId root = one.Const(c.value);
    EXPECT_EQ(PrintOne(std::move(one), root), std::string("f = ") + c.text + ";\n")
        << "bits " << std::hex << Bits(c.value);
  }
}

TEST(TextPrinterFloats, EveryNanPrintsAsNan) {
  for (const std::uint32_t bits :
       {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x7fc12345u, 0xffffffffu}) {
    ExprBuilder b;
    const ir::NodeId root = b.Const(FromBits(bits));
    EXPECT_EQ(PrintOne(std::move(b), root), "f = nan;\n") << std::hex << bits;
  }
}

TEST(TextPrinterFloats, RandomFloatsPrintAsToCharsAndReadBackBitForBit) {
  std::mt19937 rng(20240229);
  std::uniform_int_distribution<std::uint32_t> any_bits;
  for (int i = 0; i < 20000; ++i) {
    std::uint32_t bits = any_bits(rng);
    if (i % 4 == 1) bits &= 0x807fffffu;                        // subnormals and zeros
    if (i % 4 == 2) bits = (bits & 0x80ffffffu) | 0x3f000000u;  // near 1
    const float value = FromBits(bits);
    if (std::isnan(value)) continue;
    ExprBuilder b;
    const ir::NodeId root = b.Const(value);
    b.Define("f", root);
    const ir::FeatureSetIr ir = std::move(b).Finish();
    const std::string text = dsl::WriteText(ir);
    ASSERT_EQ(text, "f = " + ToChars(value) + ";\n") << std::hex << bits;
    Result<ir::FeatureSetIr> again = dsl::ReadText(text);
    ASSERT_TRUE(again.ok()) << text << again.status().ToString();
    ASSERT_EQ(Bits(again->nodes[again->features[0].root].constant), bits) << text;
  }
}

// ---------------------------------------------------------------------------
// Names: plain when the syntax allows, else backquoted.

TEST(TextPrinterNames, BackquotesOnlyNamesThatNeedIt) {
  ExprBuilder b;
  b.Input("input");
  b.Input("my input", Scope::kQuery);
  b.Input("u.emb", Scope::kItem, 4);
  b.Define("a`b", b.Op(Op::kAdd, {b.Ref("model"), b.Ref("inf")}));
  b.Define("log", b.Op(Op::kMul, {b.Ref("nan"), b.Ref("9lives")}));
  b.Define("rank", b.Op(Op::kLog, {b.Ref("log")}));
  b.Define("Inf", b.Op(Op::kSub, {b.Ref("NaN"), b.Ref("é")}));
  b.Define("x.y_z.", b.Vector(Op::kNorm, "u.emb"));
  b.Define("`", b.Op(Op::kAdd, {b.Ref("has space"), b.Ref("-dash")}));
  b.Define("line\nbreak", b.Ref("_"));
  const ir::FeatureSetIr ir = std::move(b).Finish();
  EXPECT_EQ(dsl::WriteText(ir),
            "input `input`;\n"
            "input `my input`: query;\n"
            "input u.emb: item[4];\n"
            "`a``b` = `model` + `inf`;\n"
            "log = `nan` * `9lives`;\n"
            "rank = log(log);\n"
            "Inf = NaN - `é`;\n"
            "x.y_z. = norm(u.emb);\n"
            "```` = `has space` + `-dash`;\n"
            "`line\nbreak` = _;\n");
  EXPECT_EQ(ReadBackDifference(ir), "");
}

// ---------------------------------------------------------------------------
// Idempotence, and "parsing printed text gives back the same messages".

const char* const kCorpus[] = {
    "f_qux = f_foo / (f_bar + f_baz);",
    "input price;\ninput user_age: query = 30;\ninput item_emb: item[64];\n"
    "input user_emb: query[64];\n"
    "score = sigmoid(0.3 * log1p(price) + if(rating >= 4.5, 1, 0)) - rank(price) / 100;\n"
    "sim = cosine(item_emb, user_emb) * norm(user_emb) - l2_distance(item_emb, item_emb);",
    "f = -2^2 + 2^-1 + a*-2 + -(2) + 2^3^2 + (2^3)^2 + !a == b;",
    "f = ((a)) - ((b - c)) - -(-(d)) ^ -(e) ^ --f1;",
    "f = weighted_sum([0.5, -1e-45, 3.4028235e38, -inf, nan], a, b + c, -d, !e, f1 ^ g);",
    "f = min(a) + min(a, b) + min(a, b, c) + max(a) + max(a, b) + max(a, b, c);",
    "f = sum(a) * product(a, b) / mean(a, b, c) || batch_count(a) && zscore(b);",
    "`my feature` = `a``b` + `input` + `model` + `inf` + `nan` + log + rank;\n"
    "log = 1;\nrank = 2;",
    "f = 0.1 + 1e10 + 1e-7 + 16777217 + .5 + 1. + 1E-3 + 1e-50 + -0 + 7e-46;",
    "f = if(a < b, if(c, d, e), -if(f1, g, h)) <= 3 != (x >= y) > z;",
    "input a: query = -0;\ninput b = -inf;\ninput c: query = nan;\nf = a + b + c;",
    "f = (a || b) && (c || d) || !(e && f1);",
    "f = abs(-2) + exp(-(2)) + log(--2) + -floor(-x ^ 2) ^ -ceil(y);",
};

TEST(TextPrinterIdempotence, PrintingWhatWasPrintedGivesTheSameText) {
  for (const char* source : kCorpus) {
    Result<FeatureSet> set = FeatureSet::Parse(source, Format::kText);
    ASSERT_TRUE(set.ok()) << source << "\n" << set.status().ToString();
    const std::string once = set->Serialize(Format::kText);
    Result<FeatureSet> again = FeatureSet::Parse(once, Format::kText);
    ASSERT_TRUE(again.ok()) << once << "\n" << again.status().ToString();
    EXPECT_EQ(again->Serialize(Format::kText), once) << source;
  }
}

TEST(TextPrinterIdempotence, ParsingPrintedTextGivesBackTheSameMessages) {
  for (const char* source : kCorpus) {
    Result<ir::FeatureSetIr> ir = dsl::ReadText(source);
    ASSERT_TRUE(ir.ok()) << source << "\n" << ir.status().ToString();
    EXPECT_EQ(ReadBackDifference(*ir), "") << source;
  }
}

TEST(TextPrinterIdempotence, ExpressionToTextIsTheRightHandSideOfTheStatement) {
  Result<ir::FeatureSetIr> ir = dsl::ReadText("f = -(2) ^ x + (-2) ^ y;\ng = a;");
  ASSERT_TRUE(ir.ok()) << ir.status().ToString();
  EXPECT_EQ(dsl::ExpressionToText(*ir, ir->features[0].root), "-2 ^ x + (-2) ^ y");
  EXPECT_EQ(dsl::ExpressionToText(*ir, ir->features[1].root), "a");
}

}  // namespace
}  // namespace calcjit
