// The numerics of spec 6.4 on nets built here step by step: exact values of
// the activations and of the DOT scheme's order, signed zeros, NaN, infinity
// and subnormals, the caller's floating-point environment, and random nets
// of every shape (input widths across every remainder mod 8, output counts
// across every remainder of a tile) on which every tier must give the
// reference's bits.
#include <gtest/gtest.h>
#include <xmmintrin.h>

#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "calcjit/cpu.h"
#include "math/transcendental.h"
#include "model/onnx/block_evaluator.h"
#include "model/onnx/prepared_net.h"
#include "model/onnx/reference_evaluator.h"
#include "tests/model/onnx/net_cases.h"

namespace calcjit::model::testing {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr std::uint32_t kCanonicalNan = 0x7FC00000u;

NetStep Linear(std::uint32_t in, std::uint32_t out, std::vector<float> weights,
               std::vector<float> bias = {}) {
  NetStep step;
  step.kind = NetStepKind::kLinear;
  step.in_width = in;
  step.out_width = out;
  step.weights = std::move(weights);
  step.has_bias = !bias.empty();
  step.bias = std::move(bias);
  return step;
}
NetStep Activation(std::uint32_t width, NetActivation activation, float alpha = 0.0f) {
  NetStep step;
  step.kind = NetStepKind::kActivation;
  step.in_width = step.out_width = width;
  step.activation = activation;
  step.alpha = alpha;
  return step;
}
NetStep AddBias(std::vector<float> bias) {
  NetStep step;
  step.kind = NetStepKind::kAddBias;
  step.in_width = step.out_width = static_cast<std::uint32_t>(bias.size());
  step.has_bias = true;
  step.bias = std::move(bias);
  return step;
}

std::shared_ptr<const OnnxNet> MakeNet(std::uint32_t features, std::vector<NetStep> steps) {
  auto net = std::make_shared<OnnxNet>();
  net->info.num_features = features;
  net->info.num_outputs = steps.empty() ? features : steps.back().out_width;
  net->steps = std::move(steps);
  return net;
}

// Row-major items in, row-major outputs out: the reference's, after checking
// that every tier gives exactly its bits for every n up to the item count.
std::vector<float> EvaluateAll(const std::shared_ptr<const OnnxNet>& net,
                               const std::vector<float>& rows) {
  auto prepared = PreparedNet::Prepare(net);
  EXPECT_TRUE(prepared.ok()) << prepared.status().ToString();
  const std::size_t m = net->info.num_features;
  const std::size_t k_out = net->info.num_outputs;
  const std::size_t n = rows.size() / m;
  std::vector<std::vector<float>> columns(m, std::vector<float>(n));
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < m; ++k) columns[k][i] = rows[i * m + k];
  }
  std::vector<const float*> inputs;
  for (auto& column : columns) inputs.push_back(column.data());
  auto run = [&](auto&& evaluate, std::size_t count) {
    std::vector<std::vector<float>> outputs(k_out, std::vector<float>(n, -7.0f));
    std::vector<float*> pointers;
    for (auto& output : outputs) pointers.push_back(output.data());
    evaluate(inputs.data(), count, pointers.data());
    std::vector<float> out(n * k_out, -7.0f);
    for (std::size_t i = 0; i < count; ++i) {
      for (std::size_t j = 0; j < k_out; ++j) out[i * k_out + j] = outputs[j][i];
    }
    return out;
  };
  const std::vector<float> reference =
      run([&](const float* const* in, std::size_t count,
              float* const* out) { EvaluateReference(*net, in, count, out); },
          n);
  std::vector<unsigned char> scratch(EvaluateScratchBytes(*prepared, n));
  for (Isa isa : {Isa::kBaseline, Isa::kAvx2, Isa::kAvx512}) {
    if (!IsIsaSupported(isa)) continue;
    for (std::size_t count : {n, n / 2, std::size_t{1}, std::size_t{0}}) {
      if (count > n) continue;
      const std::vector<float> block =
          run([&](const float* const* in, std::size_t c,
                  float* const* out) { Evaluate(*prepared, in, c, out, scratch.data(), isa); },
              count);
      for (std::size_t i = 0; i < count * k_out; ++i) {
        EXPECT_EQ(ToBits(block[i]), ToBits(reference[i]))
            << IsaName(isa) << " n=" << count << " item " << i / k_out << " output " << i % k_out;
      }
    }
  }
  return reference;
}

TEST(NetNumericsTest, ReluIsPositiveZeroForMinusZeroAndKeepsNan) {
  auto net = MakeNet(1, {Activation(1, NetActivation::kRelu)});
  const std::vector<float> out =
      EvaluateAll(net, {-0.0f, 0.0f, -3.0f, 2.5f, kNan, -kNan, kInf, -kInf, 1e-45f, -1e-45f});
  const std::vector<std::uint32_t> want = {
      0, 0, 0, ToBits(2.5f), kCanonicalNan, kCanonicalNan, ToBits(kInf), 0, ToBits(1e-45f), 0};
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(ToBits(out[i]), want[i]) << i;
}

TEST(NetNumericsTest, LeakyReluKeepsMinusZeroAndScalesNegatives) {
  auto net = MakeNet(1, {Activation(1, NetActivation::kLeakyRelu, 0.5f)});
  const std::vector<float> out = EvaluateAll(net, {-0.0f, -3.0f, 2.5f, kNan, -kInf, -1e-45f});
  EXPECT_EQ(ToBits(out[0]), ToBits(-0.0f));
  EXPECT_EQ(out[1], -1.5f);
  EXPECT_EQ(out[2], 2.5f);
  EXPECT_EQ(ToBits(out[3]), kCanonicalNan);
  EXPECT_EQ(out[4], -kInf);
  EXPECT_EQ(ToBits(out[5]), ToBits(-0.0f));  // 0.5 * -2^-149 rounds to -0 (ties to even)
}

TEST(NetNumericsTest, SigmoidAndTanhAreTheCorrectlyRoundedOnes) {
  std::vector<float> x = {-0.0f, 0.0f,  1.0f, -1.0f,  20.0f,   -90.0f, -200.0f,
                          kInf,  -kInf, kNan, 1e-30f, -1e-40f, 0.3f,   5.5f};
  for (NetActivation activation : {NetActivation::kSigmoid, NetActivation::kTanh}) {
    auto net = MakeNet(1, {Activation(1, activation)});
    const std::vector<float> out = EvaluateAll(net, x);
    for (std::size_t i = 0; i < x.size(); ++i) {
      const float want =
          activation == NetActivation::kSigmoid ? math::Sigmoid(x[i]) : math::Tanh(x[i]);
      EXPECT_EQ(ToBits(out[i]), std::isnan(want) ? kCanonicalNan : ToBits(want)) << x[i];
    }
  }
}

TEST(NetNumericsTest, TheDotSchemeSumsInEightStripes) {
  // x = 1 at k = 0..7 and 2^24 at k = 8, all weights 1: stripe 0 is
  // 1 + 2^24 = 2^24 (ties to even), the others 1, so the result is
  // ((2^24 + 1) + 2) + 4 = 2^24 + 6 (the first + rounds down to 2^24, then
  // 2^24 + 2, then 2^24 + 6). A left-to-right sum would give 2^24 + 8.
  auto net = MakeNet(9, {Linear(9, 1, std::vector<float>(9, 1.0f))});
  std::vector<float> row(9, 1.0f);
  row[8] = 16777216.0f;
  const std::vector<float> out = EvaluateAll(net, row);
  EXPECT_EQ(out[0], 16777222.0f);
}

TEST(NetNumericsTest, StripesStartAtPlusZeroAndTheBiasIsOneAdd) {
  // Every product -0: each stripe +0 + -0 = +0, so the dot is +0; with a
  // bias of -0 the sum stays +0. Without a bias nothing is added.
  auto no_bias = MakeNet(3, {Linear(3, 1, {1.0f, 1.0f, 1.0f})});
  EXPECT_EQ(ToBits(EvaluateAll(no_bias, {-0.0f, -0.0f, -0.0f})[0]), 0u);
  auto minus_zero_bias = MakeNet(3, {Linear(3, 1, {1.0f, 1.0f, 1.0f}, {-0.0f})});
  EXPECT_EQ(ToBits(EvaluateAll(minus_zero_bias, {-0.0f, -0.0f, -0.0f})[0]), 0u);
  // The bias after the combination: 1 + 2^24 rounds to 2^24.
  auto bias = MakeNet(1, {Linear(1, 1, {1.0f}, {16777216.0f})});
  EXPECT_EQ(EvaluateAll(bias, {1.0f})[0], 16777216.0f);
  // An identity net passes -0 through (no Add of +0 anywhere).
  EXPECT_EQ(ToBits(EvaluateAll(MakeNet(2, {}), {-0.0f, 1.0f})[0]), ToBits(-0.0f));
}

TEST(NetNumericsTest, InfinityTimesZeroIsNanAndInfinitiesCancelToNan) {
  auto net = MakeNet(2, {Linear(2, 3, {0.0f, 1.0f, 1.0f, 1.0f, 1.0f, -1.0f})});
  // y0 = inf*0 + 1*1 = NaN; y1 = inf + 1 = inf; y2 = inf + (-1) = inf.
  const std::vector<float> a = EvaluateAll(net, {kInf, 1.0f});
  EXPECT_EQ(ToBits(a[0]), kCanonicalNan);
  EXPECT_EQ(a[1], kInf);
  EXPECT_EQ(a[2], kInf);
  // y2 = inf - inf = NaN (both in stripes 0 and 1, combined).
  const std::vector<float> b = EvaluateAll(net, {kInf, kInf});
  EXPECT_EQ(ToBits(b[2]), kCanonicalNan);
}

TEST(NetNumericsTest, SubnormalsAreKeptWhateverTheCallersEnvironment) {
  // 2^-126 * 2^-10 is subnormal; with FTZ it would be 0.
  auto net = MakeNet(1, {Linear(1, 1, {0x1p-10f}), Activation(1, NetActivation::kTanh)});
  auto prepared = PreparedNet::Prepare(net);
  ASSERT_TRUE(prepared.ok());
  const float x = 0x1p-126f;
  const float* inputs[] = {&x};
  std::vector<unsigned char> scratch(EvaluateScratchBytes(*prepared, 1));
  const unsigned saved = _mm_getcsr();
  _mm_setcsr(saved | 0x8040u | 0x6000u);  // FTZ, DAZ, round toward zero
  for (Isa isa : {Isa::kBaseline, Isa::kAvx2, Isa::kAvx512}) {
    float out = 0.0f;
    float* outputs[] = {&out};
    Evaluate(*prepared, inputs, 1, outputs, scratch.data(), isa);
    EXPECT_EQ(ToBits(out), ToBits(0x1p-136f)) << IsaName(isa);  // tanh(tiny) = tiny
    EvaluateReference(*net, inputs, 1, outputs);
    EXPECT_EQ(ToBits(out), ToBits(0x1p-136f)) << "reference";
  }
  EXPECT_EQ(_mm_getcsr() & ~0x3Fu, (saved | 0x8040u | 0x6000u) & ~0x3Fu)
      << "the caller's settings come back";
  _mm_setcsr(saved);
}

TEST(NetNumericsTest, NoItemsWritesNothing) {
  auto net = MakeNet(3, {Linear(3, 2, std::vector<float>(6, 1.0f))});
  auto prepared = PreparedNet::Prepare(net);
  ASSERT_TRUE(prepared.ok());
  float sentinel[2] = {5.0f, 6.0f};
  float* outputs[] = {&sentinel[0], &sentinel[1]};
  const float* inputs[] = {nullptr, nullptr, nullptr};
  std::vector<unsigned char> scratch(EvaluateScratchBytes(*prepared, 0));
  Evaluate(*prepared, inputs, 0, outputs, scratch.data());
  EvaluateReference(*net, inputs, 0, outputs);
  EXPECT_EQ(sentinel[0], 5.0f);
  EXPECT_EQ(sentinel[1], 6.0f);
}

TEST(NetNumericsTest, PrepareRefusesAnInconsistentNet) {
  auto net = MakeNet(3, {Linear(3, 2, std::vector<float>(5, 1.0f))});
  auto prepared = PreparedNet::Prepare(net);
  ASSERT_FALSE(prepared.ok());
  EXPECT_EQ(prepared.status().kind(), ErrorKind::kInternal);
  EXPECT_EQ(prepared.status().message(), "step 0: weight count");
}

// Random nets of every shape: input widths 1..40 (every remainder mod 8),
// 1..3 layers with outputs 1..20 (every remainder of a tile of 3), every
// step kind and activation, fused or not; weights mostly ordinary with some
// zeros, infinities and NaN; inputs with every kind of special value.
TEST(NetNumericsTest, RandomNetsGiveTheReferencesBitsOnEveryTier) {
  std::mt19937_64 rng(42);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const float specials[] = {kNan, kInf, -kInf, 0.0f, -0.0f, 1e-40f, -1e-40f, 1e-45f, 3e38f, -3e38f};
  auto value = [&](double special_rate) {
    if (std::uniform_real_distribution<double>(0, 1)(rng) < special_rate) {
      return specials[rng() % std::size(specials)];
    }
    return normal(rng);
  };
  for (int round = 0; round < 200; ++round) {
    const std::uint32_t features = 1 + static_cast<std::uint32_t>(rng() % 40);
    std::vector<NetStep> steps;
    std::uint32_t width = features;
    const int layers = 1 + static_cast<int>(rng() % 3);
    for (int layer = 0; layer < layers; ++layer) {
      if (rng() % 4 == 0) {
        std::vector<float> bias(width);
        for (float& b : bias) b = value(0.02);
        steps.push_back(AddBias(bias));
      }
      const std::uint32_t out = 1 + static_cast<std::uint32_t>(rng() % 20);
      std::vector<float> w(std::size_t{width} * out);
      for (float& x : w) x = value(0.01) / std::sqrt(static_cast<float>(width));
      std::vector<float> bias;
      if (rng() % 2) {
        bias.resize(out);
        for (float& b : bias) b = value(0.01);
      }
      steps.push_back(Linear(width, out, w, bias));
      width = out;
      if (rng() % 3 == 0) {
        std::vector<float> b(width);
        for (float& x : b) x = value(0.0);
        steps.push_back(AddBias(b));
      }
      for (int a = static_cast<int>(rng() % 3); a > 0; --a) {
        steps.push_back(Activation(width, static_cast<NetActivation>(rng() % 4),
                                   std::uniform_real_distribution<float>(-1, 1)(rng)));
      }
    }
    auto net = MakeNet(features, std::move(steps));
    const std::size_t n = 1 + rng() % 50;
    std::vector<float> rows(n * features);
    for (float& x : rows) x = value(0.05) * 3.0f;
    SCOPED_TRACE("round " + std::to_string(round));
    EvaluateAll(net, rows);
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace calcjit::model::testing
