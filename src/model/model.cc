// LoadModel, the table of model formats, and the adapters from each format's
// loaded model to the one interface the pipeline sees.
#include "model/model.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "math/fp_env.h"
#include "model/block_evaluator.h"
#include "model/onnx/block_evaluator.h"
#include "model/onnx/loader.h"
#include "model/onnx/reference_evaluator.h"
#include "model/reference_evaluator.h"
#include "model/tree_model_loader.h"

namespace calcjit::model {

namespace {

// The block evaluator compiled for `tier`: each evaluator has one overload
// per prepared form in each tier's namespace.
template <typename Prepared>
void EvaluateOnTier(Isa tier, const Prepared& prepared, const float* const* features, std::size_t n,
                    float* const* outputs, void* scratch) {
  switch (tier) {
    case Isa::kAvx512:
      return avx512::Evaluate(prepared, features, n, outputs, scratch);
    case Isa::kAvx2:
      return avx2::Evaluate(prepared, features, n, outputs, scratch);
    default:
      return baseline::Evaluate(prepared, features, n, outputs, scratch);
  }
}

std::string FloatText(double value) {
  if (std::isnan(value)) return "nan";
  char buffer[32];
  return std::string(buffer, std::to_chars(buffer, buffer + sizeof buffer, value).ptr);
}

// A tree ensemble (XGBoost or LightGBM).
class TreeModel final : public Model {
 public:
  TreeModel(std::shared_ptr<const LoadedTreeModel> loaded, ir::ModelFormat format)
      : Model(SummaryOf(*loaded, format), loaded->hash), loaded_(std::move(loaded)) {}

  void EvaluateReference(const float* const* features, std::size_t n,
                         float* const* outputs) const override {
    model::EvaluateReference(*loaded_->ensemble, features, n, outputs);
  }
  // The block evaluator writes every output (its float32 sums accumulate in
  // them): outputs nobody needs go, chunk by chunk, to scratch after its own.
  std::size_t ScratchBytes(std::size_t n) const override {
    return EvaluatorScratch(n) + DiscardBytes();
  }
  void Evaluate(Isa tier, const float* const* features, std::size_t n, float* const* outputs,
                void* scratch) const override {
    const std::uint32_t count = summary().output_count;
    bool all = true;
    for (std::uint32_t k = 0; k < count; ++k) all = all && outputs[k] != nullptr;
    if (all) return EvaluateTier(tier, features, n, outputs, scratch);
    // After the evaluator's scratch: the discarded outputs' chunks, then the
    // chunk's pointer arrays.
    unsigned char* area = static_cast<unsigned char*>(scratch) + EvaluatorScratch(n);
    const std::size_t discard_bytes = std::size_t{count} * kDiscardChunk * sizeof(float);
    auto* discard = reinterpret_cast<float*>(area);
    auto** chunk_features = reinterpret_cast<const float**>(area + discard_bytes);
    auto** chunk_outputs = reinterpret_cast<float**>(
        area + discard_bytes + std::size_t{summary().feature_count} * sizeof(void*));
    for (std::size_t first = 0; first < n; first += kDiscardChunk) {
      const std::size_t items = std::min(kDiscardChunk, n - first);
      for (std::uint32_t j = 0; j < summary().feature_count; ++j) {
        chunk_features[j] = features[j] + first;
      }
      for (std::uint32_t k = 0; k < count; ++k) {
        chunk_outputs[k] = outputs[k] != nullptr ? outputs[k] + first : discard + k * kDiscardChunk;
      }
      EvaluateTier(tier, chunk_features, items, chunk_outputs, scratch);
    }
  }

  std::string Explain(const float* row, std::size_t max_trees) const override {
    const TreeEnsemble& ensemble = *loaded_->ensemble;
    const std::vector<std::string>& names = ensemble.info.feature_names;
    const bool xgboost = ensemble.info.format == ModelFormat::kXgboostJson;
    std::string out;
    std::size_t shown = 0;
    for (std::size_t t = 0; t < ensemble.trees.size() && shown < max_trees; ++t, ++shown) {
      const Tree& tree = ensemble.trees[t];
      out += "tree " + std::to_string(t) + " (output " + std::to_string(tree.output) + "):";
      const std::vector<std::uint32_t> path = ReferencePath(ensemble, tree, row);
      for (std::size_t p = 0; p + 1 < path.size(); ++p) {
        const TreeNode& node = ensemble.node(tree, path[p]);
        const bool left = path[p + 1] == node.left;
        const float x = row[node.feature];
        out += " " + names[node.feature] + "=" + FloatText(x);
        if (std::isnan(x) &&
            !(node.kind == NodeKind::kNumerical && !xgboost && node.missing != MissingType::kNan)) {
          out += left ? " missing->left," : " missing->right,";
        } else if (node.kind == NodeKind::kCategorical) {
          out += left == xgboost ? " not in set->" : " in set->";
          out += left ? "left," : "right,";
        } else if (xgboost) {
          out += (left ? " < " : " >= ") + FloatText(static_cast<float>(node.value)) +
                 (left ? "->left," : "->right,");
        } else {
          out += (left ? " <= " : " > ") + FloatText(node.value) + (left ? "->left," : "->right,");
        }
      }
      out += " leaf " + FloatText(ensemble.node(tree, path.back()).value) + "\n";
    }
    if (shown < ensemble.trees.size()) {
      out += "(" + std::to_string(ensemble.trees.size() - shown) + " more trees)\n";
    }
    return out;
  }

 private:
  static constexpr std::size_t kDiscardChunk = 512;

  std::size_t EvaluatorScratch(std::size_t n) const {
    // Rounded to a cache line, so that what follows stays aligned.
    return (EvaluateScratchBytes(loaded_->prepared, n) + 63) / 64 * 64;
  }
  std::size_t DiscardBytes() const {
    return std::size_t{summary().output_count} * kDiscardChunk * sizeof(float) +
           (std::size_t{summary().feature_count} + summary().output_count) * sizeof(void*);
  }
  void EvaluateTier(Isa tier, const float* const* features, std::size_t n, float* const* outputs,
                    void* scratch) const {
    EvaluateOnTier(tier, loaded_->prepared, features, n, outputs, scratch);
  }

  static ModelSummary SummaryOf(const LoadedTreeModel& loaded, ir::ModelFormat format) {
    const ModelInfo& info = loaded.info();
    ModelSummary summary;
    summary.format = format;
    summary.feature_count = info.num_features;
    summary.output_count = info.num_outputs;
    if (info.names_from_file) summary.feature_names = info.feature_names;
    summary.tree_nodes = info.num_nodes;
    summary.description = DescribeModel(info);
    return summary;
  }

  std::shared_ptr<const LoadedTreeModel> loaded_;
};

// An ONNX neural net.
class NetModel final : public Model {
 public:
  explicit NetModel(std::shared_ptr<const LoadedOnnxModel> loaded)
      : Model(SummaryOf(*loaded), loaded->hash), loaded_(std::move(loaded)) {}

  void EvaluateReference(const float* const* features, std::size_t n,
                         float* const* outputs) const override {
    model::EvaluateReference(*loaded_->net, features, n, outputs);
  }
  std::size_t ScratchBytes(std::size_t n) const override {
    return EvaluateScratchBytes(loaded_->prepared, n);
  }
  void Evaluate(Isa tier, const float* const* features, std::size_t n, float* const* outputs,
                void* scratch) const override {
    EvaluateOnTier(tier, loaded_->prepared, features, n, outputs, scratch);
  }

  std::string Explain(const float* row, std::size_t /*max_trees*/) const override {
    const OnnxNet& net = *loaded_->net;
    std::vector<float> out(net.info.num_outputs);
    {
      const math::ScopedFpEnv fp_env;
      EvaluateReferenceRow(net, row, out.data());
    }
    std::string text = loaded_->description + "\noutputs:";
    for (float v : out) text += " " + FloatText(v);
    return text + "\n";
  }

 private:
  static ModelSummary SummaryOf(const LoadedOnnxModel& loaded) {
    ModelSummary summary;
    summary.format = ir::ModelFormat::kOnnx;
    summary.feature_count = loaded.info().num_features;
    summary.output_count = loaded.info().num_outputs;
    if (loaded.info().names_from_file) summary.feature_names = loaded.info().feature_names;
    summary.description = loaded.description;
    return summary;
  }

  std::shared_ptr<const LoadedOnnxModel> loaded_;
};

}  // namespace

Result<std::shared_ptr<const Model>> LoadModel(ir::ModelFormat format, std::string_view bytes,
                                               std::string_view file_name) {
  switch (format) {
    case ir::ModelFormat::kXgboostJson:
    case ir::ModelFormat::kLightgbmText: {
      Result<std::shared_ptr<const LoadedTreeModel>> loaded =
          LoadTreeModel(format == ir::ModelFormat::kXgboostJson ? ModelFormat::kXgboostJson
                                                                : ModelFormat::kLightgbmText,
                        bytes, file_name);
      if (!loaded.ok()) return loaded.status();
      return std::shared_ptr<const Model>(
          std::make_shared<const TreeModel>(std::move(loaded).value(), format));
    }
    case ir::ModelFormat::kOnnx: {
      Result<std::shared_ptr<const LoadedOnnxModel>> loaded = LoadOnnxModel(bytes, file_name);
      if (!loaded.ok()) return loaded.status();
      return std::shared_ptr<const Model>(
          std::make_shared<const NetModel>(std::move(loaded).value()));
    }
  }
  return InternalError("unknown model format");
}

}  // namespace calcjit::model
