// Reads CatBoost models (spec 6.5): the JSON export (save_model(...,
// format="json"), catboost_json_reader.cc, streamed through nlohmann-json's
// SAX parser) and the binary .cbm file (catboost_cbm_reader.cc, a
// bounds-checked decoding of its flatbuffer); catboost_reader.cc has the
// entry point and the builder both hand their trees to. Float features only; oblivious and
// non-symmetric (Depthwise, Lossguide) trees; any number of output
// dimensions; scale and bias. Categorical, text and embedding features are
// refused: they need CatBoost's own hashing, CTR tables and text processing.
//
// Both files describe the same model, so both readers hand what they decode
// to one builder (CatboostModelBuilder), which checks it, lays the trees out
// as ensemble.h says and fills TreeRules: whatever the file, the same
// TreeEnsemble.
//
// How CatBoost 1.2.10's applier computes RawFormulaVal, which the builder's
// TreeEnsemble reproduces bit for bit (pinned by tests against CatBoost):
//   - a split is true iff x > border in float32; a NaN input is first
//     replaced by -inf (nan_value_treatment AsFalse, CatBoost's "Min"), +inf
//     (AsTrue, "Max") or kept (AsIs: every comparison false);
//   - an oblivious tree of depth d with splits s_0..s_{d-1} (the file's
//     order) selects leaf sum_j (s_j true) << j, whose values for output k
//     are leaf_values[leaf * D + k]; a non-symmetric tree walks from its
//     root, true to the right;
//   - output k is the float64 sum of its leaves in tree order from +0, then
//     scale * sum + bias[k] in float64, where CatBoost leaves the bias out
//     when every bias is zero (seen only in the sign of a zero: -0 stays -0),
//     rounded to float32 once.
#ifndef CALCJIT_MODEL_TREE_CATBOOST_READER_H_
#define CALCJIT_MODEL_TREE_CATBOOST_READER_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "calcjit/status.h"
#include "model/tree/ensemble.h"

namespace calcjit::model {

// The file's entry point (model::ReadCatboost, the format table's reader):
// a file that starts with "CBM1" is the binary format, anything else the JSON
// export.
Result<TreeEnsemble> ReadCatboost(std::string_view bytes, std::string_view file_name);

// The two halves, for the fuzz targets and tests.
Result<TreeEnsemble> ReadCatboostJson(std::string_view bytes, std::string_view file_name);
Result<TreeEnsemble> ReadCatboostCbm(std::string_view bytes, std::string_view file_name);

// Borders a reader keeps, checked as they are read so that no file makes the
// features large: CatBoost quantizes a feature into at most 65,535 borders
// (border_count), and a model may hold 2^24 in all (65,536 features of 256).
inline constexpr std::uint64_t kMaxBordersPerFeature = 65'536;
inline constexpr std::uint64_t kMaxBorders = std::uint64_t{1} << 24;

// What a float feature's NaN becomes before its splits compare (CatBoost's
// ENanValueTreatment, in its numbering).
enum class CatboostNan : std::uint8_t { kAsIs = 0, kAsFalse = 1, kAsTrue = 2 };

struct CatboostFloatFeature {
  std::string name;                 // "" when the file gives none
  std::int64_t feature_index = -1;  // among the float features
  std::int64_t flat_index = -1;     // among all the model's features
  std::vector<float> borders;       // increasing
  CatboostNan nan = CatboostNan::kAsIs;
  std::string where;  // the feature's place in the file, for errors
};

// A split as both files give it: float feature `feature` (an index into the
// float features) is compared with `border`; true goes right.
struct CatboostSplit {
  std::uint32_t feature = 0;
  float border = 0;
};

// A node of a non-symmetric tree before it is laid out: a split with its
// children (indices into the same tree's nodes), or a leaf whose values
// start at `leaf_offset` in the tree's leaf values (D of them).
struct CatboostNode {
  bool leaf = false;
  CatboostSplit split;
  std::uint32_t left = 0;
  std::uint32_t right = 0;
  std::uint64_t leaf_offset = 0;
};

// Collects the trees of either file as TreeEnsemble trees, then fills
// ModelInfo and TreeRules. The features come first (both files give them
// before the trees; the JSON reader refuses a file that does not): a reader
// checks each split against them (CheckSplit) with the split's own place in
// the file before adding its tree. A tree with D output dimensions becomes D
// trees with the same splits, one per output, each adding its own leaf
// values: output k's sum still runs over the file's trees in order. Limits
// (spec 6.1, ensemble.h) are checked before anything is allocated.
class CatboostModelBuilder {
 public:
  explicit CatboostModelBuilder(std::string_view file_name) : file_name_(file_name) {}

  // Checks the features (indices 0, 1, 2, ... in order, increasing borders,
  // at most kMaxFeatures) and keeps them. Once, before any tree.
  Status SetFeatures(std::vector<CatboostFloatFeature> features);
  bool has_features() const { return has_features_; }

  // The split's feature exists and its border is one of that feature's
  // borders (CatBoost's applier compares bins of those borders, so a split on
  // any other value has no meaning there). `path` names the split.
  Status CheckSplit(const CatboostSplit& split, const std::string& path) const;

  // The number of tree nodes still allowed: a reader bounds what it stores
  // of a tree (leaf values, nodes) by it before the tree is added.
  std::uint64_t NodeBudget() const { return kMaxNodes - ensemble_.nodes.size(); }

  // An oblivious tree: its splits in the file's order (checked) and its
  // D * 2^splits.size() leaf values. `where` names the tree in the file
  // ("oblivious_trees[3]"), `leaves_path` its leaf values, the first of which
  // is element `leaves_first` there.
  Status AddOblivious(std::span<const CatboostSplit> splits, std::span<const double> leaf_values,
                      const std::string& where, const std::string& leaves_path,
                      std::uint64_t leaves_first);
  // A non-symmetric tree: its nodes (node 0 the root; every node reached
  // exactly once from it; splits checked) and its leaves' values, `dimension`
  // per leaf.
  Status AddNonSymmetric(std::span<const CatboostNode> nodes, std::span<const double> leaf_values,
                         std::uint32_t dimension, const std::string& where);

  // The model: `dimension` is the number of outputs when the file states it
  // (the .cbm does), else the trees' (1 without trees). `bias` has one value
  // per output, or none (all zero); `bias_where` names it for errors.
  Result<TreeEnsemble> Finish(double scale, std::vector<double> bias, const std::string& bias_where,
                              std::optional<std::uint32_t> dimension);

  // An error at `path` in the file.
  Status Error(std::string message, const std::string& path) const;

 private:
  Status SetDimension(std::uint32_t dimension, const std::string& where);
  // Adds one tree per output: `nodes` with the leaves' values for output k.
  Status AddExpanded(const std::string& where);

  std::string_view file_name_;
  bool has_features_ = false;
  std::vector<CatboostFloatFeature> features_;
  TreeEnsemble ensemble_;
  std::optional<std::uint32_t> dimension_;
  std::uint64_t file_trees_ = 0;
  std::vector<std::uint8_t> reached_;
};

}  // namespace calcjit::model

#endif  // CALCJIT_MODEL_TREE_CATBOOST_READER_H_
