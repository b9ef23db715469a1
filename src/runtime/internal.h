// The objects behind the public handles FeatureSet, Engine and Batch.
#ifndef CALCJIT_RUNTIME_INTERNAL_H_
#define CALCJIT_RUNTIME_INTERNAL_H_

#include <memory>
#include <vector>

#include "backend/executable.h"
#include "calcjit/engine.h"
#include "ir/checked_set.h"
#include "ir/plan.h"

namespace calcjit::internal {

struct LoadedSet {
  std::shared_ptr<const ir::CheckedSet> set;
};

class CompiledEngine {
 public:
  CompiledEngine(std::shared_ptr<const ir::EvalPlan> plan, Backend backend, Isa isa,
                 std::unique_ptr<backend::Executable> executable)
      : plan_(std::move(plan)), backend_(backend), isa_(isa), executable_(std::move(executable)) {}

  const ir::EvalPlan& plan() const { return *plan_; }
  const Schema& schema() const { return plan_->schema; }
  Backend backend() const { return backend_; }
  Isa isa() const { return isa_; }
  const backend::Executable& executable() const { return *executable_; }

 private:
  std::shared_ptr<const ir::EvalPlan> plan_;
  Backend backend_;
  Isa isa_;
  std::unique_ptr<backend::Executable> executable_;
};

}  // namespace calcjit::internal

#endif  // CALCJIT_RUNTIME_INTERNAL_H_
