#include "opt/pipeline.h"

#include <algorithm>
#include <chrono>

#include "opt/passes.h"

namespace calcjit::opt {

namespace {

constexpr PassDescription kPasses[] = {
    {"build", "inline the definitions into one DAG; lower n-ary operators to binary folds"},
    {"cse", "hash-cons the DAG: a subexpression shared by several features is one node"},
    {"fold", "evaluate constant subexpressions with the reference interpreter's kernels"},
    {"simplify", "rewrites that keep every bit (x*1, x-0, x+(-0), --x, if(c,x,x), ...)"},
    {"top_k", "rank(x) <= k, rank(x) < k, rank(x) == 1: select the k-th largest, no sort"},
    {"dce", "keep only what the requested outputs need"},
    {"uniform", "compute per-batch values once and broadcast them, never as columns"},
};

}  // namespace

std::span<const PassDescription> OptimizerPasses() {
  return kPasses;
}

Result<Optimized> Optimize(std::shared_ptr<const ir::EvalPlan> plan,
                           const OptimizerOptions& options) {
  auto enabled = [&](std::string_view name) {
    return std::find(options.disabled_passes.begin(), options.disabled_passes.end(), name) ==
           options.disabled_passes.end();
  };
  for (const std::string& name : options.disabled_passes) {
    const bool known = std::any_of(std::begin(kPasses) + 1, std::end(kPasses),
                                   [&](const PassDescription& p) { return p.name == name; });
    if (!known) {
      std::string names;
      for (const PassDescription& p : std::span(kPasses).subspan(1)) {
        names += (names.empty() ? "" : ", ") + std::string(p.name);
      }
      return UserError("unknown optimizer pass '" + name +
                       "' (passes that can be switched off: " + names + ")");
    }
  }

  using Clock = std::chrono::steady_clock;
  Optimized result{Dag(plan), {}};
  auto step = [&](std::string_view name, bool ran, Clock::time_point start) {
    PassReport report;
    report.name = std::string(name);
    report.ran = ran;
    report.milliseconds = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    report.nodes = result.dag.size();
    if (options.dump_after_each && ran) report.dump = result.dag.Dump();
    result.passes.push_back(std::move(report));
  };

  // "build" and "cse" are one step: hash-consing happens as nodes are added.
  Clock::time_point start = Clock::now();
  const bool cse = enabled("cse");
  result.dag = BuildDag(plan, cse);
  step("build", true, start);
  step("cse", cse, Clock::now());

  start = Clock::now();
  if (enabled("fold")) result.dag = FoldConstants(result.dag);
  step("fold", enabled("fold"), start);

  start = Clock::now();
  if (enabled("simplify")) result.dag = Simplify(result.dag);
  step("simplify", enabled("simplify"), start);

  start = Clock::now();
  if (enabled("top_k")) result.dag = RewriteTopK(result.dag);
  step("top_k", enabled("top_k"), start);

  start = Clock::now();
  if (enabled("dce")) result.dag = EliminateDeadCode(result.dag);
  step("dce", enabled("dce"), start);

  start = Clock::now();
  if (enabled("uniform")) ClassifyUniform(result.dag);
  step("uniform", enabled("uniform"), start);
  return result;
}

}  // namespace calcjit::opt
