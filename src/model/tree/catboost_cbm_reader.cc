// CatBoost's binary model file (.cbm), decoded by hand with every read
// bounds-checked (no flatbuffers library, no generated code).
//
// The facts of the format, from CatBoost's public schema
// (catboost/libs/model/flatbuffers/model.fbs and features.fbs, CatBoost 1.x):
//
//   "CBM1", a little-endian uint32 N, then N bytes of a flatbuffer whose root
//   is a TModelCore, then the model's other parts (CTR tables, text
//   processing), named by TModelCore.ModelPartIds.
//
//   TModelCore   0 FormatVersion: string, 1 ModelTrees: TModelTrees,
//                2 InfoMap: [TKeyValue], 3 ModelPartIds: [string]
//   TModelTrees  0 ApproxDimension: int, 1 TreeSplits: [int],
//                2 TreeSizes: [int], 3 TreeStartOffsets: [int],
//                4 CatFeatures, 5 FloatFeatures: [TFloatFeature],
//                6 OneHotFeatures, 7 CtrFeatures, 8 LeafValues: [double],
//                9 LeafWeights: [double], 10 NonSymmetricStepNodes:
//                [struct {uint16 LeftSubtreeDiff; uint16 RightSubtreeDiff}],
//                11 NonSymmetricNodeIdToLeafId: [uint32], 12 TextFeatures,
//                13 EstimatedFeatures, 14 Scale: double = 1,
//                15 Bias: double = 0, 16 MultiBias: [double],
//                17 RepackedBins, 18 EmbeddingFeatures
//   TFloatFeature 0 HasNans: bool, 1 Index: int = -1, 2 FlatIndex: int = -1,
//                3 Borders: [float], 4 FeatureId: string,
//                5 NanValueTreatment: byte (0 AsIs, 1 AsFalse, 2 AsTrue)
//
// A flatbuffer table starts with an int32 s; its vtable is at (table - s):
// uint16 vtable bytes, uint16 table bytes, then a uint16 offset per field
// (0 or beyond the vtable: absent, the default). A reference field holds a
// uint32 offset from itself to the vector, string or table; a vector is a
// uint32 count and its elements (references, for tables and strings).
//
// A split of TreeSplits is a binary feature: the float features' borders
// numbered in order (feature 0's borders, then feature 1's, ...). An
// oblivious tree t has TreeSizes[t] splits from TreeStartOffsets[t] and
// D << TreeSizes[t] leaf values after the previous trees'. A non-symmetric
// tree has TreeSizes[t] nodes from TreeStartOffsets[t]: node n splits on
// TreeSplits[n] and goes to n + RightSubtreeDiff when the split is true,
// n + LeftSubtreeDiff when false; a difference of 0 stops there, at the leaf
// whose D values start at LeafValues[NonSymmetricNodeIdToLeafId[n]] (a node
// with both differences 0 is a leaf).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "model/tree/catboost_reader.h"

namespace calcjit::model {

namespace {

// A table's place: where it is and what its vtable says.
struct Table {
  std::uint64_t position = 0;
  std::uint64_t vtable = 0;
  std::uint16_t vtable_bytes = 0;
  std::uint16_t table_bytes = 0;
};

// A vector's place: its first element and count.
struct Vector {
  std::uint64_t first = 0;
  std::uint64_t count = 0;
};

class CbmDecoder {
 public:
  CbmDecoder(std::string_view buffer, std::uint64_t base, CatboostModelBuilder* builder)
      : buffer_(buffer), base_(base), builder_(builder) {}

  const Status& status() const { return status_; }

  bool Fail(std::string message, const std::string& path, std::uint64_t position) {
    if (status_.ok()) {
      status_ = builder_->Error(
          std::move(message) + " (byte " + std::to_string(base_ + position) + ")", path);
    }
    return false;
  }

  template <typename T>
  bool Read(std::uint64_t position, const std::string& path, T* out) {
    if (position > buffer_.size() || buffer_.size() - position < sizeof(T)) {
      return Fail("beyond the end of the model", path, position);
    }
    std::memcpy(out, buffer_.data() + position, sizeof(T));  // little-endian, as x86
    return true;
  }

  // The table at `position`, its vtable checked.
  bool TableAt(std::uint64_t position, const std::string& path, Table* table) {
    std::int32_t to_vtable = 0;
    if (!Read(position, path, &to_vtable)) return false;
    const auto vtable = static_cast<std::int64_t>(position) - to_vtable;
    if (vtable < 0 || static_cast<std::uint64_t>(vtable) >= buffer_.size()) {
      return Fail("a table whose vtable is outside the model", path, position);
    }
    table->position = position;
    table->vtable = static_cast<std::uint64_t>(vtable);
    if (!Read(table->vtable, path, &table->vtable_bytes) ||
        !Read(table->vtable + 2, path, &table->table_bytes)) {
      return false;
    }
    if (table->vtable_bytes < 4 || table->vtable_bytes % 2 != 0 ||
        table->vtable + table->vtable_bytes > buffer_.size() || table->table_bytes < 4 ||
        position + table->table_bytes > buffer_.size()) {
      return Fail("a malformed table", path, position);
    }
    return true;
  }

  // Where field `index` of `table` is (0: absent), `bytes` long.
  bool Field(const Table& table, int index, std::size_t bytes, const std::string& path,
             std::uint64_t* position) {
    *position = 0;
    const std::uint64_t slot = 4 + 2 * static_cast<std::uint64_t>(index);
    if (slot + 2 > table.vtable_bytes) return true;
    std::uint16_t offset = 0;
    if (!Read(table.vtable + slot, path, &offset)) return false;
    if (offset == 0) return true;
    if (offset < 4 || offset + bytes > table.table_bytes) {
      return Fail("a field outside its table", path, table.position);
    }
    *position = table.position + offset;
    return true;
  }

  template <typename T>
  bool Scalar(const Table& table, int index, T fallback, const std::string& path, T* out) {
    std::uint64_t position = 0;
    if (!Field(table, index, sizeof(T), path, &position)) return false;
    *out = fallback;
    return position == 0 || Read(position, path, out);
  }

  // Follows the reference at `position`.
  bool Follow(std::uint64_t position, const std::string& path, std::uint64_t* target) {
    std::uint32_t offset = 0;
    if (!Read(position, path, &offset)) return false;
    *target = position + offset;
    if (*target >= buffer_.size())
      return Fail("a reference beyond the end of the model", path, position);
    return true;
  }

  // Field `index` as a vector of `element_bytes` elements (absent: empty).
  bool VectorField(const Table& table, int index, std::size_t element_bytes,
                   const std::string& path, Vector* vector) {
    *vector = Vector{};
    std::uint64_t position = 0, target = 0;
    if (!Field(table, index, 4, path, &position)) return false;
    if (position == 0) return true;
    if (!Follow(position, path, &target)) return false;
    std::uint32_t count = 0;
    if (!Read(target, path, &count)) return false;
    // Elements inside the buffer: what a vector may hold is bounded by the
    // file's size.
    if (static_cast<std::uint64_t>(count) * element_bytes > buffer_.size() - target - 4) {
      return Fail("a vector of " + std::to_string(count) + " elements beyond the end of the model",
                  path, target);
    }
    vector->first = target + 4;
    vector->count = count;
    return true;
  }

  // Element i of a vector of T (VectorField checked that its elements are
  // inside the buffer; checked again, and the path made only for an error).
  template <typename T>
  bool Element(const Vector& vector, std::uint64_t i, std::string_view path, T* out) {
    const std::uint64_t position = vector.first + i * sizeof(T);
    if (i >= vector.count || position > buffer_.size() || buffer_.size() - position < sizeof(T)) {
      return Fail("beyond the end of the model", std::string(path) + "[" + std::to_string(i) + "]",
                  position);
    }
    std::memcpy(out, buffer_.data() + position, sizeof(T));
    return true;
  }

  // Element i of a vector of tables.
  bool TableElement(const Vector& vector, std::uint64_t i, const std::string& path, Table* table) {
    std::uint64_t target = 0;
    return Follow(vector.first + 4 * i, path, &target) && TableAt(target, path, table);
  }

  bool StringField(const Table& table, int index, const std::string& path, std::string* out) {
    Vector chars;
    if (!VectorField(table, index, 1, path, &chars)) return false;
    out->assign(buffer_.data() + chars.first, chars.count);
    return true;
  }
  bool StringElement(const Vector& vector, std::uint64_t i, const std::string& path,
                     std::string* out) {
    std::uint64_t target = 0;
    std::uint32_t count = 0;
    if (!Follow(vector.first + 4 * i, path, &target) || !Read(target, path, &count)) return false;
    if (count > buffer_.size() - target - 4) return Fail("a string beyond the end", path, target);
    out->assign(buffer_.data() + target + 4, count);
    return true;
  }

 private:
  std::string_view buffer_;
  std::uint64_t base_;  // the buffer's offset in the file, for messages
  CatboostModelBuilder* builder_;
  Status status_;
};

// What TModelTrees holds besides float features, each refused with why.
struct Refused {
  int field;
  const char* name;
  const char* why;
};
constexpr Refused kRefusedFields[] = {
    {4, "CatFeatures",
     "the model has categorical features: they need CatBoost's own hashing and CTR tables, "
     "which calcjit does not reproduce (it reads models of float features only)"},
    {6, "OneHotFeatures",
     "the model has one-hot categorical features: they need CatBoost's own hashing, which "
     "calcjit does not reproduce (it reads models of float features only)"},
    {7, "CtrFeatures",
     "the model has CTR features of categorical features: they need CatBoost's own CTR "
     "tables, which calcjit does not reproduce (it reads models of float features only)"},
    {12, "TextFeatures",
     "the model has text features: they need CatBoost's own tokenizers and dictionaries, "
     "which calcjit does not reproduce (it reads models of float features only)"},
    {18, "EmbeddingFeatures",
     "the model has embedding features: they need CatBoost's own embedding processing, which "
     "calcjit does not reproduce (it reads models of float features only)"},
    {13, "EstimatedFeatures",
     "the model has features estimated from text or embeddings: they need CatBoost's own "
     "processing, which calcjit does not reproduce (it reads models of float features only)"},
};

class CbmReader {
 public:
  CbmReader(std::string_view buffer, std::uint64_t base, std::string_view file_name)
      : builder_(file_name), decoder_(buffer, base, &builder_) {}

  Result<TreeEnsemble> Read();

 private:
  bool Fail(std::string message, const std::string& path, std::uint64_t position) {
    return decoder_.Fail(std::move(message), path, position);
  }
  // Keeps the first error; false when `status` is one.
  bool Check(Status status) {
    if (status.ok()) return true;
    if (error_.ok()) error_ = std::move(status);
    return false;
  }
  Status Error() const { return decoder_.status().ok() ? error_ : decoder_.status(); }

  bool ReadFeatures(const Table& trees);
  bool ReadInts(const Table& trees, int field, const char* name, std::vector<std::int32_t>* out);
  // Binary feature `index` (a TreeSplits entry) as a split.
  bool SplitOf(std::int32_t index, const std::string& path, CatboostSplit* split);
  bool ReadObliviousTrees(std::uint32_t dimension);
  bool ReadNonSymmetricTrees(const Table& trees, std::uint32_t dimension);

  CatboostModelBuilder builder_;
  CbmDecoder decoder_;
  Status error_;
  // The float features' first binary feature each, and one past the last.
  std::vector<std::uint64_t> first_split_;
  std::vector<std::vector<float>> borders_;
  std::vector<std::int32_t> splits_, sizes_, starts_;
  std::vector<double> leaves_;
};

bool CbmReader::ReadInts(const Table& trees, int field, const char* name,
                         std::vector<std::int32_t>* out) {
  const std::string path = std::string("ModelTrees.") + name;
  Vector vector;
  if (!decoder_.VectorField(trees, field, 4, path, &vector)) return false;
  out->resize(vector.count);
  for (std::uint64_t i = 0; i < vector.count; ++i) {
    if (!decoder_.Element(vector, i, path, &(*out)[i])) return false;
  }
  return true;
}

bool CbmReader::ReadFeatures(const Table& trees) {
  const std::string path = "ModelTrees.FloatFeatures";
  Vector vector;
  if (!decoder_.VectorField(trees, 5, 4, path, &vector)) return false;
  if (vector.count > kMaxFeatures) {
    return Fail("more than " + std::to_string(kMaxFeatures) + " float features", path,
                vector.first);
  }
  std::vector<CatboostFloatFeature> features(vector.count);
  first_split_.assign(1, 0);
  for (std::uint64_t i = 0; i < vector.count; ++i) {
    const std::string where = path + "[" + std::to_string(i) + "]";
    CatboostFloatFeature& feature = features[i];
    feature.where = where;
    Table table;
    std::int32_t index, flat_index;
    std::int8_t nan;
    if (!decoder_.TableElement(vector, i, where, &table) ||
        !decoder_.Scalar<std::int32_t>(table, 1, -1, where + ".Index", &index) ||
        !decoder_.Scalar<std::int32_t>(table, 2, -1, where + ".FlatIndex", &flat_index) ||
        !decoder_.StringField(table, 4, where + ".FeatureId", &feature.name) ||
        !decoder_.Scalar<std::int8_t>(table, 5, 0, where + ".NanValueTreatment", &nan)) {
      return false;
    }
    feature.feature_index = index;
    feature.flat_index = flat_index;
    if (nan < 0 || nan > 2) {
      return Fail(
          "unknown NanValueTreatment " + std::to_string(nan) + " (0 AsIs, 1 AsFalse, 2 AsTrue)",
          where + ".NanValueTreatment", table.position);
    }
    feature.nan = static_cast<CatboostNan>(nan);
    Vector borders;
    const std::string borders_path = where + ".Borders";
    if (!decoder_.VectorField(table, 3, 4, borders_path, &borders)) return false;
    if (borders.count > kMaxBordersPerFeature ||
        first_split_.back() + borders.count > kMaxBorders) {
      return Fail("more than " +
                      std::to_string(borders.count > kMaxBordersPerFeature ? kMaxBordersPerFeature
                                                                           : kMaxBorders) +
                      (borders.count > kMaxBordersPerFeature ? " borders in a feature"
                                                             : " borders in the model"),
                  borders_path, borders.first);
    }
    feature.borders.resize(borders.count);
    for (std::uint64_t j = 0; j < borders.count; ++j) {
      if (!decoder_.Element(borders, j, borders_path, &feature.borders[j])) return false;
    }
    first_split_.push_back(first_split_.back() + borders.count);
    borders_.push_back(feature.borders);
  }
  return Check(builder_.SetFeatures(std::move(features)));
}

bool CbmReader::SplitOf(std::int32_t index, const std::string& path, CatboostSplit* split) {
  if (index < 0 || static_cast<std::uint64_t>(index) >= first_split_.back()) {
    return Check(builder_.Error("binary feature " + std::to_string(index) +
                                    " is not a border of a float feature (the model has " +
                                    std::to_string(first_split_.back()) + ")",
                                path));
  }
  // The feature whose borders hold it: the last that starts at or before it.
  const auto it =
      std::upper_bound(first_split_.begin(), first_split_.end(), static_cast<std::uint64_t>(index));
  const auto feature = static_cast<std::size_t>(it - first_split_.begin()) - 1;
  split->feature = static_cast<std::uint32_t>(feature);
  split->border = borders_[feature][static_cast<std::uint64_t>(index) - first_split_[feature]];
  return Check(builder_.CheckSplit(*split, path));
}

bool CbmReader::ReadObliviousTrees(std::uint32_t dimension) {
  std::uint64_t next_leaf = 0;
  std::uint64_t next_split = 0;
  std::vector<CatboostSplit> splits;
  for (std::size_t t = 0; t < sizes_.size(); ++t) {
    const std::string where = "ModelTrees.TreeSizes[" + std::to_string(t) + "]";
    const std::int32_t depth = sizes_[t];
    if (depth < 0 || depth >= 28) {
      return Check(builder_.Error("an oblivious tree of depth " + std::to_string(depth) +
                                      " (at most 27 fit the model's node limit)",
                                  where));
    }
    if (starts_[t] < 0 || static_cast<std::uint64_t>(starts_[t]) != next_split) {
      return Check(builder_.Error(
          "tree " + std::to_string(t) + " starts at split " + std::to_string(starts_[t]) +
              ", not after the previous tree (" + std::to_string(next_split) + ")",
          "ModelTrees.TreeStartOffsets[" + std::to_string(t) + "]"));
    }
    if (next_split + static_cast<std::uint64_t>(depth) > splits_.size()) {
      return Check(builder_.Error(
          "the trees need more splits than TreeSplits has (" + std::to_string(splits_.size()) + ")",
          where));
    }
    splits.resize(static_cast<std::size_t>(depth));
    for (std::int32_t j = 0; j < depth; ++j) {
      const std::uint64_t s = next_split + static_cast<std::uint64_t>(j);
      if (!SplitOf(splits_[s], "ModelTrees.TreeSplits[" + std::to_string(s) + "]", &splits[j])) {
        return false;
      }
    }
    next_split += static_cast<std::uint64_t>(depth);
    const std::uint64_t count = std::uint64_t{dimension} << depth;
    if (count > leaves_.size() - next_leaf) {
      return Check(builder_.Error("the trees need more leaf values than LeafValues has (" +
                                      std::to_string(leaves_.size()) + ")",
                                  where));
    }
    const std::span<const double> values(leaves_.data() + next_leaf, count);
    if (!Check(builder_.AddOblivious(splits, values, where, "ModelTrees.LeafValues", next_leaf))) {
      return false;
    }
    next_leaf += count;
  }
  if (next_split != splits_.size() || next_leaf != leaves_.size()) {
    return Check(builder_.Error("the trees use " + std::to_string(next_split) + " of " +
                                    std::to_string(splits_.size()) + " splits and " +
                                    std::to_string(next_leaf) + " of " +
                                    std::to_string(leaves_.size()) + " leaf values",
                                "ModelTrees"));
  }
  return true;
}

bool CbmReader::ReadNonSymmetricTrees(const Table& trees, std::uint32_t dimension) {
  Vector steps_vector, leaf_ids_vector;
  if (!decoder_.VectorField(trees, 10, 4, "ModelTrees.NonSymmetricStepNodes", &steps_vector) ||
      !decoder_.VectorField(trees, 11, 4, "ModelTrees.NonSymmetricNodeIdToLeafId",
                            &leaf_ids_vector)) {
    return false;
  }
  if (steps_vector.count != splits_.size() || leaf_ids_vector.count != splits_.size()) {
    return Check(
        builder_.Error("NonSymmetricStepNodes and NonSymmetricNodeIdToLeafId must have "
                       "an entry per split (" +
                           std::to_string(splits_.size()) + ")",
                       "ModelTrees"));
  }
  std::vector<CatboostNode> nodes;
  std::vector<std::uint8_t> reached;
  // (file node, its node in `nodes`)
  std::vector<std::pair<std::uint64_t, std::uint32_t>> stack;
  for (std::size_t t = 0; t < sizes_.size(); ++t) {
    const std::string where = "ModelTrees.TreeSizes[" + std::to_string(t) + "]";
    const std::int64_t start = starts_[t];
    const std::int64_t size = sizes_[t];
    if (size <= 0 || start < 0 || static_cast<std::uint64_t>(start + size) > splits_.size()) {
      return Check(builder_.Error("tree " + std::to_string(t) + " has nodes [" +
                                      std::to_string(start) + ", " + std::to_string(start + size) +
                                      "), not a non-empty range of the " +
                                      std::to_string(splits_.size()) + " nodes",
                                  where));
    }
    if (static_cast<std::uint64_t>(size) * 2 > builder_.NodeBudget()) {
      return Check(builder_.Error(
          "more than " + std::to_string(kMaxNodes) + " tree nodes in the model", where));
    }
    nodes.clear();
    reached.assign(static_cast<std::size_t>(size), 0);
    // A leaf for the node's leaf id.
    auto leaf = [&](std::uint64_t n, std::uint32_t* made) {
      std::uint32_t id = 0;
      auto path = [n] {
        return "ModelTrees.NonSymmetricNodeIdToLeafId[" + std::to_string(n) + "]";
      };
      if (!decoder_.Element(leaf_ids_vector, n, "ModelTrees.NonSymmetricNodeIdToLeafId", &id)) {
        return false;
      }
      if (id > leaves_.size() || leaves_.size() - id < dimension) {
        return Check(builder_.Error("leaf offset " + std::to_string(id) +
                                        " is not in LeafValues (" + std::to_string(leaves_.size()) +
                                        " values)",
                                    path()));
      }
      *made = static_cast<std::uint32_t>(nodes.size());
      CatboostNode node;
      node.leaf = true;
      node.leaf_offset = id;
      nodes.push_back(node);
      return true;
    };
    // A node for file node n, its children pushed.
    auto visit = [&](std::uint64_t n, std::uint32_t* made) {
      auto path = [n] { return "ModelTrees.NonSymmetricStepNodes[" + std::to_string(n) + "]"; };
      std::uint16_t diffs[2] = {0, 0};
      if (!decoder_.Element(steps_vector, n, "ModelTrees.NonSymmetricStepNodes", &diffs)) {
        return false;
      }
      std::uint8_t& seen = reached[n - static_cast<std::uint64_t>(start)];
      if (seen) {
        return Check(builder_.Error(
            "node " + std::to_string(n) + " is reached twice from the root (not a tree)", path()));
      }
      seen = 1;
      if (diffs[0] == 0 && diffs[1] == 0) return leaf(n, made);
      *made = static_cast<std::uint32_t>(nodes.size());
      nodes.emplace_back();
      if (!SplitOf(splits_[n], "ModelTrees.TreeSplits[" + std::to_string(n) + "]",
                   &nodes[*made].split)) {
        return false;
      }
      for (int side = 0; side < 2; ++side) {
        const std::uint64_t child = n + diffs[side];
        std::uint32_t child_node;
        if (diffs[side] == 0) {
          if (!leaf(n, &child_node)) return false;
          (side == 0 ? nodes[*made].left : nodes[*made].right) = child_node;
          continue;
        }
        if (child >= static_cast<std::uint64_t>(start + size)) {
          return Check(builder_.Error("node " + std::to_string(n) + " steps to node " +
                                          std::to_string(child) + ", outside its tree",
                                      path()));
        }
        stack.emplace_back(child, *made * 2 + static_cast<std::uint32_t>(side));
      }
      return true;
    };
    std::uint32_t root;
    stack.clear();
    if (!visit(static_cast<std::uint64_t>(start), &root)) return false;
    while (!stack.empty()) {
      const auto [n, parent_side] = stack.back();
      stack.pop_back();
      std::uint32_t made;
      if (!visit(n, &made)) return false;
      CatboostNode& parent = nodes[parent_side / 2];
      (parent_side % 2 == 0 ? parent.left : parent.right) = made;
    }
    for (std::size_t i = 0; i < reached.size(); ++i) {
      if (!reached[i]) {
        return Check(builder_.Error("node " + std::to_string(start + static_cast<std::int64_t>(i)) +
                                        " is not reached from its tree's root",
                                    where));
      }
    }
    if (!Check(builder_.AddNonSymmetric(nodes, leaves_, dimension, where))) return false;
  }
  return true;
}

Result<TreeEnsemble> CbmReader::Read() {
  Table core, trees;
  std::uint64_t root, trees_position;
  if (!decoder_.Follow(0, "TModelCore", &root) || !decoder_.TableAt(root, "TModelCore", &core)) {
    return Error();
  }
  Vector parts;
  if (!decoder_.VectorField(core, 3, 4, "ModelPartIds", &parts)) return Error();
  if (!decoder_.Field(core, 1, 4, "ModelTrees", &trees_position)) return Error();
  if (trees_position == 0) return builder_.Error("the model has no trees part", "ModelTrees");
  if (!decoder_.Follow(trees_position, "ModelTrees", &trees_position) ||
      !decoder_.TableAt(trees_position, "ModelTrees", &trees)) {
    return Error();
  }
  for (const Refused& refused : kRefusedFields) {
    Vector vector;
    const std::string path = std::string("ModelTrees.") + refused.name;
    if (!decoder_.VectorField(trees, refused.field, 4, path, &vector)) return Error();
    if (vector.count > 0) return builder_.Error(refused.why, path);
  }
  if (parts.count > 0) {
    std::string name;
    if (!decoder_.StringElement(parts, 0, "ModelPartIds[0]", &name)) return Error();
    while (!name.empty() && name.back() == '\0') name.pop_back();
    return builder_.Error("the model has a part '" + name +
                              "' (CTR tables or text processing of non-float features), which "
                              "calcjit does not read",
                          "ModelPartIds[0]");
  }
  if (!ReadFeatures(trees)) return Error();

  std::int32_t dimension;
  if (!decoder_.Scalar<std::int32_t>(trees, 0, 0, "ModelTrees.ApproxDimension", &dimension)) {
    return Error();
  }
  if (dimension < 1 || static_cast<std::uint32_t>(dimension) > kMaxOutputs) {
    return builder_.Error("expected 1 to " + std::to_string(kMaxOutputs) +
                              " output dimensions, not " + std::to_string(dimension),
                          "ModelTrees.ApproxDimension");
  }
  if (!ReadInts(trees, 1, "TreeSplits", &splits_) || !ReadInts(trees, 2, "TreeSizes", &sizes_) ||
      !ReadInts(trees, 3, "TreeStartOffsets", &starts_)) {
    return Error();
  }
  if (sizes_.size() != starts_.size()) {
    return builder_.Error("TreeSizes and TreeStartOffsets differ in length", "ModelTrees");
  }
  if (sizes_.size() > kMaxTrees) {
    return builder_.Error("more than " + std::to_string(kMaxTrees) + " trees",
                          "ModelTrees.TreeSizes");
  }
  Vector leaves;
  if (!decoder_.VectorField(trees, 8, 8, "ModelTrees.LeafValues", &leaves)) return Error();
  if (leaves.count > builder_.NodeBudget()) {
    return builder_.Error("more than " + std::to_string(kMaxNodes) + " leaf values",
                          "ModelTrees.LeafValues");
  }
  leaves_.resize(leaves.count);
  for (std::uint64_t i = 0; i < leaves.count; ++i) {
    if (!decoder_.Element(leaves, i, "ModelTrees.LeafValues", &leaves_[i])) return Error();
  }
  Vector steps;
  if (!decoder_.VectorField(trees, 10, 4, "ModelTrees.NonSymmetricStepNodes", &steps)) {
    return Error();
  }
  const auto outputs = static_cast<std::uint32_t>(dimension);
  if (steps.count == 0 ? !ReadObliviousTrees(outputs) : !ReadNonSymmetricTrees(trees, outputs)) {
    return Error();
  }

  double scale, single_bias;
  Vector multi_bias;
  if (!decoder_.Scalar<double>(trees, 14, 1.0, "ModelTrees.Scale", &scale) ||
      !decoder_.Scalar<double>(trees, 15, 0.0, "ModelTrees.Bias", &single_bias) ||
      !decoder_.VectorField(trees, 16, 8, "ModelTrees.MultiBias", &multi_bias)) {
    return Error();
  }
  std::vector<double> bias;
  std::string bias_where = "ModelTrees.MultiBias";
  if (multi_bias.count > kMaxOutputs) {
    return builder_.Error("more than " + std::to_string(kMaxOutputs) + " biases", bias_where);
  }
  if (multi_bias.count > 0) {
    bias.resize(multi_bias.count);
    for (std::uint64_t k = 0; k < multi_bias.count; ++k) {
      if (!decoder_.Element(multi_bias, k, bias_where, &bias[k])) return Error();
    }
  } else if (single_bias != 0.0) {
    // The one bias of files written before MultiBias.
    bias.assign(1, single_bias);
    bias_where = "ModelTrees.Bias";
  }
  return builder_.Finish(scale, std::move(bias), bias_where, outputs);
}

}  // namespace

Result<TreeEnsemble> ReadCatboostCbm(std::string_view bytes, std::string_view file_name) {
  if (bytes.size() > kMaxModelFileBytes) {
    return UserError("model file larger than 2 GiB", std::string(file_name));
  }
  std::uint32_t size = 0;
  if (bytes.size() < 8 || !bytes.starts_with("CBM1")) {
    return UserError("not a CatBoost binary model (it starts with \"CBM1\" and a size)",
                     std::string(file_name));
  }
  std::memcpy(&size, bytes.data() + 4, 4);
  if (size > bytes.size() - 8 || size < 8) {
    return UserError("the model part claims " + std::to_string(size) + " bytes, of the " +
                         std::to_string(bytes.size() - 8) + " the file has after its header",
                     std::string(file_name) + ": byte 4");
  }
  try {
    CbmReader reader(bytes.substr(8, size), 8, file_name);
    return reader.Read();
  } catch (const std::bad_alloc&) {
    return RuntimeError("out of memory reading the model", std::string(file_name));
  }
}

}  // namespace calcjit::model
