#include "backend/program/schedule.h"

#include "model/model.h"

#include <algorithm>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace calcjit::program {

namespace {

using ir::Op;
using ir::OpKind;
using opt::Dag;
using opt::DagNode;
using opt::Shape;
using opt::ValueId;

constexpr std::uint32_t kNoRegion = 0xFFFFFFFFu;

class Scheduler {
 public:
  Scheduler(const Dag& dag, const ScheduleOptions& options)
      : dag_(dag), options_(options), n_(dag.size()) {}

  Program Run() && {
    program_.models = dag_.plan().set->models;
    for (const ir::ModelDecl& decl : dag_.plan().set->ir.models) {
      program_.model_names.push_back(dag_.plan().set->ir.NameOf(decl.name));
    }
    AssignPhases();
    FindUsers();
    loc_.assign(n_, Operand{});
    region_values_.assign(program_.phases.size(), {});
    for (ValueId v = 0; v < n_; ++v) Place(v);
    BuildRegions();
    AllocateColumns();
    return std::move(program_);
  }

 private:
  bool IsUniform(ValueId v) const { return dag_.node(v).shape == Shape::kUniform; }
  OpKind KindOf(ValueId v) const { return ir::KindOf(dag_.node(v).op); }

  // A value's earliest phase is 0 for inputs and constants, one after its
  // operand's for an aggregate (it needs the whole column), and the latest of
  // its operands' otherwise. It is then placed as late as its users allow
  // (users first: reverse topological order), so that a value is computed in
  // the phase that uses it and need not be kept as a whole column across a
  // barrier. A value only an output reads stays at its earliest phase.
  void AssignPhases() {
    std::vector<std::uint32_t> earliest(n_, 0);
    for (ValueId v = 0; v < n_; ++v) {
      std::uint32_t p = 0;
      for (ValueId operand : dag_.OperandsOf(v)) p = std::max(p, earliest[operand]);
      if (NeedsWholeOperands(v)) ++p;
      earliest[v] = p;
    }
    constexpr std::uint32_t kUnconstrained = 0xFFFFFFFFu;
    std::vector<std::uint32_t> latest(n_, kUnconstrained);
    CountStatisticsMembers();
    statistics_phase_.assign(n_, kUnconstrained);
    phase_.assign(n_, 0);
    std::uint32_t last = 0;
    for (ValueId v = static_cast<ValueId>(n_); v-- > 0;) {
      phase_[v] = latest[v] == kUnconstrained ? earliest[v] : std::max(earliest[v], latest[v]);
      // The calls of one model on the same inputs are one step: all in the
      // phase of the one needed first (the operands are complete by then).
      if (KindOf(v) == OpKind::kModel) {
        auto [group, inserted] = model_phase_.emplace(ModelKey(v), phase_[v]);
        if (!inserted) {
          group->second = std::min(group->second, phase_[v]);
          phase_[v] = group->second;
        }
      }
      // Likewise the aggregates that share a column's statistics.
      if (SharesStatistics(v)) {
        std::uint32_t& group = statistics_phase_[StatisticsKey(v)];
        group = std::min(group, phase_[v]);
        phase_[v] = group;
      }
      last = std::max(last, phase_[v]);
      const bool whole = NeedsWholeOperands(v);
      for (ValueId operand : dag_.OperandsOf(v)) {
        // An aggregate's or a model's operand must be complete before its phase.
        latest[operand] = std::min(latest[operand], whole ? phase_[v] - 1 : phase_[v]);
      }
    }
    // A group's members met later in this backwards walk lowered the phase:
    // every member takes the group's.
    for (ValueId v = 0; v < n_; ++v) {
      if (KindOf(v) == OpKind::kModel) phase_[v] = model_phase_[ModelKey(v)];
      if (SharesStatistics(v)) phase_[v] = statistics_phase_[StatisticsKey(v)];
    }
    program_.phases.resize(last + 1);
  }

  // Aggregates and models read whole columns: barriers.
  bool NeedsWholeOperands(ValueId v) const {
    return KindOf(v) == OpKind::kAggregate || KindOf(v) == OpKind::kModel;
  }

  // The calls that share one evaluation: the same model on the same inputs.
  std::vector<ValueId> ModelKey(ValueId v) const {
    std::vector<ValueId> key{dag_.node(v).input};
    const auto operands = dag_.OperandsOf(v);
    key.insert(key.end(), operands.begin(), operands.end());
    return key;
  }

  // The aggregates that derive from a column's statistics, by operand: a
  // statistics step when there are two or more over one operand.
  void CountStatisticsMembers() {
    statistics_members_.assign(n_, 0);
    if (!options_.share_statistics) return;
    for (ValueId v = 0; v < n_; ++v) {
      if (KindOf(v) == OpKind::kAggregate && ir::StatisticsOf(dag_.node(v).op) != 0) {
        ++statistics_members_[dag_.OperandsOf(v)[0]];
      }
    }
  }
  ValueId StatisticsKey(ValueId v) const { return dag_.OperandsOf(v)[0]; }
  bool SharesStatistics(ValueId v) const {
    return KindOf(v) == OpKind::kAggregate && ir::StatisticsOf(dag_.node(v).op) != 0 &&
           statistics_members_[StatisticsKey(v)] >= 2;
  }

  // An aggregate's or a vector operator's step: a member of its operand's
  // statistics step when it shares one, else a column step of its own. Every
  // member is in the group's phase, so the group's step is in `phase`.
  void AddStep(ValueId v, Phase& phase) {
    const ColumnStep step = StepOf(v);
    if (!SharesStatistics(v)) {
      phase.steps.push_back(step);
      return;
    }
    auto [group, inserted] = statistics_step_.emplace(StatisticsKey(v), phase.statistics.size());
    if (inserted) phase.statistics.push_back(StatisticsStep{step.operand, {}});
    phase.statistics[group->second].members.push_back(step);
  }

  void FindUsers() {
    last_phase_used_.assign(n_, 0);
    output_of_.assign(n_, {});
    for (ValueId v = 0; v < n_; ++v) {
      last_phase_used_[v] = phase_[v];
      for (ValueId operand : dag_.OperandsOf(v)) {
        last_phase_used_[operand] = std::max(last_phase_used_[operand], phase_[v]);
      }
    }
    const auto& outputs = dag_.outputs();
    for (std::uint32_t k = 0; k < outputs.size(); ++k) output_of_[outputs[k]].push_back(k);
  }

  // Whether a later phase reads the value: then it is kept as a whole column.
  bool Materialized(ValueId v) const { return last_phase_used_[v] > phase_[v]; }

  std::uint32_t NewScalar(float init = 0.0f) {
    program_.scalar_init.push_back(init);
    return static_cast<std::uint32_t>(program_.scalar_init.size() - 1);
  }

  Operand NewColumn(ValueId v) {
    column_values_.push_back(v);
    return Operand{Loc::kColumn, static_cast<std::uint32_t>(column_values_.size() - 1)};
  }

  // The element-wise values that vary per item: the regions compute them.
  bool InRegion(ValueId v) const {
    if (IsUniform(v)) return false;
    const OpKind kind = KindOf(v);
    return kind == OpKind::kUnary || kind == OpKind::kBinary || kind == OpKind::kConditional ||
           kind == OpKind::kConstant;  // a constant column: only when the uniform pass is off
  }

  void Place(ValueId v) {
    const DagNode& node = dag_.node(v);
    Phase& phase = program_.phases[phase_[v]];
    if (IsUniform(v)) {
      PlaceUniform(v, phase);
      for (std::uint32_t k : output_of_[v]) {
        program_.uniform_outputs.push_back({k, loc_[v].index});
      }
      return;
    }
    if (InRegion(v)) {
      // Computed, and written where needed (outputs too), by a region.
      region_values_[phase_[v]].push_back(v);
      if (Materialized(v)) loc_[v] = NewColumn(v);
      return;
    }
    if (KindOf(v) == OpKind::kRef) {
      loc_[v] = Operand{Loc::kInput, node.input};
    } else if (KindOf(v) == OpKind::kModel) {
      PlaceModel(v, phase);
    } else {
      loc_[v] = NewColumn(v);
      AddStep(v, phase);
    }
    for (std::uint32_t k : output_of_[v]) phase.stores.push_back(Store{loc_[v], k});
  }

  // An aggregate or a vector operator, its result at loc_[v].
  ColumnStep StepOf(ValueId v) const {
    const DagNode& node = dag_.node(v);
    ColumnStep step;
    step.op = node.op;
    step.value = v;
    step.result = loc_[v];
    if (KindOf(v) == OpKind::kVector) {
      step.input = node.input;
      step.input2 = node.input2 == opt::kNoValue ? kNoInput : node.input2;
    } else {
      step.operand = loc_[dag_.OperandsOf(v)[0]];
      if (ir::TakesBound(node.op)) step.bound = node.constant;
    }
    return step;
  }

  // A model call: output k of its group's step, whose result for k it holds
  // (a column, or a scalar for a call on uniform values only).
  void PlaceModel(ValueId v, Phase& phase) {
    const DagNode& node = dag_.node(v);
    auto [group, inserted] = model_step_.emplace(ModelKey(v), ModelStepRef{});
    if (inserted) {
      ModelStep step;
      step.model = node.input;
      step.value = v;
      step.uniform = IsUniform(v);
      for (ValueId operand : dag_.OperandsOf(v)) step.features.push_back(loc_[operand]);
      step.outputs.assign(OutputCount(node.input), Operand{});
      group->second = {phase_[v], static_cast<std::uint32_t>(phase.models.size())};
      phase.models.push_back(std::move(step));
    }
    ModelStep& step = program_.phases[group->second.phase].models[group->second.index];
    Operand& result = step.outputs[node.input2];
    if (result.loc == Loc::kNone) {
      result = step.uniform ? Operand{Loc::kScalar, NewScalar()} : NewColumn(v);
    } else if (result.loc == Loc::kColumn) {
      // The same call twice (hash-consing off): one column, live as long as
      // either needs it.
      const ValueId first = column_values_[result.index];
      last_phase_used_[first] = std::max(last_phase_used_[first], last_phase_used_[v]);
    }
    loc_[v] = result;
  }

  std::size_t OutputCount(std::uint32_t model) const {
    return program_.models[model]->summary().output_count;
  }

  void PlaceUniform(ValueId v, Phase& phase) {
    const DagNode& node = dag_.node(v);
    const auto operands = dag_.OperandsOf(v);
    switch (KindOf(v)) {
      case OpKind::kModel:
        PlaceModel(v, phase);
        return;
      case OpKind::kConstant:
        loc_[v] = Operand{Loc::kScalar, NewScalar(node.constant)};
        return;
      case OpKind::kRef:
        loc_[v] = Operand{Loc::kScalar, NewScalar()};
        program_.input_scalars.push_back({node.input, loc_[v].index});
        return;
      case OpKind::kAggregate:
      case OpKind::kVector:
        loc_[v] = Operand{Loc::kScalar, NewScalar()};
        AddStep(v, phase);
        return;
      default:
        break;
    }
    ScalarStep step;
    step.op = node.op;
    step.value = v;
    switch (KindOf(v)) {
      case OpKind::kUnary:
        step.a = loc_[operands[0]];
        break;
      case OpKind::kBinary:
        step.a = loc_[operands[0]];
        step.b = loc_[operands[1]];
        break;
      case OpKind::kConditional:
        step.c = loc_[operands[0]];
        step.a = loc_[operands[1]];
        step.b = loc_[operands[2]];
        break;
      default:
        break;
    }
    step.result = loc_[v] = Operand{Loc::kScalar, NewScalar()};
    phase.scalars.push_back(step);
  }

  // Splits each phase's element-wise values into regions and builds their
  // local programs. Regions are cut between the values of two features,
  // where the feature's name hashes to a multiple of 8 once the region has a
  // quarter of its maximum size (or at the maximum): cuts then depend on the
  // formulas near them, not on everything before, so editing one formula
  // leaves the other regions, and the JIT's cached code for them, unchanged.
  // A value read by another region is written to a whole column.
  void BuildRegions() {
    std::vector<std::uint32_t> region_of(n_, kNoRegion);
    local_index_.assign(n_, 0);
    std::uint32_t region = 0;  // numbered across phases: a value of another phase is a read
    for (std::size_t p = 0; p < region_values_.size(); ++p) {
      const std::vector<ValueId>& values = region_values_[p];
      if (values.empty()) continue;
      ++region;
      std::uint32_t size = 0;
      for (std::size_t k = 0; k < values.size(); ++k) {
        const ValueId v = values[k];
        const bool boundary = k > 0 && dag_.node(v).feature != dag_.node(values[k - 1]).feature;
        const bool cut = (boundary && size >= options_.max_region_nodes / 4 &&
                          FeatureHash(dag_.node(v).feature) % 8 == 0) ||
                         size >= options_.max_region_nodes;
        if (cut) {
          ++region;
          size = 0;
        }
        region_of[v] = region;
        ++size;
      }
      for (ValueId v : values) {
        for (ValueId u : dag_.OperandsOf(v)) {
          const bool other_region = region_of[u] != kNoRegion && region_of[u] != region_of[v];
          if (other_region && loc_[u].loc != Loc::kColumn && dag_.node(u).op != Op::kConstant) {
            loc_[u] = NewColumn(u);
          }
        }
      }
      std::size_t begin = 0;
      while (begin < values.size()) {
        std::size_t end = begin;
        while (end < values.size() && region_of[values[end]] == region_of[values[begin]]) ++end;
        program_.phases[p].regions.push_back(
            MakeRegion(std::span<const ValueId>(values).subspan(begin, end - begin), region_of));
        begin = end;
      }
    }
  }

  // An input's name, or the name of the feature whose formula made the value.
  std::string NameOf(ValueId v) const {
    const DagNode& node = dag_.node(v);
    if (node.op == Op::kRef) return dag_.NameOfInput(node.input);
    return node.feature == opt::kNoValue ? "value" : dag_.NameOfFeature(node.feature);
  }

  std::uint64_t FeatureHash(std::uint32_t feature) const {
    if (feature == opt::kNoValue) return 0;
    return std::hash<std::string>()(dag_.NameOfFeature(feature));
  }

  Region MakeRegion(std::span<const ValueId> values, const std::vector<std::uint32_t>& region_of) {
    Region region;
    for (std::uint32_t k = 0; k < values.size(); ++k) local_index_[values[k]] = k;
    auto add_unique = [&](std::vector<Operand>& list, std::vector<std::string>& names, ValueId u) {
      const Operand operand = loc_[u];
      for (std::uint32_t i = 0; i < list.size(); ++i) {
        if (list[i] == operand) return i;
      }
      list.push_back(operand);
      names.push_back(NameOf(u));
      return static_cast<std::uint32_t>(list.size() - 1);
    };
    const std::uint32_t this_region = region_of[values.front()];
    for (ValueId v : values) {
      RegionNode node;
      node.op = dag_.node(v).op;
      node.value = v;
      node.name = NameOf(v);
      node.first_operand = static_cast<std::uint32_t>(region.operands.size());
      if (node.op == Op::kConstant) {
        region.operands.push_back({RegionOperand::Kind::kConstant, 0, dag_.node(v).constant});
      }
      for (ValueId u : dag_.OperandsOf(v)) {
        RegionOperand operand;
        if (dag_.node(u).op == Op::kConstant) {
          operand = {RegionOperand::Kind::kConstant, 0, dag_.node(u).constant};
        } else if (region_of[u] == this_region) {
          operand = {RegionOperand::Kind::kNode, local_index_[u], 0.0f};
        } else if (IsUniform(u)) {
          operand = {RegionOperand::Kind::kScalar,
                     add_unique(region.scalars, region.scalar_names, u), 0.0f};
        } else {
          operand = {RegionOperand::Kind::kRead, add_unique(region.reads, region.read_names, u),
                     0.0f};
          std::vector<std::uint32_t>& slots = program_.region_input_slots;
          if (loc_[u].loc == Loc::kInput &&
              std::find(slots.begin(), slots.end(), loc_[u].index) == slots.end()) {
            slots.push_back(loc_[u].index);
          }
        }
        region.operands.push_back(operand);
      }
      node.operand_count = static_cast<std::uint32_t>(region.operands.size()) - node.first_operand;
      const std::uint32_t index = static_cast<std::uint32_t>(region.nodes.size());
      region.nodes.push_back(node);
      for (std::uint32_t k : output_of_[v]) region.writes.push_back({index, {Loc::kOutput, k}});
      if (loc_[v].loc == Loc::kColumn) region.writes.push_back({index, loc_[v]});
    }
    const std::uint32_t first = dag_.node(values.front()).feature;
    const std::uint32_t last = dag_.node(values.back()).feature;
    region.name = first == opt::kNoValue ? "constants" : dag_.NameOfFeature(first);
    if (last != first && last != opt::kNoValue) region.name += ".." + dag_.NameOfFeature(last);
    return region;
  }

  // Whole-batch columns, reused across phases: a buffer is free for a value
  // defined in a phase after the last phase that reads the previous value.
  void AllocateColumns() {
    std::vector<std::uint32_t> buffer_of(column_values_.size());
    std::vector<std::uint32_t> busy_until;  // by buffer: last phase reading it
    for (std::size_t c = 0; c < column_values_.size(); ++c) {
      const ValueId v = column_values_[c];
      std::uint32_t buffer = static_cast<std::uint32_t>(busy_until.size());
      if (options_.reuse_columns) {
        for (std::uint32_t b = 0; b < busy_until.size(); ++b) {
          if (busy_until[b] < phase_[v]) {
            buffer = b;
            break;
          }
        }
      }
      if (buffer == busy_until.size()) busy_until.push_back(0);
      busy_until[buffer] = last_phase_used_[v];
      buffer_of[c] = buffer;
    }
    program_.columns = static_cast<std::uint32_t>(busy_until.size());
    auto rename = [&](Operand& operand) {
      if (operand.loc == Loc::kColumn) operand.index = buffer_of[operand.index];
    };
    for (Phase& phase : program_.phases) {
      for (ColumnStep& step : phase.steps) {
        rename(step.operand);
        rename(step.result);
      }
      for (StatisticsStep& step : phase.statistics) {
        rename(step.operand);
        for (ColumnStep& member : step.members) rename(member.result);
      }
      for (Region& region : phase.regions) {
        for (Operand& read : region.reads) rename(read);
        for (RegionWrite& write : region.writes) rename(write.target);
      }
      for (Store& store : phase.stores) rename(store.value);
      for (ModelStep& step : phase.models) {
        for (Operand& feature : step.features) rename(feature);
        for (Operand& output : step.outputs) rename(output);
      }
    }
  }

  const Dag& dag_;
  const ScheduleOptions& options_;
  const std::size_t n_;
  Program program_;
  std::vector<std::uint32_t> phase_;
  std::vector<std::uint32_t> last_phase_used_;
  std::vector<std::vector<std::uint32_t>> output_of_;
  std::vector<std::vector<ValueId>> region_values_;  // by phase, in order
  std::vector<std::uint32_t> local_index_;           // a region value's index in its region
  std::vector<Operand> loc_;
  std::vector<ValueId> column_values_;                         // by provisional column index
  std::map<std::vector<ValueId>, std::uint32_t> model_phase_;  // by ModelKey
  struct ModelStepRef {
    std::uint32_t phase = 0;
    std::uint32_t index = 0;
  };
  std::map<std::vector<ValueId>, ModelStepRef> model_step_;  // by ModelKey
  std::vector<std::uint32_t> statistics_members_;   // by operand: the aggregates sharing it
  std::vector<std::uint32_t> statistics_phase_;     // by operand: its statistics step's phase
  std::map<ValueId, std::size_t> statistics_step_;  // by operand: the step's index in its phase
};

}  // namespace

std::span<const std::string_view> ScheduleStepNames() {
  static constexpr std::string_view kNames[] = {"statistics"};
  return kNames;
}

Program Schedule(const opt::Dag& dag, const ScheduleOptions& options) {
  return Scheduler(dag, options).Run();
}

std::vector<const Region*> Program::Regions() const {
  std::vector<const Region*> regions;
  for (const Phase& phase : phases) {
    for (const Region& region : phase.regions) regions.push_back(&region);
  }
  return regions;
}

}  // namespace calcjit::program
