// A model on its own as a set (FeatureSet::FromModel): the "load a model and
// infer" of the Java and Python frontends.
#include <set>

#include "calcjit/feature_set.h"
#include "ir/names.h"
#include "model/format_table.h"
#include "model/tree/ensemble.h"
#include "runtime/model_files.h"
#include "runtime/model_loading.h"

namespace calcjit {

namespace {

// A name in the text syntax: between backquotes, a backquote doubled.
std::string Quoted(std::string_view name) {
  std::string out = "`";
  for (char c : name) {
    out += c;
    if (c == '`') out += '`';
  }
  return out + "`";
}

// FromModel, with the name errors give the model's file.
Result<FeatureSet> FromModelNamed(std::string_view bytes, ModelFormat format,
                                  std::string_view file_name) {
  Result<std::shared_ptr<const model::Model>> model =
      internal::LoadModelCached(format, bytes, file_name);
  if (!model.ok()) return model.status();
  const model::ModelSummary& summary = (*model)->summary();
  // The file's feature names when they make valid, distinct inputs, else f0, f1, ...
  std::vector<std::string> features = summary.feature_names;
  std::set<std::string> distinct(features.begin(), features.end());
  bool usable = features.size() == summary.feature_count && distinct.size() == features.size();
  for (const std::string& name : features) usable = usable && ir::WhyNotAName(name) == nullptr;
  if (!usable) {
    features.clear();
    for (std::uint32_t j = 0; j < summary.feature_count; ++j)
      features.push_back("f" + std::to_string(j));
    distinct = std::set<std::string>(features.begin(), features.end());
  }
  // What the library calls its outputs: margins (XGBoost), raw scores
  // (LightGBM), ... (the format table's output_name).
  std::string base(model::RowOf(format).output_name);
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
  return FromModelNamed(bytes, format, "model");
}

Result<FeatureSet> FeatureSet::ReadModel(const std::string& path,
                                         std::optional<ModelFormat> format) {
  if (path.find('\0') != std::string::npos) {
    return UserError("the path '" + path + "' contains a NUL character");
  }
  // A model file, read as every model file is (runtime/model_files.h): a
  // regular file (a FIFO must not block the call, /dev/zero not be read to
  // the limit), bounded while reading.
  Result<std::string> contents = internal::ReadModelPath(path);
  if (!contents.ok()) return contents.status();
  if (!format) format = DetectModelFormat(path, *contents);
  if (!format) {
    std::string known;
    for (const model::FormatRow& row : model::kFormatRows) {
      known += std::string(known.empty() ? "" : ", ") + std::string(row.extensions) + " " +
               std::string(row.text_name);
    }
    return UserError("cannot tell the model format of '" + path +
                     "' from its content or extension (" + known + "); name it");
  }
  return FromModelNamed(*contents, *format, path);
}

}  // namespace calcjit
