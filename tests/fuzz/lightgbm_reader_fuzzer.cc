// libFuzzer target: the LightGBM text model reader (src/model/tree/lightgbm_reader.cc),
// the tree checks and the block layout (model::LoadModel) on any bytes, then
// the evaluation of what they accept (model_check.h). There is no writer of
// model files, so nothing round-trips.
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/model_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return calcjit::fuzz::CheckModelFile(calcjit::ir::ModelFormat::kLightgbmText, data, size,
                                       "fuzz.txt");
}
