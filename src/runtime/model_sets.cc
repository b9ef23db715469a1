// Model formats by name, and a model on its own as a set (FeatureSet::
// FromModel): the "load a model and infer" of the Java and Python frontends.
#include <set>

#include "calcjit/feature_set.h"
#include "ir/model_format.h"
#include "runtime/model_files.h"
#include "runtime/model_loading.h"

namespace calcjit {

namespace {

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// A name in the text syntax: between backquotes, a backquote doubled.
std::string Quoted(std::string_view name) {
  std::string out = "`";
  for (char c : name) {
    out += c;
    if (c == '`') out += '`';
  }
  return out + "`";
}

// What the model's outputs are called: margins (XGBoost), raw scores
// (LightGBM), outputs (ONNX), as those libraries name them.
std::string_view OutputBaseName(ModelFormat format) {
  switch (format) {
    case ModelFormat::kXgboostJson:
      return "margin";
    case ModelFormat::kLightgbmText:
      return "raw_score";
    case ModelFormat::kOnnx:
      return "output";
  }
  return "output";
}

}  // namespace

std::optional<ModelFormat> ModelFormatFromName(std::string_view name) {
  const std::optional<ir::ModelFormat> format = ir::ModelFormatFromTextName(name);
  if (!format) return std::nullopt;
  return internal::PublicFormat(*format);
}

std::optional<ModelFormat> ModelFormatFromPath(std::string_view path) {
  if (EndsWith(path, ".json")) return ModelFormat::kXgboostJson;
  if (EndsWith(path, ".txt")) return ModelFormat::kLightgbmText;
  if (EndsWith(path, ".onnx")) return ModelFormat::kOnnx;
  return std::nullopt;
}

std::string_view ModelFormatName(ModelFormat format) {
  return ir::InfoOf(internal::IrFormat(format)).text_name;
}

namespace {

// FeatureSet::FromModel; `file_name` is what the model's messages call it:
// its path when it was read from a file, so that every frontend's error says
// which file.
Result<FeatureSet> SetFromModel(std::string_view bytes, ModelFormat format,
                                std::string_view file_name) {
  Result<std::shared_ptr<const model::Model>> model =
      internal::LoadModelCached(internal::IrFormat(format), bytes, file_name);
  if (!model.ok()) return model.status();
  const model::ModelSummary& summary = (*model)->summary();
  // The file's feature names when they make valid, distinct inputs, else f0, f1, ...
  std::vector<std::string> features = summary.feature_names;
  std::set<std::string> distinct(features.begin(), features.end());
  bool usable = features.size() == summary.feature_count && distinct.size() == features.size();
  for (const std::string& name : features) usable = usable && !name.empty() && name.size() <= 1024;
  if (!usable) {
    features.clear();
    for (std::uint32_t j = 0; j < summary.feature_count; ++j)
      features.push_back("f" + std::to_string(j));
    distinct = std::set<std::string>(features.begin(), features.end());
  }
  std::string base(OutputBaseName(format));
  auto output_name = [&](std::uint32_t k) {
    return summary.output_count == 1 ? base : base + "_" + std::to_string(k);
  };
  // An output named like a feature would redefine an input: lengthen it.
  for (bool clash = true; clash;) {
    clash = false;
    for (std::uint32_t k = 0; k < summary.output_count; ++k)
      clash |= distinct.count(output_name(k)) > 0;
    if (clash) base += "_";
  }
  // `model` is a reserved word: the model's name is written quoted.
  std::string text = "model `model` = " + std::string(ModelFormatName(format)) + "(\"model\");\n";
  std::string call = "model(`model`";
  for (const std::string& name : features) {
    text += "input " + Quoted(name) + ";\n";
    call += ", " + Quoted(name);
  }
  call += ")";
  for (std::uint32_t k = 0; k < summary.output_count; ++k) {
    text += Quoted(output_name(k)) + " = " + call + "[" + std::to_string(k) + "];\n";
  }
  LoadOptions options;
  options.model_bytes.emplace("model", bytes);
  return FeatureSet::Parse(text, Format::kText, options);
}

}  // namespace

Result<FeatureSet> FeatureSet::FromModel(std::string_view bytes, ModelFormat format) {
  return SetFromModel(bytes, format, "model");
}

Result<FeatureSet> FeatureSet::ReadModel(const std::string& path,
                                         std::optional<ModelFormat> format) {
  if (path.find('\0') != std::string::npos) {
    return UserError("the path '" + path + "' contains a NUL character");
  }
  if (!format) format = ModelFormatFromPath(path);
  if (!format) {
    return UserError("cannot tell the model format of '" + path +
                     "' from its extension (.json XGBoost, .txt LightGBM, .onnx); name it");
  }
  // A model file, read as every model file is: a regular file (a FIFO must
  // not block the call, /dev/zero not be read to the limit), bounded.
  Result<std::string> contents = internal::ReadModelPath(path);
  if (!contents.ok()) return contents.status();
  return SetFromModel(*contents, *format, path);
}

}  // namespace calcjit
