#include "backend/jit/stages.h"

#include <algorithm>

#include "backend/jit/vector_kernels.h"

namespace calcjit::jit {

bool IsColumnCall(const program::Region& piece, std::uint32_t v) {
  const program::RegionNode& node = piece.nodes[v];
  if (!HasVectorKernel(node.op)) return false;
  for (std::uint32_t o = 0; o < node.operand_count; ++o) {
    const program::RegionOperand::Kind kind = piece.operands[node.first_operand + o].kind;
    if (kind != program::RegionOperand::Kind::kNode &&
        kind != program::RegionOperand::Kind::kRead) {
      return false;
    }
  }
  return true;
}

StagePlan MakeStagePlan(const program::Region& piece, bool allow) {
  StagePlan plan;
  const std::size_t count = piece.nodes.size();
  plan.stage.assign(count, 0);
  plan.buffer.assign(count, -1);
  if (!allow) return plan;
  for (std::uint32_t v = 0; v < count; ++v) plan.calls |= IsColumnCall(piece, v);
  // A small piece without column calls stays one loop: its body fits the
  // instruction caches.
  if (count <= kMaxStageNodes && !plan.calls) return plan;
  // Levels: even for computing, odd for calls; each node at the earliest its
  // operands allow.
  std::vector<std::uint32_t> level(count, 0);
  std::uint32_t levels = 1;
  for (std::size_t v = 0; v < count; ++v) {
    const program::RegionNode& node = piece.nodes[v];
    std::uint32_t ready = 0;  // the first compute level in which every operand is known
    for (std::uint32_t o = 0; o < node.operand_count; ++o) {
      const program::RegionOperand& operand = piece.operands[node.first_operand + o];
      if (operand.kind != program::RegionOperand::Kind::kNode) continue;
      const std::uint32_t at = level[operand.index];
      ready = std::max(ready, at % 2 == 1 ? at + 1 : at);
    }
    level[v] = HasVectorKernel(piece.nodes[v].op) ? ready + 1 : ready;
    levels = std::max(levels, level[v] + 1);
  }
  // Stages: the levels in order, a compute level cut into runs of at most
  // kMaxStageNodes nodes in node order (a node's operands of its own level
  // come before it, so they are in its run or an earlier one).
  std::vector<std::vector<std::uint32_t>> by_level(levels);
  for (std::uint32_t v = 0; v < count; ++v) by_level[level[v]].push_back(v);
  std::uint32_t stage = 0;
  for (std::uint32_t l = 0; l < levels; ++l) {
    if (by_level[l].empty()) continue;
    std::uint32_t in_stage = 0;
    for (const std::uint32_t v : by_level[l]) {
      if (l % 2 == 0 && in_stage == kMaxStageNodes) {
        ++stage;
        in_stage = 0;
      }
      plan.stage[v] = stage;
      ++in_stage;
    }
    ++stage;
  }
  plan.stage_count = std::max<std::uint32_t>(stage, 1);
  if (!plan.staged()) return plan;
  // Which nodes need a buffer, and the last stage that reads each: a column
  // call's value goes to its buffer (where its column kernel puts it), and a
  // value read in a later stage than its own.
  std::vector<bool> buffered(count, false);
  std::vector<std::uint32_t> last_use(count, 0);
  for (std::uint32_t v = 0; v < count; ++v) {
    const program::RegionNode& node = piece.nodes[v];
    last_use[v] = std::max(last_use[v], plan.stage[v]);
    if (IsColumnCall(piece, v)) buffered[v] = true;
    for (std::uint32_t o = 0; o < node.operand_count; ++o) {
      const program::RegionOperand& operand = piece.operands[node.first_operand + o];
      if (operand.kind != program::RegionOperand::Kind::kNode) continue;
      last_use[operand.index] = std::max(last_use[operand.index], plan.stage[v]);
      if (plan.stage[operand.index] != plan.stage[v]) buffered[operand.index] = true;
    }
  }
  // Buffers are reused, stage by stage: one whose value was last read in an
  // earlier stage holds a value of this one. Never within a stage, where a
  // loop may store an item's new value before it loads the old one. With a
  // fresh buffer per value, the 193-node ranking_like_30 piece used 101
  // buffers (206 KB per block, past L1) where the VM holds 17 columns.
  std::vector<std::vector<std::uint32_t>> freed_after(plan.stage_count);
  std::vector<std::int32_t> free_buffers;
  std::vector<std::vector<std::uint32_t>> defined_in(plan.stage_count);
  for (std::uint32_t v = 0; v < count; ++v) {
    if (!buffered[v]) continue;
    defined_in[plan.stage[v]].push_back(v);
    freed_after[last_use[v]].push_back(v);
  }
  for (std::uint32_t s = 0; s < plan.stage_count; ++s) {
    for (const std::uint32_t v : defined_in[s]) {
      if (free_buffers.empty()) {
        plan.buffer[v] = static_cast<std::int32_t>(plan.buffer_count++);
      } else {
        plan.buffer[v] = free_buffers.back();
        free_buffers.pop_back();
      }
    }
    for (const std::uint32_t v : freed_after[s]) free_buffers.push_back(plan.buffer[v]);
  }
  return plan;
}

}  // namespace calcjit::jit
