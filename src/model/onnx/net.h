// A decoded ONNX neural net (spec section 6.4): what ReadOnnx (reader.h)
// produces, what the reference evaluator runs literally and what the block
// evaluator is prepared from. A chain of steps from the input row [m] to the
// output row [K]; Identity and Flatten nodes are gone (they change nothing),
// every other node of the file is one step, in the file's order. Immutable
// once read; shared by threads.
#ifndef CALCJIT_MODEL_ONNX_NET_H_
#define CALCJIT_MODEL_ONNX_NET_H_

#include <cstdint>
#include <string>
#include <vector>

namespace calcjit::model {

// The limits of spec 6.1, and the ones this reader adds (docs/MODELS_ONNX.md
// says why). A file of 2^31 bytes or more is refused: protobuf reads at most
// 2^31 - 1 bytes, one byte short of the contract's 2 GiB.
inline constexpr std::uint64_t kMaxOnnxFileBytes = (std::uint64_t{1} << 31) - 1;
// Model features, outputs and the width of every layer in between.
inline constexpr std::uint32_t kMaxNetWidth = 65'536;
// Weights and biases of the nodes the chain uses: 64 MiB of float32, about
// 67 MFLOP per item, over a second per query of 2,000 items.
inline constexpr std::uint64_t kMaxNetParameters = std::uint64_t{1} << 24;
inline constexpr std::uint32_t kMaxNetNodes = 4'096;

enum class NetStepKind : std::uint8_t {
  kLinear,      // Gemm, MatMul: y[j] = DOT(x, W[.][j]) (+ b[j] when has_bias)
  kAddBias,     // Add of a constant row vector: y[j] = x[j] + b[j]
  kActivation,  // Relu, LeakyRelu, Sigmoid, Tanh, element by element
};

enum class NetActivation : std::uint8_t { kRelu, kLeakyRelu, kSigmoid, kTanh };

// "relu", "leaky_relu", "sigmoid", "tanh".
const char* NetActivationName(NetActivation activation);

struct NetStep {
  NetStepKind kind = NetStepKind::kLinear;
  std::uint32_t in_width = 0;
  std::uint32_t out_width = 0;  // in_width except for kLinear
  // kLinear: W[k][j] = weights[k * out_width + j], k < in_width (row-major,
  // input index first, whatever the file's transB was).
  std::vector<float> weights;
  // kLinear with has_bias (a Gemm's C) and kAddBias: out_width values, a
  // broadcast bias ([1] or a scalar) repeated. A kLinear without a bias adds
  // nothing (not +0: -0 + +0 would be +0).
  bool has_bias = false;
  std::vector<float> bias;
  NetActivation activation = NetActivation::kRelu;
  float alpha = 0.0f;  // kLeakyRelu
  // The file's node, for messages and dumps.
  std::uint32_t node_index = 0;
  std::string node_name;
  std::string op_type;
};

// What `calcjit check` prints about a net, and what the checker needs.
struct NetInfo {
  std::uint32_t num_features = 0;  // m: the input's second dimension
  std::uint32_t num_outputs = 0;   // K: the output's second dimension
  // ONNX names one input tensor, not its columns: "f0", "f1", ...; a
  // `model(...)` expression must list its inputs (spec 6.1).
  std::vector<std::string> feature_names;
  bool names_from_file = false;
  std::uint64_t num_parameters = 0;  // elements of the initializers the chain uses
  std::int64_t opset = 0;            // of the default domain
  std::int64_t ir_version = 0;
  std::string producer;  // "pytorch 1.13.0", "" when the file does not say
  std::string input_name;
  std::string output_name;
};

struct OnnxNet {
  NetInfo info;
  std::vector<NetStep> steps;  // in evaluation order; may be empty (identity)
};

// "onnx: 64 -> 128 relu -> 64 relu -> 1, 16,641 parameters": the input width,
// then each linear step's output width followed by the element-wise steps
// after it (an Add is "+bias" unless it is the bias of a linear step without
// one, as MatMul + Add; LeakyRelu shows its alpha).
std::string DescribeNet(const OnnxNet& net);

}  // namespace calcjit::model

#endif  // CALCJIT_MODEL_ONNX_NET_H_
