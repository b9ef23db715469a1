// Golden (snapshot) tests: the optimized DAG, the VM program and the JIT's
// LLVM IR (as generated, and after LLVM's optimizer) of a few small sets,
// printed, against the files checked in next to them. A change
// in what the optimizer or the lowering makes shows up as a readable diff.
//
// Regenerate after an intended change with
//   scripts/update_goldens.sh
// (which runs this test with CALCJIT_UPDATE_GOLDENS=1), then review the diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "calcjit/calcjit.hpp"

namespace calcjit {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const fs::path& path) {
  std::ifstream file(path);
  std::stringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

// What the golden files hold: the DAG after the optimizer, the program with
// the VM's code and the JIT's IR for x86-64-v3 (the tier pinned, so that the
// files do not depend on the host; the IR is only generated, never run).
std::string Render(const fs::path& path, const std::string& kind) {
  Result<FeatureSet> set = FeatureSet::ReadFile(path.string());
  EXPECT_TRUE(set.ok()) << set.status().ToString();
  if (!set.ok()) return "";
  EngineOptions options;
  options.isa = kind == "program" ? Isa::kBaseline : Isa::kAvx2;
  const DumpKind dump = kind == "dag"      ? DumpKind::kDag
                        : kind == "ll"     ? DumpKind::kIr
                        : kind == "opt.ll" ? DumpKind::kOptimizedIr
                                           : DumpKind::kProgram;
  Result<std::string> text = Dump(*set, dump, options);
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  return text.ok() ? *text : "";
}

class GoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenTest, MatchesTheCheckedInDump) {
  const fs::path cases = CALCJIT_GOLDEN_DIR;
  const bool update = std::getenv("CALCJIT_UPDATE_GOLDENS") != nullptr;
  for (const std::string kind : {"dag", "program", "ll", "opt.ll"}) {
    const fs::path set = cases / (GetParam() + ".calc");
    const fs::path golden = cases / (GetParam() + "." + kind);
    const std::string actual = Render(set, kind);
    if (update) {
      std::ofstream(golden) << actual;
      continue;
    }
    ASSERT_TRUE(fs::exists(golden)) << golden << " is missing: run scripts/update_goldens.sh";
    EXPECT_EQ(actual, ReadFile(golden))
        << "the " << kind << " of " << set.filename() << " changed; if that is intended, run "
        << "scripts/update_goldens.sh and review the diff";
  }
}

std::vector<std::string> GoldenSets() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(CALCJIT_GOLDEN_DIR)) {
    if (entry.path().extension() == ".calc") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Sets, GoldenTest, ::testing::ValuesIn(GoldenSets()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           return param.param;
                         });

}  // namespace
}  // namespace calcjit
