#include "bench/peers/native_forest.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace peers {
namespace {

// Rows of a block share each tree while it is in cache; eight rows walk
// together so that their chains of dependent loads overlap.
constexpr std::size_t kBlockRows = 256;
constexpr std::size_t kLanes = 8;

// 1 when the row goes right, computed with flags rather than branches: a
// branch per level mispredicts half the time on these data.
inline std::uint32_t GoesRight(const Node& n, float x) {
  const std::uint32_t less = x < n.value;
  const std::uint32_t nan_left = std::isnan(x) & (n.default_left != 0);
  return (less | nan_left) ^ 1u;
}

float ParseFloat(const nlohmann::json& value) {
  if (value.is_string()) return std::strtof(value.get<std::string>().c_str(), nullptr);
  return value.get<float>();
}

// Appends one tree in breadth-first order, so that siblings are adjacent.
std::string AppendTree(const nlohmann::json& tree, Forest& forest) {
  const auto& left = tree.at("left_children");
  const auto& right = tree.at("right_children");
  const auto& feature = tree.at("split_indices");
  const auto& condition = tree.at("split_conditions");
  const auto& default_left = tree.at("default_left");
  if (tree.contains("split_type")) {
    for (const auto& t : tree.at("split_type")) {
      if (t.get<int>() != 0) return "categorical splits are not read here";
    }
  }
  const std::uint32_t base = static_cast<std::uint32_t>(forest.nodes.size());
  // order[k] = the file's node id at forest position base + k.
  std::vector<int> order{0};
  std::vector<std::uint32_t> depth_of{0};
  std::uint32_t depth = 0;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const int id = order[k];
    Node node{};
    node.feature = feature.at(id).get<std::uint16_t>();
    node.value = condition.at(id).get<float>();
    if (left.at(id).get<int>() == -1) {
      node.next = base + static_cast<std::uint32_t>(k);
      node.step = 0;
      node.feature = 0;
    } else {
      node.next = base + static_cast<std::uint32_t>(order.size());
      node.step = 1;
      node.default_left = default_left.at(id).get<int>() != 0;
      order.push_back(left.at(id).get<int>());
      order.push_back(right.at(id).get<int>());
      depth_of.push_back(depth_of[k] + 1);
      depth_of.push_back(depth_of[k] + 1);
      depth = std::max(depth, depth_of[k] + 1);
    }
    if (node.feature >= forest.features) return "a split on a feature beyond num_feature";
    forest.nodes.push_back(node);
  }
  forest.roots.push_back(base);
  forest.depths.push_back(depth);
  return "";
}

}  // namespace

std::string ReadXgboostJson(const std::string& text, Forest& forest) {
  try {
    const auto json = nlohmann::json::parse(text);
    const auto& learner = json.at("learner");
    const auto& param = learner.at("learner_model_param");
    if (learner.at("objective").at("name").get<std::string>() != "reg:squarederror") {
      return "only reg:squarederror models are read here";
    }
    if (param.contains("num_target") && param.at("num_target").get<std::string>() != "1") {
      return "only single-output models are read here";
    }
    forest.base_score = ParseFloat(param.at("base_score"));
    forest.features =
        static_cast<std::uint32_t>(std::stoul(param.at("num_feature").get<std::string>()));
    const auto& model = learner.at("gradient_booster").at("model");
    for (const auto& tree : model.at("trees")) {
      std::string error = AppendTree(tree, forest);
      if (!error.empty()) return error;
    }
    for (const auto& info : model.at("tree_info")) {
      if (info.get<int>() != 0) return "only one output group is read here";
    }
  } catch (const nlohmann::json::exception& e) {
    return e.what();
  }
  return "";
}

void Predict(const Forest& forest, const float* rows, std::size_t row_count, float* out) {
  const Node* nodes = forest.nodes.data();
  const std::size_t stride = forest.features;
  for (std::size_t begin = 0; begin < row_count; begin += kBlockRows) {
    const std::size_t end = std::min(row_count, begin + kBlockRows);
    std::fill(out + begin, out + end, forest.base_score);
    for (std::size_t t = 0; t < forest.roots.size(); ++t) {
      const std::uint32_t root = forest.roots[t];
      const std::uint32_t depth = forest.depths[t];
      std::size_t r = begin;
      for (; r + kLanes <= end; r += kLanes) {
        std::uint32_t at[kLanes];
        for (std::size_t l = 0; l < kLanes; ++l) at[l] = root;
        for (std::uint32_t level = 0; level < depth; ++level) {
          for (std::size_t l = 0; l < kLanes; ++l) {
            const Node& n = nodes[at[l]];
            at[l] = n.next + (GoesRight(n, rows[(r + l) * stride + n.feature]) & n.step);
          }
        }
        for (std::size_t l = 0; l < kLanes; ++l) out[r + l] += nodes[at[l]].value;
      }
      for (; r < end; ++r) {
        std::uint32_t at = root;
        while (nodes[at].step != 0) {
          const Node& n = nodes[at];
          at = n.next + GoesRight(n, rows[r * stride + n.feature]);
        }
        out[r] += nodes[at].value;
      }
    }
  }
}

}  // namespace peers
