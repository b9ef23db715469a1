// LLVM IR for a native piece: one function with one loop over the items, in
// which every value of the piece is an SSA value (in registers) and only
// reads, outputs and values other pieces need touch memory.
#ifndef CALCJIT_BACKEND_JIT_CODEGEN_H_
#define CALCJIT_BACKEND_JIT_CODEGEN_H_

#include <cstdint>
#include <memory>
#include <string>

#include "backend/program/program.h"
#include "calcjit/cpu.h"

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace calcjit::jit {

// A region's generated function: reads, scalars and writes as
// program::RegionArgs holds them, the item count, and the scratch of a staged
// piece's buffers (StagePlan::ScratchFloats() floats, 64-byte aligned; unused
// by a piece of one stage: stages.h).
using PieceFunction = void (*)(const float* const* reads, const float* scalars,
                               float* const* writes, std::uint64_t n, float* stage);

// The function runs whole chunks of this many items, so that the vectorizer
// needs no epilogue: for any n of at least one chunk it computes items
// [0, n), its last chunk overlapping the one before when n is no multiple of
// 16 (codegen.cc); it does nothing for a smaller n, which the engine runs
// padded to one chunk (jit.cc).
inline constexpr std::int64_t kChunk = 16;

// The piece as `void @<function>(ptr reads, ptr scalars, ptr writes, i64 n, ptr stage)`
// (PieceFunction). Element-wise operators are calls to the kernels of
// src/math (calcjit_op_<Name>, jit_kernels.cc), declared here and linked in
// from their bitcode by the compiler, which inlines them.
// The transcendental kernels and pow are calls to the library's
// calcjit_vec_<Name> instead (vector_kernels.h), with the vector variants
// `isa` can run declared for the vectorizer.
// `staged`: cut the loop into stages around the kernel calls (stages.h).
std::unique_ptr<llvm::Module> GeneratePiece(llvm::LLVMContext& context,
                                            const program::Region& piece,
                                            const std::string& function, Isa isa,
                                            bool staged = true);

}  // namespace calcjit::jit

#endif  // CALCJIT_BACKEND_JIT_CODEGEN_H_
