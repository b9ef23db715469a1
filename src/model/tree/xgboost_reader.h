// Reads XGBoost's model files (spec 6.2): save_model("*.json") and
// save_model("*.ubj") (UBJSON, the same document in binary form) of XGBoost
// 1.x, 2.x and 3.x with booster gbtree, numerical and categorical splits, any
// number of output groups, one base score or one per output. gblinear, dart,
// multi-output trees and the legacy binary format are refused (the last with
// how to convert it). The encoding is recognized by content. Streams the file
// through nlohmann-json's SAX parser (iterative, JSON or UBJSON), keeping only
// the numbers the evaluation needs; every error names the file and the field
// path, e.g.
// "ranker.json: learner.gradient_booster.model.trees[17].split_conditions[3]".
#ifndef CALCJIT_MODEL_TREE_XGBOOST_READER_H_
#define CALCJIT_MODEL_TREE_XGBOOST_READER_H_

#include <string_view>

#include "calcjit/status.h"
#include "model/tree/ensemble.h"

namespace calcjit::model {

Result<TreeEnsemble> ReadXgboostJson(std::string_view bytes, std::string_view file_name);

// How an XGBoost file is written, from its first bytes.
enum class XgboostEncoding : unsigned char { kJson, kUbjson, kLegacyBinary };
XgboostEncoding XgboostEncodingOf(std::string_view bytes);

// The base margin XGBoost starts from for `objective`, given the file's
// base_score `b` (spec 6.2), computed as XGBoost 1.7.4 and 3.4.1 compute it
// (float32 operations and the C library's logf); an error for an objective
// spec 6.2 does not list.
Result<float> XgboostBaseMargin(std::string_view objective, float base_score);

}  // namespace calcjit::model

#endif  // CALCJIT_MODEL_TREE_XGBOOST_READER_H_
