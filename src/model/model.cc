// LoadModel: the format table's dispatch. Each row names its reader
// (model::Read<Name>, declared here from the row and defined in the reader's
// own file) and its family, which says how what the reader returns becomes a
// Model: a tree ensemble is prepared for the tree evaluators, a net for the
// net evaluator.
#include "model/model.h"

#include "model/format_table.h"
#include "model/onnx/net_model.h"
#include "model/tree/tree_model.h"

namespace calcjit::model {

// What a reader of each family returns.
using TreesSource = TreeEnsemble;
using NetSource = OnnxNet;

#define CALCJIT_MODEL_FORMAT(Name, number, proto_name, text_name, family, ...) \
  Result<family##Source> Read##Name(std::string_view bytes, std::string_view file_name);
#include "calcjit/model_formats.def"
#undef CALCJIT_MODEL_FORMAT

namespace {

Result<std::shared_ptr<const Model>> Make(Result<TreeEnsemble> read, const ContentHash& hash,
                                          std::string_view file_name) {
  if (!read.ok()) return read.status();
  return MakeTreeModel(std::move(read).value(), hash, file_name);
}

Result<std::shared_ptr<const Model>> Make(Result<OnnxNet> read, const ContentHash& hash,
                                          std::string_view file_name) {
  if (!read.ok()) return read.status();
  return MakeNetModel(std::move(read).value(), hash, file_name);
}

}  // namespace

Result<std::shared_ptr<const Model>> LoadModel(ModelFormat format, std::string_view bytes,
                                               std::string_view file_name) {
  const ContentHash hash = HashModelBytes(bytes);
  switch (format) {
#define CALCJIT_MODEL_FORMAT(Name, ...) \
  case ModelFormat::k##Name:            \
    return Make(Read##Name(bytes, file_name), hash, file_name);
#include "calcjit/model_formats.def"
#undef CALCJIT_MODEL_FORMAT
  }
  return InternalError("unknown model format " + std::to_string(static_cast<int>(format)));
}

}  // namespace calcjit::model
