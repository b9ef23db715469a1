// The JIT backend's promises beyond the bits (which the conformance and
// differential tests check): it falls back to the VM with a reason, installs
// no signal handlers, frees its code, recompiles only what changed, compiles
// off the caller's thread, and its dumps name the features.
#include <gtest/gtest.h>

#include <csignal>
#include <cstring>
#include <future>
#include <iostream>
#include <string>
#include <vector>

#include "backend/jit/compiler.h"
#include "backend/jit/jit.h"
#include "calcjit/calcjit.hpp"
#include "runtime/internal.h"
#include "tests/support/api_test_util.h"

namespace calcjit {
namespace {

using testing_util::Bits;
using testing_util::ParseText;

// Evaluates output 0 over x = 0.5, 1.5, ... (n items).
std::vector<std::uint32_t> Evaluate(const Engine& engine, std::size_t n) {
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i) + 0.5f;
  Batch batch(engine);
  batch.SetItemCount(n);
  EXPECT_TRUE(batch.BindInput("x", x).ok());
  const Status status = engine.Evaluate(batch);
  EXPECT_TRUE(status.ok()) << status.ToString();
  std::vector<std::uint32_t> bits;
  for (float v : batch.Output(0)) bits.push_back(Bits(v));
  return bits;
}

// A set no other test compiles (the code cache is per process).
std::string FreshSet(const std::string& tag, int features) {
  std::string text = "input x;\n";
  for (int k = 0; k < features; ++k) {
    text += "f" + std::to_string(k) + "_" + tag + " = log1p(abs(x * " + std::to_string(k + 2) +
            ")) + " + (k == 0 ? std::string("x") : "f" + std::to_string(k - 1) + "_" + tag) +
            " / 3;\n";
  }
  return text;
}

TEST(JitTest, AutoServesFromTheVmWhenTheSetIsOverTheLimitAndSaysWhy) {
  const FeatureSet set = ParseText(FreshSet("limit", 20));
  EngineOptions options;
  options.jit_node_limit = 10;
  const Result<Engine> served = Engine::Compile(set, options);
  ASSERT_TRUE(served.ok()) << served.status().ToString();
  EXPECT_EQ(served->backend(), Backend::kVm);
  EXPECT_NE(served->backend_note().find("more than the JIT's limit of 10"), std::string::npos)
      << served->backend_note();

  const Result<Engine> jit = Engine::Compile(set, EngineOptions{Backend::kJit});
  ASSERT_TRUE(jit.ok()) << jit.status().ToString();
  EXPECT_EQ(jit->backend(), Backend::kJit);
  EXPECT_EQ(jit->backend_note(), "");
  EXPECT_EQ(Evaluate(*served, 37), Evaluate(*jit, 37));

  // Naming the JIT over the limit is an error, not a silent switch.
  options.backend = Backend::kJit;
  const Result<Engine> refused = Engine::Compile(set, options);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("limit"), std::string::npos);
}

TEST(JitTest, AutoPicksTheJitWhenItCan) {
  const Result<Engine> engine = Engine::Compile(ParseText(FreshSet("auto", 3)));
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  EXPECT_EQ(engine->backend(), Backend::kJit);
  EXPECT_EQ(engine->backend_note(), "");
}

void Sentinel(int) {}

// The library lives in JVMs and Python processes that own their signals.
TEST(JitTest, CompilingInstallsNoSignalHandlers) {
  const std::vector<int> signals = {SIGSEGV, SIGBUS,  SIGILL,  SIGFPE, SIGABRT, SIGTRAP,
                                    SIGINT,  SIGTERM, SIGQUIT, SIGHUP, SIGPIPE, SIGUSR1,
                                    SIGUSR2, SIGXCPU, SIGXFSZ, SIGSYS, SIGPWR};
  std::vector<struct sigaction> saved(signals.size());
  struct sigaction mine = {};
  mine.sa_handler = Sentinel;
  for (std::size_t k = 0; k < signals.size(); ++k) {
    ASSERT_EQ(sigaction(signals[k], &mine, &saved[k]), 0);
  }
  const Result<Engine> engine =
      Engine::Compile(ParseText(FreshSet("signals", 5)), EngineOptions{Backend::kJit});
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  ASSERT_EQ(Evaluate(*engine, 5).size(), 5u);
  for (std::size_t k = 0; k < signals.size(); ++k) {
    struct sigaction now = {};
    ASSERT_EQ(sigaction(signals[k], &saved[k], &now), 0);
    EXPECT_EQ(now.sa_handler, &Sentinel) << "the handler of signal " << signals[k] << " changed";
  }
}

TEST(JitTest, CodeIsFreedWhenTheLastEngineUsingItIsReleased) {
  jit::ClearCodeCache();
  const std::size_t before = jit::GetCodeCacheStats().live_objects;
  const std::size_t bytes_before = jit::GetCodeCacheStats().live_bytes;
  std::vector<std::uint32_t> first;
  {
    const Result<Engine> engine =
        Engine::Compile(ParseText(FreshSet("freed", 4)), EngineOptions{Backend::kJit});
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    EXPECT_GT(jit::GetCodeCacheStats().live_objects, before);
    // The engine keeps its code when the cache lets go of it.
    jit::ClearCodeCache();
    EXPECT_GT(jit::GetCodeCacheStats().live_objects, before);
    first = Evaluate(*engine, 100);
  }
  EXPECT_EQ(jit::GetCodeCacheStats().live_objects, before);
  EXPECT_EQ(jit::GetCodeCacheStats().live_bytes, bytes_before);

  // And compiling the set again (now from scratch) gives the same bits.
  const Result<Engine> again =
      Engine::Compile(ParseText(FreshSet("freed", 4)), EngineOptions{Backend::kJit});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(Evaluate(*again, 100), first);
}

TEST(JitTest, TheCodeCacheStaysWithinItsBound) {
  jit::ClearCodeCache();
  jit::SetCodeCacheLimit(1);  // smaller than any piece: nothing stays cached
  const Result<Engine> engine =
      Engine::Compile(ParseText(FreshSet("bound", 4)), EngineOptions{Backend::kJit});
  ASSERT_TRUE(engine.ok());
  EXPECT_EQ(jit::GetCodeCacheStats().entries, 0u);
  EXPECT_EQ(jit::GetCodeCacheStats().bytes, 0u);
  EXPECT_EQ(Evaluate(*engine, 20).size(), 20u);  // the engine holds its own code
  jit::SetCodeCacheLimit(std::size_t{64} << 20);
}

TEST(JitTest, AnEditedSetRecompilesOnlyThePiecesItsEditsTouch) {
  EngineOptions options{Backend::kJit};
  options.jit_piece_nodes = 40;  // several pieces for this small set
  options.jit_parallel = false;
  std::string text = "input x;\n";
  for (int k = 0; k < 60; ++k) {
    text += "g" + std::to_string(k) + " = exp(x * " + std::to_string(k) + ") + x / " +
            std::to_string(k + 7) + ";\n";
  }
  const std::size_t first_misses = jit::GetCodeCacheStats().misses;
  const Result<Engine> original = Engine::Compile(ParseText(text), options);
  ASSERT_TRUE(original.ok()) << original.status().ToString();
  const std::size_t pieces = jit::GetCodeCacheStats().misses - first_misses;
  ASSERT_GE(pieces, 4u);

  std::string edited = text;
  const std::string formula = "g30 = exp(x * 30)";
  edited.replace(edited.find(formula), formula.size(), "g30 = exp(x * 31)");
  const std::size_t misses_before = jit::GetCodeCacheStats().misses;
  const std::size_t hits_before = jit::GetCodeCacheStats().hits;
  const Result<Engine> reloaded = Engine::Compile(ParseText(edited), options);
  ASSERT_TRUE(reloaded.ok()) << reloaded.status().ToString();
  const std::size_t compiled = jit::GetCodeCacheStats().misses - misses_before;
  const std::size_t reused = jit::GetCodeCacheStats().hits - hits_before;
  std::cout << "[ info     ] " << pieces << " pieces; after the edit " << compiled << " compiled, "
            << reused << " reused\n";
  EXPECT_GE(reused, 3u);
  EXPECT_LT(compiled, reused);
}

TEST(JitTest, ReloadingUnchangedBytesReturnsTheEngineInUse) {
  const std::string text = FreshSet("reload", 30);
  const Result<Engine> serving = Engine::Compile(ParseText(text));
  ASSERT_TRUE(serving.ok());
  const std::size_t misses = jit::GetCodeCacheStats().misses;
  const Result<Engine> reloaded = Engine::Compile(ParseText(text));
  ASSERT_TRUE(reloaded.ok());
  EXPECT_EQ(&serving->compiled(), &reloaded->compiled());
  EXPECT_EQ(jit::GetCodeCacheStats().misses, misses);
}

TEST(JitTest, CompileAsyncCompilesOffTheCallersThread) {
  std::future<Result<Engine>> pending =
      Engine::CompileAsync(ParseText(FreshSet("async", 10)), EngineOptions{Backend::kJit});
  const Result<Engine> engine = pending.get();
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  const Result<Engine> vm =
      Engine::Compile(ParseText(FreshSet("async", 10)), EngineOptions{Backend::kVm});
  ASSERT_TRUE(vm.ok());
  EXPECT_EQ(Evaluate(*engine, 1001), Evaluate(*vm, 1001));

  std::future<Result<Engine>> failing = Engine::CompileAsync(
      ParseText(FreshSet("async", 2)), EngineOptions{Backend::kJit, {"no_such_output"}});
  const Result<Engine> failed = failing.get();
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("no_such_output"), std::string::npos);
}

// Every tier this CPU has gives the same bits, through tails of every length.
TEST(JitTest, EveryTierGivesTheSameBits) {
  const FeatureSet set = ParseText(
      "input x; a = pow(x, 1.5) - tanh(x / 7); b = sigmoid(a) * log(x) + exp(-x); "
      "c = if(b > 0.5, b, -a) + batch_mean(a);");
  std::vector<std::vector<std::uint32_t>> results;
  for (Isa isa : {Isa::kBaseline, Isa::kAvx2, Isa::kAvx512}) {
    if (!IsIsaSupported(isa)) continue;
    EngineOptions options{Backend::kJit, {"c"}};
    options.isa = isa;
    const Result<Engine> engine = Engine::Compile(set, options);
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    EXPECT_EQ(engine->isa(), isa);
    for (std::size_t n : {0, 1, 15, 16, 17, 33, 1000}) {
      results.push_back(Evaluate(*engine, n));
    }
  }
  const Result<Engine> reference = Engine::Compile(set, EngineOptions{Backend::kReference, {"c"}});
  ASSERT_TRUE(reference.ok());
  std::size_t k = 0;
  while (k < results.size()) {
    for (std::size_t n : {0, 1, 15, 16, 17, 33, 1000}) {
      EXPECT_EQ(results[k++], Evaluate(*reference, n)) << "n = " << n;
    }
  }
}

// The dumps trace back to features: pieces are named after them, and so are
// the values (LLVM names) that hold their results.
TEST(JitTest, DumpsNameTheFeatures) {
  const FeatureSet set = ParseText("input price; input rating; score = rating / (price + 1);");
  EngineOptions options;
  options.isa = Isa::kAvx2;
  for (DumpKind kind : {DumpKind::kIr, DumpKind::kOptimizedIr, DumpKind::kAssembly}) {
    const Result<std::string> dump = Dump(set, kind, options);
    ASSERT_TRUE(dump.ok()) << dump.status().ToString();
    EXPECT_NE(dump->find("calcjit.score"), std::string::npos) << *dump;
  }
  const Result<std::string> ir = Dump(set, DumpKind::kIr, options);
  EXPECT_NE(ir->find("%price"), std::string::npos) << *ir;
  const Result<std::string> assembly = Dump(set, DumpKind::kAssembly, options);
  EXPECT_NE(assembly->find("vdivps"), std::string::npos) << "no AVX2 division in\n" << *assembly;
}

// Code for a tier is only generated for a dump, never run: every tier's
// machine code can be shown on any host.
TEST(JitTest, DumpsEveryTierOnAnyHost) {
  const FeatureSet set = ParseText("input price; input rating; score = rating / (price + 1);");
  EngineOptions options;
  options.isa = Isa::kAvx512;
  const Result<std::string> assembly = Dump(set, DumpKind::kAssembly, options);
  ASSERT_TRUE(assembly.ok()) << assembly.status().ToString();
  EXPECT_NE(assembly->find("zmm"), std::string::npos) << "no AVX-512 register in\n" << *assembly;
}

}  // namespace
}  // namespace calcjit
