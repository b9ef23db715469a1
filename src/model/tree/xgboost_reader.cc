#include "model/tree/xgboost_reader.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <iterator>
#include <limits>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/json_text.h"
#include "common/number_text.h"
#include "common/utf8.h"
#include "math/fp_env.h"
#include "model/tree/tree_check.h"

namespace calcjit::model {

namespace {

// XGBoost marks a node the pruner deleted with this split index; such nodes
// stay in the arrays but are not reached from the root.
constexpr std::int64_t kDeletedNodeMarker = 2147483647;
// XGBoost's categorical predicate treats values at or above 2^24 as invalid
// (common/categorical.h, InvalidCat), so no category there can ever match.
constexpr std::int64_t kCategoryLimit = 16777216;

// XGBoost writes the non-JSON tokens NaN, Infinity and -Infinity (a
// categorical split's split_conditions entry is NaN) and its own reader
// accepts them; nlohmann-json does not, so the shared JSON adapter
// (common/json_text.h) hands the lexer "0" instead and tells the number
// callback which special number it stands for: a number in the file is never
// mistaken for one.
//
// Per-node arrays the evaluation does not need, about half of a model's
// bytes, are handed to the parser as empty arrays, after checking that they
// hold only numbers (so that skipping cannot change how the rest of the file
// reads).
constexpr std::string_view kSkippedArrays[] = {R"("base_weights":[)", R"("loss_changes":[)",
                                               R"("sum_hessian":[)", R"("parents":[)"};
constexpr std::string_view kSkippedAsEmpty[] = {R"("base_weights":[])", R"("loss_changes":[])",
                                                R"("sum_hessian":[])", R"("parents":[])"};

bool IsNumberListChar(char c) {
  return (c >= '0' && c <= '9') || c == ',' || c == '-' || c == '+' || c == '.' || c == 'e' ||
         c == 'E' || c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == 'N' || c == 'a' ||
         c == 'I' || c == 'n' || c == 'f' || c == 'i' || c == 't' || c == 'y';
}

// The adapter's Substitute for XGBoost's files (see above).
JsonSubstitution XgboostSubstitute(std::string_view rest) {
  struct Special {
    std::string_view spelling;
    JsonSpecial special;
  };
  static constexpr Special kSpecials[] = {{"NaN", JsonSpecial::kNan},
                                          {"-NaN", JsonSpecial::kNegativeNan},
                                          {"Infinity", JsonSpecial::kInfinity},
                                          {"-Infinity", JsonSpecial::kNegativeInfinity}};
  for (const Special& s : kSpecials) {
    if (rest.starts_with(s.spelling)) return {"0", s.spelling.size(), s.special};
  }
  if (rest.front() != '"') return {};
  for (std::size_t i = 0; i < std::size(kSkippedArrays); ++i) {
    if (!rest.starts_with(kSkippedArrays[i])) continue;
    std::size_t close = kSkippedArrays[i].size();
    while (close < rest.size() && IsNumberListChar(rest[close])) ++close;
    if (close == rest.size() || rest[close] != ']') return {};  // parse it as it is
    return {kSkippedAsEmpty[i], close + 1, JsonSpecial::kNone};
  }
  return {};
}

// Where a value is in the document.
enum class Ctx : std::uint8_t {
  kRoot,
  kVersion,
  kLearner,
  kFeatureNames,
  kGradientBooster,
  kGbModel,
  kGbtreeModelParam,
  kTreeInfo,
  kTrees,
  kTree,
  kTreeParam,
  kTreeArray,
  kLearnerModelParam,
  kObjective,
  kBaseScoreArray,
  kSkip,  // a value the evaluation does not need, and everything inside it
};

enum class TreeField : std::uint8_t {
  kNone,
  kLeft,
  kRight,
  kSplitIndices,
  kSplitConditions,
  kDefaultLeft,
  kSplitType,
  kCategories,
  kCategoriesNodes,
  kCategoriesSegments,
  kCategoriesSizes,
};

struct FieldName {
  const char* name;
  TreeField field;
};
constexpr FieldName kTreeFields[] = {
    {"left_children", TreeField::kLeft},
    {"right_children", TreeField::kRight},
    {"split_indices", TreeField::kSplitIndices},
    {"split_conditions", TreeField::kSplitConditions},
    {"default_left", TreeField::kDefaultLeft},
    {"split_type", TreeField::kSplitType},
    {"categories", TreeField::kCategories},
    {"categories_nodes", TreeField::kCategoriesNodes},
    {"categories_segments", TreeField::kCategoriesSegments},
    {"categories_sizes", TreeField::kCategoriesSizes},
};
constexpr int kNumTreeFields = static_cast<int>(std::size(kTreeFields));

// A JSON model file is a few levels deep; a deeper one is not XGBoost's.
constexpr std::size_t kMaxNesting = 64;

struct Frame {
  Ctx ctx = Ctx::kSkip;
  bool is_array = false;
  TreeField field = TreeField::kNone;
  std::string key;          // an object's current member
  std::uint64_t index = 0;  // an array's current element
};

// A scalar value as the SAX parser delivers it.
struct Scalar {
  enum class Type : std::uint8_t { kNull, kBool, kInteger, kFloat, kString } type;
  bool boolean = false;
  std::int64_t integer = 0;  // kInteger that fits int64
  bool integer_overflow = false;
  std::string_view text;  // JSON numbers: as written; strings: the value
  // UBJSON floats have no text: their value (a float32 'd' widened exactly,
  // or a float64 'D').
  bool has_value = false;
  double value = 0;
};

// A number as the float32 XGBoost reads it: JSON text to the nearest float32
// (one rounding, not through double); a UBJSON float64 to the nearest float32
// (a float32 'd', what XGBoost writes, comes back exactly); an integer to the
// nearest float32.
std::optional<float> Float32Of(const Scalar& s) {
  if (s.has_value) return static_cast<float>(s.value);
  if (!s.text.empty()) return ParseFloat32(s.text);
  if (s.type == Scalar::Type::kInteger && !s.integer_overflow) {
    return static_cast<float>(s.integer);
  }
  return std::nullopt;
}

// One tree's arrays as read, before they are checked and decoded.
struct RawTree {
  std::vector<std::int32_t> ints[kNumTreeFields];  // every integer field
  std::vector<float> conditions;
  std::optional<std::int64_t> num_nodes, num_deleted, size_leaf_vector;
  bool present[kNumTreeFields] = {};

  void Clear() {
    for (auto& v : ints) v.clear();
    conditions.clear();
    num_nodes.reset();
    num_deleted.reset();
    size_leaf_vector.reset();
    std::fill(std::begin(present), std::end(present), false);
  }
};

class XgboostReader final : public nlohmann::json_sax<nlohmann::json> {
 public:
  // cursor: the JSON text's, or nullptr for UBJSON (numbers without text).
  XgboostReader(std::string_view file_name, std::size_t file_bytes, JsonCursor* cursor)
      : file_name_(file_name),
        cursor_(cursor),
        file_bytes_(file_bytes),
        max_callbacks_(2 * std::uint64_t{file_bytes} + 64) {}

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
    return OnNumber(s);
  }
  bool number_unsigned(number_unsigned_t value) override {
    Scalar s{Scalar::Type::kInteger};
    if (value > static_cast<number_unsigned_t>(std::numeric_limits<std::int64_t>::max())) {
      s.integer_overflow = true;
    } else {
      s.integer = static_cast<std::int64_t>(value);
    }
    return OnNumber(s);
  }
  bool number_float(number_float_t value, const string_t&) override {
    Scalar s{Scalar::Type::kFloat};
    if (cursor_ == nullptr) {
      s.has_value = true;
      s.value = value;
    }
    return OnNumber(s);
  }
  bool string(string_t& value) override {
    Scalar s{Scalar::Type::kString};
    s.text = value;
    return OnScalar(s);
  }
  bool binary(binary_t&) override { return Fail("unexpected binary value", Path()); }
  bool start_object(std::size_t size) override { return Declared(size) && Enter(false); }
  bool key(string_t& key) override {
    if (!Counted()) return false;
    frames_.back().key = key;
    return true;
  }
  bool end_object() override { return Leave(); }
  bool start_array(std::size_t size) override { return Declared(size) && Enter(true); }
  bool end_array() override { return Leave(); }
  bool parse_error(std::size_t, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    std::string message = ex.what();
    // nlohmann's "[json.exception.parse_error.101] parse error at line 3,
    // column 7: syntax error while parsing value - ..." keeps its position
    // and reason; the prefix only names the library.
    const std::size_t bracket = message.find("] ");
    if (bracket != std::string::npos) message = message.substr(bracket + 2);
    const std::string path = Path();
    return Fail(std::string(cursor_ != nullptr ? "malformed JSON: " : "malformed UBJSON: ") +
                    message + (path.empty() ? "" : " (in " + path + ")"),
                "");
  }

 private:
  // Every value, key and container end costs at least one byte of JSON, and
  // of UBJSON except the elements of a typed array of nulls or booleans,
  // which cost none: such an array may declare billions of them in a few
  // bytes. A file gets at most two callbacks per byte, and no container may
  // declare more elements than the file has bytes.
  bool Counted() {
    if (++callbacks_ <= max_callbacks_) return true;
    return Fail("more values than the file has bytes (an array of elements without content?)",
                Path());
  }
  bool Declared(std::size_t size) {
    if (!Counted()) return false;
    if (size == static_cast<std::size_t>(-1) || size <= file_bytes_) return true;
    return Fail("a container declares " + std::to_string(size) + " elements in a file of " +
                    std::to_string(file_bytes_) + " bytes",
                Path());
  }

  bool Fail(std::string message, const std::string& path) {
    if (status_.ok()) {
      std::string location(file_name_);
      if (!path.empty()) location += ": " + path;
      status_ = UserError(std::move(message), std::move(location));
    }
    return false;
  }

  // The path of the value being read, e.g. "learner.objective.name" or
  // "learner.gradient_booster.model.trees[3].split_conditions[7]".
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
  // A number, with its text as written; XGBoost's NaN, Infinity and
  // -Infinity (handed over as "0" by the adapter) as "nan", "inf", "-inf".
  bool OnNumber(Scalar s) {
    if (cursor_ == nullptr) return OnScalar(s);  // UBJSON: the value itself
    switch (cursor_->TakeSpecial()) {
      case JsonSpecial::kNone:
        s.text = cursor_->NumberTextBefore();
        return OnScalar(s);
      case JsonSpecial::kNan:
        s.text = "nan";
        break;
      case JsonSpecial::kInfinity:
        s.text = "inf";
        break;
      case JsonSpecial::kNegativeInfinity:
        s.text = "-inf";
        break;
      case JsonSpecial::kNegativeNan:
        return Fail("-NaN is not a number (XGBoost refuses it)", Path());
    }
    s.type = Scalar::Type::kFloat;
    s.integer_overflow = false;
    return OnScalar(s);
  }

  // The context of a value inside the innermost frame, from its key.
  Ctx ChildContext(bool is_container, bool is_array, TreeField* field) const {
    *field = TreeField::kNone;
    if (frames_.empty()) return Ctx::kRoot;
    const Frame& parent = frames_.back();
    const std::string& key = parent.key;
    switch (parent.ctx) {
      case Ctx::kRoot:
        if (key == "learner") return Ctx::kLearner;
        if (key == "version") return Ctx::kVersion;
        return Ctx::kSkip;
      case Ctx::kLearner:
        if (key == "feature_names") return Ctx::kFeatureNames;
        if (key == "gradient_booster") return Ctx::kGradientBooster;
        if (key == "learner_model_param") return Ctx::kLearnerModelParam;
        if (key == "objective") return Ctx::kObjective;
        return Ctx::kSkip;
      case Ctx::kGradientBooster:
        if (key == "model") return Ctx::kGbModel;
        if (key == "name") return Ctx::kGradientBooster;  // a scalar of this object
        return Ctx::kSkip;
      case Ctx::kGbModel:
        if (key == "gbtree_model_param") return Ctx::kGbtreeModelParam;
        if (key == "trees") return Ctx::kTrees;
        if (key == "tree_info") return Ctx::kTreeInfo;
        return Ctx::kSkip;
      case Ctx::kTrees:
        return Ctx::kTree;
      case Ctx::kTree:
        if (key == "tree_param") return Ctx::kTreeParam;
        for (const FieldName& f : kTreeFields) {
          if (key == f.name) {
            *field = f.field;
            return Ctx::kTreeArray;
          }
        }
        return Ctx::kSkip;
      case Ctx::kLearnerModelParam:
        if (key == "base_score" && is_container && is_array) return Ctx::kBaseScoreArray;
        return Ctx::kLearnerModelParam;
      case Ctx::kObjective:
        if (key == "name") return Ctx::kObjective;
        return Ctx::kSkip;
      default:
        return Ctx::kSkip;
    }
  }

  bool Enter(bool is_array) {
    if (frames_.size() >= kMaxNesting) {
      return Fail("JSON nested deeper than " + std::to_string(kMaxNesting) + " levels", Path());
    }
    if (!frames_.empty()) {
      const Ctx parent = frames_.back().ctx;
      if (parent == Ctx::kTreeArray || parent == Ctx::kTreeInfo || parent == Ctx::kVersion ||
          parent == Ctx::kFeatureNames || parent == Ctx::kBaseScoreArray) {
        return Fail(parent == Ctx::kFeatureNames ? "expected a string" : "expected a number",
                    Path());
      }
    }
    TreeField field;
    Ctx ctx = ChildContext(true, is_array, &field);
    const bool wants_array = ctx == Ctx::kVersion || ctx == Ctx::kFeatureNames ||
                             ctx == Ctx::kTreeInfo || ctx == Ctx::kTrees ||
                             ctx == Ctx::kTreeArray || ctx == Ctx::kBaseScoreArray;
    if (ctx != Ctx::kSkip && ctx != Ctx::kLearnerModelParam && wants_array != is_array) {
      return Fail(std::string("expected ") + (wants_array ? "an array" : "an object"), Path());
    }
    if (ctx == Ctx::kLearnerModelParam && !frames_.empty() &&
        frames_.back().ctx == Ctx::kLearnerModelParam) {
      // A member of learner_model_param that is a container: not one we read.
      ctx = Ctx::kSkip;
    }
    if (ctx == Ctx::kGradientBooster && !frames_.empty() &&
        frames_.back().ctx == Ctx::kGradientBooster) {
      return Fail("expected a string", Path());  // gradient_booster.name
    }
    if (ctx == Ctx::kObjective && !frames_.empty() && frames_.back().ctx == Ctx::kObjective) {
      return Fail("expected a string", Path());  // objective.name
    }
    if (ctx == Ctx::kTree) {
      if (trees_read_ >= kMaxTrees) {
        return Fail("more than " + std::to_string(kMaxTrees) + " trees", Path());
      }
      tree_.Clear();
    }
    if (ctx == Ctx::kTreeArray) {
      const int f = static_cast<int>(field) - 1;
      if (tree_.present[f]) return Fail("duplicate field", Path());
      tree_.present[f] = true;
    }
    Frame frame;
    frame.ctx = ctx;
    frame.is_array = is_array;
    frame.field = field;
    frames_.push_back(std::move(frame));
    return true;
  }

  bool Leave() {
    if (!Counted()) return false;
    const Ctx ctx = frames_.back().ctx;
    bool ok = true;
    if (ctx == Ctx::kTree) ok = FinishTree();
    frames_.pop_back();
    if (!ok) return false;
    return AfterValue();
  }

  // Advances the innermost array past the value just read.
  bool AfterValue() {
    if (!frames_.empty() && frames_.back().is_array) ++frames_.back().index;
    return true;
  }

  bool OnScalar(const Scalar& value) {
    if (!Counted()) return false;
    if (frames_.empty()) return Fail("the top level is not an object", "");
    TreeField field;
    const Ctx ctx = ChildContext(false, false, &field);
    const Frame& parent = frames_.back();
    bool ok = true;
    switch (parent.ctx) {
      case Ctx::kVersion:
        ok = OnVersion(value);
        break;
      case Ctx::kFeatureNames:
        if (value.type != Scalar::Type::kString) return Fail("expected a string", Path());
        if (feature_names_.size() >= kMaxFeatures) {
          return Fail("more than " + std::to_string(kMaxFeatures) + " feature names", Path());
        }
        // JSON strings are UTF-8 (nlohmann checks them); UBJSON's are bytes.
        // A name reaches messages, Java and Python strings.
        if (!IsValidUtf8(value.text)) return Fail("a feature name that is not valid UTF-8", Path());
        feature_names_.emplace_back(value.text);
        break;
      case Ctx::kGradientBooster:
        if (parent.key == "name") ok = StoreString(value, &booster_name_);
        break;
      case Ctx::kGbtreeModelParam:
        if (parent.key == "num_trees") ok = StoreString(value, &num_trees_text_);
        if (parent.key == "size_leaf_vector") ok = StoreString(value, &gb_size_leaf_vector_);
        break;
      case Ctx::kTreeInfo:
        ok = OnTreeInfo(value);
        break;
      case Ctx::kTrees:
        return Fail("expected an object", Path());
      case Ctx::kTree:
        if (ctx == Ctx::kTreeArray) return Fail("expected an array", Path());
        if (parent.key == "tree_param") return Fail("expected an object", Path());
        break;
      case Ctx::kTreeParam:
        ok = OnTreeParam(value);
        break;
      case Ctx::kTreeArray:
        ok = OnTreeArrayValue(value);
        break;
      case Ctx::kLearnerModelParam:
        ok = OnLearnerModelParam(value);
        break;
      case Ctx::kBaseScoreArray:
        ok = OnBaseScoreElement(value);
        break;
      case Ctx::kObjective:
        if (parent.key == "name") ok = StoreString(value, &objective_);
        break;
      case Ctx::kRoot:
      case Ctx::kLearner:
      case Ctx::kGbModel:
        if (ctx != Ctx::kSkip) {
          const bool wants_array = ctx == Ctx::kVersion || ctx == Ctx::kFeatureNames ||
                                   ctx == Ctx::kTreeInfo || ctx == Ctx::kTrees;
          return Fail(std::string("expected ") + (wants_array ? "an array" : "an object"), Path());
        }
        break;
      case Ctx::kSkip:
        break;
    }
    if (!ok) return false;
    return AfterValue();
  }

  bool StoreString(const Scalar& value, std::optional<std::string>* out) {
    if (value.type != Scalar::Type::kString) return Fail("expected a string", Path());
    *out = std::string(value.text);
    return true;
  }

  bool OnVersion(const Scalar& value) {
    if (value.type != Scalar::Type::kInteger) return Fail("expected an integer", Path());
    if (frames_.back().index == 0) version_major_ = value.integer;
    return true;
  }

  bool OnTreeInfo(const Scalar& value) {
    if (value.type != Scalar::Type::kInteger || value.integer_overflow || value.integer < 0 ||
        value.integer >= kMaxOutputs) {
      return Fail("expected an output group index (0 to " + std::to_string(kMaxOutputs - 1) + ")",
                  Path());
    }
    if (tree_info_.size() >= kMaxTrees) {
      return Fail("more than " + std::to_string(kMaxTrees) + " trees", Path());
    }
    tree_info_.push_back(static_cast<std::uint32_t>(value.integer));
    return true;
  }

  bool OnTreeParam(const Scalar& value) {
    const std::string& key = frames_.back().key;
    std::optional<std::int64_t>* out = nullptr;
    if (key == "num_nodes") out = &tree_.num_nodes;
    if (key == "num_deleted") out = &tree_.num_deleted;
    if (key == "size_leaf_vector") out = &tree_.size_leaf_vector;
    if (out == nullptr) return true;
    if (value.type != Scalar::Type::kString) return Fail("expected a string", Path());
    *out = ParseInt64(value.text);
    if (!out->has_value() || **out < 0) return Fail("expected a non-negative integer", Path());
    return true;
  }

  bool OnTreeArrayValue(const Scalar& value) {
    const Frame& frame = frames_.back();
    const int f = static_cast<int>(frame.field) - 1;
    // Every array of a tree has one entry per node, except categories;
    // together they stay within the node limit.
    if (frame.index >= kMaxNodes - nodes_read_) {
      return Fail("more than " + std::to_string(kMaxNodes) + " tree nodes in the model", Path());
    }
    if (frame.field == TreeField::kSplitConditions) {
      if (value.type != Scalar::Type::kInteger && value.type != Scalar::Type::kFloat) {
        return Fail("expected a number", Path());
      }
      std::optional<float> number = Float32Of(value);
      if (!number) return Fail("malformed number '" + std::string(value.text) + "'", Path());
      tree_.conditions.push_back(*number);
      return true;
    }
    std::int64_t v;
    if (value.type == Scalar::Type::kBool && frame.field == TreeField::kDefaultLeft) {
      v = value.boolean ? 1 : 0;
    } else if (value.type == Scalar::Type::kInteger && !value.integer_overflow) {
      v = value.integer;
    } else {
      return Fail("expected an integer", Path());
    }
    if (v < std::numeric_limits<std::int32_t>::min() ||
        v > std::numeric_limits<std::int32_t>::max()) {
      return Fail("integer " + std::to_string(v) + " out of range", Path());
    }
    tree_.ints[f].push_back(static_cast<std::int32_t>(v));
    return true;
  }

  bool OnLearnerModelParam(const Scalar& value) {
    const std::string& key = frames_.back().key;
    if (key == "base_score") {
      if (value.type != Scalar::Type::kString) return Fail("expected a string", Path());
      base_score_text_ = std::string(value.text);
      base_score_path_ = Path();
      return true;
    }
    if (key == "num_feature") return StoreString(value, &num_feature_text_);
    if (key == "num_class") return StoreString(value, &num_class_text_);
    if (key == "num_target") return StoreString(value, &num_target_text_);
    return true;
  }

  // An element of base_score as an array (a number, or a number as a string).
  bool OnBaseScoreElement(const Scalar& value) {
    if (frames_.back().index >= kMaxOutputs) {
      return Fail("more than " + std::to_string(kMaxOutputs) + " base scores", Path());
    }
    std::optional<float> score;
    if (value.type == Scalar::Type::kString) {
      score = ParseFloat32(value.text);
    } else if (value.type == Scalar::Type::kInteger || value.type == Scalar::Type::kFloat) {
      score = Float32Of(value);
    } else {
      return Fail("expected a number or a string", Path());
    }
    if (!score) return Fail("'" + std::string(value.text) + "' is not a number", Path());
    base_score_array_.push_back(*score);
    base_score_is_array_ = true;
    base_score_path_ = PathUpTo(frames_.size() - 1);
    return true;
  }

  bool FinishTree();
  std::string TreePath() const {
    return "learner.gradient_booster.model.trees[" + std::to_string(trees_read_) + "]";
  }

  std::string_view file_name_;
  JsonCursor* cursor_;
  std::size_t file_bytes_;
  std::uint64_t max_callbacks_;
  std::uint64_t callbacks_ = 0;
  Status status_;
  std::vector<Frame> frames_;

  RawTree tree_;
  std::uint64_t trees_read_ = 0;
  std::uint64_t nodes_read_ = 0;
  TreeEnsemble ensemble_;
  std::vector<std::uint8_t> reached_;
  // The largest split feature of each tree and the node that has it: checked
  // against num_feature once learner_model_param is read (it follows the
  // trees in XGBoost's files).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> max_feature_;

  std::optional<std::int64_t> version_major_;
  std::vector<std::string> feature_names_;
  std::optional<std::string> booster_name_, num_trees_text_, gb_size_leaf_vector_;
  std::vector<std::uint32_t> tree_info_;
  std::optional<std::string> base_score_text_, num_feature_text_, num_class_text_, num_target_text_,
      objective_;
  std::vector<float> base_score_array_;
  bool base_score_is_array_ = false;
  std::string base_score_path_;
};

// base_score as a string: "5E-1" (1.x, 2.x), or a list "[5E-1]" or, from 3.x,
// one score per output "[2.4E-1,-2.2E-1,...]". nullopt if malformed.
std::optional<std::vector<float>> BaseScoresOf(std::string_view text) {
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
    text = text.substr(1, text.size() - 2);
  }
  std::vector<float> scores;
  while (true) {
    const std::size_t comma = text.find(',');
    if (scores.size() >= kMaxOutputs) return std::nullopt;
    std::optional<float> score = ParseFloat32(text.substr(0, comma));
    if (!score) return std::nullopt;
    scores.push_back(*score);
    if (comma == std::string_view::npos) return scores;
    text.remove_prefix(comma + 1);
  }
}

bool XgboostReader::FinishTree() {
  const std::string where = TreePath();
  auto field_path = [&](TreeField f) {
    return where + "." + kTreeFields[static_cast<int>(f) - 1].name;
  };
  auto ints = [&](TreeField f) -> const std::vector<std::int32_t>& {
    return tree_.ints[static_cast<int>(f) - 1];
  };
  if (tree_.size_leaf_vector && *tree_.size_leaf_vector > 1) {
    return Fail("multi-output trees (multi_strategy multi_output_tree) are not supported",
                where + ".tree_param.size_leaf_vector");
  }
  if (!tree_.num_nodes) return Fail("missing tree_param.num_nodes", where);
  const std::int64_t n = *tree_.num_nodes;
  if (n <= 0) return Fail("a tree without nodes", where + ".tree_param.num_nodes");
  if (static_cast<std::uint64_t>(n) > kMaxNodes - nodes_read_) {
    return Fail("more than " + std::to_string(kMaxNodes) + " tree nodes in the model",
                where + ".tree_param.num_nodes");
  }
  const TreeField required[] = {TreeField::kLeft, TreeField::kRight, TreeField::kSplitIndices,
                                TreeField::kSplitConditions, TreeField::kDefaultLeft};
  for (TreeField f : required) {
    if (!tree_.present[static_cast<int>(f) - 1]) {
      return Fail(std::string("missing ") + kTreeFields[static_cast<int>(f) - 1].name, where);
    }
  }
  const TreeField per_node[] = {TreeField::kLeft, TreeField::kRight, TreeField::kSplitIndices,
                                TreeField::kDefaultLeft, TreeField::kSplitType};
  for (TreeField f : per_node) {
    if (!tree_.present[static_cast<int>(f) - 1]) continue;
    const std::size_t size = ints(f).size();
    if (size != static_cast<std::size_t>(n)) {
      return Fail("has " + std::to_string(size) + " entries for " + std::to_string(n) + " nodes",
                  field_path(f));
    }
  }
  if (tree_.conditions.size() != static_cast<std::size_t>(n)) {
    return Fail("has " + std::to_string(tree_.conditions.size()) + " entries for " +
                    std::to_string(n) + " nodes",
                field_path(TreeField::kSplitConditions));
  }
  const bool has_types = tree_.present[static_cast<int>(TreeField::kSplitType) - 1];
  const auto& lefts = ints(TreeField::kLeft);
  const auto& rights = ints(TreeField::kRight);
  const auto& indices = ints(TreeField::kSplitIndices);
  const auto& defaults = ints(TreeField::kDefaultLeft);
  const auto& types = ints(TreeField::kSplitType);

  const std::size_t first = ensemble_.nodes.size();
  ensemble_.nodes.resize(first + static_cast<std::size_t>(n));
  TreeNode* nodes = ensemble_.nodes.data() + first;
  std::uint32_t max_feature = 0, max_feature_node = 0;
  bool any_categorical = false;
  for (std::int64_t i = 0; i < n; ++i) {
    // Only an error builds the node's path.
    auto node_at = [i] { return "[" + std::to_string(i) + "]"; };
    TreeNode& node = nodes[i];
    const float condition = tree_.conditions[i];
    if (lefts[i] == -1) {
      if (rights[i] != -1) {
        return Fail("a leaf (left child -1) with right child " + std::to_string(rights[i]),
                    field_path(TreeField::kRight) + node_at());
      }
      if (std::isnan(condition)) {
        return Fail("leaf value is NaN", field_path(TreeField::kSplitConditions) + node_at());
      }
      node.kind = NodeKind::kLeaf;
      node.value = condition;
      continue;
    }
    if (lefts[i] < 0 || rights[i] < 0) {
      const bool left_bad = lefts[i] < 0;
      return Fail(
          "child " + std::to_string(left_bad ? lefts[i] : rights[i]) + " is not a node of the tree",
          field_path(left_bad ? TreeField::kLeft : TreeField::kRight) + node_at());
    }
    node.left = static_cast<std::uint32_t>(lefts[i]);
    node.right = static_cast<std::uint32_t>(rights[i]);
    if (indices[i] < 0 || indices[i] >= static_cast<std::int64_t>(kMaxFeatures)) {
      return Fail("split feature " + std::to_string(indices[i]) + " out of range",
                  field_path(TreeField::kSplitIndices) + node_at());
    }
    node.feature = static_cast<std::uint32_t>(indices[i]);
    if (node.feature >= max_feature) {
      max_feature = node.feature;
      max_feature_node = static_cast<std::uint32_t>(i);
    }
    if (defaults[i] != 0 && defaults[i] != 1) {
      return Fail("expected 0 or 1", field_path(TreeField::kDefaultLeft) + node_at());
    }
    node.default_left = defaults[i] == 1;
    node.missing = MissingType::kNan;
    const std::int32_t type = has_types ? types[i] : 0;
    if (type == 0) {
      if (std::isnan(condition)) {
        return Fail("split threshold is NaN", field_path(TreeField::kSplitConditions) + node_at());
      }
      node.kind = NodeKind::kNumerical;
      node.value = condition;
    } else if (type == 1) {
      node.kind = NodeKind::kCategorical;
      any_categorical = true;
    } else {
      return Fail("split type " + std::to_string(type) + " (0 numerical, 1 categorical)",
                  field_path(TreeField::kSplitType) + node_at());
    }
  }

  // Categorical splits: the sets of categories_nodes[j] are
  // categories[segments[j], segments[j] + sizes[j]); XGBoost matches them to
  // the split_type 1 nodes in increasing node order.
  const auto& cat_nodes = ints(TreeField::kCategoriesNodes);
  const auto& segments = ints(TreeField::kCategoriesSegments);
  const auto& sizes = ints(TreeField::kCategoriesSizes);
  const auto& categories = ints(TreeField::kCategories);
  if (any_categorical || !cat_nodes.empty()) {
    const TreeField cat_fields[] = {TreeField::kCategories, TreeField::kCategoriesNodes,
                                    TreeField::kCategoriesSegments, TreeField::kCategoriesSizes};
    for (TreeField f : cat_fields) {
      if (!tree_.present[static_cast<int>(f) - 1]) {
        return Fail(
            std::string("categorical splits without ") + kTreeFields[static_cast<int>(f) - 1].name,
            where);
      }
    }
    if (segments.size() != cat_nodes.size() || sizes.size() != cat_nodes.size()) {
      return Fail("categories_nodes, categories_segments and categories_sizes differ in length",
                  where);
    }
    std::size_t j = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      TreeNode& node = nodes[i];
      const bool listed = j < cat_nodes.size() && cat_nodes[j] == i;
      if (node.kind != NodeKind::kCategorical) {
        if (listed) {
          return Fail("node " + std::to_string(i) + " is not a categorical split",
                      field_path(TreeField::kCategoriesNodes) + "[" + std::to_string(j) + "]");
        }
        continue;
      }
      if (!listed) {
        return Fail("categorical split " + std::to_string(i) +
                        " has no entry (categories_nodes must list every split_type 1 node, "
                        "in increasing order)",
                    field_path(TreeField::kCategoriesNodes));
      }
      const std::string at = "[" + std::to_string(j) + "]";
      const std::int64_t begin = segments[j];
      const std::int64_t size = sizes[j];
      if (begin < 0 || size <= 0 || begin + size > static_cast<std::int64_t>(categories.size())) {
        return Fail("segment [" + std::to_string(begin) + ", " + std::to_string(begin + size) +
                        ") is not a non-empty range of categories (which has " +
                        std::to_string(categories.size()) + ")",
                    field_path(TreeField::kCategoriesSegments) + at);
      }
      std::int64_t max_category = 0;
      for (std::int64_t k = begin; k < begin + size; ++k) {
        if (categories[k] < 0 || categories[k] >= kCategoryLimit) {
          return Fail("category " + std::to_string(categories[k]) + " out of range (0 to " +
                          std::to_string(kCategoryLimit - 1) + ")",
                      field_path(TreeField::kCategories) + "[" + std::to_string(k) + "]");
        }
        max_category = std::max<std::int64_t>(max_category, categories[k]);
      }
      CategorySet set;
      set.first_word = static_cast<std::uint32_t>(ensemble_.category_words.size());
      set.num_words = static_cast<std::uint32_t>(max_category / 32 + 1);
      if (ensemble_.category_words.size() + set.num_words > kMaxCategoryWords) {
        return Fail("the model's categorical splits need more than " +
                        std::to_string(kMaxCategoryWords * 4 >> 20) +
                        " MiB of category bitsets (one bit per category up to each split's "
                        "largest, here " +
                        std::to_string(max_category) + "), calcjit's limit per model",
                    field_path(TreeField::kCategories));
      }
      ensemble_.category_words.resize(set.first_word + set.num_words, 0);
      for (std::int64_t k = begin; k < begin + size; ++k) {
        ensemble_.category_words[set.first_word + categories[k] / 32] |= 1u << (categories[k] % 32);
      }
      node.category_set = static_cast<std::uint32_t>(ensemble_.category_sets.size());
      ensemble_.category_sets.push_back(set);
      ++j;
    }
    if (j != cat_nodes.size()) {
      return Fail(
          "entry " + std::to_string(j) + " is not a categorical split node in increasing order",
          field_path(TreeField::kCategoriesNodes) + "[" + std::to_string(j) + "]");
    }
  }

  std::uint32_t depth = 0;
  Status shape =
      CheckTreeShape(nodes, static_cast<std::uint32_t>(n),
                     TreeCheckNames{where, "left_children", "right_children"}, &reached_, &depth);
  if (!shape.ok()) {
    status_ = UserError(shape.message(), std::string(file_name_) + ": " + shape.location());
    return false;
  }
  // Nodes the root does not reach must be ones XGBoost's pruner deleted.
  std::int64_t unreached = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (reached_[i]) continue;
    if (indices[i] != kDeletedNodeMarker) {
      return Fail("node " + std::to_string(i) + " is not reached from the root",
                  where + ".left_children");
    }
    nodes[i] = TreeNode{};  // never evaluated
    ++unreached;
  }
  if (tree_.num_deleted && *tree_.num_deleted != unreached) {
    return Fail("num_deleted is " + std::to_string(*tree_.num_deleted) + " but " +
                    std::to_string(unreached) + " nodes are not reached from the root",
                where + ".tree_param.num_deleted");
  }

  Tree tree;
  tree.first_node = first;
  tree.num_nodes = static_cast<std::uint32_t>(n);
  tree.depth = depth;
  ensemble_.trees.push_back(tree);
  max_feature_.emplace_back(max_feature, max_feature_node);
  nodes_read_ += static_cast<std::uint64_t>(n);
  ++trees_read_;
  return true;
}

Result<TreeEnsemble> XgboostReader::Finish() {
  const std::string file(file_name_);
  auto error = [&](std::string message, const std::string& path) {
    return UserError(std::move(message), path.empty() ? file : file + ": " + path);
  };
  if (!version_major_) return error("missing version", "version");
  if (*version_major_ < 1 || *version_major_ > 3) {
    return error("XGBoost " + std::to_string(*version_major_) +
                     ".x model files are not supported (1.x, 2.x and 3.x are)",
                 "version");
  }
  if (!booster_name_) return error("missing gradient_booster.name", "learner.gradient_booster");
  if (*booster_name_ != "gbtree") {
    return error("booster '" + *booster_name_ + "' is not supported (only gbtree is)",
                 "learner.gradient_booster.name");
  }
  if (gb_size_leaf_vector_) {
    std::optional<std::int64_t> size = ParseInt64(*gb_size_leaf_vector_);
    if (size && *size > 1) {
      return error("multi-output trees (multi_strategy multi_output_tree) are not supported",
                   "learner.gradient_booster.model.gbtree_model_param.size_leaf_vector");
    }
  }
  if (!num_feature_text_ || !num_class_text_ || (!base_score_text_ && !base_score_is_array_)) {
    return error("missing num_feature, num_class or base_score", "learner.learner_model_param");
  }
  const std::string param = "learner.learner_model_param.";
  std::optional<std::int64_t> num_feature = ParseInt64(*num_feature_text_);
  if (!num_feature || *num_feature < 1 || *num_feature > kMaxFeatures) {
    return error("expected a feature count from 1 to " + std::to_string(kMaxFeatures) + ", not '" +
                     *num_feature_text_ + "'",
                 param + "num_feature");
  }
  std::optional<std::int64_t> num_class = ParseInt64(*num_class_text_);
  if (!num_class || *num_class < 0 || *num_class > kMaxOutputs) {
    return error("expected a class count from 0 to " + std::to_string(kMaxOutputs) + ", not '" +
                     *num_class_text_ + "'",
                 param + "num_class");
  }
  std::int64_t num_target = 1;
  if (num_target_text_) {
    std::optional<std::int64_t> parsed = ParseInt64(*num_target_text_);
    if (!parsed || *parsed < 1 || *parsed > kMaxOutputs) {
      return error("expected a target count from 1 to " + std::to_string(kMaxOutputs) + ", not '" +
                       *num_target_text_ + "'",
                   param + "num_target");
    }
    num_target = *parsed;
  }
  if (*num_class > 1 && num_target > 1) {
    return error("both num_class and num_target are above 1", param + "num_target");
  }
  // XGBoost's output groups: max(num_class, num_target), at least one.
  const std::uint32_t outputs =
      static_cast<std::uint32_t>(std::max<std::int64_t>({*num_class, num_target, 1}));

  if (num_trees_text_) {
    std::optional<std::int64_t> declared = ParseInt64(*num_trees_text_);
    if (!declared || *declared != static_cast<std::int64_t>(trees_read_)) {
      return error("num_trees is '" + *num_trees_text_ + "' but the model has " +
                       std::to_string(trees_read_) + " trees",
                   "learner.gradient_booster.model.gbtree_model_param.num_trees");
    }
  }
  if (tree_info_.size() != trees_read_) {
    return error("has " + std::to_string(tree_info_.size()) + " entries for " +
                     std::to_string(trees_read_) + " trees",
                 "learner.gradient_booster.model.tree_info");
  }
  for (std::size_t t = 0; t < trees_read_; ++t) {
    if (tree_info_[t] >= outputs) {
      return error("tree " + std::to_string(t) + " adds to output group " +
                       std::to_string(tree_info_[t]) + " of a model with " +
                       std::to_string(outputs),
                   "learner.gradient_booster.model.tree_info[" + std::to_string(t) + "]");
    }
    ensemble_.trees[t].output = tree_info_[t];
    if (max_feature_[t].first >= *num_feature) {
      // Only a split node sets max_feature_ above 0.
      return error("split feature " + std::to_string(max_feature_[t].first) +
                       " out of range (the model has " + std::to_string(*num_feature) +
                       " features)",
                   "learner.gradient_booster.model.trees[" + std::to_string(t) +
                       "].split_indices[" + std::to_string(max_feature_[t].second) + "]");
    }
  }
  if (!feature_names_.empty() && feature_names_.size() != static_cast<std::size_t>(*num_feature)) {
    return error("has " + std::to_string(feature_names_.size()) + " names for " +
                     std::to_string(*num_feature) + " features",
                 "learner.feature_names");
  }
  if (!objective_) return error("missing objective name", "learner.objective");

  // base_score: one score for every output (1.x, 2.x: "5E-1", "[5E-1]",
  // ["5E-1"]) or one per output (3.x: "[2.4E-1,-2.2E-1,...]", the intercept
  // of each class or target), each mapped by the objective.
  std::vector<float> base_scores = base_score_array_;
  if (!base_score_is_array_) {
    std::optional<std::vector<float>> parsed = BaseScoresOf(*base_score_text_);
    if (!parsed) {
      return error(
          "base_score '" + *base_score_text_ + "' is not a number or a list of numbers in brackets",
          base_score_path_);
    }
    base_scores = std::move(*parsed);
  }
  if (base_scores.size() != 1 && base_scores.size() != outputs) {
    return error("has " + std::to_string(base_scores.size()) + " base scores for " +
                     std::to_string(outputs) + " outputs (one, or one per output)",
                 base_score_path_);
  }
  std::vector<float> margins;
  for (const float base_score : base_scores) {
    Result<float> margin = XgboostBaseMargin(*objective_, base_score);
    if (!margin.ok()) {
      return error(margin.status().message(), margin.status().location() == "objective"
                                                  ? "learner.objective.name"
                                                  : base_score_path_);
    }
    margins.push_back(*margin);
  }

  ModelInfo& info = ensemble_.info;
  info.format = ModelFormat::kXgboostJson;
  info.num_features = static_cast<std::uint32_t>(*num_feature);
  info.num_outputs = outputs;
  info.num_trees = trees_read_;
  info.num_nodes = nodes_read_;
  info.max_depth = 0;
  for (const Tree& tree : ensemble_.trees) info.max_depth = std::max(info.max_depth, tree.depth);
  info.objective = *objective_;
  info.names_from_file = !feature_names_.empty();
  if (info.names_from_file) {
    info.feature_names = std::move(feature_names_);
  } else {
    info.feature_names.reserve(info.num_features);
    for (std::uint32_t j = 0; j < info.num_features; ++j) {
      info.feature_names.push_back("f" + std::to_string(j));
    }
  }
  // XGBoost 1.7.4's predictor (spec 6.2): x < t in float32, in-set
  // categories go right, float32 sums from the base margin.
  TreeRules& rules = ensemble_.rules;
  rules.compare = TreeRules::Compare::kLess;
  rules.categories = TreeRules::Categories::kInSetGoesRight;
  rules.sum = TreeRules::Sum::kFloat32;
  if (margins.size() == 1) margins.assign(outputs, margins[0]);
  rules.base_margin = std::move(margins);
  return std::move(ensemble_);
}

}  // namespace

namespace {

// The C library's logf. XGBoost (1.7.4 and 3.4.1 alike) maps base_score with
// std::log on a float, and glibc's logf, accurate to within an ulp, is not
// correctly rounded: for about 1 in 200 base scores its result differs in the
// last bit from the contract's LOG (docs/MODELS.md, measured against both
// versions). The base margin is computed once, when the file is read, so it is
// computed as XGBoost computes it, with the same function; every backend,
// tier and frontend then starts from that one float32.
float LibraryLogf(float x) {
  return std::log(x);
}

}  // namespace

Result<float> XgboostBaseMargin(std::string_view objective, float base_score) {
  // binary:logitraw keeps base_score unchanged: XGBoost 1.7.4's LogisticRaw
  // overrides ProbToMargin (src/objective/regression_loss.h), and its
  // margins (tests/model/data/binary_logitraw_base08) say so. Spec 6.2 lists
  // it with the logistic objectives; the bits follow XGBoost (docs/MODELS.md).
  static constexpr const char* kIdentity[] = {
      "reg:squarederror",  "reg:squaredlogerror", "reg:pseudohubererror",
      "reg:absoluteerror", "rank:pairwise",       "rank:ndcg",
      "rank:map",          "multi:softmax",       "multi:softprob",
      "binary:logitraw"};
  static constexpr const char* kLogistic[] = {"reg:logistic", "binary:logistic"};
  static constexpr const char* kLog[] = {"count:poisson", "reg:gamma", "reg:tweedie"};
  const math::ScopedFpEnv fp_env;
  float margin;
  if (std::find(std::begin(kIdentity), std::end(kIdentity), objective) != std::end(kIdentity)) {
    margin = base_score;
  } else if (std::find(std::begin(kLogistic), std::end(kLogistic), objective) !=
             std::end(kLogistic)) {
    // -logf(1/b - 1), each operation rounded to float32.
    const float odds = 1.0f / base_score - 1.0f;
    margin = -LibraryLogf(odds);
  } else if (std::find(std::begin(kLog), std::end(kLog), objective) != std::end(kLog)) {
    margin = LibraryLogf(base_score);
  } else {
    return UserError("objective '" + std::string(objective) + "' is not supported", "objective");
  }
  if (!std::isfinite(margin)) {
    return UserError("base_score " + std::to_string(base_score) + " gives a base margin of " +
                         std::to_string(margin) + " for objective " + std::string(objective),
                     "base_score");
  }
  return margin;
}

XgboostEncoding XgboostEncodingOf(std::string_view bytes) {
  // UBJSON: an object whose first key's length has a type marker (int8,
  // uint8, int16, int32, int64), or a no-op, or an optimized container's
  // type or count. JSON has a quote or white space there.
  if (bytes.size() >= 2 && bytes[0] == '{' &&
      std::string_view("iUIlLN$#").find(bytes[1]) != std::string_view::npos) {
    return XgboostEncoding::kUbjson;
  }
  // The legacy binary format: optionally "binf", then LearnerModelParamLegacy
  // (136 bytes) and the objective's name as a little-endian uint64 length and
  // its characters ("binary:logistic").
  const std::string_view header = bytes.starts_with("binf") ? bytes.substr(4) : bytes;
  constexpr std::size_t kParamBytes = 136;
  if (header.size() > kParamBytes + 8) {
    std::uint64_t length = 0;
    for (int i = 7; i >= 0; --i) {
      length = length << 8 | static_cast<unsigned char>(header[kParamBytes + i]);
    }
    const std::string_view name = header.substr(kParamBytes + 8, 64);
    if (length >= 3 && length <= name.size() &&
        name.substr(0, length).find(':') != std::string_view::npos &&
        std::all_of(name.begin(), name.begin() + length,
                    [](char c) { return c > ' ' && c < 127; })) {
      return XgboostEncoding::kLegacyBinary;
    }
  }
  if (bytes.starts_with("binf")) return XgboostEncoding::kLegacyBinary;
  return XgboostEncoding::kJson;
}

Result<TreeEnsemble> ReadXgboostJson(std::string_view bytes, std::string_view file_name) {
  if (bytes.size() > kMaxModelFileBytes) {
    return UserError("model file larger than 2 GiB", std::string(file_name));
  }
  const XgboostEncoding encoding = XgboostEncodingOf(bytes);
  if (encoding == XgboostEncoding::kLegacyBinary) {
    return UserError(
        "an XGBoost model in the legacy binary format (removed in XGBoost 3.1), which calcjit "
        "does not read; convert it with XGBoost 3.0 or older: "
        "xgboost.Booster(model_file=\"" +
            std::string(file_name) +
            "\").save_model(\"model.json\") (or \"model.ubj\", the same model in UBJSON)",
        std::string(file_name));
  }
  const bool ubjson = encoding == XgboostEncoding::kUbjson;
  try {
    const char* end = bytes.data() + bytes.size();
    bool parsed = false;
    std::optional<XgboostReader> reader;
    JsonCursor cursor;
    if (ubjson) {
      // No text and no tokens to substitute: numbers come as values.
      reader.emplace(file_name, bytes.size(), nullptr);
      parsed = nlohmann::json::sax_parse(bytes.data(), end, &*reader,
                                         nlohmann::json::input_format_t::ubjson,
                                         /*strict=*/true);
    } else {
      cursor.begin = bytes.data();
      cursor.read_end = bytes.data();
      cursor.substitute = &XgboostSubstitute;
      cursor.triggers = "NI-\"";
      reader.emplace(file_name, bytes.size(), &cursor);
      parsed = nlohmann::json::sax_parse(JsonTextIterator(bytes.data(), end, &cursor),
                                         JsonTextIterator(end, end, &cursor), &*reader,
                                         nlohmann::json::input_format_t::json, /*strict=*/true);
    }
    if (!reader->status().ok()) return reader->status();
    if (!parsed) {
      return UserError(ubjson ? "malformed UBJSON" : "malformed JSON", std::string(file_name));
    }
    return reader->Finish();
  } catch (const std::bad_alloc&) {
    return RuntimeError("out of memory reading the model", std::string(file_name));
  } catch (const std::exception& ex) {
    return UserError(std::string(ubjson ? "malformed UBJSON: " : "malformed JSON: ") + ex.what(),
                     std::string(file_name));
  }
}

}  // namespace calcjit::model
