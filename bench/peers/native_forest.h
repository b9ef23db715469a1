// The peers' benchmark's "native" row: an XGBoost regression forest evaluated by a
// plain hand-written traversal, compiled with -march=native for this host only. It
// is the yardstick of what straightforward C++ reaches on this machine, not a
// second implementation of calcjit: it reads only what the benchmark's models use
// (numerical splits, one output, reg:squarederror's base score) and refuses the
// rest.
//
// Semantics, as XGBoost's: a node sends a row left when its feature is < the
// float32 threshold, or when the feature is NaN and the node's default is left;
// the margin is the float32 base score plus every tree's leaf, added in float32
// in tree order, so the outputs have XGBoost's bits.
#ifndef CALCJIT_BENCH_PEERS_NATIVE_FOREST_H_
#define CALCJIT_BENCH_PEERS_NATIVE_FOREST_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace peers {

// One node, 12 bytes. An inner node's children are adjacent (left at `next`,
// right at `next + 1`); a leaf has `next` = itself and `step` 0, so a walk may
// take more steps than the leaf's depth and stay on the leaf, with no branch.
struct Node {
  float value;  // the threshold, or the leaf's value
  std::uint16_t feature;
  std::uint8_t step;  // 1 for an inner node, 0 for a leaf
  std::uint8_t default_left;
  std::uint32_t next;  // the left child's index in the forest, or the leaf's own
};

struct Forest {
  float base_score = 0;
  std::uint32_t features = 0;
  std::vector<Node> nodes;
  std::vector<std::uint32_t> roots;   // per tree, its root's index in `nodes`
  std::vector<std::uint32_t> depths;  // per tree, its depth (steps to any leaf)
};

// Reads XGBoost's JSON model; an error message, empty when it succeeded.
std::string ReadXgboostJson(const std::string& text, Forest& forest);

// out[i] = the margin of row i of `rows` (row-major, forest.features floats per row).
void Predict(const Forest& forest, const float* rows, std::size_t row_count, float* out);

}  // namespace peers

#endif  // CALCJIT_BENCH_PEERS_NATIVE_FOREST_H_
