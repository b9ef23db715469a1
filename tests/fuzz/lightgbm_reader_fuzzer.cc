// libFuzzer target: the LightGBM text model reader (src/model/lightgbm_text_reader.cc),
// the tree checks and the block layout (LoadTreeModel) on any bytes, then
// the evaluation of what they accept (model_check.h). There is no writer of
// model files, so nothing round-trips.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "model/block_evaluator.h"
#include "model/reference_evaluator.h"
#include "model/tree_model_loader.h"
#include "tests/fuzz/model_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace calcjit;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto loaded = model::LoadTreeModel(model::ModelFormat::kLightgbmText, bytes, "fuzz.txt");
  if (!loaded.ok()) {
    if (loaded.status().message().empty()) fuzz::Fail("an error without a message", bytes);
    return 0;
  }
  const model::LoadedTreeModel& m = **loaded;
  fuzz::CheckModelEvaluation(
      m.info().num_features, m.info().num_outputs,
      [&](const float* const* in, std::size_t n, float* const* out) {
        model::EvaluateReference(*m.ensemble, in, n, out);
      },
      [&](const float* const* in, std::size_t n, float* const* out, Isa isa) {
        const auto scratch = fuzz::AlignedScratch(model::EvaluateScratchBytes(m.prepared, n));
        model::Evaluate(m.prepared, in, n, out, scratch.get(), isa);
      });
  return 0;
}
