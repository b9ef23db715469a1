// A tree ensemble behind the one interface the pipeline sees (model/model.h):
// the decoded ensemble (the reference evaluator's) and its prepared layout
// (the fast evaluator's), made once per model file at load (spec 6.1).
#ifndef CALCJIT_MODEL_TREE_TREE_MODEL_H_
#define CALCJIT_MODEL_TREE_TREE_MODEL_H_

#include <memory>
#include <string_view>

#include "calcjit/status.h"
#include "model/content_hash.h"
#include "model/model.h"
#include "model/tree/ensemble.h"
#include "model/tree/prepared_model.h"

namespace calcjit::model {

// Immutable; share it between threads and between set versions whose model
// bytes hash equal.
struct LoadedTreeModel {
  std::shared_ptr<const TreeEnsemble> ensemble;
  PreparedModel prepared;
  ContentHash hash;  // of the file's bytes

  const ModelInfo& info() const { return ensemble->info; }
};

// Prepares what a tree reader read (LoadModel's step for Family::kTrees).
Result<std::shared_ptr<const Model>> MakeTreeModel(TreeEnsemble ensemble, ContentHash hash,
                                                   std::string_view file_name);

// LoadModel for a tree format, keeping the tree-specific parts (tests, tools
// and benchmarks look inside); an error for a format that is not a tree ensemble.
Result<std::shared_ptr<const LoadedTreeModel>> LoadTreeModel(ModelFormat format,
                                                             std::string_view bytes,
                                                             std::string_view file_name);

}  // namespace calcjit::model

#endif  // CALCJIT_MODEL_TREE_TREE_MODEL_H_
