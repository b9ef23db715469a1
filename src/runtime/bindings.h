// The binding rules of every evaluation, written once (docs/LANGUAGE.md,
// "Evaluating"): what the inputs and outputs of a call of q queries must hold,
// which memory they may not share, and the messages that say what is wrong.
// Batch and Session keep their bindings in a BindingTable and check each call
// with PrepareCall; every frontend (C, Java, Python, the CLI) reaches these
// rules through them and through nothing else.
#ifndef CALCJIT_RUNTIME_BINDINGS_H_
#define CALCJIT_RUNTIME_BINDINGS_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "backend/executable.h"
#include "calcjit/engine.h"
#include "calcjit/schema.h"
#include "calcjit/status.h"

namespace calcjit::internal {

struct InputBinding {
  std::span<const float> values;
  Extent extent = Extent::kExact;
  bool bound = false;
};

struct OutputBinding {
  std::span<float> values;
  Extent extent = Extent::kExact;
  bool bound = false;
};

// A buffer of a call, for the overlap check: [begin, end) in bytes, and whose
// it is (the index of the input or output).
enum class BufferHolder : unsigned char { kInput, kOutput, kOwnBuffer };
struct BufferRange {
  std::uintptr_t begin;
  std::uintptr_t end;
  std::size_t index;
  BufferHolder holder;
};

// Whose bindings these are, as the messages name them.
struct BindingOwner {
  const char* noun = "batch";  // "batch" or "session": "the batch's own buffer"
  std::uint64_t version = 0;   // the schema's version; 0 for an engine's batch
};

// The bindings of a Batch or a Session, by index in its schema, and the
// buffers it owns for the outputs the caller does not bind (every query's
// items of the last call; grown when a call needs more, never shrunk).
class BindingTable {
 public:
  BindingTable();
  explicit BindingTable(const Schema& schema);

  // By name: an unknown name is an error naming `owner`'s schema.
  Status BindInput(const Schema& schema, std::string_view name, std::span<const float> values,
                   Extent extent, const BindingOwner& owner);
  Status BindInput(std::size_t index, std::span<const float> values, Extent extent);
  void UnbindInput(std::size_t index);
  Status BindOutput(const Schema& schema, std::string_view name, std::span<float> values,
                    Extent extent, const BindingOwner& owner);
  Status BindOutput(std::size_t index, std::span<float> values, Extent extent);
  // Forgets every binding; the own buffers keep their memory.
  void Clear();
  // After the schema changed from `from` to `to`: the bindings and the own
  // buffers follow their names; the others are dropped.
  void Remap(const Schema& from, const Schema& to);

  const std::vector<InputBinding>& inputs() const { return inputs_; }
  const std::vector<OutputBinding>& outputs() const { return outputs_; }

  // The own buffers of the unbound outputs, sorted by address. Kept between
  // calls and sorted again only after a binding or an own buffer changed, so
  // that a set with hundreds of unbound outputs does not sort them at every
  // evaluation.
  std::span<const BufferRange> OwnBuffers();
  // Output `index`'s own buffer grown (or shrunk) to `items` floats; allocates
  // only beyond its capacity.
  float* OwnBuffer(std::size_t index, std::size_t items);

  // Changes whenever a binding or an own buffer does (never to a value another
  // table had at the same address), so that a call with
  // the same bindings and item counts as the last accepted one is accepted
  // without checking them again (PrepareCall).
  std::uint64_t generation() const { return generation_; }

 private:
  std::vector<InputBinding> inputs_;
  std::vector<OutputBinding> outputs_;
  std::vector<std::vector<float>> owned_;
  std::vector<BufferRange> own_ranges_;  // reserved once
  bool own_ranges_valid_ = false;
  std::uint64_t generation_ = 0;
};

// "unknown output 'nope': ..." for Output(name) of a batch or a session.
Status UnknownOutputError(std::string_view name, const BindingOwner& owner);

// Where one input's floats are for a checked call: query q, whose first item
// is the call's item i, reads from data + i * item_stride + q * query_stride.
struct ResolvedInput {
  const float* data = nullptr;
  std::size_t item_stride = 0;   // floats per item (item inputs; 0 otherwise)
  std::size_t query_stride = 0;  // floats per query (a query input with one per query)
  std::size_t width = 1;         // floats per item or per query
  bool bound = false;            // false: the default applies
};

// A call checked against its bindings: where every input's and output's
// floats are. Sized for a schema once, so that checking and running a call
// allocate nothing.
class CallPlan {
 public:
  CallPlan() = default;
  explicit CallPlan(const Schema& schema);

  std::span<const std::size_t> item_counts() const { return item_counts_; }
  std::size_t query_count() const { return item_counts_.size(); }
  std::size_t total_items() const { return total_items_; }
  const std::vector<ResolvedInput>& inputs() const { return inputs_; }
  // Each output's floats for the whole call (total_items() of them): of the
  // last call PrepareCall accepted (a refused one changes neither), empty
  // before the first.
  std::span<float> output(std::size_t index) const { return {outputs_[index], total_items_}; }

  // The floats of input `slot` that query `query` (whose first item is the
  // call's `first_item`, with `items` items) reads; empty for a default.
  std::span<const float> QueryInput(std::size_t slot, std::size_t query, std::size_t first_item,
                                    std::size_t items) const;

 private:
  friend Status PrepareCall(const Schema&, BindingTable&, std::span<const std::size_t>,
                            const BindingOwner&, CallPlan&);
  friend Status RunQueries(const backend::Executable&, Workspace*, CallPlan&, const CancelCheck*);

  // Points the views back at the first query's items (RunQueries moves them
  // query by query), as PrepareCall left them: a later call it accepts
  // without checking again reads from there.
  void RewindViews();

  std::span<const std::size_t> item_counts_;
  std::size_t total_items_ = 0;
  std::vector<ResolvedInput> inputs_;
  std::vector<float*> outputs_;
  // What the backend gets for the first query (the others move the data
  // pointers), by input slot and output index.
  std::vector<backend::InputView> views_;
  // Scratch, reserved once.
  std::vector<BufferRange> ranges_;
  std::vector<float*> query_outputs_;

  // The last call PrepareCall accepted, for calls of at most kRememberedQueries
  // queries: the same schema (and version), bindings and item counts again
  // need no checks, since every rule depends on nothing else.
  static constexpr std::size_t kRememberedQueries = 8;
  struct Accepted {
    const Schema* schema = nullptr;
    std::uint64_t schema_version = 0;
    const BindingTable* table = nullptr;
    std::uint64_t generation = 0;
    std::size_t queries = 0;
    std::size_t item_counts[kRememberedQueries] = {};
  };
  Accepted accepted_;
};

// Checks the bindings of `table` for a call of `item_counts.size()` queries
// against `schema`, every rule before anything is written, and on success
// fills `plan` (the own buffers of unbound outputs grown to the call's items).
// `item_counts` must outlive the plan's use.
Status PrepareCall(const Schema& schema, BindingTable& table,
                   std::span<const std::size_t> item_counts, const BindingOwner& owner,
                   CallPlan& plan);

}  // namespace calcjit::internal

#endif  // CALCJIT_RUNTIME_BINDINGS_H_
