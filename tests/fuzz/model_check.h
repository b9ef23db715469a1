// What every model reader target checks on a file its loader accepts: the
// loaded model evaluates a small batch of awkward values (NaN, signed zeros,
// infinities, subnormals, huge and tiny numbers) with the reference
// evaluator and with the block evaluator on every instruction-set tier this
// CPU has, without a sanitizer report, and every tier gives the reference's
// bits (any NaN matches any NaN: the models' NaN payloads are not part of
// the contract, the engine canonicalizes them).
#ifndef CALCJIT_TESTS_FUZZ_MODEL_CHECK_H_
#define CALCJIT_TESTS_FUZZ_MODEL_CHECK_H_

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "calcjit/cpu.h"
#include "math/fp_env.h"
#include "model/model.h"
#include "tests/fuzz/round_trip.h"

namespace calcjit::fuzz {

// Larger models are read and checked, but not evaluated: the batch would
// cost more memory than the fuzzer's limit, and says nothing more.
inline constexpr std::uint32_t kMaxEvaluatedWidth = 4096;
inline constexpr std::size_t kItems = 11;

inline float AwkwardValue(std::size_t k) {
  static const float kValues[] = {std::numeric_limits<float>::quiet_NaN(),
                                  0.0f,
                                  -0.0f,
                                  1.0f,
                                  -1.5f,
                                  0.5f,
                                  3e38f,
                                  -std::numeric_limits<float>::infinity(),
                                  std::numeric_limits<float>::denorm_min(),
                                  1e-35f,
                                  7.0f,
                                  -2e9f,
                                  std::numeric_limits<float>::infinity()};
  return kValues[k % std::size(kValues)];
}

// Scratch for a block evaluator: `bytes`, 64-byte aligned.
struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
inline std::unique_ptr<void, FreeDeleter> AlignedScratch(std::size_t bytes) {
  return std::unique_ptr<void, FreeDeleter>(std::aligned_alloc(64, (bytes + 64) / 64 * 64));
}

// `reference(columns, n, outputs)` and `block(columns, n, outputs, isa)`
// evaluate the model; `features` and `outputs` are its shape.
template <typename Reference, typename Block>
void CheckModelEvaluation(std::uint32_t features, std::uint32_t outputs, Reference reference,
                          Block block) {
  if (features > kMaxEvaluatedWidth || outputs > kMaxEvaluatedWidth || outputs == 0) return;
  std::vector<std::vector<float>> columns(features, std::vector<float>(kItems));
  std::vector<const float*> column_ptrs;
  for (std::uint32_t j = 0; j < features; ++j) {
    for (std::size_t i = 0; i < kItems; ++i) columns[j][i] = AwkwardValue(i * 5 + j);
    column_ptrs.push_back(columns[j].data());
  }
  auto evaluate = [&](auto&& run) {
    std::vector<std::vector<float>> out(outputs, std::vector<float>(kItems, -7.25f));
    std::vector<float*> out_ptrs;
    for (auto& column : out) out_ptrs.push_back(column.data());
    run(column_ptrs.data(), out_ptrs.data());
    return out;
  };
  const auto expected =
      evaluate([&](const float* const* in, float* const* out) { reference(in, kItems, out); });
  for (const Isa isa : {Isa::kBaseline, Isa::kAvx2, Isa::kAvx512}) {
    if (!IsIsaSupported(isa)) continue;
    const auto actual =
        evaluate([&](const float* const* in, float* const* out) { block(in, kItems, out, isa); });
    for (std::uint32_t k = 0; k < outputs; ++k) {
      for (std::size_t i = 0; i < kItems; ++i) {
        const float want = expected[k][i];
        const float got = actual[k][i];
        const bool same = std::isnan(want) ? std::isnan(got)
                                           : std::bit_cast<std::uint32_t>(want) ==
                                                 std::bit_cast<std::uint32_t>(got);
        if (!same) {
          Fail("model: the block evaluator on " + std::string(IsaName(isa)) +
                   " differs from the reference",
               "output " + std::to_string(k) + ", item " + std::to_string(i));
        }
      }
    }
  }
}

// The body of every model reader target: the format's reader, checks and
// layout through model::LoadModel, the table the pipeline loads models with;
// then the evaluation of what it accepts, through the same interface the
// backends call.
inline int CheckModelFile(ir::ModelFormat format, const std::uint8_t* data, std::size_t size,
                          std::string_view file_name) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const Result<std::shared_ptr<const model::Model>> loaded =
      model::LoadModel(format, bytes, file_name);
  if (!loaded.ok()) {
    if (loaded.status().message().empty()) Fail("an error without a message", bytes);
    return 0;
  }
  const model::Model& m = **loaded;
  CheckModelEvaluation(
      m.summary().feature_count, m.summary().output_count,
      [&](const float* const* in, std::size_t n, float* const* out) {
        m.EvaluateReference(in, n, out);
      },
      [&](const float* const* in, std::size_t n, float* const* out, Isa isa) {
        const auto scratch = AlignedScratch(m.ScratchBytes(n));
        const math::ScopedFpEnv fp_env;
        m.Evaluate(isa, in, n, out, scratch.get());
      });
  return 0;
}

}  // namespace calcjit::fuzz

#endif  // CALCJIT_TESTS_FUZZ_MODEL_CHECK_H_
