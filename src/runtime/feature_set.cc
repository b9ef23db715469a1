// FeatureSet: reading, checking and writing sets in the three formats.
#include "calcjit/feature_set.h"

#include <filesystem>

#include "dsl/json_reader.h"
#include "dsl/json_writer.h"
#include "dsl/proto_reader.h"
#include "dsl/proto_writer.h"
#include "dsl/text_parser.h"
#include "dsl/text_printer.h"
#include "math/fp_env.h"
#include "runtime/caches.h"
#include "runtime/internal.h"
#include "runtime/model_loading.h"
#include "runtime/set_file.h"

namespace calcjit {

namespace {

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

Result<ir::FeatureSetIr> Read(std::string_view data, Format format) {
  switch (format) {
    case Format::kText:
      return dsl::ReadText(data);
    case Format::kJson:
      return dsl::ReadJson(data);
    case Format::kProto:
      return dsl::ReadProto(data);
  }
  return InternalError("unknown format");
}

// Sets parsed recently and still in use, by their exact bytes (the key is the
// format and the bytes themselves, so a hit is never a wrong set): parsing the
// same bytes again, as a reload of an unchanged set does, returns the same
// checked set, which the engine cache then recognizes.
internal::WeakCache<ir::CheckedSet>& ParseCache() {
  static auto* cache = new internal::WeakCache<ir::CheckedSet>(8);
  return *cache;
}

}  // namespace

std::optional<Format> FormatFromName(std::string_view name) {
  if (name == "calc" || name == "text") return Format::kText;
  if (name == "json") return Format::kJson;
  if (name == "pb" || name == "binpb" || name == "proto") return Format::kProto;
  return std::nullopt;
}

std::optional<Format> FormatFromPath(std::string_view path) {
  if (EndsWith(path, ".calc")) return Format::kText;
  if (EndsWith(path, ".json")) return Format::kJson;
  if (EndsWith(path, ".pb") || EndsWith(path, ".binpb")) return Format::kProto;
  return std::nullopt;
}

std::string_view FormatName(Format format) {
  switch (format) {
    case Format::kText:
      return "calc";
    case Format::kJson:
      return "json";
    case Format::kProto:
      return "pb";
  }
  return "?";
}

Result<FeatureSet> FeatureSet::Parse(std::string_view data, Format format,
                                     const LoadOptions& options) {
  // Sets read without their models are cached apart from those with them.
  std::string key(1, static_cast<char>(format));
  key += options.load_models ? '+' : '-';
  key.append(data);
  if (std::shared_ptr<const ir::CheckedSet> cached = ParseCache().Find(key)) {
    // The same text, and its models still the same bytes (re-read and
    // hashed: reloading a set reloads its models).
    Result<bool> unchanged =
        options.load_models ? internal::ModelsUnchanged(*cached, options) : Result<bool>(true);
    if (!unchanged.ok()) return unchanged.status();
    if (*unchanged) {
      auto loaded = std::make_shared<internal::LoadedSet>();
      loaded->set = std::move(cached);
      return FeatureSet(std::move(loaded));
    }
  }
  // Literals round to the nearest float32 (spec section 4), whatever rounding
  // mode the calling thread set: std::from_chars follows the current mode.
  const math::ScopedFpEnv fp_env;
  Result<ir::FeatureSetIr> ir = Read(data, format);
  if (!ir.ok()) return ir.status();
  internal::ModelList no_models;
  std::vector<std::shared_ptr<const std::string>> model_bytes;
  Result<internal::ModelList> models =
      options.load_models ? internal::LoadModels(*ir, options, &model_bytes) : no_models;
  if (!models.ok()) return models.status();
  Result<ir::CheckedSet> checked = ir::Check(std::move(ir).value(), internal::ShapesOf(*models));
  if (!checked.ok()) return checked.status();
  checked->models = std::move(models).value();
  checked->model_bytes = std::move(model_bytes);
  auto loaded = std::make_shared<internal::LoadedSet>();
  loaded->set = std::make_shared<const ir::CheckedSet>(std::move(checked).value());
  ParseCache().Add(std::move(key), loaded->set);
  return FeatureSet(std::move(loaded));
}

Result<FeatureSet> FeatureSet::ReadFile(const std::string& path, std::optional<Format> format,
                                        const LoadOptions& options) {
  // Before the extension is looked at: a NUL would end the name early.
  if (path.find('\0') != std::string::npos) {
    return UserError("the path '" + path + "' contains a NUL character");
  }
  if (!format) format = FormatFromPath(path);
  if (!format) {
    return UserError("cannot tell the format of '" + path +
                     "' from its extension (.calc, .json, .pb, .binpb); name it explicitly");
  }
  Result<std::string> contents = internal::ReadSetFile(path, "feature set");
  if (!contents.ok()) return contents.status();
  // Models are found next to the set unless the caller says otherwise.
  LoadOptions with_root = options;
  if (with_root.model_root.empty()) {
    const std::filesystem::path folder = std::filesystem::path(path).parent_path();
    with_root.model_root = folder.empty() ? "." : folder.string();
  }
  Result<FeatureSet> set = Parse(*contents, *format, with_root);
  if (set.ok()) return set;
  // Prefix every location with the file, as compilers do.
  std::vector<Diagnostic> diagnostics = set.status().diagnostics();
  for (Diagnostic& d : diagnostics)
    d.location = path + (d.location.empty() ? "" : ":" + d.location);
  return Status::Errors(set.status().kind(), std::move(diagnostics));
}

std::vector<DeclaredModel> FeatureSet::Models() const {
  const ir::CheckedSet& set = *loaded_->set;
  std::vector<DeclaredModel> models;
  for (std::size_t m = 0; m < set.ir.models.size(); ++m) {
    const ir::ModelDecl& decl = set.ir.models[m];
    DeclaredModel info;
    info.name = set.ir.NameOf(decl.name);
    info.format = decl.format;
    info.path = decl.path;
    if (m < set.models.size() && set.models[m] != nullptr) {
      const model::ModelSummary& summary = set.models[m]->summary();
      info.description = summary.description;
      info.feature_count = summary.feature_count;
      info.output_count = summary.output_count;
      info.feature_names = summary.feature_names;
    }
    models.push_back(std::move(info));
  }
  return models;
}

Result<std::string> FeatureSet::ExplainModel(std::size_t m, std::span<const float> row,
                                             std::size_t max_trees) const {
  const ir::CheckedSet& set = *loaded_->set;
  if (m >= set.models.size() || set.models[m] == nullptr) {
    return UserError("model " + std::to_string(m) + " is not loaded");
  }
  const model::Model& model = *set.models[m];
  if (row.size() != model.summary().feature_count) {
    return UserError("model '" + set.ir.NameOf(set.ir.models[m].name) + "' has " +
                     std::to_string(model.summary().feature_count) + " features, the row " +
                     std::to_string(row.size()) + " values");
  }
  return model.Explain(row.data(), max_trees);
}

std::string_view FeatureSet::ModelBytes(std::size_t m) const {
  const ir::CheckedSet& set = *loaded_->set;
  if (m >= set.model_bytes.size() || set.model_bytes[m] == nullptr) return {};
  return *set.model_bytes[m];
}

const Schema& FeatureSet::schema() const {
  return loaded_->set->schema;
}

std::vector<std::string> FeatureSet::ImplicitInputs() const {
  std::vector<std::string> names;
  for (const InputInfo& input : schema().inputs) {
    if (!input.declared) names.push_back(input.name);
  }
  return names;
}

std::string FeatureSet::Serialize(Format format) const {
  const math::ScopedFpEnv fp_env;
  const ir::FeatureSetIr& ir = loaded_->set->ir;
  switch (format) {
    case Format::kText:
      return dsl::WriteText(ir);
    case Format::kJson:
      return dsl::WriteJson(ir);
    case Format::kProto:
      return dsl::WriteProto(ir);
  }
  return {};
}

std::optional<std::size_t> Schema::FindInput(std::string_view name) const {
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].name == name) return i;
  }
  return std::nullopt;
}

std::optional<std::size_t> Schema::FindOutput(std::string_view name) const {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i] == name) return i;
  }
  return std::nullopt;
}

}  // namespace calcjit
