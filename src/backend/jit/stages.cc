#include "backend/jit/stages.h"

#include <algorithm>

#include "backend/jit/vector_kernels.h"

namespace calcjit::jit {

bool IsColumnCall(const program::Region& piece, std::uint32_t v) {
  if (!HasVectorKernel(piece.nodes[v].op)) return false;
  for (const program::RegionOperand& operand : piece.OperandsOf(v)) {
    if (operand.kind != program::RegionOperand::Kind::kNode &&
        operand.kind != program::RegionOperand::Kind::kRead) {
      return false;
    }
  }
  return true;
}

namespace {

// Moves each computed node (not a call) to the latest compute level its users
// allow: the level of its first computing user, or the one before its first
// calling user. ASAP levels computed every value whose operands are inputs in
// the first stage and kept it in a buffer until its use, many stages later;
// computed where first used, most such values need no buffer at all. Users
// come after their operands, so one backward pass settles every node after
// its users; a node keeps its level when nothing in the piece reads it.
void DelayToFirstUse(const program::Region& piece, std::vector<std::uint32_t>& level) {
  constexpr std::uint32_t kNone = ~std::uint32_t{0};
  std::vector<std::uint32_t> latest(piece.nodes.size(), kNone);
  for (std::size_t v = piece.nodes.size(); v-- > 0;) {
    const bool call = HasVectorKernel(piece.nodes[v].op);
    if (!call && latest[v] != kNone) level[v] = latest[v];
    const std::uint32_t limit = call ? level[v] - 1 : level[v];
    for (const program::RegionOperand& operand : piece.OperandsOf(static_cast<std::uint32_t>(v))) {
      if (operand.kind != program::RegionOperand::Kind::kNode) continue;
      latest[operand.index] = std::min(latest[operand.index], limit);
    }
  }
}

}  // namespace

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
  for (std::uint32_t v = 0; v < count; ++v) {
    std::uint32_t ready = 0;  // the first compute level in which every operand is known
    for (const program::RegionOperand& operand : piece.OperandsOf(v)) {
      if (operand.kind != program::RegionOperand::Kind::kNode) continue;
      const std::uint32_t at = level[operand.index];
      ready = std::max(ready, at % 2 == 1 ? at + 1 : at);
    }
    level[v] = HasVectorKernel(piece.nodes[v].op) ? ready + 1 : ready;
    levels = std::max(levels, level[v] + 1);
  }
  DelayToFirstUse(piece, level);
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
  // Which nodes need a buffer, the last stage that reads each and, in that
  // stage, its last reader: a column call's value goes to its buffer (where
  // its column kernel puts it), and a value read in a later stage than its own.
  std::vector<bool> buffered(count, false);
  std::vector<std::uint32_t> last_use(count, 0);
  std::vector<std::uint32_t> last_reader(count, 0);
  for (std::uint32_t v = 0; v < count; ++v) {
    last_use[v] = std::max(last_use[v], plan.stage[v]);
    if (IsColumnCall(piece, v)) buffered[v] = true;
    for (const program::RegionOperand& operand : piece.OperandsOf(v)) {
      if (operand.kind != program::RegionOperand::Kind::kNode) continue;
      const std::uint32_t x = operand.index;
      if (plan.stage[v] >= last_use[x]) last_reader[x] = v;  // readers come in node order
      last_use[x] = std::max(last_use[x], plan.stage[v]);
      if (plan.stage[x] != plan.stage[v]) buffered[x] = true;
    }
  }
  // Buffers are reused as soon as the stage being emitted allows: with a
  // fresh buffer per value, the 193-node ranking_like_30 piece used 101
  // buffers (206 KB per block, past L1) where the VM holds 17 columns. A value
  // read for the last time in stage s (from an earlier stage's buffer) frees
  // its buffer for the values stage s stores:
  //  - in a compute stage, for all of them: its loop loads every buffer it
  //    reads before it stores any (codegen.cc, EmitStage);
  //  - in a call stage, for the calls after its last reader: such a stage is
  //    one column kernel call per node in node order, and a kernel may write
  //    the column it reads (as the VM's do, in place).
  // A value stored in stage s keeps its buffer to the end of s (a call
  // stage's writes read the calls' buffers after the last call).
  std::vector<bool> call_stage(plan.stage_count, false);
  for (std::uint32_t v = 0; v < count; ++v) {
    if (HasVectorKernel(piece.nodes[v].op)) call_stage[plan.stage[v]] = true;
  }
  std::vector<std::vector<std::uint32_t>> dying_in(plan.stage_count);  // read last, stored before
  std::vector<std::vector<std::uint32_t>> defined_in(plan.stage_count);
  for (std::uint32_t v = 0; v < count; ++v) {
    if (!buffered[v]) continue;
    defined_in[plan.stage[v]].push_back(v);
    if (last_use[v] > plan.stage[v]) dying_in[last_use[v]].push_back(v);
  }
  std::vector<std::int32_t> free_buffers;
  for (std::uint32_t s = 0; s < plan.stage_count; ++s) {
    std::vector<std::uint32_t>& dying = dying_in[s];
    // Last readers in node order, so a call stage frees each buffer once its
    // last reader has run.
    std::sort(dying.begin(), dying.end(),
              [&](std::uint32_t a, std::uint32_t b) { return last_reader[a] < last_reader[b]; });
    std::size_t freed = 0;
    for (const std::uint32_t v : defined_in[s]) {
      while (freed < dying.size() && (!call_stage[s] || last_reader[dying[freed]] <= v)) {
        free_buffers.push_back(plan.buffer[dying[freed++]]);
      }
      if (free_buffers.empty()) {
        plan.buffer[v] = static_cast<std::int32_t>(plan.buffer_count++);
      } else {
        plan.buffer[v] = free_buffers.back();
        free_buffers.pop_back();
      }
    }
    for (; freed < dying.size(); ++freed) free_buffers.push_back(plan.buffer[dying[freed]]);
    for (const std::uint32_t v : defined_in[s]) {
      if (last_use[v] == s) free_buffers.push_back(plan.buffer[v]);
    }
  }
  return plan;
}

}  // namespace calcjit::jit
