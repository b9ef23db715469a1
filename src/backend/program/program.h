// The lowered program every compiling backend shares: how an optimized set
// becomes work over the items of a batch.
//
// Evaluation runs in phases separated by barriers: an aggregate needs its
// whole operand column before any item of its result exists. A phase runs,
// in this order:
//   1. its column steps, whole-column kernels shared by every backend:
//      aggregates (over columns of earlier phases) and vector operators (over
//      vector inputs), each writing a whole column or a scalar; then its
//      statistics steps (aggregates over one column that share the
//      column's statistics); then its model steps (trained models over
//      columns of earlier phases);
//   2. its scalar steps: the uniform values (the same for every item) that
//      depend on this phase's aggregates, computed once per batch;
//   3. its regions: the element-wise work, a list of nodes evaluated for every
//      item, reading whole columns (inputs, column steps' results, columns of
//      earlier phases or regions) and uniform values, writing outputs and the
//      columns that later regions or phases read;
//   4. its stores: outputs whose value is a column no region computes (an
//      input or a column step's result), NaN made canonical.
// A backend compiles regions only (the VM to block instructions, the JIT to
// native loops); the executor (executor.h) runs everything else the same way
// for both, with the kernels of src/backend/kernels.
#ifndef CALCJIT_BACKEND_PROGRAM_PROGRAM_H_
#define CALCJIT_BACKEND_PROGRAM_PROGRAM_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ir/op.h"

namespace calcjit::model {
class Model;
}  // namespace calcjit::model

namespace calcjit::program {

// Where a value lives for the executor.
enum class Loc : std::uint8_t {
  kNone,
  kInput,   // an engine input slot, read in place (a defaulted one is broadcast)
  kColumn,  // a whole-batch column buffer (reused across phases)
  kScalar,  // a scalar register: constants and uniform values
  kOutput,  // an engine output
};

struct Operand {
  Loc loc = Loc::kNone;
  std::uint32_t index = 0;
  bool operator==(const Operand&) const = default;
};

inline constexpr std::uint32_t kNoInput = 0xFFFFFFFFu;

// A whole-column kernel: an aggregate (operand: a column, an input or a
// scalar whose value every item holds) or a vector operator (operands: the
// vector input slots `input` and `input2`, kNoInput for norm). The result is
// a scalar (a statistic, or a vector operator over query vectors only) or a
// column.
struct ColumnStep {
  ir::Op op = ir::Op::kBatchSum;
  Operand operand;
  std::uint32_t input = kNoInput;
  std::uint32_t input2 = kNoInput;
  Operand result;
  float bound = 0.0f;       // an aggregate that takes one (ir::TakesBound): its bound
  std::uint32_t value = 0;  // the DAG value computed, for dumps
};

// Aggregates over the same operand (one DAG value) whose results derive from
// statistics of that column (the rows of op.def with a `statistics` hook:
// min, max, sum, mean, std, count, softmax, min_max_scale, zscore): the
// statistics are computed once, in one pass over the column (plus the
// standard deviation's second pass when a member needs it), and each
// member's result is derived from them, with the bits of its own kernel. A
// group of one stays a ColumnStep. Like a model step, the group is in the
// phase of the member needed first.
struct StatisticsStep {
  Operand operand;
  std::vector<ColumnStep> members;  // op, result and value; their operand is `operand`
};

// A model evaluated once for every output its calls use: the calls of one
// model on the same inputs are one step (spec 6.1). It reads whole columns,
// so its features come from earlier phases (or are inputs), like an
// aggregate's operand. A feature is a column, an input, or a scalar that
// every item holds; an output is a column, a scalar (a call on uniform
// values only: the model runs on one item), or kNone when no formula uses it.
struct ModelStep {
  std::uint32_t model = 0;  // Program::models
  std::vector<Operand> features;
  std::vector<Operand> outputs;
  bool uniform = false;
  std::uint32_t value = 0;  // the first DAG value computed, for dumps
};

// A uniform element-wise value computed once per batch: op over scalar
// registers (unary: a; binary: a, b; if: c ? a : b).
struct ScalarStep {
  ir::Op op = ir::Op::kConstant;
  Operand a, b, c;
  Operand result;
  std::uint32_t value = 0;
};

// A region's operands are local: reads[i] are whole columns, scalars[i]
// uniform values, nodes earlier nodes of the region; constants are inline.
struct RegionOperand {
  enum class Kind : std::uint8_t { kRead, kScalar, kNode, kConstant };
  Kind kind = Kind::kConstant;
  std::uint32_t index = 0;
  float constant = 0.0f;
};

struct RegionNode {
  ir::Op op = ir::Op::kConstant;    // kConstant: its one operand is the constant
  std::uint32_t first_operand = 0;  // Region::operands
  std::uint32_t operand_count = 0;
  std::uint32_t value = 0;  // the DAG value, for dumps
  std::string name;         // the feature it belongs to, for generated code
};

struct RegionWrite {
  std::uint32_t node = 0;  // the local node written
  Operand target;          // kOutput (NaN made canonical) or kColumn
};

// Element-wise work over every item: nodes in evaluation order. A backend
// compiles it to code that, given the whole-column pointers of `reads` and
// `writes` and the values of `scalars`, computes every write for items
// [0, n). Reads and writes of one region never share a buffer (columns are
// reused only across phases), so an item's results may be stored as soon as
// they are known.
struct Region {
  std::string name;                     // the features it computes, for symbols and dumps
  std::vector<Operand> reads;           // kInput or kColumn
  std::vector<Operand> scalars;         // kScalar
  std::vector<std::string> read_names;  // the input or feature each read holds
  std::vector<std::string> scalar_names;
  std::vector<RegionNode> nodes;
  std::vector<RegionOperand> operands;
  std::vector<RegionWrite> writes;

  // The operands of node `v`, in order.
  std::span<const RegionOperand> OperandsOf(std::uint32_t v) const {
    return {operands.data() + nodes[v].first_operand, nodes[v].operand_count};
  }
};

struct Store {
  Operand value;  // kInput or kColumn
  std::uint32_t output = 0;
};

struct Phase {
  std::vector<ColumnStep> steps;
  std::vector<StatisticsStep> statistics;  // after the steps
  std::vector<ModelStep> models;           // after the statistics steps
  std::vector<ScalarStep> scalars;
  std::vector<Region> regions;
  std::vector<Store> stores;
};

struct Program {
  std::vector<Phase> phases;
  // The set's models, by declaration (ModelStep::model): the program keeps
  // them alive.
  std::vector<std::shared_ptr<const model::Model>> models;
  std::vector<std::string> model_names;  // for dumps
  std::vector<float> scalar_init;        // initial scalar registers: constants, zeros
  struct InputScalar {
    std::uint32_t slot;
    std::uint32_t scalar;
  };
  std::vector<InputScalar> input_scalars;  // uniform inputs, loaded before phase 0
  struct UniformOutput {
    std::uint32_t output;
    std::uint32_t scalar;
  };
  std::vector<UniformOutput> uniform_outputs;  // filled after the last phase
  // The input slots regions read as whole columns: when such an input is
  // bound to a single value (a defaulted item input, or a query scalar when
  // the uniform pass is off), the executor broadcasts it into a whole column.
  std::vector<std::uint32_t> region_input_slots;
  std::uint32_t columns = 0;

  // Every region of every phase, in order (backends compile them by this index).
  std::vector<const Region*> Regions() const;
  std::string Dump() const;
};

}  // namespace calcjit::program

#endif  // CALCJIT_BACKEND_PROGRAM_PROGRAM_H_
