// The one loop that evaluates the queries of a call, for Engine (with a
// Batch) and Session alike: Evaluate() is its one-query case.
#ifndef CALCJIT_RUNTIME_QUERY_RUNNER_H_
#define CALCJIT_RUNTIME_QUERY_RUNNER_H_

#include "backend/executable.h"
#include "calcjit/engine.h"
#include "calcjit/status.h"
#include "runtime/bindings.h"

namespace calcjit::internal {

// Runs every query of `plan` (PrepareCall checked it) on `executable`, one
// after another, in the contract's FP environment (round to nearest, no
// FTZ/DAZ; the thread's settings are restored afterwards). A query of 0 items
// computes nothing. `cancelled` (if not null and set) is asked between two
// queries. A backend's error names its query when the call has several.
// Allocates nothing.
Status RunQueries(const backend::Executable& executable, Workspace* workspace, CallPlan& plan,
                  const CancelCheck* cancelled);

}  // namespace calcjit::internal

#endif  // CALCJIT_RUNTIME_QUERY_RUNNER_H_
