// Scheduling the optimized DAG into the shared program: phases, where each
// value lives, the regions of element-wise work, and column buffers reused
// across phases.
#ifndef CALCJIT_BACKEND_PROGRAM_SCHEDULE_H_
#define CALCJIT_BACKEND_PROGRAM_SCHEDULE_H_

#include <cstdint>
#include <span>
#include <string_view>

#include "backend/program/program.h"
#include "opt/dag.h"

namespace calcjit::program {

// The default most nodes in one region: the JIT compiles a region as one
// function, and functions of a few hundred to a thousand nodes compile in
// tens of milliseconds, in parallel, and cache well (docs/PERFORMANCE.md).
inline constexpr std::uint32_t kDefaultRegionNodes = 1000;

struct ScheduleOptions {
  // A phase with more element-wise nodes than this is cut into several
  // regions, between features, at content-defined points: editing one
  // formula then changes the regions around it and leaves the others (and
  // the JIT's cached code for them) unchanged.
  std::uint32_t max_region_nodes = kDefaultRegionNodes;
  // Reuse a column buffer once the value in it is dead (off: one buffer per
  // column value, for tests and dumps).
  bool reuse_columns = true;
  // Aggregates over the same operand that derive from the column's
  // statistics share one computation of them (a StatisticsStep; off: every
  // aggregate runs its own kernel, for tests, dumps and benchmarks).
  bool share_statistics = true;
};

// The scheduler's steps that EngineOptions::disabled_passes can switch off,
// on every compiling backend: "statistics" (share_statistics).
std::span<const std::string_view> ScheduleStepNames();

Program Schedule(const opt::Dag& dag, const ScheduleOptions& options = {});

}  // namespace calcjit::program

#endif  // CALCJIT_BACKEND_PROGRAM_SCHEDULE_H_
