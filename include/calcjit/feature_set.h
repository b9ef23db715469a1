// A feature set: read from any of the three formats, checked, immutable.
#ifndef CALCJIT_FEATURE_SET_H_
#define CALCJIT_FEATURE_SET_H_

#include "calcjit/cxx20.h"

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "calcjit/model_format.h"
#include "calcjit/schema.h"
#include "calcjit/status.h"

namespace calcjit {

namespace internal {
struct LoadedSet;
}  // namespace internal

// The three formats of a set (spec sections 2 and 4).
enum class Format : unsigned char {
  kText,   // .calc
  kJson,   // .json, the proto3 JSON mapping
  kProto,  // .pb / .binpb, binary protobuf
};

// "calc", "json", "pb" (also "binpb", "text", "proto").
std::optional<Format> FormatFromName(std::string_view name);
// By file extension: .calc, .json, .pb, .binpb.
std::optional<Format> FormatFromPath(std::string_view path);
std::string_view FormatName(Format format);

// Where the models a set declares come from when it is loaded (spec 6.1).
struct LoadOptions {
  // The folder a declaration's path is relative to. Empty: the folder of the
  // set's file for ReadFile; for Parse, none (every model then needs its
  // bytes in model_bytes, or an absolute path with allow_any_model_path).
  std::string model_root;
  // A model's bytes by the model's name in the set (`model NAME = ...`),
  // used instead of reading its path: a service that ships sets as bytes
  // ships their models with them. The bytes need only live during the call.
  std::map<std::string, std::string_view, std::less<>> model_bytes;
  // Read absolute paths and paths that leave the model root (through `..` or
  // a symbolic link). Off by default: a set shipped from a config service
  // must not make a serving process read arbitrary files.
  bool allow_any_model_path = false;
  // Read no model at all: the set can be printed, converted and checked for
  // everything but its models' shapes, but not compiled (a tool converting a
  // set between formats needs no model files).
  bool load_models = true;
};

// A model a set declares, as it was loaded.
struct DeclaredModel {
  std::string name;
  ModelFormat format = ModelFormat::kXgboostJson;
  std::string path;  // as declared
  // "xgboost: 500 trees, depth 8, 12 features, 1 output"
  std::string description;
  std::size_t feature_count = 0;
  std::size_t output_count = 0;
  // The file's names of the model's features, or empty when it names none.
  std::vector<std::string> feature_names;
};

// What one definition's formula reads directly.
struct DefinitionUses {
  std::vector<std::size_t> features;  // other definitions (schema().outputs indices), ascending
  std::vector<std::size_t> inputs;    // schema().inputs indices, ascending
  bool aggregate = false;             // it applies an aggregate (a per-batch operator)
};

// Immutable and cheap to copy (copies share the parsed set); safe to use
// from many threads at once.
class FeatureSet {
 public:
  // Reads and checks a set, and reads, checks and prepares the models it
  // declares (never at evaluation). On failure, the Status lists every
  // problem found, each with its location (spec sections 5 and 6.1).
  static Result<FeatureSet> Parse(std::string_view data, Format format,
                                  const LoadOptions& options = {});
  // Reads a file; the format comes from the extension unless given. Models
  // are found under the file's folder unless options.model_root names one.
  static Result<FeatureSet> ReadFile(const std::string& path,
                                     std::optional<Format> format = std::nullopt,
                                     const LoadOptions& options = {});

  // A model on its own, as a set ("load a model and infer"): its inputs are
  // the model's features (item scalars named as the file names them, else
  // f0, f1, ...), its outputs the model's outputs, named as the library
  // names them (calcjit/model_formats.def: `margin` for XGBoost, `raw_score`
  // for LightGBM, `output` for ONNX), with a suffix _0, _1, ... when there are
  // several (and underscores added should a name be taken by a feature). The
  // model is called `model` in the set.
  static Result<FeatureSet> FromModel(std::string_view bytes, ModelFormat format);
  // The same from a file; the format comes from its content or extension
  // (DetectModelFormat) unless given. Errors name the file.
  static Result<FeatureSet> ReadModel(const std::string& path,
                                      std::optional<ModelFormat> format = std::nullopt);

  // The models the set declares, in order.
  std::vector<DeclaredModel> Models() const;
  // The bytes model `m` (Models() order) was loaded from, to ship the set
  // with its models (LoadOptions::model_bytes on the other side). Empty when
  // the models were not loaded. The set keeps one copy of each model file.
  std::string_view ModelBytes(std::size_t m) const;
  // How model `m` (Models() order) decides for one row of its features (in
  // the model's order): each tree's path, split by split, for the first
  // `max_trees` trees of an ensemble; a net's outputs. For `calcjit explain`.
  Result<std::string> ExplainModel(std::size_t m, std::span<const float> row,
                                   std::size_t max_trees) const;

  // Inputs (declared in order, then implicit ones in order of first use) and
  // outputs (every definition in order).
  const Schema& schema() const;
  // The implicit inputs: names that are used but neither declared nor defined.
  std::vector<std::string> ImplicitInputs() const;

  // For every definition, in schema().outputs order: what it reads.
  std::vector<DefinitionUses> Uses() const;
  // Every definition (schema().outputs index), each after those it uses.
  std::vector<std::size_t> EvaluationOrder() const;

  // Writes the set in a format: text (shortest floats, minimal parentheses),
  // protobuf JSON (original field names, enum names) or binary protobuf.
  std::string Serialize(Format format) const;
  std::string ToText() const { return Serialize(Format::kText); }

  // For the library's own stages.
  const internal::LoadedSet& loaded() const { return *loaded_; }
  std::shared_ptr<const internal::LoadedSet> shared_loaded() const { return loaded_; }

 private:
  explicit FeatureSet(std::shared_ptr<const internal::LoadedSet> loaded)
      : loaded_(std::move(loaded)) {}
  std::shared_ptr<const internal::LoadedSet> loaded_;
};

}  // namespace calcjit

#endif  // CALCJIT_FEATURE_SET_H_
