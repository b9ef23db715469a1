// Shadow validation that cannot compare is loud: refused when set, and said
// in the stats when a later reload makes it so.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "calcjit/calcjit.hpp"
#include "tests/support/api_test_util.h"

namespace calcjit {
namespace {

using testing_util::ParseText;

ServingEngine Serve(const std::string& text) {
  ServingOptions options;
  options.engine.backend = Backend::kVm;
  Result<ServingEngine> engine = ServingEngine::Create(ParseText(text), options);
  EXPECT_TRUE(engine.ok()) << engine.status().ToString();
  return std::move(engine).value();
}

ShadowOptions Candidate(const std::string& text) {
  ShadowOptions options;
  options.fraction = 1.0;
  options.candidate = std::make_shared<const FeatureSet>(ParseText(text));
  return options;
}

std::string Refusal(ServingEngine& engine, const ShadowOptions& options) {
  const Status status = engine.SetShadow(options);
  return status.ok() ? "" : status.message();
}

TEST(ShadowTest, ACandidateThatNeedsAnInputTheVersionDoesNotReadIsRefused) {
  ServingEngine engine = Serve("input x; f = x * 2;");
  const std::string message = Refusal(engine, Candidate("input x; input y; f = x * y;"));
  EXPECT_NE(message.find("input 'y'"), std::string::npos) << message;
  EXPECT_NE(message.find("version 1"), std::string::npos) << message;
  // With a default, the candidate runs on what the sessions bind.
  EXPECT_EQ(Refusal(engine, Candidate("input x; input y = 3; f = x * y;")), "");
}

TEST(ShadowTest, ACandidateWithAnotherShapeOrNoCommonOutputIsRefused) {
  ServingEngine engine = Serve("input x; f = x * 2;");
  const std::string shape = Refusal(engine, Candidate("input x: query; f = x * 2;"));
  EXPECT_NE(shape.find("an item scalar in version 1 but a query scalar"), std::string::npos)
      << shape;
  const std::string outputs = Refusal(engine, Candidate("input x; g = x * 2;"));
  EXPECT_NE(outputs.find("none of the outputs"), std::string::npos) << outputs;
}

TEST(ShadowTest, AReloadThatLeavesTheShadowUnableToRunIsReported) {
  ServingEngine engine = Serve("input x; input y = 1; f = x * y;");
  ASSERT_EQ(Refusal(engine, Candidate("input x; input y; f = x * y;")), "");
  std::vector<float> x = {1, 2, 3};
  std::vector<float> y = {4, 5, 6};
  {
    Session session(engine);
    session.SetItemCount(3);
    ASSERT_TRUE(session.BindInput("x", x).ok());
    ASSERT_TRUE(session.BindInput("y", y).ok());
    ASSERT_TRUE(session.Evaluate().ok());
    engine.DrainShadow();
    EXPECT_EQ(engine.Stats().shadow_evaluations, 1u);
    EXPECT_EQ(engine.Stats().shadow_note, "");
  }
  // Version 2 no longer reads y, which the candidate needs.
  ASSERT_TRUE(engine.Reload("input x; f = x * 2;", Format::kText).ok());
  Session session(engine);
  session.SetItemCount(3);
  ASSERT_TRUE(session.BindInput("x", x).ok());
  ASSERT_TRUE(session.Evaluate().ok());
  engine.DrainShadow();
  const VersionStats stats = engine.Stats();
  EXPECT_EQ(stats.shadow_dropped, 1u);
  EXPECT_NE(stats.shadow_note.find("input 'y'"), std::string::npos) << stats.shadow_note;
  EXPECT_NE(stats.shadow_note.find("version 2"), std::string::npos) << stats.shadow_note;
}

}  // namespace
}  // namespace calcjit
