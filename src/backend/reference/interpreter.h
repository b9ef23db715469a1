// The reference interpreter: the classic design in which every expression
// node produces a fresh column. It is the oracle the other backends are
// tested against and the `evaluated` baseline of the benchmarks, so it is
// kept simple and obviously right rather than fast.
#ifndef CALCJIT_BACKEND_REFERENCE_INTERPRETER_H_
#define CALCJIT_BACKEND_REFERENCE_INTERPRETER_H_

#include <memory>

#include "backend/executable.h"
#include "ir/plan.h"

namespace calcjit::backend {

std::unique_ptr<Executable> MakeReferenceExecutable(std::shared_ptr<const ir::EvalPlan> plan);

}  // namespace calcjit::backend

#endif  // CALCJIT_BACKEND_REFERENCE_INTERPRETER_H_
