// The internal representation of a feature set, shared by every reader,
// the printer, the checker and the backends.
//
// All expression nodes of a set live in one flat array, and each definition's
// nodes are a contiguous range of it in post-order: every operand has a lower
// id than the node that uses it, and a definition's root is the last node of
// its range. So every pass is a loop, never a recursion: a 2,000-level formula
// costs no native stack anywhere (spec section 5), and destroying a set is
// freeing a few vectors.
#ifndef CALCJIT_IR_FEATURE_SET_IR_H_
#define CALCJIT_IR_FEATURE_SET_IR_H_

#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "calcjit/schema.h"
#include "ir/model_format.h"
#include "ir/op.h"

namespace calcjit::ir {

using NodeId = std::uint32_t;
using NameId = std::uint32_t;
inline constexpr std::uint32_t kNone = 0xFFFFFFFFu;

// A position in a text (.calc) source: 1-based line and column, in characters.
// line == 0 when the set did not come from text.
struct TextPos {
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  bool valid() const { return line != 0; }
};

// Where locations come from: text positions, or field paths computed from the
// structure (protobuf and JSON give the same paths).
enum class SourceFormat : std::uint8_t { kText, kJson, kProto };

// Interned names. Ids are dense and stable; views stay valid for the table's
// lifetime (a deque never moves its elements).
class NameTable {
 public:
  NameTable() = default;
  NameTable(NameTable&&) = default;
  NameTable& operator=(NameTable&&) = default;
  NameTable(const NameTable&) = delete;
  NameTable& operator=(const NameTable&) = delete;

  NameId Intern(std::string_view name);
  std::optional<NameId> Find(std::string_view name) const;
  const std::string& operator[](NameId id) const { return names_[id]; }
  std::size_t size() const { return names_.size(); }

 private:
  std::deque<std::string> names_;
  std::unordered_map<std::string_view, NameId> index_;
};

struct Node {
  Op op = Op::kConstant;
  std::uint32_t first_operand = 0;  // operands[first_operand, +operand_count)
  std::uint32_t operand_count = 0;
  std::uint32_t first_weight = 0;  // weights[first_weight, +weight_count) (Nary)
  std::uint32_t weight_count = 0;
  float constant = 0.0f;     // kConstant
  NameId name = kNone;       // kRef: the referenced name; Vector: lhs (kNone if absent);
                             // Model: the model's name (kNone if absent)
  NameId name2 = kNone;      // Vector: rhs (kNone if absent)
  std::uint32_t output = 0;  // Model: which of the model's outputs, k of [k]
  TextPos pos;
};

struct InputDecl {
  NameId name = kNone;
  Scope scope = Scope::kItem;
  std::uint32_t dimension = 0;
  std::optional<float> default_value;
  TextPos pos;
};

// model NAME = FORMAT("PATH"); (spec section 6.1). Model names are names of
// their own: a model may be named like a feature or an input.
struct ModelDecl {
  NameId name = kNone;
  std::string path;  // as written; resolved against the model root when loaded
  ModelFormat format = ModelFormat::kXgboostJson;
  TextPos pos;
};

struct FeatureDef {
  NameId name = kNone;
  NodeId first_node = 0;  // the definition's nodes are [first_node, root]
  NodeId root = 0;
  TextPos pos;
};

struct FeatureSetIr {
  SourceFormat source = SourceFormat::kText;
  NameTable names;
  std::vector<InputDecl> inputs;     // declaration order
  std::vector<FeatureDef> features;  // definition order
  std::vector<ModelDecl> models;     // declaration order
  std::vector<Node> nodes;
  std::vector<NodeId> operands;
  std::vector<float> weights;

  std::span<const NodeId> OperandsOf(const Node& node) const {
    return {operands.data() + node.first_operand, node.operand_count};
  }
  std::span<const float> WeightsOf(const Node& node) const {
    return {weights.data() + node.first_weight, node.weight_count};
  }
  const std::string& NameOf(NameId id) const { return names[id]; }
};

}  // namespace calcjit::ir

#endif  // CALCJIT_IR_FEATURE_SET_IR_H_
