// Helpers the tests of the public API share.
#ifndef CALCJIT_TESTS_SUPPORT_API_TEST_UTIL_H_
#define CALCJIT_TESTS_SUPPORT_API_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>

#include "calcjit/calcjit.hpp"

namespace calcjit::testing_util {

inline std::uint32_t Bits(float v) {
  std::uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
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
