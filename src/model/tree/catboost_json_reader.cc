// CatBoost's JSON export (save_model(..., format="json")), streamed through
// nlohmann-json's SAX parser: the features, then each tree as it ends, handed
// to the builder (catboost_reader.h).
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/json_text.h"
#include "common/number_text.h"
#include "model/tree/catboost_reader.h"

namespace calcjit::model {

namespace {

// Where a value is in the document.
enum class Ctx : std::uint8_t {
  kRoot,
  kFeaturesInfo,    // features_info
  kFloatFeatures,   // features_info.float_features
  kFloatFeature,    // one of them
  kBorders,         // its borders
  kOtherFeatures,   // features_info.categorical_features, text_features, ...: refused
  kObliviousTrees,  // oblivious_trees
  kObliviousTree,   // one of them
  kLeafValues,      // its leaf_values
  kSplits,          // its splits
  kSplit,           // a split, of an oblivious tree or of a node
  kTrees,           // trees: the non-symmetric trees
  kNode,            // a node of one (the tree itself is its root)
  kNodeValues,      // a leaf's values, when it has several
  kScaleAndBias,    // scale_and_bias: [scale, [bias, ...]]
  kBias,            // its biases
  kSkip,            // a value the evaluation does not need, and everything inside it
};

// A JSON model file is a few levels deep, and a non-symmetric tree one level
// per tree level: deeper than that is refused as the tree's depth.
constexpr std::size_t kMaxNesting = kMaxDepth + 16;

// The fields of an object the reader keeps, each read at most once.
enum Field : std::uint32_t {
  kFeaturesInfoField = 1u << 0,
  kObliviousTreesField = 1u << 1,
  kTreesField = 1u << 2,
  kScaleAndBiasField = 1u << 3,
  kFloatFeaturesField = 1u << 5,
  kBordersField = 1u << 6,
  kFeatureIdField = 1u << 7,
  kFeatureIndexField = 1u << 8,
  kFlatIndexField = 1u << 9,
  kNanTreatmentField = 1u << 10,
  kLeafValuesField = 1u << 11,
  kSplitsField = 1u << 12,
  kBorderField = 1u << 13,
  kSplitFeatureField = 1u << 14,
  kSplitTypeField = 1u << 15,
  kLeftField = 1u << 16,
  kRightField = 1u << 17,
  kSplitField = 1u << 18,
  kValueField = 1u << 19,
};

struct Frame {
  Ctx ctx = Ctx::kSkip;
  bool is_array = false;
  std::string key;          // an object's current member
  std::uint64_t index = 0;  // an array's current element
  std::uint32_t seen = 0;   // an object's fields read (Field bits)
  std::uint32_t node = 0;   // kNode: its index in the tree; kSplit of a node: the node's
  std::uint32_t level = 0;  // kNode: its depth in the tree
};

// A scalar value as the SAX parser delivers it.
struct Scalar {
  enum class Type : std::uint8_t { kNull, kBool, kInteger, kFloat, kString } type;
  bool boolean = false;
  std::int64_t integer = 0;  // kInteger that fits int64
  bool integer_overflow = false;
  std::string_view text;  // numbers: as written; strings: the value
};

bool IsNumber(const Scalar& s) {
  return s.type == Scalar::Type::kInteger || s.type == Scalar::Type::kFloat;
}

// The refusals of features_info's other kinds of features, by key.
struct OtherFeatures {
  const char* key;
  const char* why;
};
constexpr OtherFeatures kOtherFeatures[] = {
    {"categorical_features",
     "the model has categorical features: they need CatBoost's own hashing and CTR tables, "
     "which calcjit does not reproduce (it reads models of float features only)"},
    {"ctrs",
     "the model has CTR features of categorical features: they need CatBoost's own hashing "
     "and CTR tables, which calcjit does not reproduce (it reads models of float features only)"},
    {"text_features",
     "the model has text features: they need CatBoost's own tokenizers and dictionaries, "
     "which calcjit does not reproduce (it reads models of float features only)"},
    {"embedding_features",
     "the model has embedding features: they need CatBoost's own embedding processing, "
     "which calcjit does not reproduce (it reads models of float features only)"},
    {"estimated_features",
     "the model has features estimated from text or embeddings: they need CatBoost's own "
     "processing, which calcjit does not reproduce (it reads models of float features only)"},
};

class CatboostJsonReader final : public nlohmann::json_sax<nlohmann::json> {
 public:
  CatboostJsonReader(std::string_view file_name, JsonCursor* cursor)
      : builder_(file_name), file_name_(file_name), cursor_(cursor) {}

  Status status() const { return status_; }
  Result<TreeEnsemble> Finish();

  // --- nlohmann SAX interface ---
  bool null() override { return OnScalar(Scalar{Scalar::Type::kNull}); }
  bool boolean(bool value) override {
    Scalar s{Scalar::Type::kBool};
    s.boolean = value;
    return OnScalar(s);
  }
  bool number_integer(number_integer_t value) override {
    Scalar s{Scalar::Type::kInteger};
    s.integer = value;
    s.text = cursor_->NumberTextBefore();
    return OnScalar(s);
  }
  bool number_unsigned(number_unsigned_t value) override {
    Scalar s{Scalar::Type::kInteger};
    if (value > static_cast<number_unsigned_t>(std::numeric_limits<std::int64_t>::max())) {
      s.integer_overflow = true;
    } else {
      s.integer = static_cast<std::int64_t>(value);
    }
    s.text = cursor_->NumberTextBefore();
    return OnScalar(s);
  }
  bool number_float(number_float_t, const string_t&) override {
    Scalar s{Scalar::Type::kFloat};
    s.text = cursor_->NumberTextBefore();
    return OnScalar(s);
  }
  bool string(string_t& value) override {
    Scalar s{Scalar::Type::kString};
    s.text = value;
    return OnScalar(s);
  }
  bool binary(binary_t&) override { return Fail("unexpected binary value", Path()); }
  bool start_object(std::size_t) override { return Enter(false); }
  bool key(string_t& key) override {
    frames_.back().key = key;
    return true;
  }
  bool end_object() override { return Leave(); }
  bool start_array(std::size_t) override { return Enter(true); }
  bool end_array() override { return Leave(); }
  bool parse_error(std::size_t, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    std::string message = ex.what();
    // nlohmann's "[json.exception.parse_error.101] parse error at line 3,
    // column 7: ..." keeps its position and reason; the prefix only names
    // the library.
    const std::size_t bracket = message.find("] ");
    if (bracket != std::string::npos) message = message.substr(bracket + 2);
    const std::string path = Path();
    return Fail("malformed JSON: " + message + (path.empty() ? "" : " (in " + path + ")"), "");
  }

 private:
  bool Fail(std::string message, const std::string& path) {
    if (status_.ok()) status_ = builder_.Error(std::move(message), path);
    return false;
  }
  // Keeps the first error; false when `status` is one.
  bool Check(Status status) {
    if (status.ok()) return true;
    if (status_.ok()) status_ = std::move(status);
    return false;
  }

  // The path of the value being read, e.g. "oblivious_trees[3].splits[1].border".
  std::string Path() const { return PathUpTo(frames_.size()); }
  std::string PathUpTo(std::size_t depth) const {
    std::string path;
    for (std::size_t i = 0; i < depth; ++i) {
      const Frame& frame = frames_[i];
      if (frame.is_array) {
        path += "[" + std::to_string(frame.index) + "]";
      } else if (!frame.key.empty()) {
        if (!path.empty()) path += '.';
        path += frame.key;
      }
    }
    return path;
  }
  // The path of the innermost container itself (without its current key).
  std::string ObjectPath() const { return PathUpTo(frames_.size() - 1); }

  // Marks `field` read in the innermost object; a second time is an error.
  bool Once(Field field) {
    Frame& frame = frames_.back();
    if (frame.seen & field) return Fail("duplicate field", Path());
    frame.seen |= field;
    return true;
  }

  // The context of a container value inside the innermost frame, from its
  // key, or an error (false).
  bool ContainerContext(bool is_array, Ctx* ctx) {
    *ctx = Ctx::kSkip;
    if (frames_.empty()) {
      if (is_array) return Fail("the top level is not an object", "");
      *ctx = Ctx::kRoot;
      return true;
    }
    Frame& parent = frames_.back();
    const std::string& key = parent.key;
    auto want = [&](Ctx wanted, bool array, Field field) {
      if (is_array != array) {
        return Fail(std::string("expected ") + (array ? "an array" : "an object"), Path());
      }
      if (field != 0 && !Once(field)) return false;
      *ctx = wanted;
      return true;
    };
    switch (parent.ctx) {
      case Ctx::kRoot:
        if (key == "features_info") return want(Ctx::kFeaturesInfo, false, kFeaturesInfoField);
        // A model's trees are all oblivious or all not (CatBoost writes one
        // of the two arrays).
        if ((key == "oblivious_trees" && (parent.seen & kTreesField)) ||
            (key == "trees" && (parent.seen & kObliviousTreesField))) {
          return Fail("a model with both oblivious_trees and trees", Path());
        }
        if (key == "oblivious_trees") {
          return want(Ctx::kObliviousTrees, true, kObliviousTreesField);
        }
        if (key == "trees") return want(Ctx::kTrees, true, kTreesField);
        if (key == "scale_and_bias") return want(Ctx::kScaleAndBias, true, kScaleAndBiasField);
        if (key == "ctr_data") return FailCtrData();
        return true;
      case Ctx::kFeaturesInfo:
        if (key == "float_features") {
          return want(Ctx::kFloatFeatures, true, kFloatFeaturesField);
        }
        for (const OtherFeatures& other : kOtherFeatures) {
          if (key == other.key) return want(Ctx::kOtherFeatures, true, Field{});
        }
        return true;
      case Ctx::kFloatFeatures:
        return want(Ctx::kFloatFeature, false, Field{});
      case Ctx::kFloatFeature:
        if (key == "borders") return want(Ctx::kBorders, true, kBordersField);
        if (key == "feature_id" || key == "feature_index" || key == "flat_feature_index" ||
            key == "nan_value_treatment") {
          return Fail(key == "feature_id" || key == "nan_value_treatment" ? "expected a string"
                                                                          : "expected an integer",
                      Path());
        }
        return true;
      case Ctx::kObliviousTrees:
        return want(Ctx::kObliviousTree, false, Field{});
      case Ctx::kObliviousTree:
        if (key == "leaf_values") return want(Ctx::kLeafValues, true, kLeafValuesField);
        if (key == "splits") return want(Ctx::kSplits, true, kSplitsField);
        return true;
      case Ctx::kSplits:
        return want(Ctx::kSplit, false, Field{});
      case Ctx::kTrees:
        return want(Ctx::kNode, false, Field{});
      case Ctx::kNode:
        if (key == "left") return want(Ctx::kNode, false, kLeftField);
        if (key == "right") return want(Ctx::kNode, false, kRightField);
        if (key == "split") return want(Ctx::kSplit, false, kSplitField);
        if (key == "value") return want(Ctx::kNodeValues, true, kValueField);
        return true;
      case Ctx::kScaleAndBias:
        if (parent.index == 1) return want(Ctx::kBias, true, Field{});
        return Fail(parent.index == 0 ? "expected a number (the scale)"
                                      : "scale_and_bias has more than two elements",
                    Path());
      case Ctx::kSplit:
        if (key == "border" || key == "float_feature_index" || key == "split_type") {
          return Fail(key == "split_type" ? "expected a string" : "expected a number", Path());
        }
        return true;
      case Ctx::kBorders:
      case Ctx::kLeafValues:
      case Ctx::kNodeValues:
      case Ctx::kBias:
        return Fail("expected a number", Path());
      case Ctx::kOtherFeatures:
        return FailOtherFeatures();
      case Ctx::kSkip:
        return true;
    }
    return true;
  }

  bool FailCtrData() {
    return Fail(
        "the model has CTR data of categorical features: they need CatBoost's own hashing and "
        "CTR tables, which calcjit does not reproduce (it reads models of float features only)",
        Path());
  }

  bool FailOtherFeatures() {
    const std::string& key = frames_[frames_.size() - 2].key;
    for (const OtherFeatures& other : kOtherFeatures) {
      if (key == other.key) return Fail(other.why, PathUpTo(frames_.size()));
    }
    return Fail("unsupported features", Path());
  }

  bool Enter(bool is_array) {
    if (frames_.size() >= kMaxNesting) {
      return Fail("JSON nested deeper than " + std::to_string(kMaxNesting) + " levels", Path());
    }
    Ctx ctx;
    if (!ContainerContext(is_array, &ctx)) return false;
    Frame frame;
    frame.ctx = ctx;
    frame.is_array = is_array;
    switch (ctx) {
      case Ctx::kFloatFeature:
        feature_ = CatboostFloatFeature{};
        break;
      case Ctx::kObliviousTree:
      case Ctx::kNode:
        if (ctx == Ctx::kNode && frames_.back().ctx == Ctx::kNode) {
          if (!StartNode(&frame)) return false;
          break;
        }
        if (!StartTree()) return false;
        if (ctx == Ctx::kNode && !StartNode(&frame)) return false;
        break;
      case Ctx::kSplit:
        split_ = CatboostSplit{};
        if (frames_.back().ctx == Ctx::kNode) frame.node = frames_.back().node;
        break;
      case Ctx::kNodeValues:
        frame.node = frames_.back().node;
        leaf_start_ = leaves_.size();
        break;
      case Ctx::kBias:
        bias_where_ = Path();
        break;
      default:
        break;
    }
    frames_.push_back(std::move(frame));
    return true;
  }

  bool StartTree() {
    if (!builder_.has_features()) {
      return Fail(
          "the trees come before features_info.float_features (CatBoost writes the features "
          "first, and calcjit reads them first)",
          Path());
    }
    if (trees_read_ >= kMaxTrees) {
      return Fail("more than " + std::to_string(kMaxTrees) + " trees", Path());
    }
    leaves_.clear();
    splits_.clear();
    nodes_.clear();
    tree_dimension_.reset();
    return true;
  }

  // A node of a non-symmetric tree: its index, and its parent's child.
  bool StartNode(Frame* frame) {
    if (nodes_.size() >= builder_.NodeBudget()) {
      return Fail("more than " + std::to_string(kMaxNodes) + " tree nodes in the model", Path());
    }
    frame->node = static_cast<std::uint32_t>(nodes_.size());
    frame->level = 0;
    if (frames_.back().ctx == Ctx::kNode) {
      const Frame& parent = frames_.back();
      if (parent.level >= kMaxDepth) {
        return Fail("the tree is deeper than " + std::to_string(kMaxDepth) + " levels", Path());
      }
      frame->level = parent.level + 1;
      CatboostNode& parent_node = nodes_[parent.node];
      (parent.key == "left" ? parent_node.left : parent_node.right) = frame->node;
    }
    nodes_.emplace_back();
    return true;
  }

  bool Leave() {
    Frame& frame = frames_.back();
    bool ok = true;
    switch (frame.ctx) {
      case Ctx::kFloatFeature:
        ok = FinishFeature();
        break;
      case Ctx::kFloatFeatures:
        ok = Check(builder_.SetFeatures(std::move(features_)));
        break;
      case Ctx::kObliviousTree:
        ok = FinishObliviousTree();
        break;
      case Ctx::kSplit:
        ok = FinishSplit();
        break;
      case Ctx::kNode:
        ok = FinishNode();
        break;
      case Ctx::kNodeValues:
        ok = FinishLeafValues(leaves_.size() - leaf_start_, ObjectPath());
        break;
      case Ctx::kScaleAndBias:
        if (frame.index != 2) ok = Fail("expected [scale, [bias, ...]]", ObjectPath());
        break;
      default:
        break;
    }
    if (!ok) return false;
    frames_.pop_back();
    if (!frames_.empty() && frames_.back().ctx == Ctx::kTrees) {
      if (!FinishNonSymmetricTree()) return false;
    }
    return AfterValue();
  }

  // Advances the innermost array past the value just read.
  bool AfterValue() {
    if (!frames_.empty() && frames_.back().is_array) ++frames_.back().index;
    return true;
  }

  bool OnScalar(const Scalar& value) {
    if (frames_.empty()) return Fail("the top level is not an object", "");
    Frame& parent = frames_.back();
    const std::string& key = parent.key;
    bool ok = true;
    switch (parent.ctx) {
      case Ctx::kRoot:
        if (key == "features_info") return Fail("expected an object", Path());
        if (key == "oblivious_trees" || key == "trees" || key == "scale_and_bias") {
          return Fail("expected an array", Path());
        }
        if (key == "ctr_data") return FailCtrData();
        break;
      case Ctx::kFeaturesInfo:
        if (key == "float_features") return Fail("expected an array", Path());
        for (const OtherFeatures& other : kOtherFeatures) {
          if (key == other.key) return Fail("expected an array", Path());
        }
        break;
      case Ctx::kFloatFeatures:
      case Ctx::kObliviousTrees:
      case Ctx::kSplits:
      case Ctx::kTrees:
        return Fail("expected an object", Path());
      case Ctx::kFloatFeature:
        ok = OnFeatureField(value);
        break;
      case Ctx::kBorders:
        ok = OnBorder(value);
        break;
      case Ctx::kOtherFeatures:
        return FailOtherFeatures();
      case Ctx::kObliviousTree:
        // CatBoost writes the splits of a tree of depth 0 as null.
        if (key == "splits" && value.type == Scalar::Type::kNull) {
          if (!Once(kSplitsField)) return false;
          break;
        }
        if (key == "leaf_values" || key == "splits") return Fail("expected an array", Path());
        break;
      case Ctx::kLeafValues:
        ok = OnLeafValue(value);
        break;
      case Ctx::kSplit:
        ok = OnSplitField(value);
        break;
      case Ctx::kNode:
        if (key == "left" || key == "right" || key == "split") {
          return Fail("expected an object", Path());
        }
        if (key == "value") {
          if (!Once(kValueField)) return false;
          leaf_start_ = leaves_.size();
          ok = OnLeafValue(value) && FinishLeafValues(1, Path());
        }
        break;
      case Ctx::kNodeValues:
        ok = OnLeafValue(value);
        break;
      case Ctx::kScaleAndBias:
        if (parent.index == 0) {
          ok = OnNumber(value, &scale_);
        } else if (parent.index == 1) {
          return Fail("expected an array of biases, one per output dimension", Path());
        } else {
          return Fail("scale_and_bias has more than two elements", Path());
        }
        break;
      case Ctx::kBias:
        if (bias_.size() >= kMaxOutputs) {
          return Fail("more than " + std::to_string(kMaxOutputs) + " biases", Path());
        }
        bias_.emplace_back();
        ok = OnNumber(value, &bias_.back());
        break;
      case Ctx::kSkip:
        break;
    }
    if (!ok) return false;
    return AfterValue();
  }

  // A number as the nearest float64 of its text.
  bool OnNumber(const Scalar& value, double* out) {
    if (!IsNumber(value)) return Fail("expected a number", Path());
    std::optional<double> number = ParseFloat64(value.text);
    if (!number) return Fail("malformed number '" + std::string(value.text) + "'", Path());
    *out = *number;
    return true;
  }
  bool OnInteger(const Scalar& value, std::int64_t* out) {
    if (value.type != Scalar::Type::kInteger || value.integer_overflow) {
      return Fail("expected an integer", Path());
    }
    *out = value.integer;
    return true;
  }

  bool OnFeatureField(const Scalar& value) {
    const std::string& key = frames_.back().key;
    if (key == "feature_id") {
      if (!Once(kFeatureIdField)) return false;
      if (value.type != Scalar::Type::kString) return Fail("expected a string", Path());
      feature_.name = std::string(value.text);
    } else if (key == "feature_index") {
      if (!Once(kFeatureIndexField)) return false;
      return OnInteger(value, &feature_.feature_index);
    } else if (key == "flat_feature_index") {
      if (!Once(kFlatIndexField)) return false;
      return OnInteger(value, &feature_.flat_index);
    } else if (key == "nan_value_treatment") {
      if (!Once(kNanTreatmentField)) return false;
      if (value.type != Scalar::Type::kString) return Fail("expected a string", Path());
      if (value.text == "AsIs") {
        feature_.nan = CatboostNan::kAsIs;
      } else if (value.text == "AsFalse") {
        feature_.nan = CatboostNan::kAsFalse;
      } else if (value.text == "AsTrue") {
        feature_.nan = CatboostNan::kAsTrue;
      } else {
        return Fail("unknown nan_value_treatment '" + std::string(value.text) +
                        "' (AsIs, AsFalse or AsTrue)",
                    Path());
      }
    } else if (key == "borders") {
      return Fail("expected an array", Path());
    }
    return true;
  }

  // A border: the nearest float64 of its text, rounded to float32, as
  // CatBoost's own reader does (a decimal within half a float64 ulp of the
  // midpoint of two float32s rounds differently than straight to float32).
  bool OnBorder(const Scalar& value) {
    if (feature_.borders.size() >= kMaxBordersPerFeature || borders_read_ >= kMaxBorders) {
      return Fail(
          "more than " +
              std::to_string(borders_read_ >= kMaxBorders ? kMaxBorders : kMaxBordersPerFeature) +
              (borders_read_ >= kMaxBorders ? " borders in the model" : " borders in a feature"),
          Path());
    }
    ++borders_read_;
    double border = 0;
    if (!OnNumber(value, &border)) return false;
    feature_.borders.push_back(static_cast<float>(border));
    return true;
  }

  bool FinishFeature() {
    const Frame& frame = frames_.back();
    const std::string where = ObjectPath();
    if (!(frame.seen & kFeatureIndexField) || !(frame.seen & kFlatIndexField)) {
      return Fail("missing feature_index or flat_feature_index", where);
    }
    if (features_.size() >= kMaxFeatures) {
      return Fail("more than " + std::to_string(kMaxFeatures) + " float features", where);
    }
    feature_.where = where;
    features_.push_back(std::move(feature_));
    return true;
  }

  bool OnLeafValue(const Scalar& value) {
    if (leaves_.size() >= builder_.NodeBudget()) {
      return Fail("more than " + std::to_string(kMaxNodes) + " tree nodes in the model", Path());
    }
    double leaf = 0;
    if (!OnNumber(value, &leaf)) return false;
    leaves_.push_back(leaf);
    return true;
  }

  // A leaf of a non-symmetric tree has read its `count` values (`path`).
  bool FinishLeafValues(std::size_t count, const std::string& path) {
    CatboostNode& node = nodes_[frames_.back().node];
    if (count == 0) return Fail("a leaf without values", path);
    if (tree_dimension_ && *tree_dimension_ != count) {
      return Fail("a leaf of " + std::to_string(count) + " values in a tree whose leaves have " +
                      std::to_string(*tree_dimension_),
                  path);
    }
    tree_dimension_ = count;
    node.leaf = true;
    node.leaf_offset = leaf_start_;
    return true;
  }

  bool OnSplitField(const Scalar& value) {
    const std::string& key = frames_.back().key;
    if (key == "border") {
      if (!Once(kBorderField)) return false;
      double border = 0;
      if (!OnNumber(value, &border)) return false;
      split_.border = static_cast<float>(border);  // as OnBorder
    } else if (key == "float_feature_index") {
      if (!Once(kSplitFeatureField)) return false;
      std::int64_t feature = 0;  // set by OnInteger when it succeeds
      if (!OnInteger(value, &feature)) return false;
      if (feature < 0 || feature >= static_cast<std::int64_t>(kMaxFeatures)) {
        return Fail("float feature " + std::to_string(feature) + " out of range", Path());
      }
      split_.feature = static_cast<std::uint32_t>(feature);
    } else if (key == "split_type") {
      if (!Once(kSplitTypeField)) return false;
      if (value.type != Scalar::Type::kString) return Fail("expected a string", Path());
      if (value.text != "FloatFeature") {
        return Fail("split type '" + std::string(value.text) +
                        "': only splits on float features are supported (categorical, CTR, "
                        "text and embedding splits need CatBoost's own processing)",
                    Path());
      }
    }
    return true;
  }

  bool FinishSplit() {
    const Frame& frame = frames_.back();
    const std::string where = ObjectPath();
    if (!(frame.seen & kSplitTypeField)) return Fail("missing split_type", where);
    if (!(frame.seen & kBorderField) || !(frame.seen & kSplitFeatureField)) {
      return Fail("missing border or float_feature_index", where);
    }
    if (!Check(builder_.CheckSplit(split_, where))) return false;
    if (frames_[frames_.size() - 2].ctx == Ctx::kNode) {
      nodes_[frame.node].split = split_;
      return true;
    }
    // Bounded so that no file makes the list long: a tree this deep is
    // refused when it is added, whatever else it holds.
    if ((std::uint64_t{2} << splits_.size()) - 1 > builder_.NodeBudget()) {
      return Fail("an oblivious tree with more than " + std::to_string(splits_.size()) +
                      " splits has more nodes than the model may have (" +
                      std::to_string(kMaxNodes) + ")",
                  where);
    }
    splits_.push_back(split_);
    return true;
  }

  bool FinishObliviousTree() {
    const Frame& frame = frames_.back();
    const std::string where = ObjectPath();
    if (!(frame.seen & kLeafValuesField) || !(frame.seen & kSplitsField)) {
      return Fail("missing leaf_values or splits", where);
    }
    if (!Check(builder_.AddOblivious(splits_, leaves_, where, where + ".leaf_values", 0))) {
      return false;
    }
    ++trees_read_;
    return true;
  }

  bool FinishNode() {
    const Frame& frame = frames_.back();
    const std::uint32_t seen = frame.seen;
    const bool has_split = seen & kSplitField;
    const bool has_children = (seen & kLeftField) && (seen & kRightField);
    const bool has_value = seen & kValueField;
    if (has_split && has_children && !has_value) return true;
    if (has_value && !has_split && !(seen & (kLeftField | kRightField))) return true;
    return Fail("a node needs a split with a left and a right child, or a value (a leaf)",
                ObjectPath());
  }

  bool FinishNonSymmetricTree() {
    const std::string where = Path();
    if (!Check(builder_.AddNonSymmetric(
            nodes_, leaves_, static_cast<std::uint32_t>(tree_dimension_.value_or(1)), where))) {
      return false;
    }
    ++trees_read_;
    return true;
  }

  CatboostModelBuilder builder_;
  std::string_view file_name_;
  JsonCursor* cursor_;
  Status status_;
  std::vector<Frame> frames_;

  std::vector<CatboostFloatFeature> features_;
  CatboostFloatFeature feature_;  // being read
  // The tree being read.
  std::vector<double> leaves_;
  std::vector<CatboostSplit> splits_;
  std::vector<CatboostNode> nodes_;
  std::optional<std::size_t> tree_dimension_;
  std::size_t leaf_start_ = 0;
  CatboostSplit split_;
  std::uint64_t trees_read_ = 0;
  std::uint64_t borders_read_ = 0;

  double scale_ = 1.0;
  std::vector<double> bias_;
  std::string bias_where_ = "scale_and_bias";
};

Result<TreeEnsemble> CatboostJsonReader::Finish() {
  if (!builder_.has_features()) {
    return builder_.Error("missing features_info.float_features", "features_info");
  }
  return builder_.Finish(scale_, std::move(bias_), bias_where_, std::nullopt);
}

}  // namespace

Result<TreeEnsemble> ReadCatboostJson(std::string_view bytes, std::string_view file_name) {
  if (bytes.size() > kMaxModelFileBytes) {
    return UserError("model file larger than 2 GiB", std::string(file_name));
  }
  try {
    JsonCursor cursor;
    cursor.begin = bytes.data();
    cursor.read_end = bytes.data();
    CatboostJsonReader reader(file_name, &cursor);
    const char* end = bytes.data() + bytes.size();
    const bool parsed = nlohmann::json::sax_parse(
        JsonTextIterator(bytes.data(), end, &cursor), JsonTextIterator(end, end, &cursor), &reader,
        nlohmann::json::input_format_t::json, /*strict=*/true);
    if (!reader.status().ok()) return reader.status();
    if (!parsed) return UserError("malformed JSON", std::string(file_name));
    return reader.Finish();
  } catch (const std::bad_alloc&) {
    return RuntimeError("out of memory reading the model", std::string(file_name));
  } catch (const std::exception& ex) {
    return UserError(std::string("malformed JSON: ") + ex.what(), std::string(file_name));
  }
}

}  // namespace calcjit::model
