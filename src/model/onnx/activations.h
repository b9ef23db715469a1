// The activation functions of spec 6.4, one scalar kernel each, shared by the
// reference evaluator and the block evaluator's tiers (CALCJIT_KERNEL is
// `static inline` in the per-tier translation units, math/bits.h).
#ifndef CALCJIT_MODEL_ONNX_ACTIVATIONS_H_
#define CALCJIT_MODEL_ONNX_ACTIVATIONS_H_

#include "math/bits.h"
#include "math/transcendental.h"

namespace calcjit::model {

// x if x > 0, NaN if x is NaN, else +0 (so Relu(-0) = +0).
CALCJIT_KERNEL float NetRelu(float x) {
  return (x > 0.0f || x != x) ? x : 0.0f;
}

// x if x >= 0 or NaN (so -0 stays -0), else alpha * x (one rounding).
CALCJIT_KERNEL float NetLeakyRelu(float x, float alpha) {
  return (x >= 0.0f || x != x) ? x : alpha * x;
}

// SIGMOID and TANH of spec section 3: correctly rounded.
CALCJIT_KERNEL float NetSigmoid(float x) {
  return math::Sigmoid(x);
}
CALCJIT_KERNEL float NetTanh(float x) {
  return math::Tanh(x);
}

}  // namespace calcjit::model

#endif  // CALCJIT_MODEL_ONNX_ACTIVATIONS_H_
