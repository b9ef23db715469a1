// Lowering a region to VM instructions: operand forms, fusing common
// patterns, and reusing block registers by liveness.
#ifndef CALCJIT_BACKEND_VM_REGION_LOWERING_H_
#define CALCJIT_BACKEND_VM_REGION_LOWERING_H_

#include "backend/program/program.h"
#include "backend/vm/instructions.h"

namespace calcjit::vm {

struct LowerOptions {
  // Reuse a block register once its value is dead, and compute in place when
  // an operand dies at the instruction that consumes it.
  bool reuse_registers = true;
  // a + s*b (a weighted-sum step) as one instruction instead of two, and
  // left-deep chains of one arithmetic operator as one fold.
  bool fuse = true;
};

RegionInstructions LowerRegion(const program::Region& region, const LowerOptions& options);

}  // namespace calcjit::vm

#endif  // CALCJIT_BACKEND_VM_REGION_LOWERING_H_
