// The protobuf binary wire format at the level of single fields: varints,
// tags, fixed-width values, lengths and UTF-8, shared by the binary reader,
// its validator and the writer. Nothing here knows the calcjit schema.
//
// Reading follows libprotobuf 3.21's parser (parse_context.h), which is what
// ParseFromString runs, so that a message libprotobuf rejects is rejected here
// too and the other way round:
//  - a varint has at most 10 bytes; bits beyond 64 in the 10th byte are
//    dropped, as libprotobuf drops them;
//  - a tag has at most 5 bytes and keeps the low 32 bits of its value; field
//    number 0 and wire types 6 and 7 are malformed;
//  - a length has at most 5 bytes and is below 2^31, and a length-delimited
//    field must end within the message that contains it.
#ifndef CALCJIT_DSL_WIRE_FORMAT_H_
#define CALCJIT_DSL_WIRE_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace calcjit::dsl::wire {

enum class WireType : std::uint8_t {
  kVarint = 0,
  kFixed64 = 1,
  kLen = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

// Malformed bytes: the 0-based offset and what is wrong there. The offset is
// the field's tag for problems of the field as a whole (bad tag, field number
// 0, wire type 6 or 7, a stray end-group tag, a length that runs past the end
// of its message, an unterminated group) and the first byte of the value for
// a truncated or over-long value.
struct WireError {
  std::size_t offset = 0;
  std::string message;
};

// One field as it appears on the wire. Only the members for `type` are set.
struct WireField {
  std::uint32_t number = 0;
  WireType type = WireType::kVarint;
  std::size_t tag_offset = 0;
  std::uint64_t varint = 0;       // kVarint
  std::uint32_t fixed32 = 0;      // kFixed32
  std::uint64_t fixed64 = 0;      // kFixed64
  std::size_t payload_begin = 0;  // kLen: the payload is [payload_begin, payload_end)
  std::size_t payload_end = 0;
};

// Reads the field that starts at *pos (< end, the end of the enclosing
// message) and advances *pos past it. Start- and end-group tags are returned
// like any field (with no value): what they enclose is the caller's business.
// Returns false and fills *error on malformed bytes.
bool ReadField(std::string_view data, std::size_t* pos, std::size_t end, WireField* field,
               WireError* error);

// Skips the contents of a group whose start tag (field `number`, at
// `start_offset`) has just been read, up to and including its matching end
// tag; nested groups must match too. Uses a heap stack, never recursion.
// Groups nested more than `max_nesting` deep are rejected (libprotobuf stops
// at 100).
bool SkipGroup(std::string_view data, std::size_t* pos, std::size_t end, std::uint32_t number,
               std::size_t start_offset, std::size_t max_nesting, WireError* error);

// The offset of the first byte that makes `text` invalid UTF-8 (overlong
// forms, surrogates and code points above U+10FFFF are invalid, as in
// libprotobuf's check of proto3 strings), or nullopt if it is valid.
std::optional<std::size_t> FindInvalidUtf8(std::string_view text);

// Little-endian fixed-width values.
std::uint32_t LoadFixed32(const char* bytes);

// Writing.
std::size_t VarintSize(std::uint64_t value);
void AppendVarint(std::string* out, std::uint64_t value);
void AppendTag(std::string* out, std::uint32_t number, WireType type);
void AppendFixed32(std::string* out, std::uint32_t value);
// Size of a tag for field numbers up to 15 (every field of the calcjit schema).
inline constexpr std::size_t kSmallTagSize = 1;

}  // namespace calcjit::dsl::wire

#endif  // CALCJIT_DSL_WIRE_FORMAT_H_
