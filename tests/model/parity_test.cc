// Parity with the real libraries on the committed data (tests/model/data):
// the margins of XGBoost 1.7.4 and 3.4.1 for models they trained, saved as
// JSON and UBJSON (make_models.py), and the raw scores of LightGBM 4.7.0
// (make_lightgbm_models.py). Both evaluators, every tier, every bit.
#include <filesystem>
#include <map>
#include <optional>
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

// Every file of the model (BASE.json and BASE.ubj: one model in both
// encodings) against the same outputs.
TEST_P(ParityTest, EveryBitAsTheLibrary) {
  const std::string base = std::string(CALCJIT_MODEL_DATA_DIR) + "/" + GetParam();
  const std::vector<std::string> paths = testing::ModelFilesOf(base);
  ASSERT_FALSE(paths.empty()) << base << ".cases has no model file beside it";
  for (const std::string& path : paths) {
    SCOPED_TRACE(path);
    const std::string bytes = testing::ReadFileBytes(path);
    const std::optional<ModelFormat> format = DetectModelFormat(path, bytes);
    ASSERT_TRUE(format) << path;
    auto model = LoadTreeModel(*format, bytes, path);
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    testing::ParityCases cases;
    ASSERT_EQ(testing::ReadCases(base + ".cases", (*model)->info().num_features,
                                 (*model)->info().num_outputs, &cases),
              "");
    ASSERT_GT(cases.rows, 0u);
    EXPECT_EQ(testing::CheckParity(**model, cases), "") << DescribeModel((*model)->info());
  }
}

INSTANTIATE_TEST_SUITE_P(Data, ParityTest, ::testing::ValuesIn(CaseNames()),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace calcjit::model

namespace calcjit::model {
namespace {

// Every row of the format table has a parity case: a model file of that
// format with the bits its own library gives (tests/model/data for the tree
// formats, tests/model/onnx/data for nets). A format added without one fails
// here, as an operator without a conformance case fails Conformance.
TEST(ModelFormats, EveryRowHasAParityCase) {
  std::map<ModelFormat, std::vector<std::string>> cases;
  for (const char* folder : {CALCJIT_MODEL_DATA_DIR, CALCJIT_ONNX_DATA_DIR}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(folder)) {
      if (entry.path().extension() != ".cases") continue;
      const std::string base = (entry.path().parent_path() / entry.path().stem()).string();
      for (const std::string& path : testing::ModelFilesOf(base)) {
        const std::optional<ModelFormat> format =
            DetectModelFormat(path, testing::ReadFileBytes(path));
        if (format) cases[*format].push_back(path);
      }
    }
  }
  for (const FormatRow& row : kFormatRows) {
    EXPECT_FALSE(cases[row.format].empty())
        << "the format '" << row.text_name << "' has no parity case (a model file of it beside "
        << "a .cases file of its library's outputs, in tests/model/data)";
  }
}

}  // namespace
}  // namespace calcjit::model
