#include "dsl/proto_validator.h"

#include <optional>
#include <string>
#include <vector>

#include "dsl/wire_format.h"
#include "dsl/wire_schema.h"

namespace calcjit::dsl {

namespace {

using wire::FieldKind;
using wire::Message;
using wire::WireType;

Status ByteError(std::size_t offset, const std::string& message) {
  return UserError(message, "byte " + std::to_string(offset));
}

}  // namespace

Status CheckFeatureSetBytes(std::string_view bytes) {
  struct Frame {
    Message message;
    std::size_t end;  // one past the message's last byte
  };
  std::vector<Frame> stack;
  stack.push_back({Message::kFeatureSet, bytes.size()});
  std::size_t pos = 0;
  wire::WireError error;
  while (!stack.empty()) {
    const Frame top = stack.back();
    if (pos >= top.end) {
      stack.pop_back();
      continue;
    }
    wire::WireField field;
    if (!wire::ReadField(bytes, &pos, top.end, &field, &error)) {
      return ByteError(error.offset, error.message);
    }
    if (field.type == WireType::kEndGroup) {
      return ByteError(field.tag_offset, "end-group tag of field " + std::to_string(field.number) +
                                             " without a start-group tag");
    }
    if (field.type == WireType::kStartGroup) {
      if (!wire::SkipGroup(bytes, &pos, top.end, field.number, field.tag_offset, kMaxGroupNesting,
                           &error)) {
        return ByteError(error.offset, error.message);
      }
      continue;
    }
    const wire::FieldSpec spec = wire::FindField(top.message, field.number);
    if (field.type != WireType::kLen) continue;  // values were checked by ReadField
    const std::string_view payload =
        bytes.substr(field.payload_begin, field.payload_end - field.payload_begin);
    switch (spec.kind) {
      case FieldKind::kString:
        if (const std::optional<std::size_t> bad = wire::FindInvalidUtf8(payload)) {
          return ByteError(field.payload_begin + *bad,
                           "invalid UTF-8 in string field " + std::to_string(field.number) +
                               " of " + std::string(wire::MessageName(top.message)));
        }
        break;
      case FieldKind::kMessage:
        if (stack.size() <= kMaxCheckedNesting) {
          stack.push_back({spec.message, field.payload_end});
          pos = field.payload_begin;
        }
        break;
      case FieldKind::kPackedFloat:
        if (payload.size() % 4 != 0) {
          return ByteError(field.tag_offset,
                           "packed float field " + std::to_string(field.number) + " of " +
                               std::string(wire::MessageName(top.message)) + " has length " +
                               std::to_string(payload.size()) + ", not a multiple of 4");
        }
        break;
      case FieldKind::kUnknown:
      case FieldKind::kVarint:
      case FieldKind::kFixed32:
        break;  // an unknown length-delimited field is skipped unread
    }
  }
  return Status::Ok();
}

}  // namespace calcjit::dsl
