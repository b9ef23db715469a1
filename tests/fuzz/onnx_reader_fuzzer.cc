// libFuzzer target: the ONNX reader (src/model/onnx: the wire scan over
// libonnx's messages, the chain checks) and the net's block layout
// (LoadOnnxModel) on any bytes, then the evaluation of what they accept
// (model_check.h). There is no writer of ONNX files, so nothing round-trips.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "model/onnx/block_evaluator.h"
#include "model/onnx/loader.h"
#include "model/onnx/reference_evaluator.h"
#include "tests/fuzz/model_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace calcjit;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto loaded = model::LoadOnnxModel(bytes, "fuzz.onnx");
  if (!loaded.ok()) {
    if (loaded.status().message().empty()) fuzz::Fail("an error without a message", bytes);
    return 0;
  }
  const model::LoadedOnnxModel& m = **loaded;
  fuzz::CheckModelEvaluation(
      m.info().num_features, m.info().num_outputs,
      [&](const float* const* in, std::size_t n, float* const* out) {
        model::EvaluateReference(*m.net, in, n, out);
      },
      [&](const float* const* in, std::size_t n, float* const* out, Isa isa) {
        const auto scratch = fuzz::AlignedScratch(model::EvaluateScratchBytes(m.prepared, n));
        model::Evaluate(m.prepared, in, n, out, scratch.get(), isa);
      });
  return 0;
}
