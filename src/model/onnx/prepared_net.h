// An ONNX net laid out for the block evaluator (block_evaluator.h).
//
// The evaluator runs the whole chain on one block of items at a time (one
// vector of 4, 8 or 16 lanes per tier, one item per lane), so that the
// intermediate layers of a block stay in the L1 cache; every step of the
// chain reads the previous one's rows (row k: value k of every item of the
// block, contiguous) and writes its own.
//
// Steps are the net's, fused where the bits allow it: a linear step without
// bias followed by an Add takes the Add as its bias (DOT then one +, the same
// two roundings), and a linear step followed by an activation applies it
// before storing. Other element-wise steps run on their own.
//
// Weights: every linear step's W, in evaluation order, in one 64-byte aligned
// array. A step's outputs go in tiles of kTileOutputs (the last tile may be
// narrower); a tile's weights are k-major, [in_padded][tile width], so the
// kernel streams them front to back, one broadcast per multiply. in_padded is
// the input width rounded up to a multiple of 8, with zero weights and zero
// input rows beyond the real width: each padded product is +0, and adding +0
// changes no stripe (a stripe starts at +0 and a float32 sum is -0 only when
// both operands are -0, so no stripe is ever -0; NaN and inf stay), so the
// padded loop gives the reference's bits without a remainder loop.
//
// Immutable once built; shared by threads.
#ifndef CALCJIT_MODEL_ONNX_PREPARED_NET_H_
#define CALCJIT_MODEL_ONNX_PREPARED_NET_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "calcjit/status.h"
#include "model/onnx/net.h"

namespace calcjit::model {

struct PreparedNetStep {
  NetStepKind kind = NetStepKind::kLinear;  // kLinear, or a standalone element-wise step
  std::uint32_t in_width = 0;
  std::uint32_t out_width = 0;
  std::uint32_t in_padded = 0;     // kLinear: in_width rounded up to a multiple of 8
  std::size_t weights_offset = 0;  // kLinear: floats into PreparedNet::weights()
  // kLinear with a bias (its own or a fused Add), kAddBias: out_width floats
  // at bias_offset into PreparedNet::biases().
  bool has_bias = false;
  std::size_t bias_offset = 0;
  // kActivation, or kLinear with a fused activation.
  bool has_activation = false;
  NetActivation activation = NetActivation::kRelu;
  float alpha = 0.0f;
};

// Where the evaluator keeps a block's values, in bytes from the first 64-byte
// boundary of the caller's scratch, laid out for the widest tier (16 lanes) so one size
// serves every tier: two rows-buffers the linear steps alternate between, the
// copy of a last, partial block's inputs, and the input row pointers.
struct NetScratchLayout {
  std::size_t buffer_rows = 0;  // rows per buffer: the widest step, padded to 8
  std::size_t buffer_a_offset = 0;
  std::size_t buffer_b_offset = 0;
  std::size_t tail_offset = 0;      // in_padded rows
  std::size_t pointers_offset = 0;  // in_padded pointers
  std::size_t total_bytes = 0;
};

class PreparedNet {
 public:
  // Outputs per weight tile (see above); the kernels of every tier use it.
  static constexpr std::uint32_t kTileOutputs = 3;
  // The widest tier's lanes: scratch rows are this many floats apart.
  static constexpr std::size_t kMaxLanes = 16;

  // Checks that the net is consistent (InternalError otherwise: the reader
  // only makes consistent nets) and lays it out.
  static Result<PreparedNet> Prepare(std::shared_ptr<const OnnxNet> net);

  const OnnxNet& net() const { return *net_; }
  const NetInfo& info() const { return net_->info; }
  const std::vector<PreparedNetStep>& steps() const { return steps_; }
  const float* weights() const { return weights_.get(); }
  const float* biases() const { return biases_.data(); }
  std::uint32_t in_padded() const { return in_padded_; }  // the net's input, padded to 8
  const NetScratchLayout& scratch_layout() const { return scratch_layout_; }
  // Multiply-adds per item (for FLOP/s: two FLOPs each).
  std::uint64_t multiply_adds() const { return multiply_adds_; }

 private:
  struct FreeDeleter {
    void operator()(float* p) const;
  };

  std::shared_ptr<const OnnxNet> net_;
  std::vector<PreparedNetStep> steps_;
  std::unique_ptr<float[], FreeDeleter> weights_;
  std::vector<float> biases_;
  std::uint32_t in_padded_ = 0;
  NetScratchLayout scratch_layout_;
  std::uint64_t multiply_adds_ = 0;
};

}  // namespace calcjit::model

#endif  // CALCJIT_MODEL_ONNX_PREPARED_NET_H_
