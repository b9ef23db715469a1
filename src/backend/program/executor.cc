// Runs a program over one batch.
#include "backend/program/executor.h"

#include <algorithm>
#include <cstdlib>
#include <new>
#include <vector>

#include "backend/kernels/kernels.h"
#include "math/bits.h"
#include "model/model.h"

namespace calcjit::program {

namespace {

using backend::InputLayout;
using backend::InputView;

// Cache-line aligned floats that only grow.
class AlignedFloats {
 public:
  AlignedFloats() = default;
  ~AlignedFloats() { std::free(data_); }
  AlignedFloats(const AlignedFloats&) = delete;
  AlignedFloats& operator=(const AlignedFloats&) = delete;

  void Grow(std::size_t count) {
    if (count <= capacity_) return;
    constexpr std::size_t kAlign = 64;
    const std::size_t bytes = (count * sizeof(float) + kAlign - 1) / kAlign * kAlign;
    auto* data = static_cast<float*>(std::aligned_alloc(kAlign, bytes));
    if (data == nullptr) throw std::bad_alloc();
    std::free(data_);
    data_ = data;
    capacity_ = count;
  }
  float* data() const { return data_; }

 private:
  float* data_ = nullptr;
  std::size_t capacity_ = 0;
};

// One thread's scratch for one program. Sized for the program when made, and
// for the largest batch seen so far: evaluating a batch no larger than an
// earlier one allocates nothing.
class Workspace final : public internal::Workspace {
 public:
  Workspace(const Program& program, const CompiledRegions& regions) {
    scalars.Grow(std::max<std::size_t>(1, program.scalar_init.size()));
    std::size_t reads = 1, scalar_count = 1, writes = 1, scratch = 1;
    const std::vector<const Region*> all = program.Regions();
    for (std::size_t r = 0; r < all.size(); ++r) {
      reads = std::max(reads, all[r]->reads.size());
      scalar_count = std::max(scalar_count, all[r]->scalars.size());
      writes = std::max(writes, all[r]->writes.size());
      scratch = std::max(scratch, regions.code[r]->ScratchFloats());
    }
    region_reads.resize(reads);
    region_scalars.Grow(scalar_count);
    region_writes.resize(writes);
    region_scratch.Grow(scratch);
    std::size_t features = 1, outputs = 1;
    for (const Phase& phase : program.phases) {
      for (const ModelStep& step : phase.models) {
        features = std::max(features, step.features.size());
        outputs = std::max(outputs, step.outputs.size());
      }
    }
    model_features.resize(features);
    model_outputs.resize(outputs);
    std::size_t members = 1;
    for (const Phase& phase : program.phases) {
      for (const StatisticsStep& step : phase.statistics) {
        members = std::max(members, step.members.size());
      }
    }
    statistics_results.resize(members);
  }

  void Reserve(const Program& program, std::size_t item_count) {
    if (item_count <= column_capacity && column_capacity > 0) return;
    const std::size_t capacity = std::max<std::size_t>(1, std::max(item_count, column_capacity));
    columns.Grow(std::max<std::size_t>(1, program.columns * capacity));
    whole_inputs.Grow(std::max<std::size_t>(1, program.region_input_slots.size() * capacity));
    operand.Grow(capacity);
    // rank's scratch: MaxScratchKeysPerItem() 64-bit keys per item
    rank.Grow(2 * static_cast<std::size_t>(ir::MaxScratchKeysPerItem()) * capacity);
    std::size_t model_bytes = 0;
    std::size_t broadcast = 0;
    for (const Phase& phase : program.phases) {
      for (const ModelStep& step : phase.models) {
        model_bytes = std::max(model_bytes, program.models[step.model]->ScratchBytes(capacity));
        std::size_t uncolumned = 0;
        for (const Operand& feature : step.features) uncolumned += feature.loc != Loc::kColumn;
        broadcast = std::max(broadcast, uncolumned);
      }
    }
    model_scratch.Grow(std::max<std::size_t>(1, (model_bytes + sizeof(float) - 1) / sizeof(float)));
    model_broadcast.Grow(std::max<std::size_t>(1, broadcast * capacity));
    column_capacity = capacity;
  }

  AlignedFloats scalars;       // program.scalar_init.size()
  AlignedFloats columns;       // program.columns whole-batch columns
  AlignedFloats whole_inputs;  // broadcast columns of single-valued inputs regions read
  AlignedFloats operand;       // an aggregate's operand when it must be broadcast
  AlignedFloats rank;          // rank's sorting scratch
  std::vector<const float*> region_reads;
  AlignedFloats region_scalars;
  std::vector<float*> region_writes;
  AlignedFloats region_scratch;
  std::vector<kernels::SharedStatisticResult> statistics_results;  // one statistics step's
  std::vector<const float*> model_features;
  std::vector<float*> model_outputs;
  AlignedFloats model_broadcast;  // features that every item holds, as columns
  AlignedFloats model_scratch;
  std::size_t column_capacity = 0;
};

class Execution {
 public:
  Execution(const Program& program, const CompiledRegions& regions,
            const kernels::KernelTable& kernels, Isa isa, const backend::EvalArgs& args,
            Workspace& ws)
      : program_(program),
        regions_(regions),
        kernels_(kernels),
        isa_(isa),
        args_(args),
        ws_(ws),
        n_(args.item_count) {}

  void Run() {
    std::copy(program_.scalar_init.begin(), program_.scalar_init.end(), ws_.scalars.data());
    for (const Program::InputScalar& input : program_.input_scalars) {
      ws_.scalars.data()[input.scalar] = args_.inputs[input.slot].data[0];
    }
    // Regions read whole columns: an input bound to one value that they read
    // is broadcast into a whole column.
    for (std::size_t k = 0; k < program_.region_input_slots.size(); ++k) {
      const InputView& view = args_.inputs[program_.region_input_slots[k]];
      if (view.layout == InputLayout::kBroadcast) {
        std::fill_n(ws_.whole_inputs.data() + k * ws_.column_capacity, n_, view.data[0]);
      }
    }
    std::size_t region = 0;
    for (const Phase& phase : program_.phases) {
      for (const ColumnStep& step : phase.steps) RunStep(step);
      for (const StatisticsStep& step : phase.statistics) RunStatistics(step);
      for (const ModelStep& step : phase.models) RunModel(step);
      for (const ScalarStep& step : phase.scalars) RunScalar(step);
      for (const Region& r : phase.regions) RunRegion(r, *regions_.code[region++]);
      for (const Store& store : phase.stores) RunStore(store);
    }
    for (const Program::UniformOutput& output : program_.uniform_outputs) {
      std::fill_n(args_.outputs[output.output], n_,
                  math::CanonicalizeNan(ws_.scalars.data()[output.scalar]));
    }
  }

 private:
  float* Scalar(const Operand& operand) const { return ws_.scalars.data() + operand.index; }

  // A whole column: an input read in place (or its broadcast column when a
  // region reads it), a column buffer or an output.
  float* Column(const Operand& operand) const {
    switch (operand.loc) {
      case Loc::kColumn:
        return ws_.columns.data() + static_cast<std::size_t>(operand.index) * ws_.column_capacity;
      case Loc::kInput: {
        const InputView& view = args_.inputs[operand.index];
        if (view.layout == InputLayout::kBroadcast) {
          const auto& slots = program_.region_input_slots;
          const auto k = static_cast<std::size_t>(
              std::find(slots.begin(), slots.end(), operand.index) - slots.begin());
          return ws_.whole_inputs.data() + k * ws_.column_capacity;
        }
        return const_cast<float*>(view.data);  // read only: inputs are never written
      }
      case Loc::kOutput:
        return args_.outputs[operand.index];
      case Loc::kScalar:
      case Loc::kNone:
        break;
    }
    return nullptr;
  }

  // An aggregate's operand as a column of n items.
  const float* AggregateOperand(const Operand& operand) const {
    if (operand.loc == Loc::kScalar) {  // a uniform value: every item holds it
      std::fill_n(ws_.operand.data(), n_, *Scalar(operand));
      return ws_.operand.data();
    }
    if (operand.loc == Loc::kInput &&
        args_.inputs[operand.index].layout == InputLayout::kBroadcast) {
      std::fill_n(ws_.operand.data(), n_, args_.inputs[operand.index].data[0]);
      return ws_.operand.data();
    }
    return Column(operand);
  }

  // Row `item` of a vector input and the distance between rows.
  std::pair<const float*, std::size_t> VectorRows(std::uint32_t slot) const {
    if (slot == kNoInput) return {nullptr, 0};
    const InputView& view = args_.inputs[slot];
    if (view.layout == InputLayout::kItemVector) return {view.data, view.dimension};
    return {view.data, 0};
  }

  void RunStep(const ColumnStep& step) {
    const bool scalar = step.result.loc == Loc::kScalar;
    float* out = scalar ? Scalar(step.result) : Column(step.result);
    const int op = static_cast<int>(step.op);
    if (ir::KindOf(step.op) == ir::OpKind::kVector) {
      const auto [a, a_stride] = VectorRows(step.input);
      const auto [b, b_stride] = VectorRows(step.input2);
      kernels_.vector[op](a, a_stride, b, b_stride, args_.inputs[step.input].dimension, out,
                          scalar ? 1 : n_);
      return;
    }
    // A statistic fills its whole result: one scalar, or a column of n.
    kernels_.aggregate[op](AggregateOperand(step.operand), n_, out, scalar ? 1 : n_,
                           reinterpret_cast<std::uint64_t*>(ws_.rank.data()), step.bound);
  }

  // The members' results from the operand's statistics, computed once; each
  // fills its whole result like its own aggregate kernel would.
  void RunStatistics(const StatisticsStep& step) {
    for (std::size_t k = 0; k < step.members.size(); ++k) {
      const ColumnStep& member = step.members[k];
      const bool scalar = member.result.loc == Loc::kScalar;
      ws_.statistics_results[k] = {
          member.op, scalar ? Scalar(member.result) : Column(member.result), scalar ? 1 : n_};
    }
    kernels_.statistics(AggregateOperand(step.operand), n_, ws_.statistics_results.data(),
                        step.members.size());
  }

  // The model over every item (a uniform call: over one), all its needed
  // outputs at once. An input bound to one value, or a uniform value, that a
  // column call reads is broadcast into a column of its own first.
  void RunModel(const ModelStep& step) {
    const model::Model& model = *program_.models[step.model];
    const std::size_t items = step.uniform ? 1 : n_;
    if (items == 0) return;
    float* broadcast = ws_.model_broadcast.data();
    for (std::size_t j = 0; j < step.features.size(); ++j) {
      const Operand& feature = step.features[j];
      if (step.uniform) {
        ws_.model_features[j] =
            feature.loc == Loc::kScalar ? Scalar(feature) : args_.inputs[feature.index].data;
        continue;
      }
      const bool single = feature.loc == Loc::kScalar ||
                          (feature.loc == Loc::kInput &&
                           args_.inputs[feature.index].layout == InputLayout::kBroadcast);
      if (!single) {
        ws_.model_features[j] = Column(feature);
        continue;
      }
      const float value =
          feature.loc == Loc::kScalar ? *Scalar(feature) : args_.inputs[feature.index].data[0];
      std::fill_n(broadcast, n_, value);
      ws_.model_features[j] = broadcast;
      broadcast += ws_.column_capacity;
    }
    for (std::size_t k = 0; k < step.outputs.size(); ++k) {
      const Operand& output = step.outputs[k];
      ws_.model_outputs[k] = output.loc == Loc::kNone     ? nullptr
                             : output.loc == Loc::kScalar ? Scalar(output)
                                                          : Column(output);
    }
    model.Evaluate(isa_, ws_.model_features.data(), items, ws_.model_outputs.data(),
                   ws_.model_scratch.data());
  }

  void RunScalar(const ScalarStep& step) {
    const int op = static_cast<int>(step.op);
    float* out = Scalar(step.result);
    switch (ir::KindOf(step.op)) {
      case ir::OpKind::kUnary:
        kernels_.unary[op](Scalar(step.a), out, 1);
        return;
      case ir::OpKind::kBinary:
        kernels_.binary[op](Scalar(step.a), Scalar(step.b), out, 1);
        return;
      case ir::OpKind::kConditional:
        kernels_.if_kernel(Scalar(step.c), Scalar(step.a), Scalar(step.b), out, 1);
        return;
      default:
        return;
    }
  }

  // An output that is an input (or a column step's result), NaN made
  // canonical; an input bound to one value fills the output with it.
  void RunStore(const Store& store) {
    float* out = args_.outputs[store.output];
    if (store.value.loc == Loc::kInput &&
        args_.inputs[store.value.index].layout == InputLayout::kBroadcast) {
      std::fill_n(out, n_, math::CanonicalizeNan(args_.inputs[store.value.index].data[0]));
      return;
    }
    kernels_.store(Column(store.value), out, n_);
  }

  void RunRegion(const Region& region, const RegionCode& code) {
    for (std::size_t r = 0; r < region.reads.size(); ++r) {
      ws_.region_reads[r] = Column(region.reads[r]);
    }
    for (std::size_t s = 0; s < region.scalars.size(); ++s) {
      ws_.region_scalars.data()[s] = *Scalar(region.scalars[s]);
    }
    for (std::size_t w = 0; w < region.writes.size(); ++w) {
      ws_.region_writes[w] = Column(region.writes[w].target);
    }
    RegionArgs args;
    args.reads = ws_.region_reads.data();
    args.scalars = ws_.region_scalars.data();
    args.writes = ws_.region_writes.data();
    args.item_count = n_;
    code.Run(args, ws_.region_scratch.data());
  }

  const Program& program_;
  const CompiledRegions& regions_;
  const kernels::KernelTable& kernels_;
  const Isa isa_;
  const backend::EvalArgs& args_;
  Workspace& ws_;
  const std::size_t n_;
};

class ProgramExecutable final : public backend::Executable {
 public:
  ProgramExecutable(std::shared_ptr<const Program> program, CompiledRegions regions, Isa isa)
      : program_(std::move(program)),
        regions_(std::move(regions)),
        kernels_(kernels::KernelsFor(isa)),
        isa_(isa) {}

  std::unique_ptr<internal::Workspace> NewWorkspace() const override {
    return std::make_unique<Workspace>(*program_, regions_);
  }

  Status Run(const backend::EvalArgs& args, internal::Workspace* workspace) const override {
    auto& ws = *static_cast<Workspace*>(workspace);
    ws.Reserve(*program_, args.item_count);
    Execution(*program_, regions_, kernels_, isa_, args, ws).Run();
    return Status::Ok();
  }

 private:
  std::shared_ptr<const Program> program_;
  CompiledRegions regions_;
  const kernels::KernelTable& kernels_;
  const Isa isa_;
};

}  // namespace

std::unique_ptr<backend::Executable> MakeExecutable(std::shared_ptr<const Program> program,
                                                    CompiledRegions regions, Isa isa) {
  return std::make_unique<ProgramExecutable>(std::move(program), std::move(regions), isa);
}

}  // namespace calcjit::program
