// calcjit graph SET [--outputs a,b] [--format dot|svg] [-o FILE]: the feature
// dependency graph in Graphviz DOT (SVG through Graphviz's `dot`), features
// coloured by kind: inputs, calculated features, aggregates (a definition that
// computes a whole-batch statistic), outputs, and model calls with the edges
// of what their inputs read.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include <sys/wait.h>

#include "cli/common.h"
#include "cli/dependencies.h"
#include "cli/output_file.h"

namespace calcjit::cli {

namespace {

// DOT's quoted-string escaping: a backslash and a double quote.
// The inside of a DOT string: quotes and backslashes escaped, control
// characters shown as \\xNN (Graphviz reads the backslash as itself).
std::string DotEscaped(const std::string& name) {
  std::string out;
  for (char c : ForTerminal(name)) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string Quote(const std::string& name) {
  return "\"" + DotEscaped(name) + "\"";
}

// A model call's node: an id no name can have (an escaped name's
// backslashes are always followed by a backslash or a quote) and the call's
// identity, so that calls of one model on the same inputs (which the engine
// evaluates once) are one node with an edge per output used.
struct ModelNode {
  std::size_t model;
  std::vector<std::size_t> features, inputs, calls;  // calls: ModelNode indices
  bool operator==(const ModelNode&) const = default;
};

std::string ModelNodeId(std::size_t index) {
  return "\"\\model " + std::to_string(index) + "\"";
}

std::string Dot(const FeatureSet& set, const FeatureGraph& graph, bool models_loaded) {
  const Schema& schema = set.schema();
  const std::vector<DeclaredModel> models = set.Models();
  std::string dot =
      "digraph features {\n"
      "  rankdir=LR;\n"
      "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=11];\n"
      "  // inputs: grey ellipses; calculated: blue; aggregates: orange; outputs: green;\n"
      "  // model calls: purple, an edge per output [k] used\n";
  for (std::size_t i = 0; i < schema.inputs.size(); ++i) {
    if (!graph.input_needed[i]) continue;
    const InputInfo& input = schema.inputs[i];
    std::string label = DotEscaped(input.name);
    if (input.scope == Scope::kQuery) label += "\\n(query";
    if (input.dimension > 0) {
      label += input.scope == Scope::kQuery ? ", " : "\\n(";
      label += "[" + std::to_string(input.dimension) + "]";
    }
    if (input.scope == Scope::kQuery || input.dimension > 0) label += ")";
    dot += "  " + Quote(input.name) + " [shape=ellipse, fillcolor=\"#e0e0e0\", label=\"" + label +
           "\"];\n";
  }
  for (std::size_t f = 0; f < graph.uses.size(); ++f) {
    if (!graph.feature_needed[f]) continue;
    const bool aggregate = graph.uses[f].aggregate;
    const char* colour = graph.output[f] ? "#b7e4c7" : aggregate ? "#ffd8a8" : "#cfe2ff";
    std::string attributes = "fillcolor=\"" + std::string(colour) + "\"";
    if (graph.output[f] && aggregate) attributes += ", color=\"#e8590c\", penwidth=2";
    dot += "  " + Quote(schema.outputs[f]) + " [" + attributes + "];\n";
  }
  // Edges into a node from what it reads: inputs, definitions, model calls.
  std::vector<ModelNode> model_nodes;
  std::string edges;
  auto edges_from = [&](const std::vector<std::size_t>& inputs,
                        const std::vector<std::size_t>& features, const std::string& to) {
    for (std::size_t i : inputs) edges += "  " + Quote(schema.inputs[i].name) + " -> " + to + ";\n";
    for (std::size_t d : features) edges += "  " + Quote(schema.outputs[d]) + " -> " + to + ";\n";
  };
  for (std::size_t f = 0; f < graph.uses.size(); ++f) {
    if (!graph.feature_needed[f]) continue;
    const DefinitionUses& uses = graph.uses[f];
    const std::string to = Quote(schema.outputs[f]);
    edges_from(uses.outside_inputs, uses.outside_features, to);
    std::vector<std::size_t> node_of_call;  // by model_calls index
    for (const ModelCallUses& call : uses.model_calls) {
      ModelNode node{call.model, call.features, call.inputs, {}};
      for (std::size_t nested : call.calls) node.calls.push_back(node_of_call[nested]);
      auto found = std::find(model_nodes.begin(), model_nodes.end(), node);
      const std::size_t index = static_cast<std::size_t>(found - model_nodes.begin());
      node_of_call.push_back(index);
      if (found != model_nodes.end()) continue;
      model_nodes.push_back(node);
      const DeclaredModel& model = models[call.model];
      std::string label =
          DotEscaped(model.name) + "\\n(" + std::string(ModelFormatName(model.format)) + " model)";
      if (!models_loaded && call.features.empty() && call.inputs.empty() && call.calls.empty()) {
        label += "\\ninputs: its features (not loaded)";
      }
      dot += "  " + ModelNodeId(index) + " [shape=component, fillcolor=\"#e5dbff\", label=\"" +
             label + "\"];\n";
      edges_from(call.inputs, call.features, ModelNodeId(index));
      for (std::size_t nested : node.calls) {
        edges += "  " + ModelNodeId(nested) + " -> " + ModelNodeId(index) + ";\n";
      }
    }
    // An edge per output of a call the formula itself reads, labelled [k].
    std::vector<std::pair<std::size_t, std::uint32_t>> drawn;
    for (std::size_t c : uses.outside_calls) {
      const std::pair<std::size_t, std::uint32_t> edge{node_of_call[c], uses.model_calls[c].output};
      if (std::find(drawn.begin(), drawn.end(), edge) != drawn.end()) continue;
      drawn.push_back(edge);
      edges += "  " + ModelNodeId(edge.first) + " -> " + to + " [label=\"[" +
               std::to_string(edge.second) + "]\"];\n";
    }
  }
  return dot + edges + "}\n";
}

// Runs Graphviz's `dot -Tsvg` over the DOT text.
Result<std::string> ToSvg(const std::string& dot) {
  char dot_path[] = "/tmp/calcjit-graph-XXXXXX";
  const int fd = mkstemp(dot_path);
  if (fd < 0) return RuntimeError("cannot make a temporary file for Graphviz");
  std::FILE* file = fdopen(fd, "w");
  std::fwrite(dot.data(), 1, dot.size(), file);
  std::fclose(file);
  const std::string command = std::string("dot -Tsvg ") + dot_path + " 2>&1";
  std::FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    std::remove(dot_path);
    return RuntimeError("cannot run Graphviz's dot");
  }
  std::string svg;
  char buffer[65536];
  for (std::size_t got; (got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) {
    svg.append(buffer, got);
  }
  const int status = pclose(pipe);
  std::remove(dot_path);
  if (status != 0 || svg.find("<svg") == std::string::npos) {
    return RuntimeError(
        "Graphviz's `dot` failed (install the Debian package graphviz, or use --format dot): " +
        svg.substr(0, 300));
  }
  return svg;
}

}  // namespace

int RunGraph(const GraphOptions& options) {
  // With its models when they load: a call without listed inputs reads the
  // model's features by name (spec 6.1), which only the model file tells.
  // Without them the set is still drawn, those calls without their inputs.
  SetSource source = options.set;
  Result<FeatureSet> set = LoadSet(source);
  const bool models_loaded = set.ok();
  if (!set.ok()) {
    const Status with_models = set.status();
    source.load_models = false;
    set = LoadSet(source);
    if (set.ok() && !set->Models().empty()) {
      std::cerr << "calcjit graph: drawn without its models (" << with_models.message()
                << "): a model call without listed inputs has no input edges\n";
    }
  }
  if (!set.ok()) {
    ReportError(set.status());
    return 1;
  }
  std::vector<std::uint32_t> outputs;
  for (const std::string& name : options.outputs) {
    const std::optional<std::size_t> index = set->schema().FindOutput(name);
    if (!index) {
      ReportError("unknown output '" + name + "': the set does not define it" +
                  DidYouMean(name, set->schema().outputs));
      return 1;
    }
    outputs.push_back(static_cast<std::uint32_t>(*index));
  }
  if (options.format != "dot" && options.format != "svg") {
    ReportError("unknown --format '" + options.format + "' (dot or svg)");
    return 1;
  }
  std::string text = Dot(*set, Analyze(*set, outputs), models_loaded);
  if (options.format == "svg") {
    Result<std::string> svg = ToSvg(text);
    if (!svg.ok()) {
      ReportError(svg.status());
      return 1;
    }
    text = std::move(svg).value();
  }
  if (const Status written = WriteOutput(options.output, InputFiles(options.set, *set), text);
      !written.ok()) {
    ReportError(written);
    return 1;
  }
  return 0;
}

}  // namespace calcjit::cli
