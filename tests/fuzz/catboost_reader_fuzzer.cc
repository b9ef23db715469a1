// libFuzzer target: the CatBoost model readers (src/model/tree/catboost_json_reader.cc
// for the JSON export, catboost_cbm_reader.cc for .cbm files: the bytes pick one,
// "CBM1" the binary), the builder's checks and the block layout
// (model::LoadModel) on any bytes, then the evaluation of what they accept
// (model_check.h). There is no writer of model files, so nothing round-trips.
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/model_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return calcjit::fuzz::CheckModelFile(calcjit::ir::ModelFormat::kCatboost, data, size, "fuzz.cbm");
}
