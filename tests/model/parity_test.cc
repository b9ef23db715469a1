// Parity with the real libraries on the committed data (tests/model/data):
// XGBoost 1.7.4's own margins for models it trained (make_models.py), and
// LightGBM models written by hand with raw scores from an independent
// evaluator (lightgbm_cases.py). Both evaluators, every tier, every bit.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "parity_cases.h"

namespace calcjit::model {
namespace {

std::vector<std::string> CaseNames() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(CALCJIT_MODEL_DATA_DIR)) {
    if (entry.path().extension() == ".cases") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

class ParityTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ParityTest, EveryBitAsTheLibrary) {
  const std::string base = std::string(CALCJIT_MODEL_DATA_DIR) + "/" + GetParam();
  const bool xgboost = std::filesystem::exists(base + ".json");
  const std::string path = base + (xgboost ? ".json" : ".txt");
  auto model = LoadTreeModel(xgboost ? ModelFormat::kXgboostJson : ModelFormat::kLightgbmText,
                             testing::ReadFileBytes(path), path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  testing::ParityCases cases;
  ASSERT_EQ(testing::ReadCases(base + ".cases", (*model)->info().num_features,
                               (*model)->info().num_outputs, &cases),
            "");
  ASSERT_GT(cases.rows, 0u);
  EXPECT_EQ(testing::CheckParity(**model, cases), "") << DescribeModel((*model)->info());
}

INSTANTIATE_TEST_SUITE_P(Data, ParityTest, ::testing::ValuesIn(CaseNames()),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace calcjit::model
