#include "model/onnx/net.h"

#include <cstdio>

namespace calcjit::model {

namespace {

std::string Thousands(std::uint64_t value) {
  std::string digits = std::to_string(value);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(i, ",");
  return digits;
}

// The shortest decimal that reads back as the same float ("0.01", "0.2").
std::string ShortFloat(float value) {
  char text[32];
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, static_cast<double>(value));
    float back = 0.0f;
    if (std::sscanf(text, "%g", &back) == 1 && back == value) break;
  }
  return text;
}

}  // namespace

const char* NetActivationName(NetActivation activation) {
  switch (activation) {
    case NetActivation::kRelu:
      return "relu";
    case NetActivation::kLeakyRelu:
      return "leaky_relu";
    case NetActivation::kSigmoid:
      return "sigmoid";
    case NetActivation::kTanh:
      return "tanh";
  }
  return "?";
}

std::string DescribeNet(const OnnxNet& net) {
  std::string text = "onnx: " + std::to_string(net.info.num_features);
  for (std::size_t i = 0; i < net.steps.size(); ++i) {
    const NetStep& step = net.steps[i];
    switch (step.kind) {
      case NetStepKind::kLinear:
        text += " -> " + std::to_string(step.out_width);
        break;
      case NetStepKind::kAddBias:
        // MatMul + Add (or Gemm without C + Add) is one layer with a bias.
        if (i == 0 || net.steps[i - 1].kind != NetStepKind::kLinear || net.steps[i - 1].has_bias) {
          text += " +bias";
        }
        break;
      case NetStepKind::kActivation:
        text += std::string(" ") + NetActivationName(step.activation);
        if (step.activation == NetActivation::kLeakyRelu)
          text += "(" + ShortFloat(step.alpha) + ")";
        break;
    }
  }
  if (net.steps.empty()) text += " (identity)";
  const std::uint64_t parameters = net.info.num_parameters;
  return text + ", " + Thousands(parameters) + (parameters == 1 ? " parameter" : " parameters");
}

}  // namespace calcjit::model
