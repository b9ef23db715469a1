#include "model/tree_model_loader.h"

#include <utility>

#include "model/lightgbm_text_reader.h"
#include "model/xgboost_json_reader.h"

namespace calcjit::model {

Result<std::shared_ptr<const LoadedTreeModel>> LoadTreeModel(ModelFormat format,
                                                             std::string_view bytes,
                                                             std::string_view file_name) {
  Result<TreeEnsemble> read = format == ModelFormat::kXgboostJson
                                  ? ReadXgboostJson(bytes, file_name)
                                  : ReadLightgbmText(bytes, file_name);
  if (!read.ok()) return read.status();
  auto ensemble = std::make_shared<const TreeEnsemble>(std::move(read).value());
  Result<PreparedModel> prepared = PreparedModel::Prepare(ensemble);
  if (!prepared.ok()) return prepared.status();
  auto loaded = std::make_shared<LoadedTreeModel>();
  loaded->ensemble = std::move(ensemble);
  loaded->prepared = std::move(prepared).value();
  loaded->hash = HashModelBytes(bytes);
  return std::shared_ptr<const LoadedTreeModel>(std::move(loaded));
}

}  // namespace calcjit::model
