// The interface every backend implements: a compiled plan that evaluates one
// batch whose bindings the runtime has already validated.
#ifndef CALCJIT_BACKEND_EXECUTABLE_H_
#define CALCJIT_BACKEND_EXECUTABLE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "calcjit/status.h"

namespace calcjit::internal {

// Per-thread scratch memory of a backend, owned by a Batch and reused.
class Workspace {
 public:
  virtual ~Workspace() = default;
};

}  // namespace calcjit::internal

namespace calcjit::backend {

// How an input's floats map to the items, once defaults are applied.
enum class InputLayout : std::uint8_t {
  kColumn,       // n floats, one per item
  kBroadcast,    // 1 float for every item (a query scalar, or a default)
  kItemVector,   // n * d floats, row-major
  kQueryVector,  // d floats shared by every item
};

struct InputView {
  const float* data = nullptr;
  InputLayout layout = InputLayout::kColumn;
  std::uint32_t dimension = 0;
};

struct EvalArgs {
  std::size_t item_count = 0;
  std::span<const InputView> inputs;  // by engine input slot (EvalPlan::slot_to_input)
  std::span<float* const> outputs;    // by output index; item_count floats each
};

class Executable {
 public:
  virtual ~Executable() = default;
  // Scratch for one thread; nullptr if the backend needs none.
  virtual std::unique_ptr<internal::Workspace> NewWorkspace() const { return nullptr; }
  // Writes every output completely. Every NaN written is the canonical quiet
  // NaN 0x7FC00000 (spec section 1).
  virtual Status Run(const EvalArgs& args, internal::Workspace* workspace) const = 0;
};

}  // namespace calcjit::backend

#endif  // CALCJIT_BACKEND_EXECUTABLE_H_
