#include "model/onnx/prepared_net.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <utility>

namespace calcjit::model {

namespace {

constexpr std::size_t kAlignment = 64;

std::size_t PadTo8(std::size_t width) {
  return (width + 7) / 8 * 8;
}

std::size_t AlignUp(std::size_t bytes) {
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

Status CheckStep(const NetStep& step, std::size_t index, std::uint32_t width) {
  const std::string where = "step " + std::to_string(index);
  if (step.in_width != width) return InternalError(where + ": input width does not chain");
  if (step.out_width == 0 || step.out_width > kMaxNetWidth) {
    return InternalError(where + ": output width out of range");
  }
  const bool needs_bias =
      step.kind == NetStepKind::kAddBias || (step.kind == NetStepKind::kLinear && step.has_bias);
  if (needs_bias && step.bias.size() != step.out_width) {
    return InternalError(where + ": bias size");
  }
  if (step.kind == NetStepKind::kLinear) {
    if (step.weights.size() != std::size_t{step.in_width} * step.out_width) {
      return InternalError(where + ": weight count");
    }
  } else if (step.out_width != step.in_width) {
    return InternalError(where + ": an element-wise step changes the width");
  }
  return Status::Ok();
}

}  // namespace

void PreparedNet::FreeDeleter::operator()(float* p) const {
  std::free(p);
}

Result<PreparedNet> PreparedNet::Prepare(std::shared_ptr<const OnnxNet> net) {
  if (net == nullptr) return InternalError("PreparedNet::Prepare of a null net");
  const NetInfo& info = net->info;
  if (info.num_features == 0 || info.num_features > kMaxNetWidth) {
    return InternalError("net input width out of range");
  }
  std::uint32_t width = info.num_features;
  for (std::size_t i = 0; i < net->steps.size(); ++i) {
    CALCJIT_RETURN_IF_ERROR(CheckStep(net->steps[i], i, width));
    width = net->steps[i].out_width;
  }
  if (width != info.num_outputs) return InternalError("net output width does not chain");

  PreparedNet prepared;
  prepared.in_padded_ = static_cast<std::uint32_t>(PadTo8(info.num_features));
  std::size_t weight_floats = 0;
  std::size_t widest = prepared.in_padded_;
  const std::vector<NetStep>& steps = net->steps;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const NetStep& step = steps[i];
    PreparedNetStep out;
    out.kind = step.kind;
    out.in_width = step.in_width;
    out.out_width = step.out_width;
    widest = std::max(widest, PadTo8(step.out_width));
    if (step.kind == NetStepKind::kActivation) {
      out.has_activation = true;
      out.activation = step.activation;
      out.alpha = step.alpha;
      prepared.steps_.push_back(out);
      continue;
    }
    out.has_bias = true;  // kAddBias always; kLinear below
    const std::vector<float>* bias = &step.bias;
    if (step.kind == NetStepKind::kLinear) {
      out.in_padded = static_cast<std::uint32_t>(PadTo8(step.in_width));
      out.weights_offset = weight_floats;
      weight_floats += std::size_t{out.in_padded} * step.out_width;
      prepared.multiply_adds_ += std::uint64_t{step.in_width} * step.out_width;
      out.has_bias = step.has_bias;
      // DOT then + b: a following Add is this step's bias, bit for bit.
      if (!step.has_bias && i + 1 < steps.size() && steps[i + 1].kind == NetStepKind::kAddBias) {
        out.has_bias = true;
        bias = &steps[++i].bias;
      }
      if (i + 1 < steps.size() && steps[i + 1].kind == NetStepKind::kActivation) {
        const NetStep& activation = steps[++i];
        out.has_activation = true;
        out.activation = activation.activation;
        out.alpha = activation.alpha;
      }
    }
    if (out.has_bias) {
      out.bias_offset = prepared.biases_.size();
      prepared.biases_.insert(prepared.biases_.end(), bias->begin(), bias->end());
    }
    prepared.steps_.push_back(out);
  }

  // The weights, tile by tile (see the header); padding rows stay zero.
  const std::size_t weight_bytes = AlignUp(std::max<std::size_t>(weight_floats, 1) * sizeof(float));
  prepared.weights_.reset(static_cast<float*>(std::aligned_alloc(kAlignment, weight_bytes)));
  if (prepared.weights_ == nullptr) return RuntimeError("out of memory preparing the net");
  std::memset(prepared.weights_.get(), 0, weight_bytes);
  std::size_t linear = 0;
  for (const NetStep& step : steps) {
    if (step.kind != NetStepKind::kLinear) continue;
    while (prepared.steps_[linear].kind != NetStepKind::kLinear) ++linear;
    const PreparedNetStep& layout = prepared.steps_[linear++];
    float* tile = prepared.weights_.get() + layout.weights_offset;
    for (std::uint32_t j0 = 0; j0 < step.out_width; j0 += kTileOutputs) {
      const std::uint32_t tile_width = std::min(kTileOutputs, step.out_width - j0);
      for (std::uint32_t k = 0; k < step.in_width; ++k) {
        for (std::uint32_t j = 0; j < tile_width; ++j) {
          tile[std::size_t{k} * tile_width + j] =
              step.weights[std::size_t{k} * step.out_width + j0 + j];
        }
      }
      tile += std::size_t{layout.in_padded} * tile_width;
    }
  }

  NetScratchLayout& layout = prepared.scratch_layout_;
  const std::size_t row_bytes = kMaxLanes * sizeof(float);
  layout.buffer_rows = widest;
  layout.buffer_a_offset = 0;
  layout.buffer_b_offset = AlignUp(widest * row_bytes);
  layout.tail_offset = layout.buffer_b_offset + AlignUp(widest * row_bytes);
  layout.pointers_offset = layout.tail_offset + AlignUp(prepared.in_padded_ * row_bytes);
  layout.total_bytes = layout.pointers_offset + AlignUp(prepared.in_padded_ * sizeof(float*));
  prepared.net_ = std::move(net);
  return prepared;
}

}  // namespace calcjit::model
