// A feature set that passed every check of spec section 5, with each name
// resolved. This is what the optimizer and the backends take.
#ifndef CALCJIT_IR_CHECKED_SET_H_
#define CALCJIT_IR_CHECKED_SET_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "calcjit/schema.h"
#include "calcjit/status.h"
#include "ir/feature_set_ir.h"

namespace calcjit::model {
class Model;
}  // namespace calcjit::model

namespace calcjit::ir {

// What a name stands for: a definition (index into ir.features) or an input
// (index into schema.inputs).
struct Symbol {
  enum class Kind : std::uint8_t { kUnused, kFeature, kInput };
  Kind kind = Kind::kUnused;
  std::uint32_t index = 0;
};

// What a loaded model file says about the model's shape (spec section 6.1).
// The model readers (src/model) make one per declaration when a set's models
// are loaded; Check then checks every model call against it.
struct ModelShape {
  std::uint32_t feature_count = 0;
  std::uint32_t output_count = 0;
  // The model's own names of its features, in its feature order: empty when
  // the file names none, else feature_count names.
  std::vector<std::string> feature_names;
};

struct CheckedSet {
  FeatureSetIr ir;
  // inputs: the declared ones in declaration order, then the implicit ones
  // in order of first use; outputs: every definition in order.
  Schema schema;
  std::vector<Symbol> symbols;            // by NameId
  std::vector<std::uint32_t> topo_order;  // every definition after those it uses
  // By NameId: the model declaration (index into ir.models) of that name, or
  // kNone. Model names are a namespace of their own.
  std::vector<std::uint32_t> model_of_name;
  // Model calls without inputs, checked against a loaded model that names its
  // features: the names those inputs are (spec section 6.1: input j is the
  // feature or input named like model feature j), resolved like references.
  struct ImpliedInputs {
    NodeId call;
    std::vector<NameId> names;
  };
  std::vector<ImpliedInputs> implied_inputs;  // in node order
  // The loaded models, by declaration (ir.models order): what the backends
  // evaluate. Empty when the set's models were not loaded (a set read
  // without them cannot be planned for evaluation).
  std::vector<std::shared_ptr<const model::Model>> models;
  // Each loaded model's file bytes (models order), kept so that a set can be
  // shipped with its models (pickled to a worker, serialized with them).
  std::vector<std::shared_ptr<const std::string>> model_bytes;

  const Symbol& SymbolOf(NameId name) const { return symbols[name]; }
  // The declaration of the model a call names (the checker resolved it).
  const ModelDecl& ModelOf(const Node& call) const { return ir.models[model_of_name[call.name]]; }
  // A model call without inputs: the names its inputs are (the model's own
  // feature names); nullptr for a call with inputs.
  const std::vector<NameId>* ImpliedInputsOf(NodeId call) const;
  // The definitions that `feature` references directly (with repeats).
  std::vector<std::uint32_t> DirectDependencies(std::uint32_t feature) const;
};

// Runs every check and reports every error found, each with its location.
//
// `model_shapes` is empty when the set's models are not loaded: model calls
// are then checked for their names only. Otherwise it has one shape per
// ir.models entry, in order, and each call is checked against its model: the
// number of inputs against the model's features, k against its outputs, and
// a call without inputs takes the model's own feature names (implied_inputs).
Result<CheckedSet> Check(FeatureSetIr ir, std::span<const ModelShape> model_shapes = {});

}  // namespace calcjit::ir

#endif  // CALCJIT_IR_CHECKED_SET_H_
