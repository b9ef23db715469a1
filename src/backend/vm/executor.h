// Running a VM program, and the per-thread memory it runs in.
#ifndef CALCJIT_BACKEND_VM_EXECUTOR_H_
#define CALCJIT_BACKEND_VM_EXECUTOR_H_

#include <cstddef>
#include <vector>

#include "backend/executable.h"
#include "backend/vm/program.h"

namespace calcjit::vm {

// Cache-line aligned floats that only grow.
struct AlignedFloats {
  AlignedFloats() = default;
  ~AlignedFloats();
  AlignedFloats(const AlignedFloats&) = delete;
  AlignedFloats& operator=(const AlignedFloats&) = delete;

  float* data = nullptr;
  std::size_t capacity = 0;
};

// One thread's scratch for one program. Sized for the program when made, and
// for the largest batch seen so far: evaluating a batch no larger than an
// earlier one allocates nothing.
class VmWorkspace : public internal::Workspace {
 public:
  VmWorkspace(const Program& program, std::size_t input_count);
  void Reserve(const Program& program, std::size_t item_count);

  AlignedFloats registers;                // program.registers blocks
  AlignedFloats scalars;                  // program.scalar_init.size()
  AlignedFloats broadcast;                // a block per input slot, for defaulted item inputs
  AlignedFloats columns;                  // program.columns whole-batch columns
  AlignedFloats operand;                  // an aggregate's operand when it must be broadcast
  AlignedFloats rank;                     // rank's sorting scratch
  AlignedFloats whole_inputs;             // whole broadcast columns of defaulted inputs pieces read
  std::vector<const float*> piece_reads;  // a native piece's arguments
  AlignedFloats piece_scalars;
  std::vector<float*> piece_writes;
  AlignedFloats tail_reads;  // a piece's last items, padded to a chunk
  AlignedFloats tail_writes;
  std::size_t column_capacity = 0;
};

void RunProgram(const Program& program, const backend::EvalArgs& args, VmWorkspace& workspace);

}  // namespace calcjit::vm

#endif  // CALCJIT_BACKEND_VM_EXECUTOR_H_
