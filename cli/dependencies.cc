#include "cli/dependencies.h"

namespace calcjit::cli {

FeatureGraph Analyze(const FeatureSet& set, const std::vector<std::uint32_t>& outputs) {
  FeatureGraph graph;
  graph.uses = set.Uses();
  const std::size_t features = graph.uses.size();
  graph.output.assign(features, false);
  graph.feature_needed.assign(features, false);
  graph.input_needed.assign(set.schema().inputs.size(), false);
  // Outputs: the requested ones, or else the definitions nothing else uses.
  if (!outputs.empty()) {
    for (std::uint32_t f : outputs) graph.output[f] = true;
  } else {
    std::vector<bool> used(features, false);
    for (const DefinitionUses& uses : graph.uses) {
      for (std::size_t d : uses.features) used[d] = true;
    }
    for (std::size_t f = 0; f < features; ++f) graph.output[f] = !used[f];
  }
  // What the outputs need: a worklist over the definitions they reach.
  std::vector<std::size_t> pending;
  for (std::size_t f = 0; f < features; ++f) {
    if (graph.output[f]) {
      graph.feature_needed[f] = true;
      pending.push_back(f);
    }
  }
  while (!pending.empty()) {
    const std::size_t f = pending.back();
    pending.pop_back();
    for (std::size_t i : graph.uses[f].inputs) graph.input_needed[i] = true;
    for (std::size_t d : graph.uses[f].features) {
      if (!graph.feature_needed[d]) {
        graph.feature_needed[d] = true;
        pending.push_back(d);
      }
    }
  }
  return graph;
}

}  // namespace calcjit::cli
