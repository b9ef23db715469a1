#include "runtime/model_loading.h"

#include <atomic>
#include <optional>
#include <string>

#include "ir/location.h"
#include "ir/model_format.h"
#include "runtime/caches.h"
#include "runtime/model_files.h"

namespace calcjit::internal {

namespace {

std::atomic<std::uint64_t> model_loads{0};

// Loaded models still in use, by format and hash of their bytes.
WeakCache<model::Model>& ModelCache() {
  static auto* cache = new WeakCache<model::Model>(16);
  return *cache;
}

std::string CacheKey(ModelFormat format, const model::ContentHash& hash) {
  return std::to_string(static_cast<int>(format)) + ":" + hash.ToHex();
}

// A model's bytes: the caller's (a view), or a file's (owned). The view of
// owned bytes is made on each use, never stored: a short string keeps its
// bytes inside the object, so a view taken before a move would point into
// the moved-from object (files of 15 bytes or fewer were read from a dead
// stack buffer that way).
struct ModelBytes {
  std::string owned;
  std::optional<std::string_view> given;
  std::string file_name;  // for messages
  std::string_view view() const { return given ? *given : std::string_view(owned); }
};

// The same diagnostics, at the declaration of model `m`, each saying which
// model and where in its file.
Status AtDeclaration(const ir::FeatureSetIr& ir, std::size_t m, const Status& status) {
  const std::string where = ir::ModelLocation(ir, m);
  const std::string prefix = "model '" + ir.NameOf(ir.models[m].name) + "': ";
  std::vector<Diagnostic> diagnostics;
  for (const Diagnostic& d : status.diagnostics()) {
    diagnostics.push_back(
        {where, prefix + (d.location.empty() ? "" : d.location + ": ") + d.message});
  }
  return Status::Errors(status.kind(), std::move(diagnostics));
}

Result<ModelBytes> BytesOf(const ir::FeatureSetIr& ir, std::size_t m, const LoadOptions& options) {
  const ir::ModelDecl& decl = ir.models[m];
  ModelBytes bytes;
  const auto given = options.model_bytes.find(ir.NameOf(decl.name));
  if (given != options.model_bytes.end()) {
    bytes.given = given->second;
    bytes.file_name = decl.path.empty() ? ir.NameOf(decl.name) : decl.path;
    return bytes;
  }
  Result<std::string> read =
      ReadModelFile(decl.path, options.model_root, options.allow_any_model_path);
  if (!read.ok()) return AtDeclaration(ir, m, read.status());
  bytes.owned = std::move(read).value();
  bytes.file_name = decl.path;
  return bytes;
}

}  // namespace

Result<std::shared_ptr<const model::Model>> LoadModelCached(ModelFormat format,
                                                            std::string_view bytes,
                                                            std::string_view file_name) {
  const std::string key = CacheKey(format, model::HashModelBytes(bytes));
  if (std::shared_ptr<const model::Model> cached = ModelCache().Find(key)) return cached;
  Result<std::shared_ptr<const model::Model>> made = model::LoadModel(format, bytes, file_name);
  if (!made.ok()) return made.status();
  ModelCache().Add(key, *made);
  model_loads.fetch_add(1, std::memory_order_relaxed);
  return made;
}

Result<ModelList> LoadModels(const ir::FeatureSetIr& ir, const LoadOptions& options,
                             std::vector<std::shared_ptr<const std::string>>* bytes_out) {
  ModelList models;
  std::vector<Diagnostic> errors;
  ErrorKind kind = ErrorKind::kUser;
  std::uint64_t tree_nodes = 0;
  for (std::size_t m = 0; m < ir.models.size(); ++m) {
    Result<ModelBytes> bytes = BytesOf(ir, m, options);
    if (!bytes.ok()) {
      for (const Diagnostic& d : bytes.status().diagnostics()) errors.push_back(d);
      kind = bytes.status().kind();
      models.push_back(nullptr);
      continue;
    }
    Result<std::shared_ptr<const model::Model>> loaded =
        LoadModelCached(ir.models[m].format, bytes->view(), bytes->file_name);
    if (!loaded.ok()) {
      const Status located = AtDeclaration(ir, m, loaded.status());
      for (const Diagnostic& d : located.diagnostics()) errors.push_back(d);
      kind = loaded.status().kind();
      models.push_back(nullptr);
      continue;
    }
    tree_nodes += (*loaded)->summary().tree_nodes;
    if (bytes_out != nullptr) {
      bytes_out->push_back(bytes->given
                               ? std::make_shared<const std::string>(*bytes->given)
                               : std::make_shared<const std::string>(std::move(bytes->owned)));
    }
    models.push_back(std::move(loaded).value());
  }
  constexpr std::uint64_t kMaxTreeNodes = std::uint64_t{1} << 28;
  if (errors.empty() && tree_nodes > kMaxTreeNodes) {
    return UserError("the set's models have " + std::to_string(tree_nodes) +
                     " tree nodes, more than the limit of " + std::to_string(kMaxTreeNodes) +
                     " (2^28)");
  }
  if (!errors.empty()) return Status::Errors(kind, std::move(errors));
  return models;
}

Result<bool> ModelsUnchanged(const ir::CheckedSet& set, const LoadOptions& options) {
  if (set.models.size() != set.ir.models.size()) return false;
  for (std::size_t m = 0; m < set.ir.models.size(); ++m) {
    Result<ModelBytes> bytes = BytesOf(set.ir, m, options);
    if (!bytes.ok()) return bytes.status();
    if (set.models[m] == nullptr ||
        !(model::HashModelBytes(bytes->view()) == set.models[m]->hash())) {
      return false;
    }
  }
  return true;
}

std::vector<ir::ModelShape> ShapesOf(const ModelList& models) {
  // No models loaded: Check then checks model calls for their names only.
  std::vector<ir::ModelShape> shapes;
  for (const std::shared_ptr<const model::Model>& model : models) {
    const model::ModelSummary& summary = model->summary();
    shapes.push_back({summary.feature_count, summary.output_count, summary.feature_names});
  }
  return shapes;
}

std::uint64_t ModelLoadCount() {
  return model_loads.load(std::memory_order_relaxed);
}

}  // namespace calcjit::internal
