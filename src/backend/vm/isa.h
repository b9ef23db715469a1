// The instruction-set tiers the VM's kernels are compiled for, and the
// choice among them at run time. The shipped library requires only baseline
// x86-64; the AVX2 and AVX-512 kernels run where the CPU has them.
#ifndef CALCJIT_BACKEND_VM_ISA_H_
#define CALCJIT_BACKEND_VM_ISA_H_

#include "calcjit/engine.h"

namespace calcjit::vm {

// The best tier this CPU (and OS) supports.
Isa DetectIsa();
// Whether this CPU can run `isa` (kAuto: always).
bool CpuSupports(Isa isa);

}  // namespace calcjit::vm

#endif  // CALCJIT_BACKEND_VM_ISA_H_
