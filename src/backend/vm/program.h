// A VM program: the optimized DAG as a flat, immutable list of typed
// instructions, shared read-only by every thread that evaluates the engine.
//
// Evaluation runs in phases separated by aggregate barriers. A phase first
// runs its aggregates over whole columns (written by earlier phases), then
// computes its uniform values once (scalar registers), then runs its block
// instructions over the items, one block of at most `block_size` items at a
// time, so that a block's intermediate columns stay in L1/L2.
#ifndef CALCJIT_BACKEND_VM_PROGRAM_H_
#define CALCJIT_BACKEND_VM_PROGRAM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "calcjit/engine.h"
#include "ir/op.h"

namespace calcjit::vm {

struct KernelTable;

// Where an operand lives.
enum class Loc : std::uint8_t {
  kNone,
  kRegister,  // a block-sized scratch column (reused once its value is dead)
  kInput,     // an item input, at the block's offset (broadcast if defaulted)
  kColumn,    // a whole-batch column buffer: values that cross a barrier
  kScalar,    // a scalar register: constants and uniform values
  kOutput,    // an engine output (the written side of a native piece)
};

struct Operand {
  Loc loc = Loc::kNone;
  std::uint32_t index = 0;
};

enum class Form : std::uint8_t {
  kUnary,    // out = op(a)
  kBinary,   // out = op(a, b)
  kScalarB,  // out = op(a, s): b is a scalar
  kScalarA,  // out = op(s, b): a is a scalar
  kIf,       // out = truthy(c) ? a : b
  kFill,     // out = s
  kMulAdd,   // out = a + s * b, the product rounded first: a weighted-sum step
  kVector,   // out = op(input `slot`, input `slot2`) per item
  kStore,    // engine output `slot` = a, every NaN made canonical
  kFold,     // out = ((x0 op x1) op x2) op ...: a left-deep chain of + - * or /
             // over columns, Program::fold_operands[slot, +slot2)
};

struct Instruction {
  Form form = Form::kUnary;
  ir::Op op = ir::Op::kConstant;
  Operand out, a, b, c;
  std::uint32_t slot = 0;   // kVector: lhs input; kStore: output index
  std::uint32_t slot2 = 0;  // kVector: rhs input (kNoInput for norm)
  std::uint32_t value = 0;  // the DAG value computed, for dumps
};

inline constexpr std::uint32_t kNoInput = 0xFFFFFFFFu;
// The longest chain one kFold covers (longer chains become several folds).
inline constexpr std::uint32_t kMaxFold = 16;

// An aggregate over a whole column; the result is a scalar (statistics) or a
// column buffer (rank, softmax, min_max_scale, zscore, or a statistic that
// the uniform pass left as a column).
struct AggregateStep {
  ir::Op op = ir::Op::kBatchSum;
  Operand operand;  // kInput, kColumn or kScalar
  Operand result;   // kScalar or kColumn
  std::uint32_t value = 0;
};

// A native piece (the JIT backend): a loop over all items of the batch that
// computes a group of column values of one phase in one pass, each item's
// intermediates in registers, described here operand by operand so that the
// JIT can generate it and hash it. Its operands are local: reads[i] are whole
// columns (inputs or columns of earlier phases or pieces), scalars[i] uniform
// values, nodes earlier nodes of the piece, and constants are inline.
struct PieceOperand {
  enum class Kind : std::uint8_t { kRead, kScalar, kNode, kConstant };
  Kind kind = Kind::kConstant;
  std::uint32_t index = 0;
  float constant = 0.0f;
};

struct PieceNode {
  ir::Op op = ir::Op::kConstant;
  std::uint32_t first_operand = 0;  // NativePiece::operands
  std::uint32_t operand_count = 0;
  std::uint32_t value = 0;  // the DAG value, for dumps
  std::string name;         // the feature it belongs to, for generated code
};

struct PieceWrite {
  std::uint32_t node = 0;  // the local node written
  Operand target;          // kOutput (NaN made canonical) or kColumn
};

// A native piece's function processes n rounded down to a multiple of this;
// the executor runs the last n % kNativeChunk items through it padded to a
// whole chunk.
inline constexpr std::int64_t kNativeChunk = 16;

// reads, scalars and writes as the generated function receives them.
using PieceFunction = void (*)(const float* const* reads, const float* scalars,
                               float* const* writes, std::uint64_t n);

struct NativePiece {
  std::string name;                     // the features it computes, for symbols and dumps
  std::vector<Operand> reads;           // kInput or kColumn
  std::vector<Operand> scalars;         // kScalar
  std::vector<std::string> read_names;  // the input or feature each read holds
  std::vector<std::string> scalar_names;
  std::vector<PieceNode> nodes;
  std::vector<PieceOperand> operands;
  std::vector<PieceWrite> writes;
  PieceFunction function = nullptr;  // set by the backend that compiles it
};

struct Phase {
  std::vector<AggregateStep> aggregates;
  std::vector<Instruction> scalars;  // all operands kScalar (or vector inputs), run once
  std::vector<Instruction> block;    // run per block of items
  std::vector<NativePiece> pieces;   // then run once each over all items
};

struct Program {
  std::vector<Phase> phases;
  std::vector<float> scalar_init;  // initial scalar registers: constants, zeros
  struct InputScalar {
    std::uint32_t slot;
    std::uint32_t scalar;
  };
  std::vector<InputScalar> input_scalars;  // uniform inputs, loaded before phase 0
  struct UniformOutput {
    std::uint32_t output;
    std::uint32_t scalar;
  };
  std::vector<UniformOutput> uniform_outputs;  // filled after the last phase
  std::vector<Operand> fold_operands;          // the columns of every kFold
  // Input slots that native pieces read as whole columns: when such an input
  // is left to its default, a whole broadcast column stands in for it.
  std::vector<std::uint32_t> whole_input_slots;
  std::uint32_t registers = 0;
  std::uint32_t columns = 0;
  std::uint32_t block_size = 1024;
  Isa isa = Isa::kBaseline;
  const KernelTable* kernels = nullptr;

  std::string Dump() const;
};

}  // namespace calcjit::vm

#endif  // CALCJIT_BACKEND_VM_PROGRAM_H_
