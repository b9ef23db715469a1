// Runs the data-driven conformance cases (tests/conformance/cases/*.txt, see
// README.md) against every backend this build has, bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "calcjit/calcjit.hpp"
#include "dsl/float_text.h"
#include "dsl/text_parser.h"
#include "ir/op.h"

namespace calcjit {
namespace {

struct Values {
  std::string name;
  std::vector<float> values;
};

struct Case {
  std::string file;
  int line = 0;
  std::string name;
  std::string set;
  std::size_t n = 0;
  std::vector<Values> inputs;
  std::vector<Values> outputs;
  std::string error;
  std::string where;
};

std::uint32_t Bits(float v) {
  std::uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

std::string Hex(std::uint32_t bits) {
  std::ostringstream out;
  out << "0x" << std::hex << std::setw(8) << std::setfill('0') << bits;
  return out.str();
}

std::string Describe(float v) {
  return dsl::FormatShortestFloat(v) + " (" + Hex(Bits(v)) + ")";
}

float ParseValue(const std::string& token, const std::string& where) {
  if (token.size() == 10 && token.rfind("0x", 0) == 0) {
    const std::uint32_t bits = static_cast<std::uint32_t>(std::stoul(token, nullptr, 16));
    float v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
  float v = 0.0f;
  if (dsl::ParseFloatCell(token, &v) != dsl::FloatParse::kOk) {
    throw std::runtime_error(where + ": bad value '" + token + "'");
  }
  return v;
}

// "name = v1 v2 ..." after the keyword.
Values ParseValues(const std::string& rest, const std::string& where) {
  Values result;
  const std::size_t eq = rest.find('=');
  if (eq == std::string::npos) throw std::runtime_error(where + ": expected 'name = values'");
  std::istringstream name_stream(rest.substr(0, eq));
  name_stream >> result.name;
  std::istringstream values(rest.substr(eq + 1));
  std::string token;
  while (values >> token) result.values.push_back(ParseValue(token, where));
  return result;
}

std::vector<Case> LoadCases(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::vector<Case> cases;
  Case current;
  bool open = false;
  std::string line;
  int number = 0;
  const std::string file_name = path.filename().string();
  while (std::getline(file, line)) {
    ++number;
    const std::string where = file_name + ":" + std::to_string(number);
    std::istringstream stream(line);
    std::string keyword;
    stream >> keyword;
    if (keyword.empty() || keyword[0] == '#') continue;
    std::string rest;
    std::getline(stream, rest);
    if (keyword == "set") {  // the set keeps its own comments
      current.set += rest + "\n";
      continue;
    }
    if (const std::size_t hash = rest.find(" #"); hash != std::string::npos) rest.resize(hash);
    if (keyword == "case") {
      if (open) throw std::runtime_error(where + ": 'case' before 'end'");
      current = Case{};
      current.file = file_name;
      current.line = number;
      std::istringstream(rest) >> current.name;
      open = true;
    } else if (keyword == "n") {
      current.n = std::stoul(rest);
    } else if (keyword == "in") {
      current.inputs.push_back(ParseValues(rest, where));
    } else if (keyword == "out") {
      current.outputs.push_back(ParseValues(rest, where));
    } else if (keyword == "error") {
      current.error = rest.substr(rest.find_first_not_of(' '));
    } else if (keyword == "where") {
      std::istringstream(rest) >> current.where;
    } else if (keyword == "end") {
      if (!open) throw std::runtime_error(where + ": 'end' without 'case'");
      cases.push_back(current);
      open = false;
    } else {
      throw std::runtime_error(where + ": unknown keyword '" + keyword + "'");
    }
  }
  if (open) throw std::runtime_error(file_name + ": last case has no 'end'");
  return cases;
}

// Checks an expected error against a failed status.
void ExpectError(const Case& c, const Status& status) {
  ASSERT_FALSE(status.ok()) << "expected an error containing '" << c.error << "'";
  EXPECT_NE(status.ToString().find(c.error), std::string::npos)
      << "expected an error containing '" << c.error << "', got:\n"
      << status.ToString();
  if (!c.where.empty()) {
    EXPECT_EQ(status.location(), c.where) << status.ToString();
  }
}

// A backend configuration the cases run on.
struct Target {
  std::string name;
  Backend backend;
  Isa isa = Isa::kAuto;
  std::uint32_t block_size = 0;
};

void RunCase(const Case& c, const Target& target) {
  SCOPED_TRACE(c.file + ":" + std::to_string(c.line) + " case " + c.name);
  if (!IsIsaSupported(target.isa)) {
    GTEST_SKIP() << "this CPU has no " << IsaName(target.isa);
  }
  LoadOptions load;
  load.model_root = CALCJIT_CONFORMANCE_MODELS;
  const Result<FeatureSet> set = FeatureSet::Parse(c.set, Format::kText, load);
  if (!set.ok()) {
    if (c.error.empty()) FAIL() << "set does not load:\n" << set.status().ToString();
    ExpectError(c, set.status());
    return;
  }
  EngineOptions options;
  options.backend = target.backend;
  options.isa = target.isa;
  options.block_size = target.block_size;
  for (const Values& out : c.outputs) options.outputs.push_back(out.name);
  const Result<Engine> engine = Engine::Compile(*set, options);
  if (!engine.ok()) {
    if (c.error.empty()) FAIL() << "engine does not compile:\n" << engine.status().ToString();
    ExpectError(c, engine.status());
    return;
  }
  Batch batch(*engine);
  batch.SetItemCount(c.n);
  for (const Values& in : c.inputs) {
    const Status bound = batch.BindInput(in.name, in.values);
    if (!bound.ok()) {
      if (c.error.empty()) FAIL() << bound.ToString();
      ExpectError(c, bound);
      return;
    }
  }
  const Status evaluated = engine->Evaluate(batch);
  if (!c.error.empty()) {
    ExpectError(c, evaluated);
    return;
  }
  ASSERT_TRUE(evaluated.ok()) << evaluated.ToString();
  for (std::size_t k = 0; k < c.outputs.size(); ++k) {
    const Values& expected = c.outputs[k];
    const std::span<const float> actual = batch.Output(k);
    ASSERT_EQ(actual.size(), expected.values.size()) << "output " << expected.name;
    for (std::size_t i = 0; i < actual.size(); ++i) {
      const float want = expected.values[i];
      // A NaN output is always the canonical quiet NaN (spec section 1).
      const std::uint32_t want_bits = want != want ? 0x7FC00000u : Bits(want);
      EXPECT_EQ(Bits(actual[i]), want_bits)
          << "output " << expected.name << "[" << i << "]: expected " << Describe(want) << ", got "
          << Describe(actual[i]);
    }
  }
}

class CaseTest : public ::testing::Test {
 public:
  CaseTest(Case c, Target target) : case_(std::move(c)), target_(std::move(target)) {}
  void TestBody() override { RunCase(case_, target_); }

 private:
  Case case_;
  Target target_;
};

// Every backend; the VM and the JIT on every instruction-set tier (tiers the
// CPU lacks are reported as skipped) and with tiny blocks, so that the block loop and
// its tails are exercised by the small cases too.
std::vector<Target> Targets() {
  std::vector<Target> targets = {{"reference", Backend::kReference}};
  if (IsBackendAvailable(Backend::kVm)) {
    targets.push_back({"vm-x86-64", Backend::kVm, Isa::kBaseline});
    targets.push_back({"vm-avx2", Backend::kVm, Isa::kAvx2});
    targets.push_back({"vm-avx512", Backend::kVm, Isa::kAvx512});
    targets.push_back({"vm-block2", Backend::kVm, Isa::kAuto, 2});
  }
  if (IsBackendAvailable(Backend::kJit)) {
    targets.push_back({"jit-x86-64", Backend::kJit, Isa::kBaseline});
    targets.push_back({"jit-avx2", Backend::kJit, Isa::kAvx2});
    targets.push_back({"jit-avx512", Backend::kJit, Isa::kAvx512});
  }
  return targets;
}

// Which rows of the operator table (src/ir/op.def) the cases exercise: the
// operators of every case that expects output bits (a case that expects an
// error does not pin an operator's semantics).
class OperatorCoverage {
 public:
  void Add(const Case& c) {
    const Result<ir::FeatureSetIr> ir = dsl::ReadText(c.set);
    if (!ir.ok()) return;  // the case itself reports it
    for (const ir::Node& node : ir->nodes) {
      used_.insert(node.op);
      if (!c.outputs.empty()) exercised_.insert(node.op);
    }
  }

  // Fails for every row without a case, so that a new operator cannot go
  // without the bits the contract fixes for it. Model calls (spec section 6)
  // are evaluated by no backend yet: until they are, their row needs a case
  // of its own (the refusal), not output bits.
  void Check() const {
    for (const ir::OpInfo& info : ir::kOpTable) {
      // No set holds an optimizer-only row; the compiling backends make it
      // from the comparisons of case rank_top_k_questions (aggregate.txt).
      if (info.optimizer_only) continue;
      if (info.kind == ir::OpKind::kModel) {
        EXPECT_TRUE(used_.count(info.op))
            << "operator " << info.name << " has no conformance case in tests/conformance/cases";
        continue;
      }
      EXPECT_TRUE(exercised_.count(info.op))
          << "operator " << info.name << " ('" << info.spelling
          << "') has no conformance case with expected outputs in tests/conformance/cases";
    }
  }

 private:
  std::set<ir::Op> exercised_;  // in cases with expected outputs
  std::set<ir::Op> used_;       // in any case
};

}  // namespace
}  // namespace calcjit

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  using namespace calcjit;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(CALCJIT_CONFORMANCE_DIR)) {
    if (entry.path().extension() == ".txt") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::size_t registered = 0;
  auto coverage = std::make_shared<OperatorCoverage>();
  for (const auto& file : files) {
    for (const Case& c : LoadCases(file)) coverage->Add(c);
  }
  ::testing::RegisterTest("Conformance", "EveryOperatorOfTheTableHasACase", nullptr, nullptr,
                          __FILE__, __LINE__, [coverage]() -> ::testing::Test* {
                            class CoverageTest : public ::testing::Test {
                             public:
                              explicit CoverageTest(std::shared_ptr<OperatorCoverage> c)
                                  : coverage_(std::move(c)) {}
                              void TestBody() override { coverage_->Check(); }

                             private:
                              std::shared_ptr<OperatorCoverage> coverage_;
                            };
                            return new CoverageTest(coverage);
                          });
  for (const Target& target : Targets()) {
    for (const auto& file : files) {
      for (const Case& c : LoadCases(file)) {
        const std::string suite = "Conformance/" + target.name + "/" + file.stem().string();
        ::testing::RegisterTest(
            suite.c_str(), c.name.c_str(), nullptr, nullptr, c.file.c_str(), c.line,
            [c, target]() -> ::testing::Test* { return new CaseTest(c, target); });
        ++registered;
      }
    }
  }
  if (registered == 0) {
    std::fprintf(stderr, "no conformance cases found in %s\n", CALCJIT_CONFORMANCE_DIR);
    return 1;
  }
  return RUN_ALL_TESTS();
}
