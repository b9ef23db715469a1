// Reads XGBoost's JSON model files (spec 6.2): save_model("*.json") of
// XGBoost 1.x and 2.x with booster gbtree, numerical and categorical splits,
// any number of output groups. gblinear, dart and multi-output trees are
// refused. Streams the file through nlohmann-json's SAX parser (iterative),
// keeping only the numbers the evaluation needs; every error names the file
// and the field path, e.g.
// "ranker.json: learner.gradient_booster.model.trees[17].split_conditions[3]".
#ifndef CALCJIT_MODEL_TREE_XGBOOST_READER_H_
#define CALCJIT_MODEL_TREE_XGBOOST_READER_H_

#include <string_view>

#include "calcjit/status.h"
#include "model/tree/ensemble.h"

namespace calcjit::model {

Result<TreeEnsemble> ReadXgboostJson(std::string_view bytes, std::string_view file_name);

// The base margin XGBoost 1.7.4 starts from for `objective`, given the file's
// base_score `b` (spec 6.2), computed with the contract's float32 operations;
// an error for an objective spec 6.2 does not list.
Result<float> XgboostBaseMargin(std::string_view objective, float base_score);

}  // namespace calcjit::model

#endif  // CALCJIT_MODEL_TREE_XGBOOST_READER_H_
