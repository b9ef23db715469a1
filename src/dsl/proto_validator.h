// Pass 1 of the binary reader: is this a well-formed encoding of
// calcjit.v1.FeatureSet? The second pass (proto_reader.cc) then reads only
// what protobuf's merge rules keep, and can rely on the bytes being sound.
#ifndef CALCJIT_DSL_PROTO_VALIDATOR_H_
#define CALCJIT_DSL_PROTO_VALIDATOR_H_

#include <cstddef>
#include <string_view>

#include "calcjit/status.h"
#include "ir/limits.h"

namespace calcjit::dsl {

// Message nesting (the FeatureSet is level 0, an expression of depth d sits at
// level 2d and its Unary/Binary/... message at 2d + 1) down to which every
// byte is checked. Deeper messages are skipped by their length: the second
// pass reports any live expression nested that deep with its field path (the
// depth limit), so only bytes that no reading keeps go unchecked. libprotobuf
// itself stops at 100 levels.
inline constexpr std::size_t kMaxCheckedNesting = 2 * static_cast<std::size_t>(ir::kMaxDepth) + 8;
// Unknown groups nested deeper than this are an error (libprotobuf: 100).
inline constexpr std::size_t kMaxGroupNesting = kMaxCheckedNesting;

// Checks every field the way libprotobuf 3.21's ParseFromString does, in byte
// order, with an explicit stack: tags, varints, fixed-width values, lengths
// within their message, unknown fields of any wire type including groups
// (start and end matched), UTF-8 of every string field (also of oneof members
// that a later member replaces: libprotobuf parses them too), packed weights
// whose length is a multiple of 4. A known field with another wire type is an
// unknown field, as in libprotobuf. The first problem is a user error at
// "byte N".
Status CheckFeatureSetBytes(std::string_view bytes);

}  // namespace calcjit::dsl

#endif  // CALCJIT_DSL_PROTO_VALIDATOR_H_
