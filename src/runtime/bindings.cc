// The binding rules and their messages (see bindings.h).
#include "runtime/bindings.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <optional>
#include <string>

#include "calcjit/names.h"

namespace calcjit::internal {

namespace {

std::string Quoted(std::string_view name) {
  return "'" + std::string(name) + "'";
}

std::string Counted(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string Floats(std::size_t n) {
  return Counted(n, "float", "floats");
}

// a * b, or nullopt when it does not fit in a size_t.
std::optional<std::size_t> Multiply(std::size_t a, std::size_t b) {
  std::size_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
  return product;
}

std::string Needs(const std::optional<std::size_t>& floats) {
  return floats ? Floats(*floats) : std::string("more floats than fit in memory");
}

// "got 6", or "got a buffer of 6" for a buffer whose prefix is used.
std::string Got(std::size_t size, Extent extent) {
  return extent == Extent::kExact ? "got " + std::to_string(size)
                                  : "got a buffer of " + std::to_string(size);
}

// "for 7 items", "for 12 items in 3 queries".
std::string ForItems(std::size_t items, std::size_t queries) {
  std::string text = "for " + Counted(items, "item", "items");
  if (queries != 1) text += " in " + Counted(queries, "query", "queries");
  return text;
}

std::string Reader(const BindingOwner& owner) {
  return owner.version == 0 ? std::string("the engine's outputs do not read it")
                            : "version " + std::to_string(owner.version) + " does not read it";
}

std::string Computer(const BindingOwner& owner) {
  return owner.version == 0 ? std::string("the engine does not compute it")
                            : "version " + std::to_string(owner.version) + " does not compute it";
}

backend::InputLayout LayoutOf(const InputInfo& input) {
  if (input.is_vector()) {
    return input.scope == Scope::kItem ? backend::InputLayout::kItemVector
                                       : backend::InputLayout::kQueryVector;
  }
  return input.scope == Scope::kItem ? backend::InputLayout::kColumn
                                     : backend::InputLayout::kBroadcast;
}

Status ItemInputLengthError(const InputInfo& input, const InputBinding& binding,
                            const std::optional<std::size_t>& needed, std::size_t items,
                            std::size_t queries) {
  std::string message =
      "input " + Quoted(input.name) + " needs " + Needs(needed) + " " + ForItems(items, queries);
  if (input.is_vector()) {
    message += " (an item vector of dimension " + std::to_string(input.dimension) + ")";
  }
  return UserError(message + ", " + Got(binding.values.size(), binding.extent), input.name);
}

Status QueryInputLengthError(const InputInfo& input, const InputBinding& binding,
                             const std::optional<std::size_t>& per_query, std::size_t queries) {
  const std::string dimension = std::to_string(input.dimension);
  std::string message = "input " + Quoted(input.name) + " needs ";
  if (queries == 1) {
    message += Floats(input.is_vector() ? input.dimension : 1) +
               (input.is_vector() ? " (a query vector of dimension " + dimension + ")"
                                  : std::string(" (a query scalar)"));
  } else {
    message += Needs(per_query) + " for " + Counted(queries, "query", "queries") +
               (input.is_vector() ? " (a vector of dimension " + dimension + " per query)"
                                  : std::string(" (one per query)"));
    if (binding.extent == Extent::kExact) {
      message += " or " + std::to_string(input.is_vector() ? input.dimension : 1) +
                 " (the same for every query)";
    }
  }
  return UserError(message + ", " + Got(binding.values.size(), binding.extent), input.name);
}

// Resolves one input for the call (and the backend's view of it for the
// first query), or says why it cannot be.
Status ResolveInput(const InputInfo& input, const InputBinding& binding, std::size_t items,
                    std::size_t queries, ResolvedInput& resolved, backend::InputView& view) {
  const std::size_t width = input.is_vector() ? input.dimension : 1;
  resolved.width = width;
  resolved.item_stride = 0;
  resolved.query_stride = 0;
  view.dimension = input.dimension;
  if (!binding.bound) {
    resolved.bound = false;
    resolved.data = input.default_value ? &*input.default_value : nullptr;
    view.data = resolved.data;
    view.layout = backend::InputLayout::kBroadcast;
    // Zero queries read nothing: an input without a value is no error then.
    if (input.default_value || queries == 0) return Status::Ok();
    return UserError("input " + Quoted(input.name) + " is not bound and has no default value",
                     input.name);
  }
  const std::size_t size = binding.values.size();
  const bool exact = binding.extent == Extent::kExact;
  resolved.data = binding.values.data();
  resolved.bound = true;
  view.data = resolved.data;
  view.layout = LayoutOf(input);
  if (input.scope == Scope::kItem) {
    const std::optional<std::size_t> needed = Multiply(items, width);
    if (!needed || (exact ? size != *needed : size < *needed)) {
      return ItemInputLengthError(input, binding, needed, items, queries);
    }
    resolved.item_stride = width;
    return Status::Ok();
  }
  // A query input: one value (or vector) for every query, or one per query;
  // a buffer whose prefix is used holds one per query.
  if (exact && size == width) return Status::Ok();
  const std::optional<std::size_t> per_query = Multiply(queries, width);
  if (per_query && (exact ? size == *per_query : size >= *per_query)) {
    resolved.query_stride = width;
    return Status::Ok();
  }
  return QueryInputLengthError(input, binding, per_query, queries);
}

// A new table's first generation: each table counts from its own 2^32-wide
// range, so a table assigned anew at the same address never repeats a
// generation a plan remembers. One atomic per table made, none per binding
// (a frontend may rebind on every call: the Java float[] path does).
std::uint64_t FirstGeneration() {
  static std::atomic<std::uint64_t> tables{0};
  return (tables.fetch_add(1, std::memory_order_relaxed) + 1) << 32;
}

}  // namespace

// ---------------------------------------------------------------------------
// BindingTable

BindingTable::BindingTable() : generation_(FirstGeneration()) {}

BindingTable::BindingTable(const Schema& schema)
    : inputs_(schema.inputs.size()),
      outputs_(schema.outputs.size()),
      owned_(schema.outputs.size()),
      generation_(FirstGeneration()) {
  own_ranges_.reserve(schema.outputs.size());
}

Status BindingTable::BindInput(const Schema& schema, std::string_view name,
                               std::span<const float> values, Extent extent,
                               const BindingOwner& owner) {
  const std::optional<std::size_t> index = schema.FindInput(name);
  if (!index) {
    std::vector<std::string> names;
    for (const InputInfo& input : schema.inputs) names.push_back(input.name);
    return UserError(
        "unknown input " + Quoted(name) + ": " + Reader(owner) + DidYouMean(name, names),
        std::string(name));
  }
  return BindInput(*index, values, extent);
}

Status BindingTable::BindInput(std::size_t index, std::span<const float> values, Extent extent) {
  if (index >= inputs_.size()) {
    return UserError("input index " + std::to_string(index) + " is out of range (" +
                     Counted(inputs_.size(), "input", "inputs") + ")");
  }
  inputs_[index] = InputBinding{values, extent, true};
  ++generation_;
  return Status::Ok();
}

void BindingTable::UnbindInput(std::size_t index) {
  if (index >= inputs_.size()) return;
  inputs_[index] = InputBinding{};
  ++generation_;
}

Status BindingTable::BindOutput(const Schema& schema, std::string_view name,
                                std::span<float> values, Extent extent, const BindingOwner& owner) {
  const std::optional<std::size_t> index = schema.FindOutput(name);
  if (!index) return UnknownOutputError(name, owner);
  return BindOutput(*index, values, extent);
}

Status BindingTable::BindOutput(std::size_t index, std::span<float> values, Extent extent) {
  if (index >= outputs_.size()) {
    return UserError("output index " + std::to_string(index) + " is out of range (" +
                     Counted(outputs_.size(), "output", "outputs") + ")");
  }
  outputs_[index] = OutputBinding{values, extent, true};
  own_ranges_valid_ = false;
  ++generation_;
  return Status::Ok();
}

void BindingTable::Clear() {
  std::fill(inputs_.begin(), inputs_.end(), InputBinding{});
  std::fill(outputs_.begin(), outputs_.end(), OutputBinding{});
  own_ranges_valid_ = false;
  ++generation_;
}

void BindingTable::Remap(const Schema& from, const Schema& to) {
  std::vector<InputBinding> inputs(to.inputs.size());
  std::vector<OutputBinding> outputs(to.outputs.size());
  std::vector<std::vector<float>> owned(to.outputs.size());
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const std::optional<std::size_t> old = from.FindInput(to.inputs[k].name);
    if (old && *old < inputs_.size()) inputs[k] = inputs_[*old];
  }
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    const std::optional<std::size_t> old = from.FindOutput(to.outputs[k]);
    if (old && *old < outputs_.size()) {
      outputs[k] = outputs_[*old];
      owned[k] = std::move(owned_[*old]);
    }
  }
  inputs_ = std::move(inputs);
  outputs_ = std::move(outputs);
  owned_ = std::move(owned);
  own_ranges_.clear();
  own_ranges_.reserve(outputs_.size());
  own_ranges_valid_ = false;
  ++generation_;
}

std::span<const BufferRange> BindingTable::OwnBuffers() {
  if (!own_ranges_valid_) {
    own_ranges_.clear();
    for (std::size_t k = 0; k < outputs_.size(); ++k) {
      const std::vector<float>& own = owned_[k];
      if (outputs_[k].bound || own.capacity() == 0) continue;
      const auto begin = reinterpret_cast<std::uintptr_t>(own.data());
      own_ranges_.push_back(
          BufferRange{begin, begin + own.capacity() * sizeof(float), k, BufferHolder::kOwnBuffer});
    }
    std::sort(own_ranges_.begin(), own_ranges_.end(),
              [](const BufferRange& a, const BufferRange& b) { return a.begin < b.begin; });
    own_ranges_valid_ = true;
  }
  return own_ranges_;
}

float* BindingTable::OwnBuffer(std::size_t index, std::size_t items) {
  std::vector<float>& own = owned_[index];
  if (own.size() != items) {
    const float* before = own.data();
    own.resize(items);  // no allocation within the capacity
    if (own.data() != before) {
      own_ranges_valid_ = false;
      ++generation_;
    }
  }
  return own.data();
}

Status UnknownOutputError(std::string_view name, const BindingOwner& owner) {
  return UserError("unknown output " + Quoted(name) + ": " + Computer(owner), std::string(name));
}

// ---------------------------------------------------------------------------
// CallPlan

CallPlan::CallPlan(const Schema& schema)
    : inputs_(schema.inputs.size()),
      outputs_(schema.outputs.size(), nullptr),
      views_(schema.inputs.size()),
      query_outputs_(schema.outputs.size(), nullptr) {
  // Every bound input and output, and an own buffer per output.
  ranges_.reserve(schema.inputs.size() + 2 * schema.outputs.size());
}

std::span<const float> CallPlan::QueryInput(std::size_t slot, std::size_t query,
                                            std::size_t first_item, std::size_t items) const {
  const ResolvedInput& input = inputs_[slot];
  if (!input.bound) return {};
  if (input.item_stride > 0) {
    return {input.data + first_item * input.item_stride, items * input.item_stride};
  }
  return {input.data + query * input.query_stride, input.width};
}

void CallPlan::RewindViews() {
  if (item_counts_.size() < 2) return;
  for (std::size_t slot = 0; slot < inputs_.size(); ++slot) views_[slot].data = inputs_[slot].data;
}

namespace {

using Holder = BufferHolder;

// The backends read inputs and write outputs in blocks, in any order (the JIT
// tells LLVM the iterations are independent), so an output that shares memory
// with an input or another output would give a wrong answer, not an error.
// Refuse it instead. Inputs may share memory with each other. A few buffers
// are compared pair by pair: branches that always go the same way, where a
// sort of addresses in no particular order mispredicts (about 0.1 us for the
// eleven buffers of a ten-input sum). Beyond that, sorting the bound buffers
// by address and sweeping keeps this O(k log k) for sets with hundreds of
// outputs. `ranges` holds the bound outputs first, then the bound inputs.
Status CheckOutputsShareNothing(const Schema& schema, std::vector<BufferRange>& ranges) {
  using Range = BufferRange;
  const auto is_output = [](const Range& r) { return r.holder == Holder::kOutput; };
  // `a` and `b` overlap, and at least one is an output (the later of two
  // outputs is the one that shares).
  const auto overlap_error = [&](const Range& a, const Range& b) {
    const Range* output = is_output(a) ? &a : &b;
    const Range* shared = output == &a ? &b : &a;
    if (is_output(*shared) && shared->index > output->index) std::swap(output, shared);
    const std::string what = is_output(*shared)
                                 ? "output " + Quoted(schema.outputs[shared->index])
                                 : "input " + Quoted(schema.inputs[shared->index].name);
    const std::string& name = schema.outputs[output->index];
    return UserError("output " + Quoted(name) + " shares memory with " + what +
                         "; each output needs a buffer of its own",
                     name);
  };
  constexpr std::size_t kPairwiseLimit = 16;
  if (ranges.size() <= kPairwiseLimit) {
    // Outputs come first: each against every later range.
    for (std::size_t i = 0; i < ranges.size() && is_output(ranges[i]); ++i) {
      for (std::size_t j = i + 1; j < ranges.size(); ++j) {
        if (ranges[i].begin < ranges[j].end && ranges[j].begin < ranges[i].end) {
          return overlap_error(ranges[i], ranges[j]);
        }
      }
    }
    return Status::Ok();
  }
  std::sort(ranges.begin(), ranges.end(),
            [](const Range& a, const Range& b) { return a.begin < b.begin; });
  // The earlier range reaching furthest, and the earlier output reaching
  // furthest: a range overlaps an earlier one iff it starts before its end.
  const Range* furthest = nullptr;
  const Range* furthest_output = nullptr;
  for (const Range& r : ranges) {
    const Range* other = is_output(r) ? furthest : furthest_output;
    if (other != nullptr && r.begin < other->end) return overlap_error(*other, r);
    if (furthest == nullptr || r.end > furthest->end) furthest = &r;
    if (is_output(r) && (furthest_output == nullptr || r.end > furthest_output->end)) {
      furthest_output = &r;
    }
  }
  return Status::Ok();
}

// Nor may anything bound point into a buffer the batch or session owns for an
// unbound output (the last results, as Output() hands them out): evaluating
// overwrites it, or frees it to grow it. The own buffers are disjoint and
// sorted by address, so a bound buffer overlaps one iff it overlaps the last
// one that begins before its end: a binary search per bound buffer.
Status CheckNothingIsInAnOwnBuffer(const Schema& schema, const BindingOwner& owner,
                                   std::span<const BufferRange> own,
                                   std::span<const BufferRange> bound) {
  for (const BufferRange& r : bound) {
    const auto after = std::partition_point(own.begin(), own.end(),
                                            [&](const BufferRange& o) { return o.begin < r.end; });
    if (after == own.begin() || std::prev(after)->end <= r.begin) continue;
    const std::string buffer = "the " + std::string(owner.noun) + "'s own buffer of output " +
                               Quoted(schema.outputs[std::prev(after)->index]);
    if (r.holder == Holder::kInput) {
      const std::string& name = schema.inputs[r.index].name;
      return UserError("input " + Quoted(name) + " is bound to " + buffer +
                           ", which evaluating overwrites; copy the values first",
                       name);
    }
    const std::string& name = schema.outputs[r.index];
    return UserError("output " + Quoted(name) + " is bound to " + buffer +
                         "; each output needs a buffer of its own",
                     name);
  }
  return Status::Ok();
}

}  // namespace

Status PrepareCall(const Schema& schema, BindingTable& table,
                   std::span<const std::size_t> item_counts, const BindingOwner& owner,
                   CallPlan& plan) {
  const std::size_t queries = item_counts.size();
  // The bindings checked once are reused: the same bindings, schema and item
  // counts as the last accepted call pass the same checks and resolve the
  // same way, and the own buffers already have the call's size.
  const CallPlan::Accepted& accepted = plan.accepted_;
  if (accepted.table == &table && accepted.generation == table.generation() &&
      accepted.schema == &schema && accepted.schema_version == owner.version &&
      accepted.queries == queries) {
    std::size_t same = 0;  // a loop: a call to memcmp costs more for one count
    while (same < queries && item_counts[same] == accepted.item_counts[same]) ++same;
    if (same == queries) {
      plan.item_counts_ = item_counts;
      return Status::Ok();
    }
  }
  // The checks below fill the plan as they go: until they all pass, it
  // describes no accepted call.
  plan.accepted_ = CallPlan::Accepted{};
  std::size_t items = 0;
  for (const std::size_t n : item_counts) {
    if (__builtin_add_overflow(items, n, &items)) {
      return UserError("the item counts of the " + Counted(queries, "query", "queries") +
                       " add up to more than " +
                       std::to_string(std::numeric_limits<std::size_t>::max()));
    }
  }

  // The memory the call writes and reads, for the overlap checks: the bound
  // outputs first, then the bound inputs (the floats the call reads: of a
  // buffer bound as a prefix, only that prefix matters).
  std::vector<BufferRange>& ranges = plan.ranges_;
  ranges.clear();
  const auto add = [&](const float* data, std::size_t floats, std::size_t index, Holder holder) {
    if (floats == 0) return;
    const auto begin = reinterpret_cast<std::uintptr_t>(data);
    ranges.push_back(BufferRange{begin, begin + floats * sizeof(float), index, holder});
  };
  const std::vector<OutputBinding>& outputs = table.outputs();
  for (std::size_t k = 0; k < schema.outputs.size(); ++k) {
    if (outputs[k].bound) add(outputs[k].values.data(), items, k, Holder::kOutput);
  }
  const bool any_output = !ranges.empty();

  // Validate everything before writing anything, so that on error the
  // caller's output buffers stay untouched.
  const std::vector<InputBinding>& inputs = table.inputs();
  for (std::size_t slot = 0; slot < schema.inputs.size(); ++slot) {
    ResolvedInput& input = plan.inputs_[slot];
    CALCJIT_RETURN_IF_ERROR(
        ResolveInput(schema.inputs[slot], inputs[slot], items, queries, input, plan.views_[slot]));
    if (!input.bound) continue;
    add(input.data,
        input.item_stride > 0    ? items * input.width
        : input.query_stride > 0 ? queries * input.width
                                 : input.width,
        slot, Holder::kInput);
  }
  for (std::size_t k = 0; k < schema.outputs.size(); ++k) {
    const OutputBinding& binding = outputs[k];
    if (!binding.bound) continue;
    const std::size_t size = binding.values.size();
    if (binding.extent == Extent::kExact ? size != items : size < items) {
      return UserError("output " + Quoted(schema.outputs[k]) + " needs " + Floats(items) + " " +
                           ForItems(items, queries) + ", " + Got(size, binding.extent),
                       schema.outputs[k]);
    }
  }
  const std::span<const BufferRange> own = table.OwnBuffers();
  if (!own.empty()) {
    CALCJIT_RETURN_IF_ERROR(CheckNothingIsInAnOwnBuffer(schema, owner, own, ranges));
  }
  if (any_output) CALCJIT_RETURN_IF_ERROR(CheckOutputsShareNothing(schema, ranges));

  for (std::size_t k = 0; k < schema.outputs.size(); ++k) {
    plan.outputs_[k] = outputs[k].bound ? outputs[k].values.data() : table.OwnBuffer(k, items);
  }
  plan.item_counts_ = item_counts;
  plan.total_items_ = items;
  if (queries <= CallPlan::kRememberedQueries) {
    plan.accepted_ = {&schema, owner.version, &table, table.generation(), queries, {}};
    std::copy(item_counts.begin(), item_counts.end(), plan.accepted_.item_counts);
  }
  return Status::Ok();
}

}  // namespace calcjit::internal
