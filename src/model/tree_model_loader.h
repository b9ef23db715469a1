// The one call the pipeline makes per tree-model declaration: read, check
// and prepare a model file's bytes (spec 6.1: at load, never at evaluation).
#ifndef CALCJIT_MODEL_TREE_MODEL_LOADER_H_
#define CALCJIT_MODEL_TREE_MODEL_LOADER_H_

#include <memory>
#include <string_view>

#include "calcjit/status.h"
#include "model/content_hash.h"
#include "model/prepared_model.h"
#include "model/tree_model.h"

namespace calcjit::model {

// A loaded model: the decoded ensemble (for the reference evaluator) and its
// layout for the block evaluator. Immutable; share it between threads and
// between set versions whose model bytes hash equal.
struct LoadedTreeModel {
  std::shared_ptr<const TreeEnsemble> ensemble;
  PreparedModel prepared;
  ContentHash hash;  // of the file's bytes

  const ModelInfo& info() const { return ensemble->info; }
};

// `file_name` is only for messages. Errors name the file and where in it.
Result<std::shared_ptr<const LoadedTreeModel>> LoadTreeModel(ModelFormat format,
                                                             std::string_view bytes,
                                                             std::string_view file_name);

}  // namespace calcjit::model

#endif  // CALCJIT_MODEL_TREE_MODEL_LOADER_H_
