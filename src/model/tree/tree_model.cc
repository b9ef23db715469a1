#include "model/tree/tree_model.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <new>
#include <utility>

#include "model/tree/block_evaluator.h"
#include "model/tree/reference_evaluator.h"
#include "model/tree/symmetric_tree.h"

namespace calcjit::model {

namespace {

// The shortest text that reads back to `value`: as a float32 when it is one
// (XGBoost's and CatBoost's numbers), else as a float64 (LightGBM's).
std::string FloatText(double value) {
  if (std::isnan(value)) return "nan";
  char buffer[32];
  const auto narrow = static_cast<float>(value);
  if (static_cast<double>(narrow) == value) {
    return std::string(buffer, std::to_chars(buffer, buffer + sizeof buffer, narrow).ptr);
  }
  return std::string(buffer, std::to_chars(buffer, buffer + sizeof buffer, value).ptr);
}

class TreeModel final : public Model {
 public:
  TreeModel(std::shared_ptr<const LoadedTreeModel> loaded)
      : Model(SummaryOf(*loaded), loaded->hash), loaded_(std::move(loaded)) {}

  const std::shared_ptr<const LoadedTreeModel>& loaded() const { return loaded_; }

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

  // Each tree's path: at each split the input, the rule it met and the side
  // taken, then the leaf (with its leaf index, for a symmetric tree).
  std::string Explain(const float* row, std::size_t max_trees) const override {
    const TreeEnsemble& ensemble = *loaded_->ensemble;
    const std::vector<std::string>& names = ensemble.info.feature_names;
    std::string out;
    std::size_t shown = 0;
    for (std::size_t t = 0; t < ensemble.trees.size() && shown < max_trees; ++t, ++shown) {
      const Tree& tree = ensemble.trees[t];
      out += "tree " + std::to_string(t) + " (output " + std::to_string(tree.output) + "):";
      const std::vector<std::uint32_t> path = ReferencePath(ensemble, tree, row);
      for (std::size_t p = 0; p + 1 < path.size(); ++p) {
        const TreeNode& node = ensemble.node(tree, path[p]);
        const bool left = path[p + 1] == node.left;
        out += " " + names[node.feature] + "=" + FloatText(row[node.feature]) +
               Decision(ensemble, node, row[node.feature], left);
      }
      out += " leaf " + FloatText(ensemble.node(tree, path.back()).value);
      if (const int depth = SymmetricDepth(ensemble, tree); depth > 0) {
        // The leaf index: the decisions as bits, the first highest, right = 1.
        std::uint64_t index = 0;
        for (std::size_t p = 0; p + 1 < path.size(); ++p) {
          index = 2 * index + (path[p + 1] == ensemble.node(tree, path[p]).right ? 1 : 0);
        }
        out += " (symmetric tree: leaf index " + std::to_string(index) + " of " +
               std::to_string(std::uint64_t{1} << depth) + ")";
      }
      out += "\n";
    }
    if (shown < ensemble.trees.size()) {
      out += "(" + std::to_string(ensemble.trees.size() - shown) + " more trees)\n";
    }
    return out;
  }

 private:
  static constexpr std::size_t kDiscardChunk = 512;

  // " < 0.5->left,", " missing->right,", " in set->left,".
  static std::string Decision(const TreeEnsemble& ensemble, const TreeNode& node, float x,
                              bool left) {
    const TreeRules& rules = ensemble.rules;
    const std::string side = left ? "left," : "right,";
    const bool tiny = rules.tiny_as_zero && std::fabs(static_cast<double>(x)) <= kTinyAsZeroBound;
    if (node.kind == NodeKind::kCategorical) {
      if (std::isnan(x)) return " missing->" + side;
      const bool in_set = left == (rules.categories == TreeRules::Categories::kInSetGoesLeft);
      return in_set ? " in set->" + side : " not in set->" + side;
    }
    const bool as_zero = std::isnan(x) && node.missing != MissingType::kNan;
    if ((std::isnan(x) && !as_zero) ||
        (node.missing == MissingType::kZero && (as_zero || tiny || x == 0.0f))) {
      return " missing->" + side;
    }
    const bool less = rules.compare == TreeRules::Compare::kLess;
    const std::string op = left ? (less ? " < " : " <= ") : (less ? " >= " : " > ");
    return (as_zero ? " (as 0)" : tiny ? " (as 0)" : "") + op + FloatText(node.value) + "->" + side;
  }

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
    // The caller has set the contract's floating-point environment.
    TreeEvaluatorFor(tier)(loaded_->prepared, features, n, outputs, scratch);
  }

  static ModelSummary SummaryOf(const LoadedTreeModel& loaded) {
    const ModelInfo& info = loaded.info();
    ModelSummary summary;
    summary.format = info.format;
    summary.feature_count = info.num_features;
    summary.output_count = info.num_outputs;
    summary.feature_names = info.feature_names;
    summary.names_from_file = info.names_from_file;
    summary.tree_nodes = info.num_nodes;
    // With how its trees are evaluated, chosen at preparation: what `check`
    // shows (prepared_model.h, TreePlan).
    summary.description = DescribeModel(info) + "; evaluator (" + std::string(IsaName(BestIsa())) +
                          "): " + loaded.prepared.plan().Describe();
    return summary;
  }

  std::shared_ptr<const LoadedTreeModel> loaded_;
};

}  // namespace

Result<std::shared_ptr<const Model>> MakeTreeModel(TreeEnsemble ensemble, ContentHash hash,
                                                   std::string_view file_name) {
  try {
    auto shared = std::make_shared<const TreeEnsemble>(std::move(ensemble));
    Result<PreparedModel> prepared = PreparedModel::Prepare(shared);
    if (!prepared.ok()) return prepared.status();
    auto loaded = std::make_shared<LoadedTreeModel>();
    loaded->ensemble = std::move(shared);
    loaded->prepared = std::move(prepared).value();
    loaded->hash = hash;
    return std::shared_ptr<const Model>(
        std::make_shared<const TreeModel>(std::shared_ptr<const LoadedTreeModel>(loaded)));
  } catch (const std::bad_alloc&) {
    return RuntimeError("out of memory preparing the model", std::string(file_name));
  }
}

Result<std::shared_ptr<const LoadedTreeModel>> LoadTreeModel(ModelFormat format,
                                                             std::string_view bytes,
                                                             std::string_view file_name) {
  Result<std::shared_ptr<const Model>> model = LoadModel(format, bytes, file_name);
  if (!model.ok()) return model.status();
  const auto* trees = dynamic_cast<const TreeModel*>(model->get());
  if (trees == nullptr) {
    return UserError(std::string(ModelFormatName(format)) + " models are not tree ensembles",
                     std::string(file_name));
  }
  return trees->loaded();
}

}  // namespace calcjit::model
