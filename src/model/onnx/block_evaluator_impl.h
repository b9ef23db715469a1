// The block evaluator of ONNX nets, written once and compiled once per tier:
// each block_evaluator_<tier>.cc defines CALCJIT_NET_TIER (the namespace),
// CALCJIT_NET_LANES (floats per vector register) and
// CALCJIT_NET_STRIPES_PER_PASS (8 where 24 accumulators fit the registers,
// else 4), then includes this file with its own -march flags
// (src/model/onnx/CMakeLists.txt). Everything here has internal linkage, so
// the linker never mixes tiers.
#ifndef CALCJIT_NET_TIER
#error "define CALCJIT_NET_TIER before including block_evaluator_impl.h"
#endif

#define CALCJIT_KERNEL static inline

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "math/bits.h"
#include "model/onnx/activations.h"
#include "model/onnx/block_evaluator.h"

namespace calcjit::model::CALCJIT_NET_TIER {

namespace {

constexpr std::size_t kLanes = CALCJIT_NET_LANES;
// Items per block, and floats between two rows of a block in scratch.
constexpr std::size_t kRow = PreparedNet::kMaxLanes;
constexpr std::size_t kVectorsPerRow = kRow / kLanes;
constexpr int kStripesPerPass = CALCJIT_NET_STRIPES_PER_PASS;
constexpr int kTile = static_cast<int>(PreparedNet::kTileOutputs);
static_assert(kRow % kLanes == 0 && 8 % kStripesPerPass == 0);

typedef float Vec __attribute__((vector_size(sizeof(float) * CALCJIT_NET_LANES)));
typedef std::int32_t VecBits __attribute__((vector_size(sizeof(float) * CALCJIT_NET_LANES)));

// The input rows of the padded features (k >= num_features) of every block.
alignas(64) constexpr float kZeroRow[kRow] = {};

[[gnu::always_inline]] inline Vec Load(const float* p) {
  Vec v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
[[gnu::always_inline]] inline void Store(float* p, Vec v) {
  std::memcpy(p, &v, sizeof v);
}

// NetRelu and NetLeakyRelu (activations.h) on a vector, as bit blends.
[[gnu::always_inline]] inline Vec Relu(Vec x) {
  const VecBits keep = (x > Vec{}) | (x != x);
  return std::bit_cast<Vec>(std::bit_cast<VecBits>(x) & keep);
}
[[gnu::always_inline]] inline Vec LeakyRelu(Vec x, float alpha) {
  const VecBits keep = (x >= Vec{}) | (x != x);
  const Vec scaled = x * alpha;
  return std::bit_cast<Vec>((std::bit_cast<VecBits>(x) & keep) |
                            (std::bit_cast<VecBits>(scaled) & ~keep));
}

// A step's input rows: the net's input through one pointer per feature (the
// caller's columns at the block's first item, or the copy of a partial
// block), or a scratch buffer whose rows are kRow floats apart.
struct PointerRows {
  const float* const* rows;
  std::size_t lane;
  const float* Row(std::size_t k) const { return rows[k] + lane; }
  PointerRows AtLane(std::size_t first) const { return {rows, first}; }
};
struct BufferRows {
  const float* base;
  const float* Row(std::size_t k) const { return base + k * kRow; }
  BufferRows AtLane(std::size_t first) const { return {base + first}; }
};

// The DOT scheme for kJ outputs of one tile and one vector of items: sums[j]
// lane l = ((s0+s1)+(s2+s3))+((s4+s5)+(s6+s7)) where stripe s_t adds
// x[k] * w[k][j] for k = t, t+8, t+16, ... in ascending k from +0. The
// stripes of a pass are registers; with fewer than eight per pass the
// finished ones wait in `stripes` (on the stack) for the combination.
template <int kJ, class Rows>
[[gnu::always_inline]] inline void DotTile(const Rows& rows, const float* w, std::size_t in_padded,
                                           Vec* sums) {
  constexpr int kPasses = 8 / kStripesPerPass;
  Vec stripes[8][kJ];
#pragma GCC unroll 2
  for (int pass = 0; pass < kPasses; ++pass) {
    Vec acc[kStripesPerPass][kJ];
#pragma GCC unroll 8
    for (int t = 0; t < kStripesPerPass; ++t) {
#pragma GCC unroll 3
      for (int j = 0; j < kJ; ++j) acc[t][j] = Vec{};
    }
    for (std::size_t k0 = 0; k0 < in_padded; k0 += 8) {
#pragma GCC unroll 8
      for (int t = 0; t < kStripesPerPass; ++t) {
        const std::size_t k = k0 + static_cast<std::size_t>(pass * kStripesPerPass + t);
        Vec x = Load(rows.Row(k));
        // x in a register, read by the tile's kJ multiplies (GCC would fold
        // the load into each of them); each weight then is the multiply's
        // broadcast memory operand: one vector load per kJ multiply-adds.
#if defined(__x86_64__)
        __asm__("" : "+x"(x));
#endif
        const float* wk = w + k * kJ;
#pragma GCC unroll 3
        for (int j = 0; j < kJ; ++j) acc[t][j] = acc[t][j] + x * wk[j];
      }
    }
#pragma GCC unroll 8
    for (int t = 0; t < kStripesPerPass; ++t) {
#pragma GCC unroll 3
      for (int j = 0; j < kJ; ++j) stripes[pass * kStripesPerPass + t][j] = acc[t][j];
    }
  }
#pragma GCC unroll 3
  for (int j = 0; j < kJ; ++j) {
    sums[j] = ((stripes[0][j] + stripes[1][j]) + (stripes[2][j] + stripes[3][j])) +
              ((stripes[4][j] + stripes[5][j]) + (stripes[6][j] + stripes[7][j]));
  }
}

// One tile of kJ outputs for every vector of the block: DOT, bias, a fused
// Relu or LeakyRelu, stored as rows j0.. of `out`.
template <int kJ, class Rows>
void LinearTile(const PreparedNetStep& step, const Rows& rows, const float* w, const float* bias,
                float* out) {
  const bool fused_relu = step.has_activation && step.activation == NetActivation::kRelu;
  const bool fused_leaky = step.has_activation && step.activation == NetActivation::kLeakyRelu;
  for (std::size_t v = 0; v < kVectorsPerRow; ++v) {
    Vec sums[kJ];
    DotTile<kJ>(rows.AtLane(v * kLanes), w, step.in_padded, sums);
#pragma GCC unroll 3
    for (int j = 0; j < kJ; ++j) {
      Vec y = sums[j];
      if (step.has_bias) y = y + bias[j];
      if (fused_relu) y = Relu(y);
      if (fused_leaky) y = LeakyRelu(y, step.alpha);
      Store(out + static_cast<std::size_t>(j) * kRow + v * kLanes, y);
    }
  }
}

// Rows [width, width rounded up to 8) of a buffer are zero: the padded input
// of the next linear step.
void ZeroPadding(float* rows, std::size_t width) {
  const std::size_t padded = (width + 7) / 8 * 8;
  std::fill(rows + width * kRow, rows + padded * kRow, 0.0f);
}

void ActivateRows(const PreparedNetStep& step, float* rows) {
  const std::size_t count = std::size_t{step.out_width} * kRow;
  switch (step.activation) {
    case NetActivation::kRelu:
      for (std::size_t i = 0; i < count; ++i) rows[i] = NetRelu(rows[i]);
      break;
    case NetActivation::kLeakyRelu:
      for (std::size_t i = 0; i < count; ++i) rows[i] = NetLeakyRelu(rows[i], step.alpha);
      break;
    case NetActivation::kSigmoid:
      for (std::size_t i = 0; i < count; ++i) rows[i] = NetSigmoid(rows[i]);
      break;
    case NetActivation::kTanh:
      for (std::size_t i = 0; i < count; ++i) rows[i] = NetTanh(rows[i]);
      break;
  }
}

template <class Rows>
void Linear(const PreparedNet& net, const PreparedNetStep& step, const Rows& in, float* out) {
  const float* w = net.weights() + step.weights_offset;
  // No pointer into biases() without a bias: a net without any has none, and
  // an offset from their null data() is undefined (found by the fuzzer,
  // tests/fuzz/regressions/onnx_reader).
  const float* bias = step.has_bias ? net.biases() + step.bias_offset : nullptr;
  auto bias_from = [bias](std::uint32_t j) { return bias == nullptr ? nullptr : bias + j; };
  const std::size_t tile_floats = std::size_t{step.in_padded} * kTile;
  std::uint32_t j0 = 0;
  for (; j0 + kTile <= step.out_width; j0 += kTile, w += tile_floats) {
    LinearTile<kTile>(step, in, w, bias_from(j0), out + std::size_t{j0} * kRow);
  }
  switch (step.out_width - j0) {
    case 2:
      LinearTile<2>(step, in, w, bias_from(j0), out + std::size_t{j0} * kRow);
      break;
    case 1:
      LinearTile<1>(step, in, w, bias_from(j0), out + std::size_t{j0} * kRow);
      break;
    default:
      break;
  }
  static_assert(kTile == 3, "the remainder tiles above are for tiles of 3");
  ZeroPadding(out, step.out_width);
  if (step.has_activation &&
      (step.activation == NetActivation::kSigmoid || step.activation == NetActivation::kTanh)) {
    ActivateRows(step, out);
  }
}

// A standalone Add or activation, from `in` (possibly `out` itself) to `out`.
template <class Rows>
void ElementWise(const PreparedNet& net, const PreparedNetStep& step, const Rows& in, float* out) {
  for (std::size_t j = 0; j < step.out_width; ++j) {
    const float* src = in.Row(j);
    float* dst = out + j * kRow;
    if (step.kind == NetStepKind::kAddBias) {
      const float b = net.biases()[step.bias_offset + j];
      for (std::size_t l = 0; l < kRow; ++l) dst[l] = src[l] + b;
    } else if (src != dst) {
      std::copy_n(src, kRow, dst);
    }
  }
  if (step.kind == NetStepKind::kActivation) ActivateRows(step, out);
  ZeroPadding(out, step.out_width);
}

}  // namespace

void Evaluate(const PreparedNet& net, const float* const* feature_columns, std::size_t n,
              float* const* output_columns, void* scratch) {
  if (n == 0) return;
  const NetScratchLayout& layout = net.scratch_layout();
  // The layout's offsets are from a 64-byte boundary; the caller's scratch
  // has any alignment and 63 bytes more (EvaluateScratchBytes).
  const auto address = reinterpret_cast<std::uintptr_t>(scratch);
  auto* base = static_cast<unsigned char*>(scratch) + (64 - address % 64) % 64;
  float* const buffers[2] = {reinterpret_cast<float*>(base + layout.buffer_a_offset),
                             reinterpret_cast<float*>(base + layout.buffer_b_offset)};
  float* const tail = reinterpret_cast<float*>(base + layout.tail_offset);
  const float** const pointers = reinterpret_cast<const float**>(base + layout.pointers_offset);
  const std::size_t m = net.info().num_features;
  const std::size_t outputs = net.info().num_outputs;
  for (std::size_t k = m; k < net.in_padded(); ++k) pointers[k] = kZeroRow;

  for (std::size_t first = 0; first < n; first += kRow) {
    const std::size_t count = std::min(kRow, n - first);
    if (count == kRow) {
      for (std::size_t k = 0; k < m; ++k) pointers[k] = feature_columns[k] + first;
    } else {  // the last, partial block: its real lanes, then zeros
      for (std::size_t k = 0; k < m; ++k) {
        float* row = tail + k * kRow;
        std::copy_n(feature_columns[k] + first, count, row);
        std::fill(row + count, row + kRow, 0.0f);
        pointers[k] = row;
      }
    }
    const PointerRows input{pointers, 0};
    int current = -1;  // the buffer holding the chain's value; -1: the input
    for (const PreparedNetStep& step : net.steps()) {
      if (step.kind == NetStepKind::kLinear) {
        const int target = current == 0 ? 1 : 0;
        if (current < 0) {
          Linear(net, step, input, buffers[target]);
        } else {
          Linear(net, step, BufferRows{buffers[current]}, buffers[target]);
        }
        current = target;
      } else if (current < 0) {
        ElementWise(net, step, input, buffers[0]);
        current = 0;
      } else {
        ElementWise(net, step, BufferRows{buffers[current]}, buffers[current]);
      }
    }
    for (std::size_t j = 0; j < outputs; ++j) {
      if (output_columns[j] == nullptr) continue;
      const float* src = current < 0 ? input.Row(j) : buffers[current] + j * kRow;
      float* dst = output_columns[j] + first;
      for (std::size_t l = 0; l < count; ++l) dst[l] = math::CanonicalizeNan(src[l]);
    }
  }
}

}  // namespace calcjit::model::CALCJIT_NET_TIER
