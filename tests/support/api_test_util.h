// Helpers the tests of the public API share.
#ifndef CALCJIT_TESTS_SUPPORT_API_TEST_UTIL_H_
#define CALCJIT_TESTS_SUPPORT_API_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

#include "calcjit/calcjit.hpp"

namespace calcjit::testing_util {

inline std::uint32_t Bits(float v) {
  std::uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

// The bits of every output of the batch's last evaluation, output after
// output: what tests compare between backends, tiers and pass lists.
inline std::vector<std::uint32_t> OutputBits(const Engine& engine, const Batch& batch) {
  std::vector<std::uint32_t> bits;
  for (std::size_t k = 0; k < engine.schema().outputs.size(); ++k) {
    for (const float v : batch.Output(k)) bits.push_back(Bits(v));
  }
  return bits;
}

// A set in the text syntax that must load (a failure is reported, with the
// diagnostics, in the calling test).
inline FeatureSet ParseText(std::string_view text) {
  Result<FeatureSet> set = FeatureSet::Parse(text, Format::kText);
  EXPECT_TRUE(set.ok()) << set.status().ToString();
  return std::move(set).value();
}

}  // namespace calcjit::testing_util

#endif  // CALCJIT_TESTS_SUPPORT_API_TEST_UTIL_H_
