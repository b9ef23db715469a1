#include "model/tree/ensemble.h"

#include <string>

namespace calcjit::model {

namespace {
std::string Count(std::uint64_t n, const char* singular, const char* plural) {
  return std::to_string(n) + " " + (n == 1 ? singular : plural);
}
}  // namespace

std::string DescribeModel(const ModelInfo& info) {
  return std::string(ModelFormatName(info.format)) + ": " + Count(info.num_trees, "tree", "trees") +
         ", depth " + std::to_string(info.max_depth) + ", " +
         Count(info.num_features, "feature", "features") + ", " +
         Count(info.num_outputs, "output", "outputs");
}

}  // namespace calcjit::model
