#include "model/onnx/wire_scan.h"

#include <climits>
#include <utility>
#include <vector>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

namespace calcjit::model {

namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedInputStream;

struct Frame {
  const Descriptor* type;
  int end;                        // absolute offset where the message ends
  CodedInputStream::Limit limit;  // popped when it ends (not for the root)
  std::string path;
  // Elements seen so far per repeated field number, for paths like node[3].
  std::vector<std::pair<int, std::uint64_t>> repeated_counts;

  std::uint64_t NextIndex(int number) {
    for (auto& [n, count] : repeated_counts) {
      if (n == number) return count++;
    }
    repeated_counts.emplace_back(number, 1);
    return 0;
  }
};

std::string Join(const std::string& path, const std::string& name) {
  return path.empty() ? name : path + "." + name;
}

bool IsNumeric(const FieldDescriptor& field) {
  return field.cpp_type() != FieldDescriptor::CPPTYPE_STRING &&
         field.cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE;
}

// Bytes per element of a packed fixed-width field, 0 for varint fields.
int FixedWidth(const FieldDescriptor& field) {
  switch (field.type()) {
    case FieldDescriptor::TYPE_FIXED32:
    case FieldDescriptor::TYPE_SFIXED32:
    case FieldDescriptor::TYPE_FLOAT:
      return 4;
    case FieldDescriptor::TYPE_FIXED64:
    case FieldDescriptor::TYPE_SFIXED64:
    case FieldDescriptor::TYPE_DOUBLE:
      return 8;
    default:
      return 0;
  }
}

}  // namespace

WireScanResult ScanWire(std::string_view bytes, const Descriptor& root,
                        const WireScanLimits& limits) {
  if (bytes.size() > static_cast<std::size_t>(INT_MAX)) {
    return {false, 0, "", "larger than protobuf's limit of 2^31 - 1 bytes"};
  }
  const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
  const int size = static_cast<int>(bytes.size());
  CodedInputStream in(data, size);
  // Groups (not in the ONNX schema, but legal unknown fields) are skipped by
  // protobuf's own SkipField, which recurses within this budget.
  in.SetRecursionLimit(limits.max_depth);

  std::uint64_t objects = 0;
  std::uint64_t numbers = 0;
  std::vector<Frame> stack;
  stack.push_back(Frame{&root, size, {}, "", {}});
  auto fail = [](int offset, std::string path, std::string message) {
    return WireScanResult{false, static_cast<std::size_t>(offset), std::move(path),
                          std::move(message)};
  };

  while (!stack.empty()) {
    const int position = in.CurrentPosition();
    if (position == stack.back().end) {
      if (stack.size() > 1) in.PopLimit(stack.back().limit);
      stack.pop_back();
      continue;
    }
    Frame& frame = stack.back();
    const std::uint32_t tag = in.ReadTagNoLastTag();
    if (tag == 0) {
      return fail(position, frame.path,
                  data[position] == 0 ? "field number 0 (a zero byte where a field starts)"
                                      : "truncated or malformed field tag");
    }
    const int number = static_cast<int>(WireFormatLite::GetTagFieldNumber(tag));
    if (number == 0) return fail(position, frame.path, "field number 0");
    const FieldDescriptor* field = frame.type->FindFieldByNumber(number);
    std::string name = field != nullptr ? field->name() : "field " + std::to_string(number);
    if (field != nullptr && field->is_repeated()) {
      name += "[" + std::to_string(frame.NextIndex(number)) + "]";
    }
    std::string path = Join(frame.path, name);
    const bool repeated_number = field != nullptr && field->is_repeated() && IsNumeric(*field);
    auto count_numbers = [&](std::uint64_t count) {
      return (numbers += count) <= limits.max_numbers;
    };
    const std::string too_many_numbers =
        "more than " + std::to_string(limits.max_numbers) + " numbers in repeated fields";
    const int left = frame.end - in.CurrentPosition();

    switch (WireFormatLite::GetTagWireType(tag)) {
      case WireFormatLite::WIRETYPE_VARINT: {
        std::uint64_t value;
        if (!in.ReadVarint64(&value)) return fail(position, path, "truncated or malformed varint");
        if (repeated_number && !count_numbers(1)) return fail(position, path, too_many_numbers);
        break;
      }
      case WireFormatLite::WIRETYPE_FIXED64: {
        std::uint64_t value;
        if (left < 8 || !in.ReadLittleEndian64(&value)) {
          return fail(position, path,
                      "truncated: an 8-byte value but " + std::to_string(left) + " bytes left");
        }
        if (repeated_number && !count_numbers(1)) return fail(position, path, too_many_numbers);
        break;
      }
      case WireFormatLite::WIRETYPE_FIXED32: {
        std::uint32_t value;
        if (left < 4 || !in.ReadLittleEndian32(&value)) {
          return fail(position, path,
                      "truncated: a 4-byte value but " + std::to_string(left) + " bytes left");
        }
        if (repeated_number && !count_numbers(1)) return fail(position, path, too_many_numbers);
        break;
      }
      case WireFormatLite::WIRETYPE_LENGTH_DELIMITED: {
        std::uint32_t length;
        if (!in.ReadVarint32(&length)) return fail(position, path, "truncated or malformed length");
        const int available = frame.end - in.CurrentPosition();
        if (length > static_cast<std::uint32_t>(available)) {
          return fail(position, path,
                      "truncated: a length of " + std::to_string(length) + " bytes but only " +
                          std::to_string(available) + " left" +
                          (stack.size() > 1 ? " in the enclosing message" : " in the file"));
        }
        const int start = in.CurrentPosition();
        if (field != nullptr && field->type() == FieldDescriptor::TYPE_MESSAGE) {
          if (static_cast<int>(stack.size()) > limits.max_depth) {
            return fail(position, path,
                        "messages nested deeper than " + std::to_string(limits.max_depth));
          }
          if (++objects > limits.max_objects) {
            return fail(
                position, path,
                "more than " + std::to_string(limits.max_objects) + " messages and strings");
          }
          const CodedInputStream::Limit limit = in.PushLimit(static_cast<int>(length));
          stack.push_back(Frame{
              field->message_type(), start + static_cast<int>(length), limit, std::move(path), {}});
          continue;
        }
        if (field != nullptr && field->cpp_type() == FieldDescriptor::CPPTYPE_STRING) {
          if (++objects > limits.max_objects) {
            return fail(
                position, path,
                "more than " + std::to_string(limits.max_objects) + " messages and strings");
          }
        } else if (repeated_number) {  // packed
          const int width = FixedWidth(*field);
          std::uint64_t count = 0;
          if (width != 0) {
            if (length % static_cast<std::uint32_t>(width) != 0) {
              return fail(position, path,
                          "packed field of " + std::to_string(length) +
                              " bytes, not a multiple of " + std::to_string(width));
            }
            count = length / static_cast<std::uint32_t>(width);
          } else {
            // One varint ends at each byte without the continuation bit.
            for (std::uint32_t i = 0; i < length; ++i) count += (data[start + i] & 0x80u) == 0;
          }
          if (!count_numbers(count)) return fail(position, path, too_many_numbers);
        }
        if (!in.Skip(static_cast<int>(length))) return fail(position, path, "truncated");
        break;
      }
      case WireFormatLite::WIRETYPE_START_GROUP:
        if (!WireFormatLite::SkipField(&in, tag)) {
          return fail(position, path, "malformed or unterminated group (or nested too deeply)");
        }
        break;
      case WireFormatLite::WIRETYPE_END_GROUP:
        return fail(position, path, "an end-group tag outside any group");
      default:
        return fail(position, path,
                    "invalid wire type " +
                        std::to_string(static_cast<int>(WireFormatLite::GetTagWireType(tag))));
    }
  }
  return {};
}

}  // namespace calcjit::model
