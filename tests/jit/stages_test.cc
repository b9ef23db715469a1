// Staged pieces (backend/jit/stages.h): the plan's rules, and the same bits as
// one loop, the VM and the reference interpreter, across block boundaries and
// in the tail.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "backend/jit/compiler.h"
#include "backend/jit/stages.h"
#include "backend/jit/vector_kernels.h"
#include "calcjit/calcjit.hpp"
#include "runtime/internal.h"
#include "tests/support/api_test_util.h"

namespace calcjit::jit {
namespace {

using testing_util::ParseText;

// Wide and deep: 12 features of a dozen nodes each that mix the expensive
// kernels (whose calls clobber every register) with cheap arithmetic, then a
// chain of tanh that keeps every feature live.
std::string WideSet() {
  std::string text = "input x; input y;\n";
  for (int k = 0; k < 12; ++k) {
    const std::string c = std::to_string(k + 1);
    text += "f" + std::to_string(k) + " = log1p(abs(x * " + c +
            " - y)) + exp(-abs(y)) * sigmoid(x + " + c + ") - tanh(y / (abs(x) + " + c +
            ")) + pow(abs(x) + 1, 0.5);\n";
  }
  text += "g = tanh(f0";
  for (int k = 1; k < 12; ++k) text += " + tanh(f" + std::to_string(k);
  text += std::string(11, ')') + ");\n";
  return text;
}

const program::Region& OnlyLargeRegion(const Engine& engine) {
  const auto& program = *engine.compiled().prepared()->program;
  const program::Region* largest = program.Regions().front();
  for (const program::Region* region : program.Regions()) {
    if (region->nodes.size() > largest->nodes.size()) largest = region;
  }
  return *largest;
}

// Calls `visit(user, operand)` for every node operand of every node, users in
// node order.
template <typename Visit>
void ForEachNodeOperand(const program::Region& piece, Visit visit) {
  for (std::uint32_t v = 0; v < piece.nodes.size(); ++v) {
    for (const program::RegionOperand& operand : piece.OperandsOf(v)) {
      if (operand.kind == program::RegionOperand::Kind::kNode) visit(v, operand.index);
    }
  }
}

// Per stage of `plan`, whether it holds a call to an expensive kernel.
std::vector<bool> CallStages(const program::Region& piece, const StagePlan& plan) {
  std::vector<bool> calls(plan.stage_count, false);
  for (std::uint32_t v = 0; v < piece.nodes.size(); ++v) {
    if (HasVectorKernel(piece.nodes[v].op)) calls[plan.stage[v]] = true;
  }
  return calls;
}

TEST(StagesTest, CallsStandAloneAndCrossingValuesGetBuffers) {
  const Result<Engine> engine = Engine::Compile(ParseText(WideSet()), EngineOptions{Backend::kVm});
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  const program::Region& piece = OnlyLargeRegion(*engine);
  ASSERT_GT(piece.nodes.size(), kMaxStageNodes);
  const StagePlan plan = MakeStagePlan(piece);
  ASSERT_TRUE(plan.staged());
  std::vector<std::uint32_t> nodes_in(plan.stage_count, 0);
  std::vector<bool> has_call(plan.stage_count, false), has_other(plan.stage_count, false);
  for (std::uint32_t v = 0; v < piece.nodes.size(); ++v) {
    const std::uint32_t s = plan.stage[v];
    ASSERT_LT(s, plan.stage_count);
    ++nodes_in[s];
    (HasVectorKernel(piece.nodes[v].op) ? has_call : has_other)[s] = true;
    const program::RegionNode& node = piece.nodes[v];
    for (std::uint32_t o = 0; o < node.operand_count; ++o) {
      const program::RegionOperand& operand = piece.operands[node.first_operand + o];
      if (operand.kind != program::RegionOperand::Kind::kNode) continue;
      EXPECT_LE(plan.stage[operand.index], s) << "an operand after its user";
      if (HasVectorKernel(piece.nodes[operand.index].op) || HasVectorKernel(node.op)) {
        EXPECT_LT(plan.stage[operand.index], s) << "a call shares a stage with its operand or user";
      }
      if (plan.stage[operand.index] != s) {
        EXPECT_GE(plan.buffer[operand.index], 0);
      }
    }
  }
  for (std::uint32_t s = 0; s < plan.stage_count; ++s) {
    EXPECT_GT(nodes_in[s], 0u) << "stage " << s << " is empty";
    EXPECT_FALSE(has_call[s] && has_other[s]) << "stage " << s << " mixes calls and arithmetic";
    if (!has_call[s]) {
      EXPECT_LE(nodes_in[s], kMaxStageNodes);
    }
  }
  EXPECT_EQ(plan.ScratchFloats(), plan.buffer_count * static_cast<std::size_t>(kStageBufferStride));
  EXPECT_FALSE(MakeStagePlan(piece, false).staged());
}

// The stage plan of the wide set's largest piece.
class WideSetPlanTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(engine_.ok()) << engine_.status().ToString();
    piece_ = &OnlyLargeRegion(*engine_);
    plan_ = MakeStagePlan(*piece_);
    ASSERT_TRUE(plan_.staged());
  }

  const Result<Engine> engine_ = Engine::Compile(ParseText(WideSet()), EngineOptions{Backend::kVm});
  const program::Region* piece_ = nullptr;
  StagePlan plan_;
};

// Buffers are shared only by values whose lifetimes (the stage that stores
// the value to the last that reads it) do not meet, or meet in the stage that
// reads the older value for the last time and stores the newer one, when that
// stage's code allows it: a compute stage loads every buffer it reads before
// it stores any, and a call stage runs one column kernel per call in node
// order, so there the newer value must be a call at or after every reader of
// the older one. And buffers are shared, in place too.
TEST_F(WideSetPlanTest, BuffersAreReusedOnlyOnceTheirValueIsDead) {
  const program::Region& piece = *piece_;
  const StagePlan& plan = plan_;
  const std::size_t count = piece.nodes.size();
  std::vector<std::uint32_t> last(plan.stage.begin(), plan.stage.end());
  std::vector<std::vector<std::uint32_t>> readers(count);
  const std::vector<bool> call_stage = CallStages(piece, plan);
  ForEachNodeOperand(piece, [&](std::uint32_t user, std::uint32_t operand) {
    last[operand] = std::max(last[operand], plan.stage[user]);
    readers[operand].push_back(user);
  });
  const auto buffered = static_cast<std::uint32_t>(
      std::count_if(plan.buffer.begin(), plan.buffer.end(), [](std::int32_t b) { return b >= 0; }));
  std::uint32_t shared_in_a_stage = 0;
  for (std::uint32_t a = 0; a < count; ++a) {
    if (plan.buffer[a] < 0) continue;
    EXPECT_LT(plan.buffer[a], static_cast<std::int32_t>(plan.buffer_count));
    for (std::uint32_t b = 0; b < count; ++b) {
      if (b == a || plan.buffer[b] != plan.buffer[a] || plan.stage[b] < plan.stage[a]) continue;
      if (plan.stage[b] == plan.stage[a] && b < a) continue;  // each pair once
      // `a` is the older value, `b` the newer.
      if (last[a] < plan.stage[b]) continue;
      const std::uint32_t s = plan.stage[b];
      bool allowed = last[a] == s && plan.stage[a] < s;
      if (allowed && call_stage[s]) {
        for (const std::uint32_t r : readers[a]) allowed &= plan.stage[r] != s || r <= b;
      }
      EXPECT_TRUE(allowed) << "nodes " << a << " and " << b << " share buffer " << plan.buffer[a]
                           << " while both live";
      ++shared_in_a_stage;
    }
  }
  EXPECT_LT(plan.buffer_count, buffered) << "no buffer was reused";
  EXPECT_GT(shared_in_a_stage, 0u) << "no buffer was reused in the stage that frees it";
}

// A computed value (not a call) is computed in the latest compute stage its
// first user allows: no call stage lies between its own stage and its first
// user's, so a value of inputs alone is not kept in a buffer across calls
// that do not need it.
TEST_F(WideSetPlanTest, ValuesAreComputedWhereFirstUsed) {
  const program::Region& piece = *piece_;
  const StagePlan& plan = plan_;
  const std::size_t count = piece.nodes.size();
  constexpr std::uint32_t kNone = ~std::uint32_t{0};
  std::vector<std::uint32_t> first_use(count, kNone);
  const std::vector<bool> call_stage = CallStages(piece, plan);
  ForEachNodeOperand(piece, [&](std::uint32_t user, std::uint32_t operand) {
    first_use[operand] = std::min(first_use[operand], plan.stage[user]);
  });
  std::uint32_t checked = 0;
  for (std::uint32_t v = 0; v < count; ++v) {
    if (HasVectorKernel(piece.nodes[v].op) || first_use[v] == kNone) continue;
    for (std::uint32_t s = plan.stage[v] + 1; s < first_use[v]; ++s) {
      EXPECT_FALSE(call_stage[s]) << "node " << v << " is computed in stage " << plan.stage[v]
                                  << ", before call stage " << s << ", first used in stage "
                                  << first_use[v];
    }
    ++checked;
  }
  EXPECT_GT(checked, 0u);
}

TEST(StagesTest, SmallPiecesWithoutCallsStayOneLoop) {
  const Result<Engine> engine =
      Engine::Compile(ParseText("input x; f = x * 2 + x * x - 1;"), EngineOptions{Backend::kVm});
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  EXPECT_FALSE(MakeStagePlan(OnlyLargeRegion(*engine)).staged());
}

// A call with a constant operand cannot be a column call: a small piece of
// such calls stays one loop, the call a vector variant per 16 items, with no
// buffer.
TEST(StagesTest, CallsWithAConstantOperandStayInTheLoop) {
  const Result<Engine> engine =
      Engine::Compile(ParseText("input x; f = pow(x, 0.5) * 2 + 1;"), EngineOptions{Backend::kVm});
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  const program::Region& piece = OnlyLargeRegion(*engine);
  bool any_call = false;
  for (std::uint32_t v = 0; v < piece.nodes.size(); ++v) {
    any_call |= HasVectorKernel(piece.nodes[v].op);
    EXPECT_FALSE(IsColumnCall(piece, v));
  }
  ASSERT_TRUE(any_call);
  const StagePlan plan = MakeStagePlan(piece);
  EXPECT_FALSE(plan.staged());
  EXPECT_EQ(plan.buffer_count, 0u);
  const Result<std::string> ir = DumpPiece(piece, Isa::kAvx512, DumpStage::kIr);
  ASSERT_TRUE(ir.ok()) << ir.status().ToString();
  EXPECT_EQ(ir->find("calcjit_col_"), std::string::npos) << *ir;
  EXPECT_NE(ir->find("calcjit_vec_Pow"), std::string::npos) << *ir;
}

// A small piece with calls is staged, every call's value in a buffer, and a
// call stage is one call of the tier's column kernel per block.
TEST(StagesTest, CallStagesCallTheColumnKernels) {
  const Result<Engine> engine =
      Engine::Compile(ParseText("input x; f = exp(x) * 2 + log(x);"), EngineOptions{Backend::kVm});
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  const program::Region& piece = OnlyLargeRegion(*engine);
  const StagePlan plan = MakeStagePlan(piece);
  ASSERT_TRUE(plan.staged());
  for (std::uint32_t v = 0; v < piece.nodes.size(); ++v) {
    if (HasVectorKernel(piece.nodes[v].op)) {
      EXPECT_GE(plan.buffer[v], 0);
    }
  }
  EXPECT_FALSE(MakeStagePlan(piece, false).staged());
  for (const Isa isa : {Isa::kBaseline, Isa::kAvx2, Isa::kAvx512}) {
    const Result<std::string> ir = DumpPiece(piece, isa, DumpStage::kIr);
    ASSERT_TRUE(ir.ok()) << ir.status().ToString();
    const std::string& text = *ir;
    EXPECT_NE(text.find("call void @" + ColumnKernelName(ir::Op::kExp, isa)), std::string::npos);
    EXPECT_NE(text.find("call void @" + ColumnKernelName(ir::Op::kLog, isa)), std::string::npos);
    EXPECT_EQ(text.find("calcjit_vec_"), std::string::npos) << text;
  }
}

std::vector<std::uint32_t> Bits(const Engine& engine, std::size_t n) {
  std::vector<float> x(n), y(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 97) * 0.37f - 11.0f;
    y[i] = static_cast<float>(i % 31) * -0.61f + 4.5f;
  }
  if (n > 5) x[5] = std::numeric_limits<float>::quiet_NaN();
  Batch batch(engine);
  batch.SetItemCount(n);
  EXPECT_TRUE(batch.BindInput("x", x).ok());
  EXPECT_TRUE(batch.BindInput("y", y).ok());
  const Status status = engine.Evaluate(batch);
  EXPECT_TRUE(status.ok()) << status.ToString();
  std::vector<std::uint32_t> bits;
  for (std::size_t o = 0; o < engine.schema().outputs.size(); ++o) {
    for (float v : batch.Output(o)) {
      std::uint32_t b;
      std::memcpy(&b, &v, sizeof b);
      bits.push_back(b);
    }
  }
  return bits;
}

// One call alone, and pow (a binary column kernel): the column kernels give
// the vector variants' bits, in every block and the tail.
TEST(StagesTest, ColumnCallStagesGiveTheSameBits) {
  const FeatureSet set =
      ParseText("input x; input y; f = log1p(x); g = pow(abs(x), y); h = tanh(y);");
  EngineOptions one_loop{Backend::kJit};
  one_loop.disabled_passes = {"stage"};
  const Result<Engine> staged = Engine::Compile(set, EngineOptions{Backend::kJit});
  const Result<Engine> unstaged = Engine::Compile(set, one_loop);
  const Result<Engine> reference = Engine::Compile(set, EngineOptions{Backend::kReference});
  ASSERT_TRUE(staged.ok() && unstaged.ok() && reference.ok());
  for (std::size_t n :
       {std::size_t{0}, std::size_t{1}, std::size_t{15}, std::size_t{16}, std::size_t{17},
        static_cast<std::size_t>(kStageBlock), 2 * static_cast<std::size_t>(kStageBlock) + 33}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<std::uint32_t> want = Bits(*reference, n);
    EXPECT_EQ(Bits(*staged, n), want);
    EXPECT_EQ(Bits(*unstaged, n), want);
  }
}

TEST(StagesTest, StagedPiecesGiveTheSameBits) {
  const FeatureSet set = ParseText(WideSet());
  EngineOptions one_loop{Backend::kJit};
  one_loop.disabled_passes = {"stage"};
  const Result<Engine> staged = Engine::Compile(set, EngineOptions{Backend::kJit});
  const Result<Engine> unstaged = Engine::Compile(set, one_loop);
  const Result<Engine> vm = Engine::Compile(set, EngineOptions{Backend::kVm});
  const Result<Engine> reference = Engine::Compile(set, EngineOptions{Backend::kReference});
  ASSERT_TRUE(staged.ok() && unstaged.ok() && vm.ok() && reference.ok());
  // Within one block, a block and a tail, several blocks and a tail.
  for (std::size_t n : {std::size_t{1}, std::size_t{16}, std::size_t{37},
                        static_cast<std::size_t>(kStageBlock) + 21,
                        3 * static_cast<std::size_t>(kStageBlock) + 16}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<std::uint32_t> expected = Bits(*reference, n);
    EXPECT_EQ(Bits(*staged, n), expected);
    EXPECT_EQ(Bits(*unstaged, n), expected);
    EXPECT_EQ(Bits(*vm, n), expected);
  }
}

// The piece's function, called once with `n` items on made-up columns; the
// writes' bits, and whether a slot past n was written.
struct OneCall {
  std::vector<std::uint32_t> bits;
  bool wrote_past_n = false;
};
OneCall CallOnce(const program::Region& piece, PieceFunction function, std::size_t n,
                 std::size_t offset) {
  constexpr float kGuard = -12345.0f;
  std::vector<std::vector<float>> reads(piece.reads.size(), std::vector<float>(offset + n + 16));
  for (std::size_t r = 0; r < reads.size(); ++r) {
    for (std::size_t i = 0; i < reads[r].size(); ++i) {
      reads[r][i] = static_cast<float>((i * (r + 3)) % 89) * 0.21f - 7.0f;
    }
  }
  std::vector<std::vector<float>> writes(piece.writes.size(),
                                         std::vector<float>(offset + n + 16, kGuard));
  std::vector<const float*> read_pointers;
  for (const auto& column : reads) read_pointers.push_back(column.data() + offset);
  std::vector<float*> write_pointers;
  for (auto& column : writes) write_pointers.push_back(column.data() + offset);
  const std::vector<float> scalars(piece.scalars.size(), 0.25f);
  // The scratch, 64-byte aligned as the executor gives it.
  std::vector<float> scratch(MakeStagePlan(piece).ScratchFloats() + 16);
  auto* stage = reinterpret_cast<float*>((reinterpret_cast<std::uintptr_t>(scratch.data()) + 63) &
                                         ~std::uintptr_t{63});
  function(read_pointers.data(), scalars.data(), write_pointers.data(), n, stage);
  OneCall result;
  for (const auto& column : writes) {
    for (std::size_t i = 0; i < column.size(); ++i) {
      const bool inside = i >= offset && i < offset + n;
      if (!inside) {
        result.wrote_past_n |= column[i] != kGuard;
        continue;
      }
      std::uint32_t b;
      std::memcpy(&b, &column[i], sizeof b);
      result.bits.push_back(b);
    }
  }
  return result;
}

// One call computes a batch of any n of at least one chunk, its last chunk
// overlapping the one before (codegen.h): the same bits as the batch cut
// into chunks, nothing written outside [0, n). Before, the function covered
// n & -16 and the engine ran the rest padded in a second call.
TEST(StagesTest, OneCallComputesEveryItemOfABatchOfAChunkOrMore) {
  const FeatureSet wide = ParseText(WideSet());
  const FeatureSet small = ParseText("input x; input y; f = x * 2 + y; g = abs(x - y);");
  for (const FeatureSet* set : {&wide, &small}) {
    const Result<Engine> engine = Engine::Compile(*set, EngineOptions{Backend::kVm});
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    const program::Region& piece = OnlyLargeRegion(*engine);
    SCOPED_TRACE(piece.name + (MakeStagePlan(piece).staged() ? " (staged)" : " (one loop)"));
    const Result<CompiledPiece> compiled = CompilePiece(piece, BestIsa(), false);
    ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
    const std::size_t block = static_cast<std::size_t>(kStageBlock);
    for (std::size_t n : {std::size_t{16}, std::size_t{17}, std::size_t{100}, block - 1, block + 1,
                          block + 100, 2 * block + 15}) {
      SCOPED_TRACE("n = " + std::to_string(n));
      const OneCall whole = CallOnce(piece, compiled->function, n, 3);
      EXPECT_FALSE(whole.wrote_past_n);
      // Chunk by chunk: each 16 items alone, the last 16 ending at n.
      std::vector<std::vector<std::uint32_t>> chunks;
      for (std::size_t start = 0; start < n; start += 16) {
        const std::size_t from = std::min(start, n - 16);
        chunks.push_back(CallOnce(piece, compiled->function, 16, 3 + from).bits);
        EXPECT_EQ(chunks.back().size(), 16 * piece.writes.size());
      }
      // Item i of write w, from the chunk that ends at n when i is in the tail.
      for (std::size_t w = 0; w < piece.writes.size(); ++w) {
        for (std::size_t i = 0; i < n; ++i) {
          const std::size_t c = std::min(i / 16, chunks.size() - 1);
          const std::size_t from = std::min(c * 16, n - 16);
          ASSERT_EQ(whole.bits[w * n + i], chunks[c][w * 16 + (i - from)])
              << "write " << w << ", item " << i;
        }
      }
    }
  }
}

}  // namespace
}  // namespace calcjit::jit
