// libFuzzer target: the ONNX reader (src/model/onnx: the wire scan over
// libonnx's messages, the chain checks) and the net's block layout
// (model::LoadModel) on any bytes, then the evaluation of what they accept
// (model_check.h). There is no writer of ONNX files, so nothing round-trips.
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/model_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return calcjit::fuzz::CheckModelFile(calcjit::ir::ModelFormat::kOnnx, data, size, "fuzz.onnx");
}
