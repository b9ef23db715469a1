// Which features and inputs each definition of a set uses, and what a list of
// outputs needs: for `calcjit graph` and `calcjit explain`.
#ifndef CALCJIT_CLI_DEPENDENCIES_H_
#define CALCJIT_CLI_DEPENDENCIES_H_

#include <cstdint>
#include <vector>

#include "calcjit/feature_set.h"

namespace calcjit::cli {

struct FeatureGraph {
  std::vector<DefinitionUses> uses;  // by definition
  std::vector<bool> feature_needed;
  std::vector<bool> input_needed;
  std::vector<bool> output;
};

// Outputs (definition indices) empty: the definitions nothing else uses.
FeatureGraph Analyze(const FeatureSet& set, const std::vector<std::uint32_t>& outputs);

}  // namespace calcjit::cli

#endif  // CALCJIT_CLI_DEPENDENCIES_H_
