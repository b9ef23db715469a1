// calcjit_model_parity MODEL CASES: loads a tree model (its format from its
// content, calcjit::DetectModelFormat), reads its parity cases and checks that the reference and
// block evaluators give exactly the expected bits. Exit status 1 on any mismatch. Run by
// fresh_parity.py on models trained at test time.
#include <cstdio>
#include <optional>
#include <string>

#include "parity_cases.h"

int main(int argc, char** argv) {
  using namespace calcjit::model;
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s MODEL CASES\n", argv[0]);
    return 2;
  }
  const std::string path = argv[1];
  const std::string bytes = testing::ReadFileBytes(path);
  const std::optional<calcjit::ModelFormat> format = calcjit::DetectModelFormat(path, bytes);
  if (!format) {
    std::fprintf(stderr, "%s: not a model file calcjit recognizes\n", path.c_str());
    return 1;
  }
  auto model = LoadTreeModel(*format, bytes, path);
  if (!model.ok()) {
    std::fprintf(stderr, "%s\n", model.status().ToString().c_str());
    return 1;
  }
  testing::ParityCases cases;
  std::string error = testing::ReadCases(argv[2], (*model)->info().num_features,
                                         (*model)->info().num_outputs, &cases);
  if (!error.empty()) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  const std::string report = testing::CheckParity(**model, cases);
  std::printf("%s: %s, %zu rows: %s\n", path.c_str(), DescribeModel((*model)->info()).c_str(),
              cases.rows, report.empty() ? "every bit equal" : "MISMATCH");
  if (!report.empty()) {
    std::fprintf(stderr, "%s", report.c_str());
    return 1;
  }
  return 0;
}
