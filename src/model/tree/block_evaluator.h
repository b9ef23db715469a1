// The fast block evaluator of tree ensembles: the same bits as the reference
// evaluator (reference_evaluator.h), for a block of n items whose features
// come as columns, read in place. See prepared_model.h for the layout.
//
// Per pass of up to PreparedModel::items_per_pass() items: each slot's keys
// (and, for the binned form, each bin slot's bins) are made from its column
// into scratch; then, tree chunk by tree chunk and block of 64 items by block
// (four blocks at a time on AVX2 and AVX-512, two on the baseline), every
// tree runs in its form (prepared_model.h: a walk of eight items at a time,
// eight independent chains of loads that the CPU overlaps, or a bitvector or
// oblivious form over the whole block; no branch depends on the data), and
// each item's leaf is added to its output in tree order, as the ensemble's
// TreeRules say: float32 from the base margin, or float64 from +0 finished
// and rounded once at the end, exactly as the reference does.
//
// Written once (block_evaluator_impl.h, with the forms' kernels in
// bitvector_impl.h and binned_impl.h) and compiled for each instruction-set
// tier like the VM's kernels: baseline x86-64, x86-64-v3 and x86-64-v4. No
// allocation: the caller gives scratch memory of EvaluateScratchBytes(model,
// n) bytes, 64-byte aligned.
#ifndef CALCJIT_MODEL_TREE_BLOCK_EVALUATOR_H_
#define CALCJIT_MODEL_TREE_BLOCK_EVALUATOR_H_

#include <cstddef>

#include "calcjit/engine.h"
#include "model/tree/prepared_model.h"

namespace calcjit::model {

// Scratch bytes Evaluate needs for `n` items (any n; bounded by the model's
// pass size, not by n).
std::size_t EvaluateScratchBytes(const PreparedModel& model, std::size_t n);

// feature_columns[j][i] is model feature j of item i (j < num_features);
// output_columns[k][i] receives output k (k < num_outputs); the outputs must
// not overlap the inputs. Runs the best tier this CPU has (or `isa` if not
// kAuto; the CPU must support it) in the contract's floating-point
// environment, whatever the caller's.
void Evaluate(const PreparedModel& model, const float* const* feature_columns, std::size_t n,
              float* const* output_columns, void* scratch, Isa isa = Isa::kAuto);

// One tier's evaluator, for code of that tier (the VM's per-tier kernels).
// The caller sets the contract's floating-point environment (math/fp_env.h).
using EvaluateFn = void (*)(const PreparedModel& model, const float* const* feature_columns,
                            std::size_t n, float* const* output_columns, void* scratch);
namespace baseline {
void Evaluate(const PreparedModel& model, const float* const* feature_columns, std::size_t n,
              float* const* output_columns, void* scratch);
}
namespace avx2 {
void Evaluate(const PreparedModel& model, const float* const* feature_columns, std::size_t n,
              float* const* output_columns, void* scratch);
}
namespace avx512 {
void Evaluate(const PreparedModel& model, const float* const* feature_columns, std::size_t n,
              float* const* output_columns, void* scratch);
}
// The tier's evaluator for `isa` (kAuto: the best this CPU has).
EvaluateFn TreeEvaluatorFor(Isa isa);

}  // namespace calcjit::model

#endif  // CALCJIT_MODEL_TREE_BLOCK_EVALUATOR_H_
