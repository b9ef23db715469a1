#include "dsl/wire_format.h"

#include <utility>
#include <vector>

namespace calcjit::dsl::wire {

namespace {

enum class VarintStatus { kOk, kTruncated, kTooLong };

// A little-endian base-128 varint of at most `max_bytes` bytes, ending before
// `end`. The value keeps its low 64 bits.
VarintStatus ParseVarint(std::string_view data, std::size_t* pos, std::size_t end, int max_bytes,
                         std::uint64_t* value) {
  std::uint64_t result = 0;
  std::size_t p = *pos;
  for (int i = 0; i < max_bytes; ++i) {
    if (p >= end) return VarintStatus::kTruncated;
    const auto byte = static_cast<std::uint8_t>(data[p++]);
    // Shifting an unsigned value drops the bits beyond 64 of a 10th byte.
    result |= static_cast<std::uint64_t>(byte & 0x7Fu) << (7 * i);
    if ((byte & 0x80u) == 0) {
      *pos = p;
      *value = result;
      return VarintStatus::kOk;
    }
  }
  return VarintStatus::kTooLong;
}

bool Fail(WireError* error, std::size_t offset, std::string message) {
  error->offset = offset;
  error->message = std::move(message);
  return false;
}

std::string FieldSuffix(std::uint32_t number) {
  return " (field " + std::to_string(number) + ")";
}

}  // namespace

bool ReadField(std::string_view data, std::size_t* pos, std::size_t end, WireField* field,
               WireError* error) {
  const std::size_t tag_offset = *pos;
  std::uint64_t tag = 0;
  switch (ParseVarint(data, pos, end, 5, &tag)) {
    case VarintStatus::kOk:
      break;
    case VarintStatus::kTruncated:
      return Fail(error, tag_offset, "truncated tag");
    case VarintStatus::kTooLong:
      return Fail(error, tag_offset, "tag longer than 5 bytes");
  }
  // libprotobuf keeps the low 32 bits of a 5-byte tag.
  const auto tag32 = static_cast<std::uint32_t>(tag);
  const std::uint32_t number = tag32 >> 3;
  const std::uint32_t type = tag32 & 7u;
  if (number == 0) return Fail(error, tag_offset, "field number 0 in tag");
  if (type > 5) {
    return Fail(error, tag_offset,
                "invalid wire type " + std::to_string(type) + FieldSuffix(number));
  }
  field->number = number;
  field->type = static_cast<WireType>(type);
  field->tag_offset = tag_offset;
  const std::size_t value_offset = *pos;
  switch (field->type) {
    case WireType::kVarint:
      switch (ParseVarint(data, pos, end, 10, &field->varint)) {
        case VarintStatus::kOk:
          return true;
        case VarintStatus::kTruncated:
          return Fail(error, value_offset, "truncated varint" + FieldSuffix(number));
        case VarintStatus::kTooLong:
          return Fail(error, value_offset, "varint longer than 10 bytes" + FieldSuffix(number));
      }
      return true;
    case WireType::kFixed64:
      if (end - *pos < 8) {
        return Fail(error, value_offset, "truncated fixed64 value" + FieldSuffix(number));
      }
      field->fixed64 = static_cast<std::uint64_t>(LoadFixed32(data.data() + *pos)) |
                       static_cast<std::uint64_t>(LoadFixed32(data.data() + *pos + 4)) << 32;
      *pos += 8;
      return true;
    case WireType::kFixed32:
      if (end - *pos < 4) {
        return Fail(error, value_offset, "truncated fixed32 value" + FieldSuffix(number));
      }
      field->fixed32 = LoadFixed32(data.data() + *pos);
      *pos += 4;
      return true;
    case WireType::kLen: {
      std::uint64_t length = 0;
      switch (ParseVarint(data, pos, end, 5, &length)) {
        case VarintStatus::kOk:
          break;
        case VarintStatus::kTruncated:
          return Fail(error, value_offset, "truncated length" + FieldSuffix(number));
        case VarintStatus::kTooLong:
          return Fail(error, value_offset, "length longer than 5 bytes" + FieldSuffix(number));
      }
      if (length >= (std::uint64_t{1} << 31)) {
        return Fail(error, value_offset, "length of 2 GiB or more" + FieldSuffix(number));
      }
      if (length > end - *pos) {
        return Fail(error, tag_offset,
                    "length " + std::to_string(length) + " of field " + std::to_string(number) +
                        " runs past the end of its message at byte " + std::to_string(end));
      }
      field->payload_begin = *pos;
      field->payload_end = *pos + static_cast<std::size_t>(length);
      *pos = field->payload_end;
      return true;
    }
    case WireType::kStartGroup:
    case WireType::kEndGroup:
      return true;
  }
  return true;
}

bool SkipGroup(std::string_view data, std::size_t* pos, std::size_t end, std::uint32_t number,
               std::size_t start_offset, std::size_t max_nesting, WireError* error) {
  // (field number, offset of the start tag) of every open group, innermost last.
  std::vector<std::pair<std::uint32_t, std::size_t>> open;
  open.emplace_back(number, start_offset);
  while (true) {
    if (*pos >= end) {
      return Fail(error, open.back().second,
                  "group of field " + std::to_string(open.back().first) +
                      " has no end-group tag before the end of its message");
    }
    WireField field;
    if (!ReadField(data, pos, end, &field, error)) return false;
    if (field.type == WireType::kStartGroup) {
      if (open.size() >= max_nesting) {
        return Fail(error, field.tag_offset,
                    "groups nested deeper than " + std::to_string(max_nesting) + " levels");
      }
      open.emplace_back(field.number, field.tag_offset);
    } else if (field.type == WireType::kEndGroup) {
      if (field.number != open.back().first) {
        return Fail(error, field.tag_offset,
                    "end-group tag of field " + std::to_string(field.number) +
                        " does not match the open group of field " +
                        std::to_string(open.back().first));
      }
      open.pop_back();
      if (open.empty()) return true;
    }
  }
}

std::optional<std::size_t> FindInvalidUtf8(std::string_view text) {
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    const auto c = static_cast<std::uint8_t>(text[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t length = 0;
    std::uint8_t low = 0x80;   // bounds of the second byte, excluding overlong
    std::uint8_t high = 0xBF;  // forms, surrogates and values above U+10FFFF
    if (c >= 0xC2 && c <= 0xDF) {
      length = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3;
      if (c == 0xE0) low = 0xA0;
      if (c == 0xED) high = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4;
      if (c == 0xF0) low = 0x90;
      if (c == 0xF4) high = 0x8F;
    } else {
      return i;
    }
    if (n - i < length) return i;
    const auto second = static_cast<std::uint8_t>(text[i + 1]);
    if (second < low || second > high) return i;
    for (std::size_t k = 2; k < length; ++k) {
      const auto next = static_cast<std::uint8_t>(text[i + k]);
      if (next < 0x80 || next > 0xBF) return i;
    }
    i += length;
  }
  return std::nullopt;
}

std::uint32_t LoadFixed32(const char* bytes) {
  std::uint32_t value = 0;
  for (int i = 3; i >= 0; --i) {
    value = (value << 8) | static_cast<std::uint8_t>(bytes[i]);
  }
  return value;
}

std::size_t VarintSize(std::uint64_t value) {
  std::size_t size = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++size;
  }
  return size;
}

void AppendVarint(std::string* out, std::uint64_t value) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

void AppendTag(std::string* out, std::uint32_t number, WireType type) {
  AppendVarint(out, (static_cast<std::uint64_t>(number) << 3) | static_cast<std::uint64_t>(type));
}

void AppendFixed32(std::string* out, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) {
    out->push_back(static_cast<char>(value & 0xFF));
    value >>= 8;
  }
}

}  // namespace calcjit::dsl::wire
