// ServingEngine and Session: reload while serving, tiering, schema changes,
// shadow validation, statistics, and a stress test of reloads under load.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "calcjit/calcjit.hpp"
#include "tests/support/api_test_util.h"

namespace calcjit {
namespace {

using testing_util::ParseText;

ServingEngine Serve(const std::string& text, Backend backend = Backend::kAuto) {
  ServingOptions options;
  options.engine.backend = backend;
  Result<ServingEngine> engine = ServingEngine::Create(ParseText(text), options);
  EXPECT_TRUE(engine.ok()) << engine.status().ToString();
  return std::move(engine).value();
}

std::vector<float> Items(std::size_t n) {
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i) * 0.25f - 3.0f;
  return x;
}

TEST(ServingTest, ReloadSwapsVersionsAndAFailedReloadKeepsServing) {
  ServingEngine engine = Serve("input x; f = x * 2;", Backend::kVm);
  EXPECT_EQ(engine.version(), 1u);
  const std::vector<float> x = Items(10);
  Session session(engine);
  session.SetItemCount(x.size());
  ASSERT_TRUE(session.BindInput("x", x).ok());
  ASSERT_TRUE(session.Evaluate().ok());
  EXPECT_EQ(session.version(), 1u);
  EXPECT_EQ(session.Output(0)[3], x[3] * 2);

  Result<std::uint64_t> reloaded = engine.Reload("input x; f = x * 3;", Format::kText);
  ASSERT_TRUE(reloaded.ok()) << reloaded.status().ToString();
  EXPECT_EQ(*reloaded, 2u);
  ASSERT_TRUE(session.Evaluate().ok());
  EXPECT_EQ(session.version(), 2u);
  EXPECT_EQ(session.Output(0)[3], x[3] * 3);

  const Result<std::uint64_t> broken = engine.Reload("input x; f = x * ;", Format::kText);
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.status().location(), "1:18");
  const Result<std::uint64_t> cyclic = engine.Reload("f = g; g = f;", Format::kText);
  ASSERT_FALSE(cyclic.ok());
  EXPECT_EQ(engine.version(), 2u);
  ASSERT_TRUE(session.Evaluate().ok());
  EXPECT_EQ(session.version(), 2u);
  EXPECT_EQ(session.Output(0)[3], x[3] * 3);
}

TEST(ServingTest, AutoServesFromTheVmAtOnceAndFromTheJitWhenItIsCompiled) {
  ServingEngine engine = Serve("input x; f = log1p(abs(x)) * 2 + batch_mean(x);");
  const VersionStats first = engine.Stats();
  EXPECT_EQ(first.version, 1u);
  EXPECT_GT(first.vm_compile_ms, 0.0);
  const std::vector<float> x = Items(1000);
  Session session(engine);
  session.SetItemCount(x.size());
  ASSERT_TRUE(session.BindInput("x", x).ok());
  ASSERT_TRUE(session.Evaluate().ok());
  const std::vector<float> before(session.Output(0).begin(), session.Output(0).end());

  engine.WaitForJit();
  const VersionStats tiered = engine.Stats();
  EXPECT_FALSE(tiered.jit_pending);
  // Tier choice: both timed on a batch of the traffic's size, the faster serves.
  ASSERT_TRUE(tiered.tiers.measured) << tiered.tiers.note;
  EXPECT_EQ(tiered.tiers.items, 1000u);
  EXPECT_GT(tiered.tiers.vm_ns_per_item, 0.0);
  EXPECT_GT(tiered.tiers.jit_ns_per_item, 0.0);
  EXPECT_EQ(tiered.backend, tiered.tiers.chosen) << tiered.backend_note;
  EXPECT_EQ(tiered.tiers.chosen == Backend::kJit,
            tiered.tiers.jit_ns_per_item < tiered.tiers.vm_ns_per_item);
  if (tiered.backend == Backend::kVm) {
    EXPECT_NE(tiered.backend_note.find("the vm is faster"), std::string::npos)
        << tiered.backend_note;
  }
  EXPECT_GT(tiered.jit_compile_ms, 0.0);
  ASSERT_TRUE(session.Evaluate().ok());
  const std::vector<float> after(session.Output(0).begin(), session.Output(0).end());
  EXPECT_EQ(std::memcmp(before.data(), after.data(), before.size() * sizeof(float)), 0);
  const VersionStats counted = engine.Stats();
  EXPECT_EQ(counted.evaluations, 2u);
  EXPECT_EQ(counted.items, 2000u);
}

TEST(ServingTest, WithoutTierChoiceTheJitServesOnceCompiled) {
  ServingOptions options;
  options.measure_tiers = false;
  Result<ServingEngine> engine =
      ServingEngine::Create(ParseText("input x; f = exp(x) * 3 + x;"), options);
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  engine->WaitForJit();
  const VersionStats stats = engine->Stats();
  EXPECT_EQ(stats.backend, Backend::kJit) << stats.backend_note;
  EXPECT_FALSE(stats.tiers.measured);
}

// Each version is timed on its own; a set with nothing for the JIT to compile
// (no region: an input stored as an output) is not timed and stays on the VM.
TEST(ServingTest, TierChoiceIsPerVersion) {
  ServingEngine engine = Serve("input x; f = log(abs(x) + 1) / (x * x + 2);");
  engine.WaitForJit();
  const VersionStats first = engine.Stats();
  ASSERT_TRUE(first.tiers.measured) << first.tiers.note;
  EXPECT_EQ(first.tiers.items, 1000u);  // no traffic yet: the default batch
  EXPECT_EQ(first.backend, first.tiers.chosen);

  ASSERT_TRUE(engine.Reload("input x; f = x;", Format::kText).ok());
  engine.WaitForJit();
  const VersionStats second = engine.Stats();
  EXPECT_EQ(second.version, 2u);
  EXPECT_FALSE(second.tiers.measured);
  EXPECT_NE(second.tiers.note.find("no region"), std::string::npos) << second.tiers.note;
  EXPECT_EQ(second.backend, Backend::kVm);
}

// The batch timed has the traffic's mean item count, capped.
TEST(ServingTest, TierChoiceTimesTheTrafficsBatchSize) {
  const FeatureSet set = ParseText("input x; input q: query; f = x * q + sqrt(x);");
  const Result<Engine> vm = Engine::Compile(set, EngineOptions{Backend::kVm});
  ASSERT_TRUE(vm.ok()) << vm.status().ToString();
  const Result<Engine> jit = Engine::Compile(set, EngineOptions{Backend::kJit});
  ASSERT_TRUE(jit.ok()) << jit.status().ToString();
  const Result<TierMeasurement> small = MeasureTiers(*vm, *jit, 37);
  ASSERT_TRUE(small.ok()) << small.status().ToString();
  EXPECT_TRUE(small->measured);
  EXPECT_EQ(small->items, 37u);
  EXPECT_NE(small->note.find("at 37 items"), std::string::npos) << small->note;
  const Result<TierMeasurement> capped = MeasureTiers(*vm, *jit, 1'000'000);
  ASSERT_TRUE(capped.ok()) << capped.status().ToString();
  EXPECT_EQ(capped->items, kMaxTierMeasurementItems);
  // Engines that are not a VM and a JIT engine are not timed.
  const Result<TierMeasurement> same = MeasureTiers(*vm, *vm, 10);
  ASSERT_TRUE(same.ok());
  EXPECT_FALSE(same->measured);
}

TEST(ServingTest, AJitThatCannotCompileLeavesTheVmServingWithAReason) {
  ServingOptions options;
  options.engine.jit_node_limit = 2;
  Result<ServingEngine> engine =
      ServingEngine::Create(ParseText("input x; f = x * 2 + x / 3 - x;"), options);
  ASSERT_TRUE(engine.ok());
  engine->WaitForJit();
  const VersionStats stats = engine->Stats();
  EXPECT_EQ(stats.backend, Backend::kVm);
  EXPECT_NE(stats.backend_note.find("limit"), std::string::npos) << stats.backend_note;
}

TEST(ServingTest, ABindingForAnOlderSchemaIsAnErrorUntilRebind) {
  ServingEngine engine = Serve("input x; f = x * 2;", Backend::kVm);
  const std::vector<float> x = Items(4);
  std::vector<float> f(4);
  Session session(engine);
  session.SetItemCount(4);
  ASSERT_TRUE(session.BindInput("x", x).ok());
  ASSERT_TRUE(session.BindOutput("f", f).ok());
  ASSERT_TRUE(session.Evaluate().ok());

  ASSERT_TRUE(
      engine.Reload("input x: item[2]; input y; f = y + 1; g = dot(x, x);", Format::kText).ok());
  f.assign(4, -1.0f);
  const Status stale = session.Evaluate();
  ASSERT_FALSE(stale.ok());
  EXPECT_NE(stale.message().find("different schema"), std::string::npos) << stale.message();
  EXPECT_EQ(f, std::vector<float>(4, -1.0f)) << "an error must write nothing";

  session.Rebind();
  EXPECT_EQ(session.schema().inputs.size(), 2u);
  // x is still bound to 4 floats, but is now a 2-vector per item: refused.
  std::vector<float> y = Items(4);
  ASSERT_TRUE(session.BindInput("y", y).ok());
  const Status wrong_length = session.Evaluate();
  ASSERT_FALSE(wrong_length.ok());
  EXPECT_NE(wrong_length.message().find("'x'"), std::string::npos) << wrong_length.message();
  std::vector<float> x2 = Items(8);
  ASSERT_TRUE(session.BindInput("x", x2).ok());
  ASSERT_TRUE(session.Evaluate().ok()) << session.Evaluate().ToString();
  EXPECT_EQ(f[1], y[1] + 1);
  EXPECT_EQ(engine.Stats().errors, 2u);  // the stale binding, the wrong length
}

TEST(ServingTest, ShadowAgainstTheReferenceFindsNoMismatch) {
  ServingEngine engine = Serve("input x; f = tanh(x) * sigmoid(x * 3) + rank(x);", Backend::kVm);
  ShadowOptions shadow;
  shadow.fraction = 0.5;
  ASSERT_TRUE(engine.SetShadow(shadow).ok());
  const std::vector<float> x = Items(300);
  Session session(engine);
  session.SetItemCount(x.size());
  ASSERT_TRUE(session.BindInput("x", x).ok());
  for (int k = 0; k < 20; ++k) ASSERT_TRUE(session.Evaluate().ok());
  engine.DrainShadow();
  const VersionStats stats = engine.Stats();
  EXPECT_EQ(stats.shadow_evaluations + stats.shadow_dropped, 10u);
  EXPECT_GT(stats.shadow_evaluations, 0u);
  EXPECT_EQ(stats.mismatches, 0u);
  EXPECT_TRUE(engine.Mismatches().empty());
}

TEST(ServingTest, ShadowReportsAnInjectedMismatchWithoutChangingTheResult) {
  ServingEngine engine = Serve("input x; f = x * 2; g = x + 1;", Backend::kVm);
  ShadowOptions shadow;
  shadow.fraction = 1.0;
  // The candidate differs from the served set in one item of one output.
  shadow.candidate = std::make_shared<const FeatureSet>(
      ParseText("input x; f = if(x == 0.5, 7, x * 2); g = x + 1;"));
  ASSERT_TRUE(engine.SetShadow(shadow).ok());
  const std::vector<float> x = {0.0f, 0.5f, 1.0f};
  Session session(engine);
  session.SetItemCount(x.size());
  ASSERT_TRUE(session.BindInput("x", x).ok());
  ASSERT_TRUE(session.Evaluate().ok());
  EXPECT_EQ(session.Output(0)[1], 1.0f) << "the caller gets the served result";
  engine.DrainShadow();
  EXPECT_EQ(engine.Stats().mismatches, 1u);
  const std::vector<Mismatch> mismatches = engine.Mismatches();
  ASSERT_EQ(mismatches.size(), 1u);
  EXPECT_EQ(mismatches[0].ToString(), "f[1]: served 0x3F800000, shadow 0x40E00000 (version 1)");

  ShadowOptions off;
  ASSERT_TRUE(engine.SetShadow(off).ok());
  ASSERT_TRUE(session.Evaluate().ok());
  engine.DrainShadow();
  EXPECT_EQ(engine.Stats().shadow_evaluations, 1u);
}

TEST(ServingTest, ClearForgetsEveryBinding) {
  ServingEngine engine = Serve("input x; input w: query = 10; f = x * w;", Backend::kVm);
  std::vector<float> x = {1, 2};
  std::vector<float> w = {3};
  std::vector<float> f(2);
  Session session(engine);
  session.SetItemCount(2);
  ASSERT_TRUE(session.BindInput("x", x).ok());
  ASSERT_TRUE(session.BindInput("w", w).ok());
  ASSERT_TRUE(session.BindOutput("f", f).ok());
  ASSERT_TRUE(session.Evaluate().ok());
  EXPECT_EQ(f[1], 6.0f);
  session.Clear();
  const Status unbound = session.Evaluate();
  ASSERT_FALSE(unbound.ok());
  EXPECT_NE(unbound.message().find("'x'"), std::string::npos) << unbound.message();
  ASSERT_TRUE(session.BindInput("x", x).ok());
  ASSERT_TRUE(session.Evaluate().ok());
  EXPECT_EQ(session.Output(0)[1], 20.0f) << "w's default, into the session's own buffer";
  EXPECT_EQ(f[1], 6.0f) << "the old output binding is forgotten";
}

TEST(ServingTest, AnEngineOutlivesItsSessionsAndSessionsOutliveTheEngine) {
  std::optional<Session> session;
  std::vector<float> x = Items(16);
  {
    ServingEngine engine = Serve("input x; f = exp(x);");
    session.emplace(engine);
  }
  session->SetItemCount(x.size());
  ASSERT_TRUE(session->BindInput("x", x).ok());
  EXPECT_TRUE(session->Evaluate().ok());
}

// 8 threads evaluate while another reloads between two sets 1,000 times;
// every result is exactly one version's output, never a mix.
TEST(ServingStressTest, ReloadsUnderLoadNeverTearAResult) {
  const FeatureSet a = ParseText("input x; input w: query = 2; f = x * w + 1; g = f * f;");
  const FeatureSet b = ParseText("input x; input w: query = 2; f = x * w - 1; g = f + f;");
  Result<ServingEngine> created = ServingEngine::Create(a);
  ASSERT_TRUE(created.ok());
  ServingEngine& engine = *created;
  constexpr int kReloads = 1000;
  constexpr int kThreads = 8;
  std::atomic<bool> done{false};
  std::atomic<int> failures{0};
  std::atomic<long> evaluations{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const std::size_t n = 64 + 37 * static_cast<std::size_t>(t);
      std::vector<float> x(n);
      for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i + t);
      std::vector<float> g(n);
      Session session(engine);
      session.SetItemCount(n);
      if (!session.BindInput("x", x).ok() || !session.BindOutput("g", g).ok()) ++failures;
      while (!done.load()) {
        if (!session.Evaluate().ok()) {
          ++failures;
          break;
        }
        ++evaluations;
        // Odd versions are set a, even ones set b.
        const bool is_a = session.version() % 2 == 1;
        const std::span<const float> f = session.Output(0);
        for (std::size_t i = 0; i < n; ++i) {
          const float fi = is_a ? x[i] * 2 + 1 : x[i] * 2 - 1;
          const float gi = is_a ? fi * fi : fi + fi;
          if (f[i] != fi || g[i] != gi) {
            ++failures;
            return;
          }
        }
      }
    });
  }
  for (int k = 0; k < kReloads; ++k) {
    const Result<std::uint64_t> version = engine.Reload(k % 2 == 0 ? b : a);
    ASSERT_TRUE(version.ok()) << version.status().ToString();
    ASSERT_EQ(*version, static_cast<std::uint64_t>(k + 2));
  }
  done = true;
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_GT(evaluations.load(), kThreads);
  std::cout << "[ info     ] " << evaluations.load() << " evaluations during " << kReloads
            << " reloads" << std::endl;
}

}  // namespace
}  // namespace calcjit
