// How a feature set becomes an engine: the table of contents of the
// compiler. plan -> optimize (once) -> schedule -> a backend compiles the
// regions, and the shared executor runs the result.
//
//   ir::MakePlan        what the requested outputs need      (ir/plan.h)
//   opt::Optimize       one DAG, named passes                 (opt/pipeline.h)
//   program::Schedule   phases, steps, regions, columns       (backend/program/schedule.h)
//   vm::CompileRegions  or jit::CompileRegions                (backend/vm, backend/jit)
//   program::MakeExecutable                                   (backend/program/executor.h)
//
// The reference interpreter takes the plan itself (it is the oracle, and
// optimizes nothing).
#ifndef CALCJIT_RUNTIME_PIPELINE_H_
#define CALCJIT_RUNTIME_PIPELINE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend/executable.h"
#include "backend/program/program.h"
#include "calcjit/engine.h"
#include "ir/plan.h"

namespace calcjit::internal {

// A pass the optimizer ran, for stats and dumps.
struct PassTiming {
  std::string name;
  bool ran = true;
  double milliseconds = 0.0;
  std::size_t nodes = 0;  // DAG size after it
  std::string dump;       // the DAG after it, when asked for
};

// What the optimizer and the scheduler made of a plan. Immutable; the VM and
// the JIT engines of one set and options share it, so tiered serving
// optimizes and schedules each version once.
struct PreparedProgram {
  std::shared_ptr<const ir::EvalPlan> plan;
  EngineOptions options;  // those it was prepared with
  std::string dag;        // the optimized DAG, printed (only when asked for)
  std::vector<PassTiming> passes;
  std::shared_ptr<const program::Program> program;
};

// Every name EngineOptions::disabled_passes accepts, for every backend: the
// optimizer's passes and the VM's steps. Unknown names are an error that
// lists them.
Status CheckPassNames(const std::vector<std::string>& disabled_passes);

// Optimizes and schedules. `dump` keeps the DAG after each pass and at the
// end (for dumps; costs time).
Result<std::shared_ptr<const PreparedProgram>> Prepare(std::shared_ptr<const ir::EvalPlan> plan,
                                                       const EngineOptions& options,
                                                       bool dump = false);

// How many times Prepare has run in this process (tests count them).
std::uint64_t PrepareCount();

// The VM's or the JIT's executable for a prepared program; `isa` is a
// concrete tier this CPU runs.
Result<std::unique_ptr<backend::Executable>> CompileProgram(const PreparedProgram& prepared,
                                                            Backend backend, Isa isa,
                                                            const EngineOptions& options);

}  // namespace calcjit::internal

#endif  // CALCJIT_RUNTIME_PIPELINE_H_
