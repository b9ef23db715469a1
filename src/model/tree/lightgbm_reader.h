// Reads LightGBM's text model files (spec 6.3): version v3 or v4,
// numerical and categorical splits, every missing type, several classes
// (num_tree_per_iteration), average_output. Linear trees are refused. Every
// error names the file and the line, e.g. "ranker.txt:57".
#ifndef CALCJIT_MODEL_TREE_LIGHTGBM_READER_H_
#define CALCJIT_MODEL_TREE_LIGHTGBM_READER_H_

#include <string_view>

#include "calcjit/status.h"
#include "model/tree/ensemble.h"

namespace calcjit::model {

Result<TreeEnsemble> ReadLightgbmText(std::string_view bytes, std::string_view file_name);

}  // namespace calcjit::model

#endif  // CALCJIT_MODEL_TREE_LIGHTGBM_READER_H_
