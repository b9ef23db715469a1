// The optimizer: a readable list of named passes, each of which can be
// switched off, is timed, and can dump the DAG it leaves.
#ifndef CALCJIT_OPT_PIPELINE_H_
#define CALCJIT_OPT_PIPELINE_H_

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "calcjit/status.h"
#include "ir/plan.h"
#include "opt/dag.h"

namespace calcjit::opt {

struct PassDescription {
  std::string_view name;
  std::string_view description;
};

// The passes in the order they run ("build" always runs; the others can be
// switched off by name).
std::span<const PassDescription> OptimizerPasses();

struct OptimizerOptions {
  std::vector<std::string> disabled_passes;
  bool dump_after_each = false;  // keep Dag::Dump() of every step in the report
};

struct PassReport {
  std::string name;
  bool ran = true;
  double milliseconds = 0.0;
  std::size_t nodes = 0;  // DAG size after the pass
  std::string dump;       // when dump_after_each
};

struct Optimized {
  Dag dag;
  std::vector<PassReport> passes;
};

// Unknown pass names are an error naming the valid ones.
Result<Optimized> Optimize(std::shared_ptr<const ir::EvalPlan> plan,
                           const OptimizerOptions& options = {});

}  // namespace calcjit::opt

#endif  // CALCJIT_OPT_PIPELINE_H_
