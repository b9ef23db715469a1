// The one interface the pipeline sees of a trained model, whatever its
// format (spec section 6): what the checker and the tools need to know of it,
// the reference evaluation (the oracle), and the fast evaluation of each
// instruction-set tier. LoadModel dispatches on the format table
// (calcjit/model_formats.def): one reader per row.
// A loaded model is immutable and shared by threads, engines and versions
// (the runtime caches them by the hash of their bytes).
#ifndef CALCJIT_MODEL_MODEL_H_
#define CALCJIT_MODEL_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "calcjit/cpu.h"
#include "calcjit/model_format.h"
#include "calcjit/status.h"
#include "model/content_hash.h"

namespace calcjit::model {

struct ModelSummary {
  ModelFormat format = ModelFormat::kXgboostJson;
  std::uint32_t feature_count = 0;
  std::uint32_t output_count = 0;
  // The model's names of its features (spec 6.1): those its file gives, else
  // its format's defaults (f0, f1, ... for XGBoost and CatBoost); empty for a
  // format without defaults whose file names none (ONNX). `model(m)[k]` with
  // no inputs binds these.
  std::vector<std::string> feature_names;
  bool names_from_file = false;
  // Splits and leaves of every tree (0 for nets): a set's models may hold at
  // most 2^28 (spec 6.1).
  std::uint64_t tree_nodes = 0;
  // "xgboost: 500 trees, depth 8, 12 features, 1 output", what `check` prints.
  std::string description;
};

class Model {
 public:
  virtual ~Model() = default;

  const ModelSummary& summary() const { return summary_; }
  const ContentHash& hash() const { return hash_; }

  // The oracle: every item on its own, in the contract's order.
  // features[j][i] is feature j of item i; outputs[k][i] receives output k
  // (every k < output_count). Sets the contract's floating-point environment.
  virtual void EvaluateReference(const float* const* features, std::size_t n,
                                 float* const* outputs) const = 0;
  // Scratch bytes Evaluate needs for n items (64-byte aligned by the caller).
  virtual std::size_t ScratchBytes(std::size_t n) const = 0;
  // The fast evaluator compiled for `tier` (a concrete tier this CPU runs),
  // with the same bits as EvaluateReference. The caller has set the
  // contract's floating-point environment; nothing is allocated. Outputs
  // must not overlap the features; outputs[k] may be nullptr for an output
  // not needed (it is not written).
  virtual void Evaluate(Isa tier, const float* const* features, std::size_t n,
                        float* const* outputs, void* scratch) const = 0;
  // What the model does with one row, for `calcjit explain`: a tree
  // ensemble lists each tree's path (the decision at each node and the leaf
  // added), up to `max_trees` trees; a net its layers' widths and outputs.
  virtual std::string Explain(const float* row, std::size_t max_trees) const = 0;

 protected:
  Model(ModelSummary summary, ContentHash hash) : summary_(std::move(summary)), hash_(hash) {}

 private:
  ModelSummary summary_;
  ContentHash hash_;
};

// Reads, checks and prepares a model file's bytes (at load, never at
// evaluation). `file_name` is for messages: every error names the file and
// where in it (a field path, a line, an offset or a node).
Result<std::shared_ptr<const Model>> LoadModel(ModelFormat format, std::string_view bytes,
                                               std::string_view file_name);

}  // namespace calcjit::model

#endif  // CALCJIT_MODEL_MODEL_H_
