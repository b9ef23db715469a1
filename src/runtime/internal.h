// The objects behind the public handles FeatureSet, Engine and Batch.
#ifndef CALCJIT_RUNTIME_INTERNAL_H_
#define CALCJIT_RUNTIME_INTERNAL_H_

#include <memory>
#include <string>
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
                 std::unique_ptr<backend::Executable> executable, std::string note = {})
      : plan_(std::move(plan)),
        backend_(backend),
        isa_(isa),
        executable_(std::move(executable)),
        note_(std::move(note)) {}

  const ir::EvalPlan& plan() const { return *plan_; }
  const Schema& schema() const { return plan_->schema; }
  Backend backend() const { return backend_; }
  Isa isa() const { return isa_; }
  const std::string& note() const { return note_; }
  const backend::Executable& executable() const { return *executable_; }

 private:
  std::shared_ptr<const ir::EvalPlan> plan_;
  Backend backend_;
  Isa isa_;
  std::unique_ptr<backend::Executable> executable_;
  std::string note_;
};

}  // namespace calcjit::internal

#endif  // CALCJIT_RUNTIME_INTERNAL_H_
