// A feature set that passed every check of spec section 5, with each name
// resolved. This is what the optimizer and the backends take.
#ifndef CALCJIT_IR_CHECKED_SET_H_
#define CALCJIT_IR_CHECKED_SET_H_

#include <cstdint>
#include <vector>

#include "calcjit/schema.h"
#include "calcjit/status.h"
#include "ir/feature_set_ir.h"

namespace calcjit::ir {

// What a name stands for: a definition (index into ir.features) or an input
// (index into schema.inputs).
struct Symbol {
  enum class Kind : std::uint8_t { kUnused, kFeature, kInput };
  Kind kind = Kind::kUnused;
  std::uint32_t index = 0;
};

struct CheckedSet {
  FeatureSetIr ir;
  // inputs: the declared ones in declaration order, then the implicit ones
  // in order of first use; outputs: every definition in order.
  Schema schema;
  std::vector<Symbol> symbols;            // by NameId
  std::vector<std::uint32_t> topo_order;  // every definition after those it uses

  const Symbol& SymbolOf(NameId name) const { return symbols[name]; }
  // The definitions that `feature` references directly (with repeats).
  std::vector<std::uint32_t> DirectDependencies(std::uint32_t feature) const;
};

// Runs every check and reports every error found, each with its location.
Result<CheckedSet> Check(FeatureSetIr ir);

}  // namespace calcjit::ir

#endif  // CALCJIT_IR_CHECKED_SET_H_
