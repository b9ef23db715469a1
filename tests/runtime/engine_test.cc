// The public C++ API: loading, compiling for a backend, binding the caller's
// memory, evaluating (spec sections 1 and 5), on every backend of the build.
#include <gtest/gtest.h>
#include <pthread.h>
#include <xmmintrin.h>

#include <atomic>
#include <cfenv>
#include <cstring>
#include <fstream>
#include <random>
#include <thread>
#include <vector>

#include "calcjit/calcjit.hpp"
#include "tests/support/api_test_util.h"

namespace calcjit {
namespace {

using testing_util::Bits;
using testing_util::ParseText;

Engine CompileFor(const FeatureSet& set, Backend backend, std::vector<std::string> outputs = {}) {
  Result<Engine> engine = Engine::Compile(set, EngineOptions{backend, std::move(outputs)});
  EXPECT_TRUE(engine.ok()) << engine.status().ToString();
  return std::move(engine).value();
}

std::vector<Backend> AvailableBackends() {
  std::vector<Backend> backends;
  for (Backend b : {Backend::kReference, Backend::kVm, Backend::kJit}) {
    if (IsBackendAvailable(b)) backends.push_back(b);
  }
  return backends;
}

class EngineTest : public ::testing::TestWithParam<Backend> {};

TEST_P(EngineTest, SchemaHasOnlyWhatTheRequestedOutputsNeed) {
  const FeatureSet set = ParseText(
      "input q: query = 2; input unused: item[3];\n"
      "a = x * q; b = y + 1; c = a + z;");
  EXPECT_EQ(set.schema().inputs.size(), 5u);  // q, unused, then implicit x, y, z
  EXPECT_EQ(set.ImplicitInputs(), (std::vector<std::string>{"x", "y", "z"}));
  const Engine engine = CompileFor(set, GetParam(), {"c", "a"});
  ASSERT_EQ(engine.schema().inputs.size(), 3u);
  EXPECT_EQ(engine.schema().inputs[0].name, "q");
  EXPECT_EQ(engine.schema().inputs[1].name, "x");
  EXPECT_EQ(engine.schema().inputs[2].name, "z");
  EXPECT_EQ(engine.schema().outputs, (std::vector<std::string>{"c", "a"}));
  EXPECT_EQ(engine.backend(), GetParam());
}

TEST_P(EngineTest, UnknownOrRepeatedOutputsAreErrors) {
  const FeatureSet set = ParseText("input x; a = x;");
  for (const auto& [outputs, message] :
       std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"nope"}, "unknown output 'nope'"},
           {{"x"}, "'x' is an input"},
           {{"a", "a"}, "output 'a' is requested twice"}}) {
    const Result<Engine> engine = Engine::Compile(set, EngineOptions{GetParam(), outputs});
    ASSERT_FALSE(engine.ok());
    EXPECT_NE(engine.status().message().find(message), std::string::npos)
        << engine.status().ToString();
  }
}

TEST_P(EngineTest, BadBindingsFailBeforeAnyOutputIsWritten) {
  const FeatureSet set = ParseText(
      "input q: query; input v: item[2]; input w: query[2];\n"
      "f = x + q + dot(v, w);");
  const Engine engine = CompileFor(set, GetParam());
  const float x[3] = {1, 2, 3};
  const float q[1] = {1};
  const float v[6] = {1, 2, 3, 4, 5, 6};
  const float w[2] = {1, 1};
  struct BadCase {
    std::string input;
    std::size_t length;
    std::string message;
  };
  for (const BadCase& bad : std::vector<BadCase>{
           {"x", 2, "input 'x' needs 3 floats for 3 items, got 2"},
           {"q", 3, "input 'q' needs 1 float (a query scalar), got 3"},
           {"v", 5, "input 'v' needs 6 floats for 3 items (an item vector of dimension 2), got 5"},
           {"w", 3, "input 'w' needs 2 floats (a query vector of dimension 2), got 3"},
           {"x", 0, "input 'x' is not bound and has no default value"}}) {
    Batch batch(engine);
    batch.SetItemCount(3);
    float out[3] = {-7, -7, -7};
    ASSERT_TRUE(batch.BindOutput("f", out).ok());
    const std::vector<float> long_buffer(8, 1.0f);
    for (const auto& [name, data] : std::vector<std::pair<std::string, std::span<const float>>>{
             {"x", x}, {"q", q}, {"v", v}, {"w", w}}) {
      if (name != bad.input) {
        ASSERT_TRUE(batch.BindInput(name, data).ok());
      } else if (bad.length > 0) {
        ASSERT_TRUE(batch.BindInput(name, std::span(long_buffer).first(bad.length)).ok());
      }
    }
    const Status status = engine.Evaluate(batch);
    ASSERT_FALSE(status.ok()) << bad.input;
    EXPECT_EQ(status.message(), bad.message);
    EXPECT_EQ(status.location(), bad.input);
    for (float o : out) EXPECT_EQ(o, -7.0f) << "an output was written despite the error";
  }
}

TEST_P(EngineTest, OutputBoundToTheWrongLengthIsAnError) {
  const Engine engine = CompileFor(ParseText("f = x;"), GetParam());
  Batch batch(engine);
  const float x[2] = {1, 2};
  float out[3] = {0, 0, 0};
  batch.SetItemCount(2);
  ASSERT_TRUE(batch.BindInput("x", x).ok());
  ASSERT_TRUE(batch.BindOutput("f", out).ok());
  const Status status = engine.Evaluate(batch);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(), "output 'f' needs 2 floats for 2 items, got 3");
  EXPECT_EQ(status.location(), "f");
  EXPECT_FALSE(batch.BindInput("nope", x).ok());
  EXPECT_FALSE(batch.BindOutput("nope", out).ok());
  EXPECT_FALSE(batch.BindInput(7, x).ok());
}

TEST_P(EngineTest, ABatchBelongsToItsEngine) {
  const FeatureSet set = ParseText("f = x;");
  const Engine one = CompileFor(set, GetParam());
  const Engine other = CompileFor(ParseText("f = x + 1;"), GetParam());
  Batch batch(one);
  batch.SetItemCount(0);
  ASSERT_TRUE(batch.BindInput("x", std::span<const float>()).ok());
  EXPECT_TRUE(one.Evaluate(batch).ok());
  const Status status = other.Evaluate(batch);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("another engine"), std::string::npos);
}

TEST_P(EngineTest, RecompilingAnUnchangedSetReturnsTheEngineInUse) {
  const std::string text = "input x; f = x * 3; g = f + 1;";
  const Engine serving = CompileFor(ParseText(text), GetParam());
  const Engine reloaded = CompileFor(ParseText(text), GetParam());
  EXPECT_TRUE(&serving.compiled() == &reloaded.compiled());
  // Different options, or different bytes, compile anew.
  EXPECT_FALSE(&serving.compiled() == &CompileFor(ParseText(text), GetParam(), {"g"}).compiled());
  EXPECT_FALSE(&serving.compiled() == &CompileFor(ParseText(text + " "), GetParam()).compiled());
}

TEST_P(EngineTest, OutputsThatShareMemoryWithInputsOrEachOtherAreRefused) {
  const Engine engine = CompileFor(ParseText("input x; f = x * 2; g = x + 1;"), GetParam());
  std::vector<float> memory(12, 1.0f);
  Batch batch(engine);
  batch.SetItemCount(4);
  ASSERT_TRUE(batch.BindInput("x", std::span<const float>(memory).subspan(0, 4)).ok());
  ASSERT_TRUE(batch.BindOutput("f", std::span<float>(memory).subspan(3, 4)).ok());
  Status status = engine.Evaluate(batch);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("output 'f' shares memory with input 'x'"), std::string::npos)
      << status.message();
  ASSERT_TRUE(batch.BindOutput("f", std::span<float>(memory).subspan(4, 4)).ok());
  ASSERT_TRUE(batch.BindOutput("g", std::span<float>(memory).subspan(7, 4)).ok());
  status = engine.Evaluate(batch);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("output 'g' shares memory with output 'f'"), std::string::npos)
      << status.message();
  EXPECT_EQ(memory, std::vector<float>(12, 1.0f)) << "an error must leave the outputs untouched";
  // Adjacent buffers are fine.
  ASSERT_TRUE(batch.BindOutput("g", std::span<float>(memory).subspan(8, 4)).ok());
  ASSERT_TRUE(engine.Evaluate(batch).ok());
  EXPECT_EQ(memory[4], 2.0f);
  EXPECT_EQ(memory[8], 2.0f);
}

TEST_P(EngineTest, AnOutputOverlappingAnInputPastAnotherIsFound) {
  // By address: x = [0, 4), then y = [1, 2) inside it, then f = [3, 7), which
  // overlaps x (not y, the range just before it).
  const Engine engine = CompileFor(ParseText("input x; input y: query; f = x + y;"), GetParam());
  std::vector<float> memory(12, 1.0f);
  Batch batch(engine);
  batch.SetItemCount(4);
  ASSERT_TRUE(batch.BindInput("x", std::span<const float>(memory).subspan(0, 4)).ok());
  ASSERT_TRUE(batch.BindInput("y", std::span<const float>(memory).subspan(1, 1)).ok());
  ASSERT_TRUE(batch.BindOutput("f", std::span<float>(memory).subspan(3, 4)).ok());
  const Status status = engine.Evaluate(batch);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("output 'f' shares memory with input 'x'"), std::string::npos)
      << status.message();
  // Inputs may share memory with each other.
  std::vector<float> f(4);
  ASSERT_TRUE(batch.BindOutput("f", f).ok());
  EXPECT_TRUE(engine.Evaluate(batch).ok());
  EXPECT_EQ(f[0], 2.0f);
}

// More than a few buffers take another path (a sort by address, then a
// sweep): the same answers.
TEST_P(EngineTest, OverlapsAmongManyOutputsAreFound) {
  std::string text = "input x;";
  for (int k = 0; k < 20; ++k)
    text += " f" + std::to_string(k) + " = x + " + std::to_string(k) + ";";
  const Engine engine = CompileFor(ParseText(text), GetParam());
  std::vector<float> x = {1, 2, 3, 4};
  std::vector<float> memory(4 * 21, 0.0f);
  Batch batch(engine);
  batch.SetItemCount(4);
  ASSERT_TRUE(batch.BindInput("x", x).ok());
  // Bound in reverse address order, each in a slot of its own.
  for (int k = 0; k < 20; ++k) {
    ASSERT_TRUE(
        batch.BindOutput("f" + std::to_string(k), std::span<float>(memory).subspan(4 * (20 - k), 4))
            .ok());
  }
  ASSERT_TRUE(engine.Evaluate(batch).ok());
  EXPECT_EQ(memory[4 * 20], 1.0f);  // f0[0]
  EXPECT_EQ(memory[7], 23.0f);      // f19[3]
  // f7 moved one float down, into f8's slot.
  ASSERT_TRUE(batch.BindOutput("f7", std::span<float>(memory).subspan(4 * 13 - 1, 4)).ok());
  Status status = engine.Evaluate(batch);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("shares memory with output 'f"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("'f7'"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("'f8'"), std::string::npos) << status.message();
  // An output on the input.
  ASSERT_TRUE(batch.BindOutput("f7", std::span<float>(memory).subspan(4 * 13, 4)).ok());
  ASSERT_TRUE(batch.BindOutput("f3", std::span<float>(x)).ok());
  status = engine.Evaluate(batch);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("output 'f3' shares memory with input 'x'"), std::string::npos)
      << status.message();
}

TEST_P(EngineTest, OwnedOutputsAreReusedAndCallerOutputsWrittenInPlace) {
  const Engine engine = CompileFor(ParseText("f = x * 2; g = x + 1;"), GetParam());
  Batch batch(engine);
  std::vector<float> x = {1, 2, 3, 4};
  std::vector<float> g(4);
  batch.SetItemCount(4);
  ASSERT_TRUE(batch.BindInput("x", x).ok());
  ASSERT_TRUE(batch.BindOutput("g", g).ok());
  ASSERT_TRUE(engine.Evaluate(batch).ok());
  const float* first = batch.Output(0).data();
  EXPECT_EQ(std::vector<float>(batch.Output(0).begin(), batch.Output(0).end()),
            (std::vector<float>{2, 4, 6, 8}));
  EXPECT_EQ(g, (std::vector<float>{2, 3, 4, 5}));
  EXPECT_EQ(batch.Output(1).data(), g.data());
  x = {5, 6, 7, 8};
  ASSERT_TRUE(engine.Evaluate(batch).ok());
  EXPECT_EQ(batch.Output(0).data(), first);
  EXPECT_EQ(batch.Output(0)[3], 16.0f);
  const Result<std::span<const float>> by_name = batch.Output("g");
  ASSERT_TRUE(by_name.ok());
  EXPECT_EQ((*by_name)[0], 6.0f);
}

TEST_P(EngineTest, EmptyAndSingleItemBatches) {
  const Engine engine =
      CompileFor(ParseText("input q: query; f = rank(x) + batch_mean(x) * q;"), GetParam());
  for (std::size_t n : {0u, 1u}) {
    Batch batch(engine);
    const float x[1] = {4};
    const float q[1] = {2};
    batch.SetItemCount(n);
    ASSERT_TRUE(batch.BindInput("x", std::span(x).first(n)).ok());
    ASSERT_TRUE(batch.BindInput("q", q).ok());
    ASSERT_TRUE(engine.Evaluate(batch).ok());
    ASSERT_EQ(batch.Output(0).size(), n);
    if (n == 1) {
      EXPECT_EQ(batch.Output(0)[0], 9.0f);
    }
  }
}

// Inputs that start anywhere (not 32-byte aligned) and item counts that are
// not a multiple of any vector width give the same bits.
TEST_P(EngineTest, UnalignedInputsAndOddCounts) {
  const FeatureSet set = ParseText(
      "input v: item[3]; input u: query[3];\n"
      "f = sigmoid(x) * exp(-x) + log1p(abs(x)) / (x + 3) + dot(v, u) + tanh(x) ^ 2;\n"
      "g = softmax(x) + zscore(f);");
  const Engine engine = CompileFor(set, GetParam());
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  for (std::size_t n : {1u, 7u, 8u, 9u, 31u, 1003u}) {
    std::vector<float> storage(4 * n + 16);
    for (float& v : storage) v = normal(rng);
    const float u[3] = {0.5f, -1.0f, 2.0f};
    std::vector<std::vector<float>> results;
    for (std::size_t offset : {0u, 1u, 3u}) {
      std::vector<float> shifted(storage.size() + offset);
      std::copy(storage.begin(), storage.end(), shifted.begin() + static_cast<long>(offset));
      Batch batch(engine);
      batch.SetItemCount(n);
      ASSERT_TRUE(batch.BindInput("x", std::span(shifted).subspan(offset, n)).ok());
      ASSERT_TRUE(batch.BindInput("v", std::span(shifted).subspan(offset + n, 3 * n)).ok());
      ASSERT_TRUE(batch.BindInput("u", u).ok());
      ASSERT_TRUE(engine.Evaluate(batch).ok());
      std::vector<float> result(batch.Output(1).begin(), batch.Output(1).end());
      result.insert(result.end(), batch.Output(0).begin(), batch.Output(0).end());
      results.push_back(std::move(result));
    }
    for (std::size_t i = 0; i < results[0].size(); ++i) {
      EXPECT_EQ(Bits(results[1][i]), Bits(results[0][i])) << "n=" << n << " i=" << i;
      EXPECT_EQ(Bits(results[2][i]), Bits(results[0][i])) << "n=" << n << " i=" << i;
    }
  }
}

// The evaluation runs with round-to-nearest and subnormals kept whatever the
// calling thread set, and restores the thread's settings (spec section 1).
TEST_P(EngineTest, CallersFloatingPointEnvironmentDoesNotMatter) {
  const FeatureSet set = ParseText(
      "f = x * 1e-30;\n"        // subnormal results: FTZ would flush them
      "g = x / 3 + x * 0.1;\n"  // rounding-mode sensitive
      "h = exp(x) + log(x + 2) + sqrt(x + 5) + batch_sum(x / 3);\n");
  const Engine engine = CompileFor(set, GetParam());
  const std::vector<float> x = {1e-15f, 1.0f, 2.5e-9f, 7.0f, 1e-42f, -1.0f, 0.3f, 1e-8f, 3.0f};
  auto evaluate = [&] {
    Batch batch(engine);
    batch.SetItemCount(x.size());
    EXPECT_TRUE(batch.BindInput("x", x).ok());
    EXPECT_TRUE(engine.Evaluate(batch).ok());
    std::vector<std::uint32_t> bits;
    for (std::size_t k = 0; k < 3; ++k) {
      for (float v : batch.Output(k)) bits.push_back(Bits(v));
    }
    return bits;
  };
  const std::vector<std::uint32_t> expected = evaluate();
  const unsigned original = _mm_getcsr();
  // FTZ (bit 15), DAZ (bit 6), round toward zero (bits 13-14 = 11), and the
  // invalid-operation exception unmasked (bit 7 cleared): hostile settings.
  const unsigned hostile = (original | 0x8040u | 0x6000u) & ~0x0080u;
  _mm_setcsr(hostile);
  const std::vector<std::uint32_t> actual = evaluate();
  const unsigned after = _mm_getcsr();
  _mm_setcsr(original);
  EXPECT_EQ(actual, expected);
  EXPECT_EQ(after & ~0x3Fu, hostile & ~0x3Fu) << "the caller's settings were not restored";

  std::fesetround(FE_UPWARD);
  const std::vector<std::uint32_t> upward = evaluate();
  std::fesetround(FE_TONEAREST);
  EXPECT_EQ(upward, expected);
}

TEST_P(EngineTest, ManyThreadsShareOneEngine) {
  const FeatureSet set = ParseText("f = sigmoid(x * 0.3) + rank(x) / batch_count(x);");
  const Engine engine = CompileFor(set, GetParam());
  constexpr std::size_t kItems = 500;
  std::vector<float> x(kItems);
  for (std::size_t i = 0; i < kItems; ++i) x[i] = static_cast<float>((i * 37) % 101) - 50.0f;
  Batch reference_batch(engine);
  reference_batch.SetItemCount(kItems);
  ASSERT_TRUE(reference_batch.BindInput("x", x).ok());
  ASSERT_TRUE(engine.Evaluate(reference_batch).ok());
  const std::vector<float> expected(reference_batch.Output(0).begin(),
                                    reference_batch.Output(0).end());
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      Batch batch(engine);
      batch.SetItemCount(kItems);
      if (!batch.BindInput("x", x).ok()) ++mismatches;
      for (int round = 0; round < 50; ++round) {
        if (!engine.Evaluate(batch).ok() ||
            std::memcmp(batch.Output(0).data(), expected.data(), kItems * sizeof(float)) != 0) {
          ++mismatches;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(mismatches.load(), 0);
}

// A 2,000-level formula loads from each format, compiles and evaluates on a
// thread with a 1 MiB stack, a JVM thread's default (spec section 5).
struct DeepResult {
  std::string error;
  float value = 0.0f;
};

void* DeepFormulaOnSmallStack(void* arg) {
  auto* result = static_cast<std::pair<Backend, DeepResult>*>(arg);
  std::string text = "x";
  for (int level = 0; level < 2000; ++level) {
    text = level % 2 == 0 ? "(" + text + " + 1)" : "-" + text;
  }
  Result<FeatureSet> set = FeatureSet::Parse("f = " + text + ";", Format::kText);
  if (!set.ok()) {
    result->second.error = set.status().ToString();
    return nullptr;
  }
  for (Format format : {Format::kJson, Format::kProto, Format::kText}) {
    Result<FeatureSet> again = FeatureSet::Parse(set->Serialize(format), format);
    if (!again.ok()) {
      result->second.error = std::string(FormatName(format)) + ": " + again.status().ToString();
      return nullptr;
    }
    Result<Engine> engine = Engine::Compile(*again, EngineOptions{result->first, {}});
    if (!engine.ok()) {
      result->second.error = engine.status().ToString();
      return nullptr;
    }
    Batch batch(*engine);
    const float x[1] = {5.0f};
    batch.SetItemCount(1);
    (void)batch.BindInput("x", x);
    const Status status = engine->Evaluate(batch);
    if (!status.ok()) {
      result->second.error = status.ToString();
      return nullptr;
    }
    result->second.value = batch.Output(0)[0];
  }
  return nullptr;
}

TEST_P(EngineTest, DeepFormulaOnAOneMebibyteStack) {
  std::pair<Backend, DeepResult> result{GetParam(), {}};
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstacksize(&attributes, 1 << 20);
  pthread_t thread;
  ASSERT_EQ(pthread_create(&thread, &attributes, DeepFormulaOnSmallStack, &result), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attributes);
  EXPECT_EQ(result.second.error, "");
  // Each pair of levels maps v to -(v + 1): after 1,000 pairs 5 is back to 5.
  EXPECT_EQ(result.second.value, 5.0f);
}

INSTANTIATE_TEST_SUITE_P(Backends, EngineTest, ::testing::ValuesIn(AvailableBackends()),
                         [](const ::testing::TestParamInfo<Backend>& param) {
                           return std::string(BackendName(param.param));
                         });

TEST(EngineOptionsTest, NamedBackendsThatAreMissingAreErrorsButAutoFallsBack) {
  const FeatureSet set = ParseText("f = x;");
  for (Backend backend : {Backend::kReference, Backend::kVm, Backend::kJit}) {
    const Result<Engine> engine = Engine::Compile(set, EngineOptions{backend, {}});
    if (IsBackendAvailable(backend)) {
      EXPECT_TRUE(engine.ok());
    } else {
      ASSERT_FALSE(engine.ok());
      EXPECT_NE(engine.status().message().find("not available"), std::string::npos);
    }
  }
  const Result<Engine> automatic = Engine::Compile(set, EngineOptions{Backend::kAuto, {}});
  ASSERT_TRUE(automatic.ok());
  EXPECT_NE(automatic->backend(), Backend::kAuto);
  EXPECT_EQ(BackendFromName("vm"), Backend::kVm);
  EXPECT_EQ(BackendFromName("fast"), std::nullopt);
}

TEST(FeatureSetFileTest, FormatComesFromTheExtensionAndErrorsNameTheFile) {
  const std::string dir = ::testing::TempDir();
  const std::string good = dir + "/good.calc";
  std::ofstream(good) << "f = x + 1;\n";
  const Result<FeatureSet> set = FeatureSet::ReadFile(good);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  const std::string as_json = dir + "/good.json";
  std::ofstream(as_json) << set->Serialize(Format::kJson);
  EXPECT_TRUE(FeatureSet::ReadFile(as_json).ok());
  const std::string as_pb = dir + "/good.binpb";
  std::ofstream(as_pb, std::ios::binary) << set->Serialize(Format::kProto);
  EXPECT_TRUE(FeatureSet::ReadFile(as_pb).ok());
  const std::string odd = dir + "/set.txt";
  std::ofstream(odd) << "f = x;\n";
  EXPECT_NE(FeatureSet::ReadFile(odd).status().message().find("extension"), std::string::npos);
  EXPECT_TRUE(FeatureSet::ReadFile(odd, Format::kText).ok());
  const std::string bad = dir + "/bad.calc";
  std::ofstream(bad) << "f = x +;\n";
  const Result<FeatureSet> broken = FeatureSet::ReadFile(bad);
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.status().location(), bad + ":1:8");
  EXPECT_FALSE(FeatureSet::ReadFile(dir + "/missing.calc").ok());
}

}  // namespace
}  // namespace calcjit
