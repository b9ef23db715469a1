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
#include "runtime/pipeline.h"

namespace calcjit::internal {

struct LoadedSet {
  std::shared_ptr<const ir::CheckedSet> set;
};

class CompiledEngine {
 public:
  CompiledEngine(std::shared_ptr<const ir::EvalPlan> plan, Backend backend, Isa isa,
                 std::unique_ptr<backend::Executable> executable,
                 std::shared_ptr<const PreparedProgram> prepared, std::string note = {})
      : plan_(std::move(plan)),
        backend_(backend),
        isa_(isa),
        executable_(std::move(executable)),
        prepared_(std::move(prepared)),
        note_(std::move(note)) {}

  const ir::EvalPlan& plan() const { return *plan_; }
  const std::shared_ptr<const ir::EvalPlan>& shared_plan() const { return plan_; }
  const Schema& schema() const { return plan_->schema; }
  Backend backend() const { return backend_; }
  Isa isa() const { return isa_; }
  const std::string& note() const { return note_; }
  const backend::Executable& executable() const { return *executable_; }
  // The optimized, scheduled program (nullptr for the reference interpreter).
  const std::shared_ptr<const PreparedProgram>& prepared() const { return prepared_; }

 private:
  std::shared_ptr<const ir::EvalPlan> plan_;
  Backend backend_;
  Isa isa_;
  std::unique_ptr<backend::Executable> executable_;
  std::shared_ptr<const PreparedProgram> prepared_;
  std::string note_;
};

// Compiles `options.backend` for the set of `base`, reusing the program
// `base` was compiled from when the options that shape it (outputs, passes,
// region size) are the same: tiered serving compiles a version's JIT from
// its VM engine without optimizing again.
Result<Engine> CompileLike(const Engine& base, const EngineOptions& options);

}  // namespace calcjit::internal

#endif  // CALCJIT_RUNTIME_INTERNAL_H_
