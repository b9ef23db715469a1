// The per-query loop (see query_runner.h).
#include "runtime/query_runner.h"

#include <string>
#include <vector>

#include "math/fp_env.h"

namespace calcjit::internal {

namespace {

// "query 2 of 3: " before each message of a query's error.
Status InQuery(const Status& status, std::size_t query, std::size_t queries) {
  if (queries == 1) return status;
  std::vector<Diagnostic> diagnostics = status.diagnostics();
  for (Diagnostic& d : diagnostics) {
    d.message.insert(0, "query " + std::to_string(query) + " of " + std::to_string(queries) + ": ");
  }
  return Status::Errors(status.kind(), std::move(diagnostics));
}

}  // namespace

Status RunQueries(const backend::Executable& executable, Workspace* workspace, CallPlan& plan,
                  const CancelCheck* cancelled) {
  const std::span<const std::size_t> item_counts = plan.item_counts_;
  const std::size_t queries = item_counts.size();
  const math::ScopedFpEnv fp_env;
  backend::EvalArgs args;
  args.inputs = plan.views_;
  // The first query reads and writes where PrepareCall pointed the views and
  // outputs; each later one moves the pointers to its items.
  args.outputs = plan.outputs_;
  std::size_t first_item = 0;
  for (std::size_t query = 0; query < queries; ++query) {
    if (query > 0) {
      if (cancelled != nullptr && *cancelled && (*cancelled)()) {
        plan.RewindViews();
        return RuntimeError("cancelled after " + std::to_string(query) + " of " +
                            std::to_string(queries) + " queries");
      }
      for (std::size_t slot = 0; slot < plan.inputs_.size(); ++slot) {
        const ResolvedInput& input = plan.inputs_[slot];
        plan.views_[slot].data =
            input.data + first_item * input.item_stride + query * input.query_stride;
      }
      for (std::size_t k = 0; k < plan.outputs_.size(); ++k) {
        plan.query_outputs_[k] = plan.outputs_[k] + first_item;
      }
      args.outputs = plan.query_outputs_;
    }
    const std::size_t items = item_counts[query];
    if (items == 0) continue;  // nothing to compute, nothing to write
    args.item_count = items;
    if (Status status = executable.Run(args, workspace); !status.ok()) {
      plan.RewindViews();
      return InQuery(status, query, queries);
    }
    first_item += items;
  }
  plan.RewindViews();
  return Status::Ok();
}

}  // namespace calcjit::internal
