// Which features and inputs each definition of a set uses, and what a list of
// outputs needs: for `calcjit graph` and `calcjit explain`.
#ifndef CALCJIT_CLI_DEPENDENCIES_H_
#define CALCJIT_CLI_DEPENDENCIES_H_

#include <cstdint>
#include <set>
#include <vector>

#include "ir/checked_set.h"

namespace calcjit::cli {

struct FeatureGraph {
  std::vector<bool> feature_needed;
  std::vector<bool> input_needed;
  std::vector<std::set<std::uint32_t>> feature_deps;  // definitions used
  std::vector<std::set<std::uint32_t>> input_deps;    // inputs used
  std::vector<bool> aggregate;
  std::vector<bool> output;
};

// Outputs (feature indices) empty: the definitions nothing else uses.
FeatureGraph Analyze(const ir::CheckedSet& set, const std::vector<std::uint32_t>& outputs);

}  // namespace calcjit::cli

#endif  // CALCJIT_CLI_DEPENDENCIES_H_
