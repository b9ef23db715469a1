// The half of the protobuf and JSON readers that does not depend on the
// format: turning Expression messages into IR nodes in post-order, with the
// checks of spec section 5 (operators, operands, names, depth, node count)
// and field paths such as "features[3].expression.binary.lhs" for errors.
//
// A format supplies an ExpressionDecoder that decodes one Expression message
// at a time; the ExpressionReader walks the tree with heap stacks, so a
// formula nested kMaxDepth levels deep uses no native stack per level.
#ifndef CALCJIT_DSL_EXPRESSION_READER_H_
#define CALCJIT_DSL_EXPRESSION_READER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "calcjit/status.h"
#include "ir/builder.h"
#include "ir/feature_set_ir.h"
#include "ir/kind.h"
#include "ir/op.h"

namespace calcjit::dsl {

// One Expression message in a decoder's own terms: the binary reader's run of
// byte ranges to be merged (pieces [first, first + count)), the JSON reader's
// DOM node (first). A field that is not set is `absent`.
struct ExprRef {
  static constexpr std::uint32_t kAbsent = 0xFFFFFFFFu;
  std::uint32_t first = kAbsent;
  std::uint32_t count = 0;
  bool present() const { return first != kAbsent; }
};

struct DecodedExpr {
  // The kind of the member of Expression.kind that is set (the kind table,
  // ir/kind.h, maps members to kinds); none when no member is set.
  std::optional<ir::OpKind> kind;
  float constant = 0.0f;     // kConstant
  std::string_view name;     // kRef: the referenced name; kVector: lhs; kModel: the model
  std::string_view name2;    // kVector: rhs
  std::int32_t op = 0;       // the Operator enum number of the kind's message (0: unset)
  std::uint32_t output = 0;  // kModel: the model's output
};

class ExpressionDecoder {
 public:
  virtual ~ExpressionDecoder() = default;

  // Decodes one Expression. Operands go to the end of `operands`: one per
  // kOperand field of the kind's message, in field order (absent ones
  // included, as ExprRef{}), or one per element of its kOperands field. Nary
  // weights go to the end of `weights`. String views stay valid until the
  // next call. On error the Status's location is the problem's field path
  // relative to this expression: "" for the expression itself,
  // "binary.operator", "nary.weights[2]", ...
  virtual Status Decode(ExprRef expr, DecodedExpr* out, std::vector<ExprRef>* operands,
                        std::vector<float>* weights) = 0;

  // The operands an open expression has handed out must stay valid until it
  // is built; a decoder that stores them itself releases them here, in
  // last-in first-out order.
  virtual std::size_t Mark() const { return 0; }
  virtual void Release(std::size_t /*mark*/) {}
};

class ExpressionReader {
 public:
  // Both must outlive the reader.
  ExpressionReader(ir::IrBuilder* builder, ExpressionDecoder* decoder);

  // Adds the nodes of the expression `root` (a FeatureDefinition's
  // `expression`, at `root_path`) to the builder and returns the root's id.
  // Errors: an operator that is unset or unknown, an expression with no kind,
  // a missing operand, an empty feature or model name, depth beyond
  // ir::kMaxDepth (as IrBuilder::DepthOf counts it), more than ir::kMaxNodes
  // nodes in the set, and the decoder's own errors, each at its field path.
  Result<ir::NodeId> Read(ExprRef root, std::string_view root_path);

 private:
  // An expression whose operands are being read.
  struct Frame {
    ir::Op op;
    ir::NameId name;               // Model: the model's name
    std::uint32_t output;          // Model: its output
    std::uint32_t operands_begin;  // its operands: operands_[begin, +count)
    std::uint32_t operand_count;
    std::uint32_t built_begin;    // ids of its operands read so far: built_[begin, ...)
    std::uint32_t weights_begin;  // Nary weights: weights_[begin, +count)
    std::uint32_t weight_count;
    std::size_t decoder_mark;
  };

  // Where the stacks stood before an expression was decoded.
  struct Scratch {
    std::size_t decoder_mark;
    std::uint32_t operands_begin;
    std::uint32_t weights_begin;
  };

  // Decodes `expr` (at depth frames_.size() + 1) and either adds it (a leaf)
  // or opens a frame for its operands.
  Status Visit(ExprRef expr);
  Status AddLeaf(ir::NodeId id, const Scratch& scratch);
  Status Open(ir::Op op, const DecodedExpr& decoded, const Scratch& scratch);
  // Adds the node of the innermost frame, whose operands are all built.
  void Close();
  // The field path of the expression being visited, plus `field`.
  std::string PathOf(std::string_view field) const;
  Status ErrorAt(std::string_view field, std::string message) const;
  Status NodeLimitError() const;

  ir::IrBuilder* builder_;
  ExpressionDecoder* decoder_;
  std::string root_path_;
  std::vector<Frame> frames_;
  std::vector<ExprRef> operands_;
  std::vector<ir::NodeId> built_;
  std::vector<float> weights_;
  // Nodes that will certainly be added: open frames and operands not yet
  // visited. With the builder's count it bounds the set's size early.
  std::size_t pending_nodes_ = 0;
};

}  // namespace calcjit::dsl

#endif  // CALCJIT_DSL_EXPRESSION_READER_H_
