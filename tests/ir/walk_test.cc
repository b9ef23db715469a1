// The IR walk (src/ir/walk.h): the order of its hooks, the places it passes,
// reuse, and depth without native stack.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/builder.h"
#include "ir/walk.h"
#include "tests/dsl/ir_test_util.h"

namespace calcjit::ir {
namespace {

// Records every hook as text: "E3@1.0" is Enter(3) as operand 0 of node 1,
// "E5@root", "B1:2" Between(1, 2), "L3".
class Recorder {
 public:
  void Enter(NodeId node, WalkPlace place) {
    events.push_back(
        "E" + std::to_string(node) +
        (place.is_root() ? std::string("@root")
                         : "@" + std::to_string(place.parent) + "." + std::to_string(place.index)));
  }
  void Between(NodeId node, std::uint32_t index) {
    events.push_back("B" + std::to_string(node) + ":" + std::to_string(index));
  }
  void Leave(NodeId node, WalkPlace /*place*/) { events.push_back("L" + std::to_string(node)); }

  std::vector<std::string> events;
};

TEST(Walk, HooksRunPreInAndPostOrderLeftToRight) {
  // f = if(a, -b, c + 2): nodes a=0, b=1, -b=2, c=3, 2=4, c+2=5, if=6.
  ir_test::ExprBuilder b;
  b.Define("f", b.Op(Op::kIf, {b.Ref("a"), b.Op(Op::kNeg, {b.Ref("b")}),
                               b.Op(Op::kAdd, {b.Ref("c"), b.Const(2)})}));
  const FeatureSetIr ir = std::move(b).Finish();
  Recorder recorder;
  WalkExpression(ir, ir.features[0].root, recorder);
  EXPECT_EQ(recorder.events,
            (std::vector<std::string>{"E6@root", "E0@6.0", "L0", "B6:1", "E2@6.1", "E1@2.0", "L1",
                                      "L2", "B6:2", "E5@6.2", "E3@5.0", "L3", "B5:1", "E4@5.1",
                                      "L4", "L5", "L6"}));
}

TEST(Walk, LeavesAndVectorsGetEnterAndLeaveOnly) {
  ir_test::ExprBuilder b;
  b.Define("f", b.Vector(Op::kDot, "u", "v"));
  b.Define("g", b.Const(1));
  const FeatureSetIr ir = std::move(b).Finish();
  ExpressionWalker walker;  // reused across walks
  Recorder recorder;
  walker.Walk(ir, ir.features[0].root, recorder);
  walker.Walk(ir, ir.features[1].root, recorder);
  EXPECT_EQ(recorder.events, (std::vector<std::string>{"E0@root", "L0", "E1@root", "L1"}));
}

TEST(Walk, NaryOperandsAreVisitedInOrder) {
  ir_test::ExprBuilder b;
  b.Define("f", b.Op(Op::kSum, {b.Ref("a"), b.Ref("b"), b.Ref("c")}));
  const FeatureSetIr ir = std::move(b).Finish();
  Recorder recorder;
  WalkExpression(ir, ir.features[0].root, recorder);
  EXPECT_EQ(recorder.events, (std::vector<std::string>{"E3@root", "E0@3.0", "L0", "B3:1", "E1@3.1",
                                                       "L1", "B3:2", "E2@3.2", "L2", "L3"}));
}

// Counts, with only the hooks it needs (the others come from WalkHooks).
struct DepthCounter : WalkHooks {
  void Enter(NodeId /*node*/, WalkPlace /*place*/) { deepest = std::max(deepest, ++depth); }
  void Leave(NodeId /*node*/, WalkPlace /*place*/) { --depth; }
  std::uint32_t depth = 0;
  std::uint32_t deepest = 0;
};

TEST(Walk, TenThousandLevelsOnASmallStack) {
  IrBuilder builder(SourceFormat::kText);
  builder.BeginFeature();
  NodeId node = builder.AddRef(builder.Intern("x"));
  for (int level = 1; level < 10'000; ++level) node = builder.AddOp(Op::kNeg, {&node, 1});
  builder.EndFeature(builder.Intern("deep"), node);
  const FeatureSetIr ir = std::move(builder).Finish();
  DepthCounter counter;
  ASSERT_TRUE(ir_test::RunWithStack(ir_test::kJvmStack,
                                    [&] { WalkExpression(ir, ir.features[0].root, counter); }));
  EXPECT_EQ(counter.deepest, 10'000u);
  EXPECT_EQ(counter.depth, 0u);
}

}  // namespace
}  // namespace calcjit::ir
