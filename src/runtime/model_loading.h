// Loading the models a set declares (spec 6.1), between reading the set and
// checking it: each model's bytes (the caller's, or the file under the model
// root), then the model itself, from the model cache when the same bytes
// were loaded before and are still in use (a reload with unchanged models
// prepares nothing again).
#ifndef CALCJIT_RUNTIME_MODEL_LOADING_H_
#define CALCJIT_RUNTIME_MODEL_LOADING_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "calcjit/feature_set.h"
#include "ir/checked_set.h"
#include "model/model.h"

namespace calcjit::internal {

using ModelList = std::vector<std::shared_ptr<const model::Model>>;

// Every model `ir` declares, in order. Errors are at the declaration
// (line:column, or models[i] in protobuf and JSON) and name the file.
// `bytes`, when given, receives each model's bytes (a copy of the caller's).
Result<ModelList> LoadModels(const ir::FeatureSetIr& ir, const LoadOptions& options,
                             std::vector<std::shared_ptr<const std::string>>* bytes = nullptr);

// Whether `set`'s loaded models are still what the options give: the same
// bytes, by hash (re-read from the files). A set whose models changed must be
// loaded again.
Result<bool> ModelsUnchanged(const ir::CheckedSet& set, const LoadOptions& options);

// One model from its bytes, through the model cache.
Result<std::shared_ptr<const model::Model>> LoadModelCached(ModelFormat format,
                                                            std::string_view bytes,
                                                            std::string_view file_name);

// What the checker checks model calls against.
std::vector<ir::ModelShape> ShapesOf(const ModelList& models);

// How many models were read and prepared in this process (not found in the
// model cache); tests count them.
std::uint64_t ModelLoadCount();

}  // namespace calcjit::internal

#endif  // CALCJIT_RUNTIME_MODEL_LOADING_H_
