// The compile pipeline as the runtime runs it: the optimizer and the
// scheduler run once per version in tiered serving, every backend checks
// pass names the same way, and each backend's engine gives the same bits.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "calcjit/calcjit.hpp"
#include "runtime/pipeline.h"
#include "tests/support/api_test_util.h"

namespace calcjit {
namespace {

using testing_util::ParseText;

constexpr const char* kSet =
    "input x; input q: query = 2; a = log1p(abs(x)) * q; b = rank(a) + a; c = zscore(b);\n"
    "d = batch_mean(b) - batch_max(b) * c;";

TEST(PipelineTest, TieredServingOptimizesAndSchedulesEachVersionOnce) {
  ServingOptions options;
  options.engine.backend = Backend::kAuto;
  options.engine.reuse_compiled = false;  // no engine from an earlier test
  options.measure_tiers = false;          // the JIT takes over whatever its speed
  const std::uint64_t before = internal::PrepareCount();
  Result<ServingEngine> engine = ServingEngine::Create(ParseText(kSet), options);
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  engine->WaitForJit();
  EXPECT_EQ(engine->Stats().backend, Backend::kJit) << engine->Stats().backend_note;
  EXPECT_EQ(internal::PrepareCount() - before, 1u) << "the VM and the JIT each optimized";

  Result<std::uint64_t> reloaded =
      engine->Reload("input x; a = exp(x) + 1; b = batch_sum(a) - a;", Format::kText);
  ASSERT_TRUE(reloaded.ok()) << reloaded.status().ToString();
  engine->WaitForJit();
  EXPECT_EQ(engine->Stats().backend, Backend::kJit);
  EXPECT_EQ(internal::PrepareCount() - before, 2u);
}

TEST(PipelineTest, EveryBackendChecksPassNamesAlike) {
  const FeatureSet set = ParseText(kSet);
  for (Backend backend : {Backend::kReference, Backend::kVm, Backend::kJit, Backend::kAuto}) {
    EngineOptions options;
    options.backend = backend;
    options.disabled_passes = {"simplfy"};
    const Result<Engine> engine = Engine::Compile(set, options);
    ASSERT_FALSE(engine.ok()) << BackendName(backend);
    EXPECT_NE(engine.status().message().find("unknown pass 'simplfy'"), std::string::npos)
        << engine.status().message();
    EXPECT_NE(engine.status().message().find("fuse"), std::string::npos)
        << "the VM's steps are listed too: " << engine.status().message();
    EXPECT_NE(engine.status().message().find("statistics"), std::string::npos)
        << "the scheduler's steps are listed too: " << engine.status().message();
    options.disabled_passes = {"simplify", "fuse", "reuse", "statistics"};
    EXPECT_TRUE(Engine::Compile(set, options).ok()) << BackendName(backend);
  }
}

// Every way of switching passes and steps off, on both compiling backends,
// gives the reference interpreter's bits (the differential property tests do
// this for random sets; this is the example of every switch at once).
TEST(PipelineTest, SwitchedOffPassesKeepTheBits) {
  const FeatureSet set = ParseText(kSet);
  const std::size_t n = 37;  // not a multiple of any vector width or chunk
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i % 7) - 3.5f;
  auto run = [&](Backend backend, std::vector<std::string> off) {
    EngineOptions options;
    options.backend = backend;
    options.disabled_passes = std::move(off);
    Result<Engine> engine = Engine::Compile(set, options);
    EXPECT_TRUE(engine.ok()) << engine.status().ToString();
    Batch batch(*engine);
    batch.SetItemCount(n);
    EXPECT_TRUE(batch.BindInput("x", x).ok());
    EXPECT_TRUE(engine->Evaluate(batch).ok());
    return testing_util::OutputBits(*engine, batch);
  };
  const std::vector<std::uint32_t> expected = run(Backend::kReference, {});
  for (Backend backend : {Backend::kVm, Backend::kJit}) {
    EXPECT_EQ(run(backend, {}), expected) << BackendName(backend);
    EXPECT_EQ(run(backend, {"cse", "fold", "simplify", "top_k", "dce", "uniform", "fuse", "reuse",
                            "statistics"}),
              expected)
        << BackendName(backend);
  }
}

}  // namespace
}  // namespace calcjit
