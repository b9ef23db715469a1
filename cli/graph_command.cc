// calcjit graph SET [--outputs a,b] [--format dot|svg] [-o FILE]: the feature
// dependency graph in Graphviz DOT (SVG through Graphviz's `dot`), features
// coloured by kind: inputs, calculated features, aggregates (a definition that
// computes a whole-batch statistic), outputs.
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

std::string Dot(const FeatureSet& set, const FeatureGraph& graph) {
  const Schema& schema = set.schema();
  std::string dot =
      "digraph features {\n"
      "  rankdir=LR;\n"
      "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=11];\n"
      "  // inputs: grey ellipses; calculated: blue; aggregates: orange; outputs: green\n";
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
  for (std::size_t f = 0; f < graph.uses.size(); ++f) {
    if (!graph.feature_needed[f]) continue;
    const std::string to = Quote(schema.outputs[f]);
    for (std::size_t i : graph.uses[f].inputs) {
      dot += "  " + Quote(schema.inputs[i].name) + " -> " + to + ";\n";
    }
    for (std::size_t d : graph.uses[f].features) {
      dot += "  " + Quote(schema.outputs[d]) + " -> " + to + ";\n";
    }
  }
  return dot + "}\n";
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
  SetSource source = options.set;
  source.load_models = false;  // converting or drawing a set reads no model file
  const Result<FeatureSet> set = LoadSet(source);
  if (!set.ok()) {
    ReportError(set.status());
    return 1;
  }
  std::vector<std::uint32_t> outputs;
  for (const std::string& name : options.outputs) {
    const std::optional<std::size_t> index = set->schema().FindOutput(name);
    if (!index) {
      ReportError("unknown output '" + name + "': the set does not define it");
      return 1;
    }
    outputs.push_back(static_cast<std::uint32_t>(*index));
  }
  if (options.format != "dot" && options.format != "svg") {
    ReportError("unknown --format '" + options.format + "' (dot or svg)");
    return 1;
  }
  std::string text = Dot(*set, Analyze(*set, outputs));
  if (options.format == "svg") {
    Result<std::string> svg = ToSvg(text);
    if (!svg.ok()) {
      ReportError(svg.status());
      return 1;
    }
    text = std::move(svg).value();
  }
  if (const Status written = WriteOutput(options.output, {options.set.path}, text); !written.ok()) {
    ReportError(written);
    return 1;
  }
  return 0;
}

}  // namespace calcjit::cli
