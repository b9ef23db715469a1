// Running a program: the executable both compiling backends return. It runs
// each phase's column steps, scalar steps and stores itself, with the column
// kernels of the program's instruction-set tier, and calls the backend's code
// for each region.
#ifndef CALCJIT_BACKEND_PROGRAM_EXECUTOR_H_
#define CALCJIT_BACKEND_PROGRAM_EXECUTOR_H_

#include <memory>

#include "backend/executable.h"
#include "backend/program/program.h"
#include "backend/program/region_code.h"
#include "calcjit/cpu.h"

namespace calcjit::program {

// `program` and `regions` (compiled from it, in Program::Regions() order) are
// shared by every thread; `isa` selects the column kernels (a tier this CPU
// runs: the caller checks).
std::unique_ptr<backend::Executable> MakeExecutable(std::shared_ptr<const Program> program,
                                                    CompiledRegions regions, Isa isa);

}  // namespace calcjit::program

#endif  // CALCJIT_BACKEND_PROGRAM_EXECUTOR_H_
