// The fast block evaluator of ONNX nets: the same bits as the reference
// evaluator (reference_evaluator.h) for n items whose features come as
// columns, read in place (feature k of items i..i+15 is contiguous).
//
// One SIMD lane per item. The chain runs on a block of one vector of items
// at a time (4, 8 or 16 by tier): each linear step goes tile by tile of
// PreparedNet::kTileOutputs outputs, and for each output of the tile keeps
// its eight stripes of the DOT scheme as eight vector registers (AVX-512:
// 3 outputs x 8 stripes = 24 of the 32 registers; AVX2 and SSE2, with 16
// registers, run the stripes in two passes of four and add the halves in the
// contract's order), multiplying each input row by one broadcast weight. The
// block's intermediate rows live in the caller's scratch; a last, partial
// block is copied into scratch with zero lanes, and only its real lanes are
// written out. See prepared_net.h for the layout of weights and scratch.
//
// Written once (block_evaluator_impl.h) in portable C++ with GCC's vector
// extension and compiled for each tier like the VM's kernels: baseline
// x86-64, x86-64-v3 and x86-64-v4, all with -ffp-contract=off (a multiply
// and an add, never an FMA). No allocation.
#ifndef CALCJIT_MODEL_ONNX_BLOCK_EVALUATOR_H_
#define CALCJIT_MODEL_ONNX_BLOCK_EVALUATOR_H_

#include <cstddef>

#include "calcjit/cpu.h"
#include "model/onnx/prepared_net.h"

namespace calcjit::model {

// Scratch bytes Evaluate needs: the same for every n and every tier (so n is
// only there to match the tree models' signature). Any alignment works (the
// size includes room to align the start to 64 bytes).
std::size_t EvaluateScratchBytes(const PreparedNet& net, std::size_t n = 0);

// feature_columns[k][i] is model feature k of item i (k < num_features);
// output_columns[j][i] receives output j (j < num_outputs), or nothing when
// output_columns[j] is null (an output no formula uses). Outputs must not
// overlap the inputs or the scratch. NaN outputs are the canonical quiet NaN.
// Runs the best tier this CPU has (or `isa`, lowered to what the CPU
// supports) in the contract's floating-point environment, whatever the
// caller's.
void Evaluate(const PreparedNet& net, const float* const* feature_columns, std::size_t n,
              float* const* output_columns, void* scratch, Isa isa = Isa::kAuto);

// One tier's evaluator, for code of that tier (the VM's per-tier kernels, the
// JIT). The caller sets the contract's floating-point environment
// (math/fp_env.h).
using EvaluateNetFn = void (*)(const PreparedNet& net, const float* const* feature_columns,
                               std::size_t n, float* const* output_columns, void* scratch);
namespace baseline {
void Evaluate(const PreparedNet& net, const float* const* feature_columns, std::size_t n,
              float* const* output_columns, void* scratch);
}
namespace avx2 {
void Evaluate(const PreparedNet& net, const float* const* feature_columns, std::size_t n,
              float* const* output_columns, void* scratch);
}
namespace avx512 {
void Evaluate(const PreparedNet& net, const float* const* feature_columns, std::size_t n,
              float* const* output_columns, void* scratch);
}

// The tier's evaluator for `isa` (kAuto: the best this CPU has).
EvaluateNetFn NetEvaluatorFor(Isa isa);

}  // namespace calcjit::model

#endif  // CALCJIT_MODEL_ONNX_BLOCK_EVALUATOR_H_
