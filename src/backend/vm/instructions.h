// The VM's code for one region: a flat list of typed instructions, each a
// call of one column kernel over a block of items, run block after block.
#ifndef CALCJIT_BACKEND_VM_INSTRUCTIONS_H_
#define CALCJIT_BACKEND_VM_INSTRUCTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ir/op.h"

namespace calcjit::vm {

// Where an operand lives, at the current block's offset.
enum class Loc : std::uint8_t {
  kNone,
  kRegister,  // a block-sized scratch column (reused once its value is dead)
  kRead,      // one of the region's reads (a whole column)
  kWrite,     // one of the region's writes (a whole column or an output)
  kScalar,    // one of the region's scalars (a uniform value)
  kConstant,  // a constant of the region's code
};

struct Operand {
  Loc loc = Loc::kNone;
  std::uint32_t index = 0;
  bool is_scalar() const { return loc == Loc::kScalar || loc == Loc::kConstant; }
  bool operator==(const Operand&) const = default;
};

enum class Form : std::uint8_t {
  kUnary,    // out = op(a)
  kBinary,   // out = op(a, b)
  kScalarB,  // out = op(a, s): b is a scalar
  kScalarA,  // out = op(s, b): a is a scalar
  kIf,       // out = truthy(c) ? a : b
  kFill,     // out = s
  kMulAdd,   // out = a + s * b, the product rounded first: a weighted-sum step
  kStore,    // out = a, every NaN made canonical (an engine output)
  kFold,     // out = ((x0 op x1) op x2) op ...: a left-deep chain of + - * or /
             // over columns, VmCode::fold_operands[first, +count)
};

struct Instruction {
  Form form = Form::kUnary;
  ir::Op op = ir::Op::kConstant;
  Operand out, a, b, c;
  std::uint32_t first = 0;  // kFold: its operands
  std::uint32_t count = 0;
  std::uint32_t value = 0;  // the DAG value computed, for dumps
};

// The longest chain one kFold covers (longer chains become several folds).
inline constexpr std::uint32_t kMaxFold = 16;

struct RegionInstructions {
  std::vector<Instruction> instructions;
  std::vector<Operand> fold_operands;
  std::vector<float> constants;
  std::uint32_t registers = 0;

  std::string Dump() const;
};

}  // namespace calcjit::vm

#endif  // CALCJIT_BACKEND_VM_INSTRUCTIONS_H_
