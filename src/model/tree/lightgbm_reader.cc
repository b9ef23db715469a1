#include "model/tree/lightgbm_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/number_text.h"
#include "common/utf8.h"
#include "model/tree/tree_check.h"

namespace calcjit::model {

namespace {

struct Line {
  std::string_view text;
  std::uint64_t number = 0;  // 1-based
};

// Splits the file into lines ("\n" or "\r\n"), one at a time.
class LineReader {
 public:
  explicit LineReader(std::string_view bytes) : rest_(bytes) {}
  bool Next(Line* line) {
    if (rest_.empty()) return false;
    std::size_t end = rest_.find('\n');
    std::string_view text = rest_.substr(0, end);
    rest_ = end == std::string_view::npos ? std::string_view() : rest_.substr(end + 1);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    line->text = text;
    line->number = ++count_;
    return true;
  }
  std::uint64_t count() const { return count_; }

 private:
  std::string_view rest_;
  std::uint64_t count_ = 0;
};

// A "key=value" line; the key is everything before the first '='.
struct KeyValue {
  std::string_view key;
  std::string_view value;
  bool has_equals = false;
};
KeyValue SplitKeyValue(std::string_view text) {
  KeyValue kv;
  const std::size_t eq = text.find('=');
  if (eq == std::string_view::npos) {
    kv.key = text;
    return kv;
  }
  kv.key = text.substr(0, eq);
  kv.value = text.substr(eq + 1);
  kv.has_equals = true;
  return kv;
}

std::vector<std::string_view> SplitSpaces(std::string_view text) {
  std::vector<std::string_view> tokens;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    const std::size_t start = i;
    while (i < text.size() && text[i] != ' ') ++i;
    if (i > start) tokens.push_back(text.substr(start, i - start));
  }
  return tokens;
}

// One tree's key=value lines, with the line each came from. A key given
// twice keeps its last line, as LightGBM's reader does (it fills a map line
// by line): calcjit reads what LightGBM reads.
struct TreeLines {
  std::map<std::string, Line, std::less<>> fields;
  std::uint64_t header_line = 0;  // the "Tree=K" line
};

class LightgbmReader {
 public:
  LightgbmReader(std::string_view bytes, std::string_view file_name)
      : bytes_(bytes), lines_(bytes), file_(file_name) {}

  Result<TreeEnsemble> Read();

 private:
  Status Error(std::uint64_t line, std::string message) const {
    return UserError(std::move(message), file_ + ":" + std::to_string(line));
  }

  template <typename T, typename Parse>
  Status ParseArray(const Line& line, std::string_view field, std::string_view text,
                    std::size_t expected, Parse parse, std::vector<T>* out) const {
    out->clear();
    const std::vector<std::string_view> tokens = SplitSpaces(text);
    if (tokens.size() != expected) {
      return Error(line.number, std::string(field) + " has " + std::to_string(tokens.size()) +
                                    " entries, expected " + std::to_string(expected));
    }
    out->reserve(expected);
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      std::optional<T> value = parse(tokens[i]);
      if (!value) {
        return Error(line.number, std::string(field) + "[" + std::to_string(i) + "]: '" +
                                      std::string(tokens[i]) + "' is not a valid number");
      }
      out->push_back(*value);
    }
    return Status::Ok();
  }

  Status ReadTree(const TreeLines& tree_lines, std::uint64_t tree_index);
  const Line* Field(const TreeLines& tree, std::string_view key) const {
    auto it = tree.fields.find(key);
    return it == tree.fields.end() ? nullptr : &it->second;
  }

  Status CheckTreeSizes(const Line& sizes) const;
  std::size_t OffsetOf(const Line& line) const {
    return static_cast<std::size_t>(line.text.data() - bytes_.data());
  }

  std::string_view bytes_;
  LineReader lines_;
  std::string file_;
  // Where each "Tree=K" line starts, and the "end of trees" line, in bytes.
  std::vector<std::size_t> tree_starts_;
  std::size_t trees_end_ = 0;
  TreeEnsemble ensemble_;
  std::uint32_t num_features_ = 0;
  std::uint64_t nodes_read_ = 0;
  std::vector<std::uint8_t> reached_;
};

std::optional<std::int64_t> ParseInt(std::string_view token) {
  return ParseInt64(token);
}
std::optional<double> ParseDouble(std::string_view token) {
  return ParseFloat64(token);
}
std::optional<std::uint32_t> ParseWord(std::string_view token) {
  std::optional<std::int64_t> v = ParseInt64(token);
  if (!v || *v < 0 || *v > static_cast<std::int64_t>(UINT32_MAX)) return std::nullopt;
  return static_cast<std::uint32_t>(*v);
}

Status LightgbmReader::ReadTree(const TreeLines& t, std::uint64_t tree_index) {
  const std::string tree_name = "Tree=" + std::to_string(tree_index);
  auto required = [&](std::string_view key, const Line** out) -> Status {
    *out = Field(t, key);
    if (*out == nullptr) return Error(t.header_line, tree_name + " has no " + std::string(key));
    return Status::Ok();
  };
  auto value_of = [](const Line* line) { return SplitKeyValue(line->text).value; };

  const Line* line = nullptr;
  CALCJIT_RETURN_IF_ERROR(required("num_leaves", &line));
  std::optional<std::int64_t> num_leaves = ParseInt64(value_of(line));
  if (!num_leaves || *num_leaves < 1) {
    return Error(line->number, "num_leaves must be a positive integer");
  }
  // A tree of L leaves has 2L - 1 nodes.
  if (static_cast<std::uint64_t>(*num_leaves) > (kMaxNodes - nodes_read_ + 1) / 2) {
    return Error(line->number,
                 "more than " + std::to_string(kMaxNodes) + " tree nodes in the model");
  }
  const std::uint32_t leaves = static_cast<std::uint32_t>(*num_leaves);
  const std::uint32_t splits = leaves - 1;
  if (const Line* linear = Field(t, "is_linear")) {
    if (value_of(linear) != "0") {
      return Error(linear->number,
                   tree_name +
                       " is a linear tree (a model trained with linear_tree=true), which "
                       "calcjit does not evaluate: its leaves are linear models of the "
                       "features; train without linear_tree");
    }
  }
  std::int64_t num_cat = 0;
  if (const Line* cat = Field(t, "num_cat")) {
    std::optional<std::int64_t> parsed = ParseInt64(value_of(cat));
    if (!parsed || *parsed < 0 || *parsed > static_cast<std::int64_t>(splits)) {
      return Error(cat->number, "num_cat must be an integer from 0 to the number of splits");
    }
    num_cat = *parsed;
  }

  std::vector<double> leaf_values;
  CALCJIT_RETURN_IF_ERROR(required("leaf_value", &line));
  CALCJIT_RETURN_IF_ERROR(
      ParseArray(*line, "leaf_value", value_of(line), leaves, ParseDouble, &leaf_values));
  for (std::uint32_t j = 0; j < leaves; ++j) {
    if (std::isnan(leaf_values[j])) {
      return Error(line->number, "leaf_value[" + std::to_string(j) + "] is NaN");
    }
  }

  std::vector<std::int64_t> features, decision_types, lefts, rights;
  std::vector<double> thresholds;
  const Line *feature_line = nullptr, *threshold_line = nullptr, *decision_line = nullptr,
             *left_line = nullptr, *right_line = nullptr;
  if (splits > 0) {
    CALCJIT_RETURN_IF_ERROR(required("split_feature", &feature_line));
    CALCJIT_RETURN_IF_ERROR(ParseArray(*feature_line, "split_feature", value_of(feature_line),
                                       splits, ParseInt, &features));
    CALCJIT_RETURN_IF_ERROR(required("threshold", &threshold_line));
    CALCJIT_RETURN_IF_ERROR(ParseArray(*threshold_line, "threshold", value_of(threshold_line),
                                       splits, ParseDouble, &thresholds));
    CALCJIT_RETURN_IF_ERROR(required("left_child", &left_line));
    CALCJIT_RETURN_IF_ERROR(
        ParseArray(*left_line, "left_child", value_of(left_line), splits, ParseInt, &lefts));
    CALCJIT_RETURN_IF_ERROR(required("right_child", &right_line));
    CALCJIT_RETURN_IF_ERROR(
        ParseArray(*right_line, "right_child", value_of(right_line), splits, ParseInt, &rights));
    decision_line = Field(t, "decision_type");
    if (decision_line != nullptr) {
      CALCJIT_RETURN_IF_ERROR(ParseArray(*decision_line, "decision_type", value_of(decision_line),
                                         splits, ParseInt, &decision_types));
    } else {
      decision_types.assign(splits, 0);  // LightGBM's default: numerical, missing none
    }
  }

  std::vector<std::uint32_t> boundaries, words;
  const Line* threshold_words_line = nullptr;
  if (num_cat > 0) {
    CALCJIT_RETURN_IF_ERROR(required("cat_boundaries", &line));
    CALCJIT_RETURN_IF_ERROR(ParseArray(*line, "cat_boundaries", value_of(line),
                                       static_cast<std::size_t>(num_cat) + 1, ParseWord,
                                       &boundaries));
    if (boundaries[0] != 0) return Error(line->number, "cat_boundaries[0] must be 0");
    for (std::size_t i = 1; i < boundaries.size(); ++i) {
      if (boundaries[i] < boundaries[i - 1]) {
        return Error(line->number,
                     "cat_boundaries must not decrease (entry " + std::to_string(i) + ")");
      }
    }
    if (ensemble_.category_words.size() + boundaries.back() > kMaxCategoryWords) {
      return Error(line->number, "the model's categorical splits need more than " +
                                     std::to_string(kMaxCategoryWords * 4 >> 20) +
                                     " MiB of category bitsets, calcjit's limit per model");
    }
    CALCJIT_RETURN_IF_ERROR(required("cat_threshold", &threshold_words_line));
    CALCJIT_RETURN_IF_ERROR(ParseArray(*threshold_words_line, "cat_threshold",
                                       value_of(threshold_words_line), boundaries.back(), ParseWord,
                                       &words));
  }

  const std::uint64_t first = ensemble_.nodes.size();
  ensemble_.nodes.resize(first + splits + leaves);
  TreeNode* nodes = ensemble_.nodes.data() + first;
  const std::uint32_t first_set = static_cast<std::uint32_t>(ensemble_.category_sets.size());
  for (std::int64_t c = 0; c < num_cat; ++c) {
    CategorySet set;
    set.first_word = static_cast<std::uint32_t>(ensemble_.category_words.size() + boundaries[c]);
    set.num_words = boundaries[c + 1] - boundaries[c];
    ensemble_.category_sets.push_back(set);
  }
  ensemble_.category_words.insert(ensemble_.category_words.end(), words.begin(), words.end());

  auto at = [](const char* field, std::uint32_t i) {
    return std::string(field) + "[" + std::to_string(i) + "]";
  };
  for (std::uint32_t i = 0; i < splits; ++i) {
    TreeNode& node = nodes[i];
    if (features[i] < 0 || features[i] >= num_features_) {
      return Error(feature_line->number, tree_name + " " + at("split_feature", i) + ": feature " +
                                             std::to_string(features[i]) +
                                             " out of range (the model has " +
                                             std::to_string(num_features_) + ")");
    }
    node.feature = static_cast<std::uint32_t>(features[i]);
    const std::int64_t type = decision_types[i];
    if (type < 0 || type > 15 || ((type >> 2) & 3) == 3) {
      return Error(decision_line->number, tree_name + " " + at("decision_type", i) + ": " +
                                              std::to_string(type) + " is not a decision type");
    }
    const std::int64_t children[2] = {lefts[i], rights[i]};
    std::uint32_t mapped[2];
    for (int side = 0; side < 2; ++side) {
      const std::int64_t child = children[side];
      const Line* child_line = side == 0 ? left_line : right_line;
      const char* field = side == 0 ? "left_child" : "right_child";
      // child >= 0: split `child`; child < 0: leaf ~child.
      if (child >= 0 && child < splits) {
        mapped[side] = static_cast<std::uint32_t>(child);
      } else if (child < 0 && ~child < leaves) {
        mapped[side] = splits + static_cast<std::uint32_t>(~child);
      } else {
        return Error(child_line->number, tree_name + " " + at(field, i) + ": " +
                                             std::to_string(child) +
                                             " is neither a split nor a leaf of the tree");
      }
    }
    node.left = mapped[0];
    node.right = mapped[1];
    node.default_left = (type & 2) != 0;
    node.missing = static_cast<MissingType>((type >> 2) & 3);
    const double threshold = thresholds[i];
    if (type & 1) {
      node.kind = NodeKind::kCategorical;
      // The threshold of a categorical split is the index of its bitset.
      if (!(threshold >= 0 && threshold < static_cast<double>(num_cat)) ||
          threshold != std::floor(threshold)) {
        return Error(threshold_line->number,
                     tree_name + " " + at("threshold", i) +
                         ": a categorical split's threshold must be a bitset index from 0 to " +
                         std::to_string(num_cat - 1));
      }
      node.category_set = first_set + static_cast<std::uint32_t>(threshold);
    } else {
      node.kind = NodeKind::kNumerical;
      if (std::isnan(threshold)) {
        return Error(threshold_line->number, tree_name + " " + at("threshold", i) + " is NaN");
      }
      node.value = threshold;
    }
  }
  for (std::uint32_t j = 0; j < leaves; ++j) {
    TreeNode& leaf = nodes[splits + j];
    leaf.kind = NodeKind::kLeaf;
    leaf.value = leaf_values[j];
  }

  TreeCheckNames names{"", "left_child", "right_child", splits};
  std::uint32_t depth = 0;
  Status shape = CheckTreeShape(nodes, splits + leaves, names, &reached_, &depth);
  if (!shape.ok()) {
    return Error(left_line != nullptr ? left_line->number : t.header_line,
                 tree_name + " " + shape.location() + ": " + shape.message());
  }
  for (std::uint32_t i = 0; i < splits + leaves; ++i) {
    if (!reached_[i]) {
      return Error(
          left_line != nullptr ? left_line->number : t.header_line,
          tree_name + ": " +
              (i < splits ? "split " + std::to_string(i) : "leaf " + std::to_string(i - splits)) +
              " is not reached from the root");
    }
  }
  Tree tree;
  tree.first_node = first;
  tree.num_nodes = splits + leaves;
  tree.depth = depth;
  ensemble_.trees.push_back(tree);
  nodes_read_ += splits + leaves;
  return Status::Ok();
}

// LightGBM finds tree i at the sum of the first i tree_sizes= entries from
// the first "Tree=" line, and reads as many trees as the line lists: a line
// that does not match the trees (a file edited by hand, its line ends
// changed) makes LightGBM read other trees than calcjit would, or fail. Such
// a file is refused; LightGBM's own files always match (tree i's size is the
// bytes from its "Tree=" line to the next tree's, or to "end of trees").
Status LightgbmReader::CheckTreeSizes(const Line& sizes) const {
  const std::vector<std::string_view> tokens = SplitSpaces(SplitKeyValue(sizes.text).value);
  const std::size_t trees = tree_starts_.size();
  if (tokens.size() != trees) {
    return Error(sizes.number, "tree_sizes lists " + std::to_string(tokens.size()) +
                                   " trees but the file has " + std::to_string(trees) +
                                   " (LightGBM would read only the trees tree_sizes lists)");
  }
  for (std::size_t i = 0; i < trees; ++i) {
    const std::size_t end = i + 1 < trees ? tree_starts_[i + 1] : trees_end_;
    const std::size_t bytes = end - tree_starts_[i];
    const std::optional<std::int64_t> size = ParseInt64(tokens[i]);
    if (!size || *size < 0 || static_cast<std::uint64_t>(*size) != bytes) {
      return Error(sizes.number, "tree_sizes[" + std::to_string(i) + "] is '" +
                                     std::string(tokens[i]) + "' but Tree=" + std::to_string(i) +
                                     " takes " + std::to_string(bytes) +
                                     " bytes (LightGBM finds each tree where tree_sizes says; "
                                     "was the file edited, or its line ends changed?)");
    }
  }
  return Status::Ok();
}

Result<TreeEnsemble> LightgbmReader::Read() {
  Line line;
  if (!lines_.Next(&line) || line.text != "tree") {
    return Error(1, "not a LightGBM text model (the first line is not 'tree')");
  }
  // The header: key=value lines up to the first tree. A key given twice
  // keeps its last line, as in LightGBM (tested against LightGBM 4.7.0:
  // a second feature_names= line names the features).
  std::map<std::string, Line, std::less<>> header;
  bool average_output = false;
  bool have_tree_line = false;
  while (lines_.Next(&line)) {
    if (line.text.empty()) continue;
    if (line.text.substr(0, 5) == "Tree=") {
      have_tree_line = true;
      break;
    }
    if (line.text == "end of trees") break;
    KeyValue kv = SplitKeyValue(line.text);
    if (!kv.has_equals) {
      if (kv.key == "average_output") average_output = true;
      continue;
    }
    header.insert_or_assign(std::string(kv.key), line);
  }
  auto header_value = [&](std::string_view key) -> const Line* {
    auto it = header.find(key);
    return it == header.end() ? nullptr : &it->second;
  };
  const Line* version = header_value("version");
  if (version == nullptr) return Error(lines_.count(), "the header has no version=");
  const std::string_view version_text = SplitKeyValue(version->text).value;
  if (version_text != "v3" && version_text != "v4") {
    return Error(version->number,
                 "version '" + std::string(version_text) + "' is not supported (v3 and v4 are)");
  }
  const Line* max_feature = header_value("max_feature_idx");
  if (max_feature == nullptr) return Error(lines_.count(), "the header has no max_feature_idx=");
  std::optional<std::int64_t> max_feature_idx = ParseInt64(SplitKeyValue(max_feature->text).value);
  if (!max_feature_idx || *max_feature_idx < 0 || *max_feature_idx >= kMaxFeatures) {
    return Error(max_feature->number, "max_feature_idx must be an integer from 0 to " +
                                          std::to_string(kMaxFeatures - 1));
  }
  num_features_ = static_cast<std::uint32_t>(*max_feature_idx + 1);
  const Line* num_class = header_value("num_class");
  if (num_class == nullptr) return Error(lines_.count(), "the header has no num_class=");
  std::optional<std::int64_t> classes = ParseInt64(SplitKeyValue(num_class->text).value);
  if (!classes || *classes < 1 || *classes > kMaxOutputs) {
    return Error(num_class->number,
                 "num_class must be an integer from 1 to " + std::to_string(kMaxOutputs));
  }
  std::int64_t per_iteration = *classes;
  const Line* per_iteration_line = header_value("num_tree_per_iteration");
  if (per_iteration_line != nullptr) {
    std::optional<std::int64_t> parsed = ParseInt64(SplitKeyValue(per_iteration_line->text).value);
    if (!parsed || *parsed < 1 || *parsed > kMaxOutputs) {
      return Error(
          per_iteration_line->number,
          "num_tree_per_iteration must be an integer from 1 to " + std::to_string(kMaxOutputs));
    }
    per_iteration = *parsed;
  }
  const Line* names = header_value("feature_names");
  if (names == nullptr) return Error(lines_.count(), "the header has no feature_names=");
  std::vector<std::string_view> name_tokens = SplitSpaces(SplitKeyValue(names->text).value);
  if (name_tokens.size() != num_features_) {
    return Error(names->number, "feature_names has " + std::to_string(name_tokens.size()) +
                                    " names for " + std::to_string(num_features_) +
                                    " features (max_feature_idx + 1)");
  }
  ModelInfo& info = ensemble_.info;
  info.format = ModelFormat::kLightgbmText;
  info.num_features = num_features_;
  info.names_from_file = true;
  for (std::size_t j = 0; j < name_tokens.size(); ++j) {
    // A name reaches messages, Java and Python strings.
    if (!IsValidUtf8(name_tokens[j])) {
      return Error(names->number, "feature_names[" + std::to_string(j) + "] is not valid UTF-8");
    }
    info.feature_names.emplace_back(name_tokens[j]);
  }
  info.num_outputs = static_cast<std::uint32_t>(per_iteration);
  if (const Line* objective = header_value("objective")) {
    info.objective = std::string(SplitKeyValue(objective->text).value);
  }

  // The trees: "Tree=K", then key=value lines up to a blank line.
  bool ended = !have_tree_line && line.text == "end of trees";
  if (ended) trees_end_ = OffsetOf(line);
  while (have_tree_line) {
    const std::uint64_t index = ensemble_.trees.size();
    if (index >= kMaxTrees) {
      return Error(line.number, "more than " + std::to_string(kMaxTrees) + " trees");
    }
    if (line.text != "Tree=" + std::to_string(index)) {
      return Error(line.number, "expected 'Tree=" + std::to_string(index) + "'");
    }
    TreeLines tree;
    tree.header_line = line.number;
    tree_starts_.push_back(OffsetOf(line));
    have_tree_line = false;
    bool at_end = true;
    while (lines_.Next(&line)) {
      at_end = false;
      if (line.text.empty()) break;
      if (line.text.substr(0, 5) == "Tree=" || line.text == "end of trees") break;
      KeyValue kv = SplitKeyValue(line.text);
      if (!kv.has_equals)
        return Error(line.number,
                     "expected key=value in " + std::string("Tree=") + std::to_string(index));
      tree.fields.insert_or_assign(std::string(kv.key), line);
      at_end = true;  // unless another line follows
    }
    CALCJIT_RETURN_IF_ERROR(ReadTree(tree, index));
    if (at_end) break;  // the file ends inside the tree: truncated
    // Blank lines, then the next tree or the end.
    while (line.text.empty()) {
      if (!lines_.Next(&line)) {
        line.text = {};
        break;
      }
    }
    if (line.text.substr(0, 5) == "Tree=") {
      have_tree_line = true;
    } else if (line.text == "end of trees") {
      ended = true;
      trees_end_ = OffsetOf(line);
    } else if (!line.text.empty()) {
      return Error(line.number,
                   "expected 'Tree=" + std::to_string(index + 1) + "' or 'end of trees'");
    }
  }
  if (!ended) return Error(lines_.count(), "the file ends before 'end of trees' (truncated?)");

  if (const Line* sizes = header_value("tree_sizes")) {
    CALCJIT_RETURN_IF_ERROR(CheckTreeSizes(*sizes));
  }
  const std::uint64_t trees = ensemble_.trees.size();
  if (trees % static_cast<std::uint64_t>(per_iteration) != 0) {
    return Error(lines_.count(), std::to_string(trees) +
                                     " trees is not a multiple of num_tree_per_iteration " +
                                     std::to_string(per_iteration));
  }
  for (std::uint64_t t = 0; t < trees; ++t) {
    ensemble_.trees[t].output = static_cast<std::uint32_t>(t % per_iteration);
  }
  const std::uint64_t iterations = trees / static_cast<std::uint64_t>(per_iteration);
  // LightGBM's predictor (spec 6.3): x <= t in float64 after dropping tiny
  // values; in-set categories go left; float64 sums from +0, averaged.
  TreeRules& rules = ensemble_.rules;
  rules.compare = TreeRules::Compare::kLessOrEqual;
  rules.tiny_as_zero = true;
  rules.categories = TreeRules::Categories::kInSetGoesLeft;
  rules.sum = TreeRules::Sum::kFloat64;
  rules.average_divisor = average_output ? static_cast<std::uint32_t>(iterations) : 0;
  if (average_output && iterations == 0) {
    return Error(lines_.count(), "average_output with no trees");
  }
  info.num_trees = trees;
  info.num_nodes = nodes_read_;
  for (const Tree& tree : ensemble_.trees) info.max_depth = std::max(info.max_depth, tree.depth);
  return std::move(ensemble_);
}

}  // namespace

Result<TreeEnsemble> ReadLightgbmText(std::string_view bytes, std::string_view file_name) {
  if (bytes.size() > kMaxModelFileBytes) {
    return UserError("model file larger than 2 GiB", std::string(file_name));
  }
  try {
    LightgbmReader reader(bytes, file_name);
    return reader.Read();
  } catch (const std::bad_alloc&) {
    return RuntimeError("out of memory reading the model", std::string(file_name));
  }
}

}  // namespace calcjit::model
