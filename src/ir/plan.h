// What one engine computes: the requested outputs, the definitions they need
// in evaluation order, and the inputs those read.
#ifndef CALCJIT_IR_PLAN_H_
#define CALCJIT_IR_PLAN_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "calcjit/schema.h"
#include "calcjit/status.h"
#include "ir/checked_set.h"

namespace calcjit::ir {

struct EvalPlan {
  std::shared_ptr<const CheckedSet> set;
  std::vector<std::uint32_t> outputs;   // definitions, in the requested order
  std::vector<std::uint32_t> features;  // every needed definition, dependencies first
  // Engine input slot -> index in set->schema.inputs, and back (kNone: not needed).
  std::vector<std::uint32_t> slot_to_input;
  std::vector<std::uint32_t> input_to_slot;
  Schema schema;  // the engine's: needed inputs in set order, requested outputs
};

// `outputs` empty means every definition. Unknown or repeated names are errors.
Result<EvalPlan> MakePlan(std::shared_ptr<const CheckedSet> set,
                          std::span<const std::string> outputs);

}  // namespace calcjit::ir

#endif  // CALCJIT_IR_PLAN_H_
