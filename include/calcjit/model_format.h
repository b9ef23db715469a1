// The formats of a model file (spec section 6), one per row of
// calcjit/model_formats.def.
#ifndef CALCJIT_MODEL_FORMAT_H_
#define CALCJIT_MODEL_FORMAT_H_

#include "calcjit/cxx20.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace calcjit {

// The values are the wire numbers (ModelDeclaration.Format).
enum class ModelFormat : unsigned char {
#define CALCJIT_MODEL_FORMAT(Name, number, ...) k##Name = number,
#include "calcjit/model_formats.def"
#undef CALCJIT_MODEL_FORMAT
};

// Every format, in the table's order.
std::span<const ModelFormat> ModelFormats();
// The text syntax's and every frontend's name: "xgboost", "lightgbm", "onnx", ...
std::string_view ModelFormatName(ModelFormat format);
// The format named `name` (a ModelFormatName).
std::optional<ModelFormat> ModelFormatFromName(std::string_view name);
// "'xgboost', 'lightgbm', 'onnx'": the names, for messages.
std::string ModelFormatNameList();
// By file extension alone (.json, .ubj, .txt, .onnx, ...): the first format of
// the table that claims it.
std::optional<ModelFormat> ModelFormatFromPath(std::string_view path);
// By content, then extension: the format whose signature the first bytes of
// `bytes` carry (an XGBoost JSON or UBJSON file, a LightGBM text file, ...),
// else the first format that claims `path`'s extension. `path` may be empty.
std::optional<ModelFormat> DetectModelFormat(std::string_view path, std::string_view bytes);

}  // namespace calcjit

#endif  // CALCJIT_MODEL_FORMAT_H_
