// The reference evaluator of ONNX nets: the oracle that the block evaluator
// and every backend are tested against. Plain loops over one item at a time,
// in exactly the order of spec 6.4: for each output of a linear step, eight
// float32 partial sums s0..s7, sj adding x[k] * W[k][j] (each product
// rounded) for the k with k mod 8 = j in ascending k from +0, combined as
// ((s0+s1)+(s2+s3))+((s4+s5)+(s6+s7)), then the bias with one float32 +;
// element-wise steps one value at a time (activations.h).
#ifndef CALCJIT_MODEL_ONNX_REFERENCE_EVALUATOR_H_
#define CALCJIT_MODEL_ONNX_REFERENCE_EVALUATOR_H_

#include <cstddef>

#include "model/onnx/net.h"

namespace calcjit::model {

// Every output of one item: row[k] is model feature k (k < num_features),
// out[j] receives output j (j < num_outputs); a NaN output is the canonical
// quiet NaN 0x7FC00000 (spec section 1). The caller sets the contract's
// floating-point environment. Allocates two rows of the widest layer.
void EvaluateReferenceRow(const OnnxNet& net, const float* row, float* out);

// The same over n items given as columns: feature_columns[k][i] is feature k
// of item i, output_columns[j][i] receives output j (nothing when
// output_columns[j] is null). Runs in the contract's
// floating-point environment (math/fp_env.h) whatever the caller's.
// Allocates (one row per layer, once per call).
void EvaluateReference(const OnnxNet& net, const float* const* feature_columns, std::size_t n,
                       float* const* output_columns);

}  // namespace calcjit::model

#endif  // CALCJIT_MODEL_ONNX_REFERENCE_EVALUATOR_H_
