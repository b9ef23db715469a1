// The checks of spec section 5, over the whole set, reporting every error.
#include <algorithm>
#include <deque>
#include <string>
#include <utility>

#include "common/utf8.h"
#include "ir/checked_set.h"
#include "ir/limits.h"
#include "ir/location.h"
#include "ir/names.h"

namespace calcjit::ir {

namespace {

// A name as it appears in a message: quoted, and cut short if it is one of
// the over-long names the limit check reports.
std::string Quoted(const std::string& name) {
  constexpr std::size_t kShown = 60;
  if (name.size() <= kShown) return "'" + name + "'";
  return "'" + name.substr(0, kShown) + "...'";
}

// A name from a model file as it appears in a message: quoted, its bytes
// that are not UTF-8 shown as \xNN (a message reaches Java and Python
// strings), cut short when long.
std::string ShownModelName(std::string_view name) {
  std::string shown;
  while (!name.empty() && shown.size() < 60) {
    const std::size_t length = Utf8SequenceLength(name);
    if (length == 0) {
      static const char kHex[] = "0123456789abcdef";
      const auto byte = static_cast<unsigned char>(name[0]);
      shown += std::string("\\x") + kHex[byte >> 4] + kHex[byte & 15];
      name.remove_prefix(1);
      continue;
    }
    shown.append(name.substr(0, length));
    name.remove_prefix(length);
  }
  return "'" + shown + (name.empty() ? "'" : "...'");
}

// The operators that take weights, as the text spells them: "weighted_sum".
std::string WeightedNames() {
  std::string names;
  for (const OpInfo& info : kOpTable) {
    if (!info.weighted) continue;
    if (!names.empty()) names += ", ";
    names += info.spelling;
  }
  return names;
}

class Checker {
 public:
  Checker(CheckedSet* set, std::span<const ModelShape> model_shapes)
      : set_(*set), ir_(set->ir), model_shapes_(model_shapes) {}

  std::vector<Diagnostic> Run() {
    set_.symbols.assign(ir_.names.size(), Symbol{});
    set_.model_of_name.assign(ir_.names.size(), kNone);
    CheckInputs();
    CheckModels();
    CheckDefinitionNames();
    for (std::uint32_t f = 0; f < ir_.features.size(); ++f) CheckNodes(f);
    OrderAndFindCycles();
    return std::move(errors_);
  }

 private:
  void Error(std::string location, std::string message) {
    errors_.push_back(Diagnostic{std::move(location), std::move(message)});
  }

  // `location` is only called on an error: for protobuf and JSON sets a node's
  // location is a field path, which costs a walk of its definition.
  template <typename Location>
  void CheckNameLength(NameId name, Location location) {
    if (ir_.NameOf(name).size() > kMaxNameBytes) {
      Error(location(), "name " + Quoted(Excerpt(ir_.NameOf(name))) + " is longer than " +
                            std::to_string(kMaxNameBytes) + " bytes");
    }
  }

  void CheckInputs() {
    for (std::size_t i = 0; i < ir_.inputs.size(); ++i) {
      const InputDecl& input = ir_.inputs[i];
      const std::string& name = ir_.NameOf(input.name);
      CheckNameLength(input.name, [&] { return InputLocation(ir_, i, "name"); });
      Symbol& symbol = set_.symbols[input.name];
      if (symbol.kind == Symbol::Kind::kInput) {
        Error(InputLocation(ir_, i, "name"),
              "input " + Quoted(name) + " is declared twice (first at " +
                  InputLocation(ir_, declared_at_[symbol.index]) + ")");
        continue;
      }
      if (input.dimension > kMaxDimension) {
        Error(InputLocation(ir_, i, "dimension"),
              "input " + Quoted(name) + " has dimension " + std::to_string(input.dimension) +
                  ", above the limit of " + std::to_string(kMaxDimension));
      }
      if (input.dimension > 0 && input.default_value) {
        Error(InputLocation(ir_, i, "default_value"),
              "vector input " + Quoted(name) + " has a default value; only scalars can have one");
      }
      symbol = Symbol{Symbol::Kind::kInput, static_cast<std::uint32_t>(set_.schema.inputs.size())};
      declared_at_.push_back(i);
      set_.schema.inputs.push_back(
          InputInfo{name, input.scope, input.dimension, input.default_value, true});
    }
  }

  void CheckDefinitionNames() {
    for (std::size_t f = 0; f < ir_.features.size(); ++f) {
      const FeatureDef& feature = ir_.features[f];
      const std::string& name = ir_.NameOf(feature.name);
      CheckNameLength(feature.name, [&] { return FeatureLocation(ir_, f, "name"); });
      Symbol& symbol = set_.symbols[feature.name];
      if (symbol.kind == Symbol::Kind::kInput) {
        Error(FeatureLocation(ir_, f, "name"), Quoted(name) + " is declared as an input (at " +
                                                   InputLocation(ir_, declared_at_[symbol.index]) +
                                                   ") and cannot be defined");
      } else if (symbol.kind == Symbol::Kind::kFeature) {
        Error(FeatureLocation(ir_, f, "name"), Quoted(name) + " is defined twice (first at " +
                                                   FeatureLocation(ir_, symbol.index) + ")");
      } else {
        symbol = Symbol{Symbol::Kind::kFeature, static_cast<std::uint32_t>(f)};
        set_.schema.outputs.push_back(name);
      }
    }
  }

  // Resolves one name of a vector operator; returns its dimension, or 0 after
  // reporting why it is not a vector input.
  std::uint32_t VectorOperand(NodeId id, NameId name, std::string_view side) {
    const Node& node = ir_.nodes[id];
    const std::string field = "vector." + std::string(side);
    const std::string_view function = Info(node.op).spelling;
    if (name == kNone) {
      Error(NodeLocation(ir_, id, field),
            std::string(function) + " is missing its " + std::string(side) + " operand");
      return 0;
    }
    CheckNameLength(name, [&] { return NodeLocation(ir_, id, field); });
    const Symbol& symbol = set_.symbols[name];
    const std::string& text = ir_.NameOf(name);
    if (symbol.kind == Symbol::Kind::kFeature) {
      Error(NodeLocation(ir_, id, field),
            Quoted(text) + " is a calculated feature (a column), not a vector input");
      return 0;
    }
    if (symbol.kind == Symbol::Kind::kUnused || !set_.schema.inputs[symbol.index].declared) {
      Error(NodeLocation(ir_, id, field),
            Quoted(text) + " is not a declared vector input (declare it, e.g. input " + text +
                ": item[D];)");
      return 0;
    }
    const InputInfo& input = set_.schema.inputs[symbol.index];
    if (input.dimension == 0) {
      Error(NodeLocation(ir_, id, field), "input " + Quoted(text) +
                                              " is a scalar (a column), not a vector; " +
                                              std::string(function) + " takes vector inputs");
      return 0;
    }
    return input.dimension;
  }

  void CheckNodes(std::uint32_t f) {
    const FeatureDef& feature = ir_.features[f];
    for (NodeId id = feature.first_node; id <= feature.root; ++id) {
      const Node& node = ir_.nodes[id];
      switch (KindOf(node.op)) {
        case OpKind::kRef:
          CheckRef(id);
          break;
        case OpKind::kVector:
          CheckVector(id);
          break;
        case OpKind::kNary:
          CheckNary(id);
          break;
        case OpKind::kModel:
          CheckModelCall(id);
          break;
        default:
          break;
      }
    }
  }

  void CheckRef(NodeId id) {
    const Node& node = ir_.nodes[id];
    CheckNameLength(node.name, [&] { return NodeLocation(ir_, id, "feature"); });
    ResolveColumn(node.name, [&] { return NodeLocation(ir_, id, "feature"); });
  }

  // A name used as a column: a definition, a scalar input, or (neither
  // declared nor defined) a new implicit item scalar input.
  template <typename Location>
  void ResolveColumn(NameId name, Location location) {
    Symbol& symbol = set_.symbols[name];
    if (symbol.kind == Symbol::Kind::kUnused) {
      // Neither declared nor defined: an implicit item scalar input.
      symbol = Symbol{Symbol::Kind::kInput, static_cast<std::uint32_t>(set_.schema.inputs.size())};
      set_.schema.inputs.push_back(
          InputInfo{ir_.NameOf(name), Scope::kItem, 0, std::nullopt, false});
    } else if (symbol.kind == Symbol::Kind::kInput &&
               set_.schema.inputs[symbol.index].dimension > 0) {
      Error(location(), "vector input " + Quoted(ir_.NameOf(name)) +
                            " is used as a column; use it in dot, cosine, l2_distance or norm");
    }
  }

  void CheckModels() {
    for (std::size_t m = 0; m < ir_.models.size(); ++m) {
      const ModelDecl& model = ir_.models[m];
      CheckNameLength(model.name, [&] { return ModelLocation(ir_, m, "name"); });
      std::uint32_t& declared = set_.model_of_name[model.name];
      if (declared != kNone) {
        Error(ModelLocation(ir_, m, "name"), "model " + Quoted(ir_.NameOf(model.name)) +
                                                 " is declared twice (first at " +
                                                 ModelLocation(ir_, declared) + ")");
        continue;
      }
      declared = static_cast<std::uint32_t>(m);
    }
  }

  // model(NAME, inputs...)[k]: NAME is a declared model. Its inputs are
  // nodes of their own, checked as every node is.
  void CheckModelCall(NodeId id) {
    const Node& node = ir_.nodes[id];
    if (node.name == kNone) {
      Error(NodeLocation(ir_, id, "model.name"), "model call names no model");
      return;
    }
    CheckNameLength(node.name, [&] { return NodeLocation(ir_, id, "model.name"); });
    const std::string& name = ir_.NameOf(node.name);
    const std::uint32_t model = set_.model_of_name[node.name];
    if (model == kNone) {
      Error(NodeLocation(ir_, id, "model.name"), "unknown model " + Quoted(name) +
                                                     " (declare it, e.g. model " + name +
                                                     " = xgboost(\"" + name + ".json\");)");
      return;
    }
    if (!model_shapes_.empty()) CheckModelShape(id, model_shapes_[model]);
  }

  // The hook where a loaded model's shape meets its calls (spec section 6.1).
  void CheckModelShape(NodeId id, const ModelShape& shape) {
    const Node& node = ir_.nodes[id];
    const std::string model = Quoted(ir_.NameOf(node.name));
    if (node.output >= shape.output_count) {
      Error(NodeLocation(ir_, id, "model.output"),
            "model " + model + " has " + Count(shape.output_count, "output") + ", so output " +
                std::to_string(node.output) + " is beyond them (outputs count from 0)");
    }
    if (node.operand_count > 0) {
      if (node.operand_count != shape.feature_count) {
        Error(NodeLocation(ir_, id, "model.inputs"),
              "model " + model + " has " + Count(shape.feature_count, "feature") +
                  ", but this call gives it " + Count(node.operand_count, "input"));
      }
      return;
    }
    if (shape.feature_count == 0) return;
    if (shape.feature_names.empty()) {
      Error(NodeLocation(ir_, id, "model.inputs"),
            "model " + model + " has " + Count(shape.feature_count, "feature") +
                " and its file does not name them, so the call must list its inputs");
      return;
    }
    if (shape.feature_names.size() != shape.feature_count) {
      Error(NodeLocation(ir_, id, "model.inputs"),
            "model " + model + " has " + Count(shape.feature_count, "feature") + " but names " +
                std::to_string(shape.feature_names.size()));
      return;
    }
    // The names come from the model's file, which the set's rules never
    // checked: one that no set could declare never becomes an input.
    for (std::size_t j = 0; j < shape.feature_names.size(); ++j) {
      const char* why = WhyNotAName(shape.feature_names[j]);
      if (why == nullptr) continue;
      Error(NodeLocation(ir_, id, "model.inputs"),
            "model " + model + " names its feature " + std::to_string(j) + " " +
                ShownModelName(shape.feature_names[j]) +
                " in its file, which cannot name an "
                "input (" +
                why +
                "): list the call's inputs in the model's feature order, "
                "model(" +
                ir_.NameOf(node.name) + ", x0, x1, ...)[" + std::to_string(node.output) + "]");
      return;
    }
    // Input j is the feature or input named like model feature j.
    CheckedSet::ImpliedInputs implied{id, {}};
    for (const std::string& feature : shape.feature_names) {
      const NameId input = set_.ir.names.Intern(feature);
      if (set_.symbols.size() < set_.ir.names.size()) {
        set_.symbols.resize(set_.ir.names.size());
        set_.model_of_name.resize(set_.ir.names.size(), kNone);
      }
      ResolveColumn(input, [&] { return NodeLocation(ir_, id, "model.inputs"); });
      implied.names.push_back(input);
    }
    set_.implied_inputs.push_back(std::move(implied));
  }

  static std::string Count(std::uint32_t count, std::string_view what) {
    return std::to_string(count) + " " + std::string(what) + (count == 1 ? "" : "s");
  }

  void CheckVector(NodeId id) {
    const Node& node = ir_.nodes[id];
    const std::uint32_t lhs = VectorOperand(id, node.name, "lhs");
    if (Info(node.op).lhs_only) {
      if (node.name2 != kNone) {
        Error(NodeLocation(ir_, id, "vector.rhs"),
              std::string(Info(node.op).spelling) + " takes one operand, but has a second");
      }
      return;
    }
    const std::uint32_t rhs = VectorOperand(id, node.name2, "rhs");
    if (lhs != 0 && rhs != 0 && lhs != rhs) {
      Error(NodeLocation(ir_, id, "vector"),
            std::string(Info(node.op).spelling) + " of vectors of different dimensions: " +
                Quoted(ir_.NameOf(node.name)) + " has " + std::to_string(lhs) + ", " +
                Quoted(ir_.NameOf(node.name2)) + " has " + std::to_string(rhs));
    }
  }

  void CheckNary(NodeId id) {
    const Node& node = ir_.nodes[id];
    const std::string function(Info(node.op).spelling);
    if (node.operand_count == 0) {
      Error(NodeLocation(ir_, id, "nary.operands"), function + " needs at least one operand");
    }
    if (Info(node.op).weighted) {
      if (node.weight_count != node.operand_count) {
        Error(NodeLocation(ir_, id, "nary.weights"),
              function + " needs one weight per operand: " + std::to_string(node.weight_count) +
                  " weights for " + std::to_string(node.operand_count) + " operands");
      }
    } else if (node.weight_count > 0) {
      Error(NodeLocation(ir_, id, "nary.weights"),
            function + " takes no weights (only " + WeightedNames() + " does)");
    }
  }

  // Tarjan's strongly connected components, iteratively. Components come out
  // dependencies first, which is the evaluation order; a component with more
  // than one definition, or one that uses itself, is a cycle.
  void OrderAndFindCycles() {
    const std::size_t count = ir_.features.size();
    std::vector<std::vector<std::uint32_t>> uses(count);
    for (std::uint32_t f = 0; f < count; ++f) uses[f] = set_.DirectDependencies(f);

    constexpr std::uint32_t kUnvisited = 0xFFFFFFFFu;
    std::vector<std::uint32_t> index(count, kUnvisited), low(count, 0);
    std::vector<bool> on_stack(count, false);
    std::vector<std::uint32_t> component_stack;
    struct Frame {
      std::uint32_t feature;
      std::size_t next_use;
    };
    std::vector<Frame> frames;
    std::uint32_t counter = 0;

    auto visit = [&](std::uint32_t f) {
      index[f] = low[f] = counter++;
      component_stack.push_back(f);
      on_stack[f] = true;
      frames.push_back(Frame{f, 0});
    };

    for (std::uint32_t start = 0; start < count; ++start) {
      if (index[start] != kUnvisited) continue;
      visit(start);
      while (!frames.empty()) {
        Frame& frame = frames.back();
        const std::uint32_t f = frame.feature;
        if (frame.next_use < uses[f].size()) {
          const std::uint32_t g = uses[f][frame.next_use++];
          if (index[g] == kUnvisited) {
            visit(g);
          } else if (on_stack[g]) {
            low[f] = std::min(low[f], index[g]);
          }
          continue;
        }
        if (low[f] == index[f]) {
          std::vector<std::uint32_t> component;
          std::uint32_t member;
          do {
            member = component_stack.back();
            component_stack.pop_back();
            on_stack[member] = false;
            component.push_back(member);
          } while (member != f);
          const bool self_use = std::find(uses[f].begin(), uses[f].end(), f) != uses[f].end();
          if (component.size() > 1 || self_use) ReportCycle(component, uses);
          set_.topo_order.insert(set_.topo_order.end(), component.begin(), component.end());
        }
        frames.pop_back();
        if (!frames.empty()) {
          const std::uint32_t parent = frames.back().feature;
          low[parent] = std::min(low[parent], low[f]);
        }
      }
    }
  }

  // Names the shortest cycle through the component's first definition, and
  // any other definition caught in the same knot.
  void ReportCycle(std::vector<std::uint32_t> component,
                   const std::vector<std::vector<std::uint32_t>>& uses) {
    std::sort(component.begin(), component.end());
    const std::uint32_t start = component.front();
    auto in_component = [&](std::uint32_t g) {
      return std::binary_search(component.begin(), component.end(), g);
    };
    std::vector<std::uint32_t> parent(ir_.features.size(), kNone);
    std::deque<std::uint32_t> queue{start};
    std::uint32_t last = kNone;
    while (!queue.empty() && last == kNone) {
      const std::uint32_t f = queue.front();
      queue.pop_front();
      for (std::uint32_t g : uses[f]) {
        if (g == start) {
          last = f;
          break;
        }
        if (in_component(g) && parent[g] == kNone) {
          parent[g] = f;
          queue.push_back(g);
        }
      }
    }
    std::vector<std::uint32_t> path;
    for (std::uint32_t f = last; f != start; f = parent[f]) path.push_back(f);
    path.push_back(start);
    std::reverse(path.begin(), path.end());
    std::string message = "cycle: ";
    for (std::uint32_t f : path) message += Quoted(ir_.NameOf(ir_.features[f].name)) + " -> ";
    message += Quoted(ir_.NameOf(ir_.features[start].name));
    std::vector<std::uint32_t> others;
    for (std::uint32_t f : component) {
      if (std::find(path.begin(), path.end(), f) == path.end()) others.push_back(f);
    }
    if (!others.empty()) {
      message += "; also caught in it:";
      for (std::uint32_t f : others) message += " " + Quoted(ir_.NameOf(ir_.features[f].name));
    }
    Error(FeatureLocation(ir_, start), message);
  }

  CheckedSet& set_;
  const FeatureSetIr& ir_;
  std::span<const ModelShape> model_shapes_;  // empty, or one per ir_.models entry
  std::vector<std::size_t> declared_at_;      // by input symbol index: the declaration
  std::vector<Diagnostic> errors_;
};

}  // namespace

std::vector<std::uint32_t> CheckedSet::DirectDependencies(std::uint32_t feature) const {
  std::vector<std::uint32_t> result;
  const FeatureDef& def = ir.features[feature];
  auto use = [&](NameId name) {
    const Symbol& symbol = symbols[name];
    if (symbol.kind == Symbol::Kind::kFeature) result.push_back(symbol.index);
  };
  for (NodeId id = def.first_node; id <= def.root; ++id) {
    if (ir.nodes[id].op == Op::kRef) use(ir.nodes[id].name);
  }
  // The inputs a model call takes from its model's feature names.
  auto implied = std::lower_bound(
      implied_inputs.begin(), implied_inputs.end(), def.first_node,
      [](const ImpliedInputs& inputs, NodeId first) { return inputs.call < first; });
  for (; implied != implied_inputs.end() && implied->call <= def.root; ++implied) {
    for (const NameId name : implied->names) use(name);
  }
  return result;
}

const std::vector<NameId>* CheckedSet::ImpliedInputsOf(NodeId call) const {
  auto implied =
      std::lower_bound(implied_inputs.begin(), implied_inputs.end(), call,
                       [](const ImpliedInputs& inputs, NodeId id) { return inputs.call < id; });
  return implied != implied_inputs.end() && implied->call == call ? &implied->names : nullptr;
}

Result<CheckedSet> Check(FeatureSetIr ir, std::span<const ModelShape> model_shapes) {
  if (!model_shapes.empty() && model_shapes.size() != ir.models.size()) {
    return InternalError("Check: " + std::to_string(model_shapes.size()) + " model shapes for " +
                         std::to_string(ir.models.size()) + " model declarations");
  }
  CheckedSet set;
  set.ir = std::move(ir);
  std::vector<Diagnostic> errors = Checker(&set, model_shapes).Run();
  if (!errors.empty()) return Status::Errors(ErrorKind::kUser, std::move(errors));
  return set;
}

}  // namespace calcjit::ir
