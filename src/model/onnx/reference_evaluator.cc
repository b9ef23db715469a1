#include "model/onnx/reference_evaluator.h"

#include <algorithm>
#include <vector>

#include "math/bits.h"
#include "math/fp_env.h"
#include "model/onnx/activations.h"

namespace calcjit::model {

namespace {

std::size_t WidestRow(const OnnxNet& net) {
  std::size_t widest = net.info.num_features;
  for (const NetStep& step : net.steps) widest = std::max<std::size_t>(widest, step.out_width);
  return widest;
}

// y[j] = DOT(x, W[.][j]) (+ b[j]).
void Linear(const NetStep& step, const float* x, float* y) {
  const std::size_t m = step.in_width;
  const std::size_t k_out = step.out_width;
  for (std::size_t j = 0; j < k_out; ++j) {
    float s[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    for (std::size_t k = 0; k < m; ++k) {
      const float product = x[k] * step.weights[k * k_out + j];
      s[k % 8] = s[k % 8] + product;
    }
    float sum = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
    if (step.has_bias) sum = sum + step.bias[j];
    y[j] = sum;
  }
}

float Activate(const NetStep& step, float x) {
  switch (step.activation) {
    case NetActivation::kRelu:
      return NetRelu(x);
    case NetActivation::kLeakyRelu:
      return NetLeakyRelu(x, step.alpha);
    case NetActivation::kSigmoid:
      return NetSigmoid(x);
    case NetActivation::kTanh:
      return NetTanh(x);
  }
  return x;
}

void EvaluateRow(const OnnxNet& net, const float* row, float* out, float* a, float* b) {
  std::copy_n(row, net.info.num_features, a);
  for (const NetStep& step : net.steps) {
    switch (step.kind) {
      case NetStepKind::kLinear:
        Linear(step, a, b);
        std::swap(a, b);
        break;
      case NetStepKind::kAddBias:
        for (std::size_t j = 0; j < step.out_width; ++j) a[j] = a[j] + step.bias[j];
        break;
      case NetStepKind::kActivation:
        for (std::size_t j = 0; j < step.out_width; ++j) a[j] = Activate(step, a[j]);
        break;
    }
  }
  for (std::size_t j = 0; j < net.info.num_outputs; ++j) out[j] = math::CanonicalizeNan(a[j]);
}

}  // namespace

void EvaluateReferenceRow(const OnnxNet& net, const float* row, float* out) {
  std::vector<float> rows(2 * WidestRow(net));
  EvaluateRow(net, row, out, rows.data(), rows.data() + rows.size() / 2);
}

void EvaluateReference(const OnnxNet& net, const float* const* feature_columns, std::size_t n,
                       float* const* output_columns) {
  const math::ScopedFpEnv fp_env;
  const std::size_t widest = WidestRow(net);
  std::vector<float> buffer(2 * widest + net.info.num_features + net.info.num_outputs);
  float* a = buffer.data();
  float* b = a + widest;
  float* row = b + widest;
  float* out = row + net.info.num_features;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < net.info.num_features; ++k) row[k] = feature_columns[k][i];
    EvaluateRow(net, row, out, a, b);
    for (std::size_t j = 0; j < net.info.num_outputs; ++j) {
      if (output_columns[j] != nullptr) output_columns[j][i] = out[j];
    }
  }
}

}  // namespace calcjit::model
