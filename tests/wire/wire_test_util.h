// Helpers for the wire-format tests: a canonical dump to compare IRs, a
// thread with a JVM-sized stack, deep formulas, and an independent reference
// (libprotobuf's generated classes plus a straightforward recursive
// converter, fine for the shallow sets it is used on) that the library's own
// readers and writers are checked against.
#ifndef CALCJIT_TESTS_WIRE_WIRE_TEST_UTIL_H_
#define CALCJIT_TESTS_WIRE_WIRE_TEST_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "calcjit/status.h"
#include "calcjit/v1/feature_set.pb.h"
#include "ir/feature_set_ir.h"

namespace calcjit::wire_test {

// One line per input, definition and node, with names spelled out and floats
// as bits: two IRs are structurally equal iff their dumps are. (Every reader
// lays nodes out in the same post-order, so node ids compare too.)
std::string DumpIr(const ir::FeatureSetIr& ir);

// Runs `body` on a new thread whose stack is exactly `stack_bytes`.
void RunWithStack(std::size_t stack_bytes, const std::function<void()>& body);
inline constexpr std::size_t kJvmStack = std::size_t{1} << 20;

// One definition "deep" of `levels` nesting levels: alternately
// Binary SUM(<deeper>, x) and Unary NEG(<deeper>), around the leaf `x`.
ir::FeatureSetIr DeepChain(std::uint32_t levels);
// The field path of the innermost node of DeepChain(levels).
std::string DeepChainLeafPath(std::uint32_t levels);

// The reference semantics: the IR (or the error, with its location) that
// ReadProto and ReadJson must give for a message libprotobuf has parsed.
Result<ir::FeatureSetIr> IrFromMessage(const v1::FeatureSet& message);
// The message WriteProto and WriteJson must encode.
v1::FeatureSet MessageFromIr(const ir::FeatureSetIr& ir);
// MessageDifferencer::Equals, with NaN equal to NaN.
bool MessagesEqual(const v1::FeatureSet& a, const v1::FeatureSet& b, std::string* report);

// Hand-made protobuf bytes, for malformed and unusual encodings.
std::string Varint(std::uint64_t value);
std::string Tag(std::uint32_t field, int wire_type);
std::string VarintField(std::uint32_t field, std::uint64_t value);
std::string LenField(std::uint32_t field, std::string_view payload);
std::string Fixed32Field(std::uint32_t field, float value);

// Draws choices from a list (rapidcheck shrinks the list, and with it the
// sets built from it) and, once the list is used up, returns zeros.
class Choices {
 public:
  explicit Choices(std::vector<std::uint32_t> values) : values_(std::move(values)) {}
  std::uint32_t Below(std::uint32_t bound) {  // in [0, bound)
    const std::uint32_t value = next_ < values_.size() ? values_[next_] : 0;
    ++next_;
    return bound == 0 ? 0 : value % bound;
  }
  bool OneIn(std::uint32_t n) { return Below(n) == 0; }

 private:
  std::vector<std::uint32_t> values_;
  std::size_t next_ = 0;
};

// `count` choices from `rng`, for the seeded (non-shrinking) loops.
std::vector<std::uint32_t> RandomChoices(std::mt19937& rng, std::size_t count);

// A valid random set (operators, operands, names all fine), at most
// `max_depth` deep, built with IrBuilder. Floats include -0, subnormals,
// infinities, FLT_MAX and, with `allow_nan`, the quiet NaN 0x7FC00000.
ir::FeatureSetIr RandomIr(Choices& choices, std::uint32_t max_depth, bool allow_nan);

// A random message; with `break_rules` it also breaks the rules now and then
// (unset or unknown operators, missing operands, no kind, empty names,
// unknown scopes, unspecified or unknown model formats).
v1::FeatureSet RandomMessage(std::mt19937& rng, bool break_rules = true);

}  // namespace calcjit::wire_test

#endif  // CALCJIT_TESTS_WIRE_WIRE_TEST_UTIL_H_
