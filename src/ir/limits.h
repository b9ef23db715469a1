// Limits checked when a set is loaded (spec section 5), each with a clear
// error beyond it.
#ifndef CALCJIT_IR_LIMITS_H_
#define CALCJIT_IR_LIMITS_H_

#include <cstddef>
#include <cstdint>

namespace calcjit::ir {

inline constexpr std::size_t kMaxNameBytes = 1024;
inline constexpr std::uint32_t kMaxDimension = 65536;
inline constexpr std::size_t kMaxNodes = 1'000'000;
// The contract asks for at least 2,000 levels. Nothing in calcjit recurses per
// level, so the bound only keeps hostile input from using unbounded memory
// for parser stacks; 10,000 leaves room for generated formulas.
inline constexpr std::uint32_t kMaxDepth = 10'000;

}  // namespace calcjit::ir

#endif  // CALCJIT_IR_LIMITS_H_
