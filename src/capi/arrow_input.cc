// Arrow columns read as input floats (include/calcjit/arrow.h): float32
// without nulls in place, everything else numeric converted once.
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

#include "calcjit/arrow.h"

namespace calcjit {
namespace {

// The numeric formats of the C Data Interface calcjit reads, by their format
// string (the specification's "Data type description format strings").
enum class ArrowNumber : unsigned char {
  kFloat32,
  kFloat64,
  kInt8,
  kUint8,
  kInt16,
  kUint16,
  kInt32,
  kUint32,
  kInt64,
  kUint64,
  kBool,
};

struct NumberFormat {
  const char* format;
  ArrowNumber number;
};

constexpr NumberFormat kNumberFormats[] = {
    {"f", ArrowNumber::kFloat32}, {"g", ArrowNumber::kFloat64}, {"c", ArrowNumber::kInt8},
    {"C", ArrowNumber::kUint8},   {"s", ArrowNumber::kInt16},   {"S", ArrowNumber::kUint16},
    {"i", ArrowNumber::kInt32},   {"I", ArrowNumber::kUint32},  {"l", ArrowNumber::kInt64},
    {"L", ArrowNumber::kUint64},  {"b", ArrowNumber::kBool},
};

std::optional<ArrowNumber> NumberOf(const char* format) {
  for (const NumberFormat& entry : kNumberFormats) {
    if (std::strcmp(entry.format, format) == 0) return entry.number;
  }
  return std::nullopt;
}

// The smallest float64 magnitude that rounds to infinity in float32: FLT_MAX
// plus half an ulp (the CSV reader and Python refuse such values too).
constexpr double kFloat32Overflow = 3.4028235677973366e38;

std::string Quoted(std::string_view name) {
  return "'" + std::string(name) + "'";
}

bool BitSet(const void* bitmap, std::int64_t index) {
  const auto* bytes = static_cast<const std::uint8_t*>(bitmap);
  return ((bytes[index >> 3] >> (index & 7)) & 1) != 0;
}

bool MayHaveNulls(const ArrowArray& array) {
  return array.null_count != 0 && array.n_buffers > 0 && array.buffers != nullptr &&
         array.buffers[0] != nullptr;
}

bool IsNull(const ArrowArray& array, std::int64_t row) {
  return MayHaveNulls(array) && !BitSet(array.buffers[0], array.offset + row);
}

// An array is usable when its producer has not released it and it has the
// buffers its format needs (the values buffer may be NULL only when empty).
Status CheckPrimitive(const ArrowArray& array, std::string_view name) {
  if (array.release == nullptr) {
    return UserError("the Arrow array of input " + Quoted(name) + " was released",
                     std::string(name));
  }
  if (array.length < 0 || array.offset < 0) {
    return UserError(
        "the Arrow array of input " + Quoted(name) + " has a negative length or offset",
        std::string(name));
  }
  if (array.n_buffers < 2 || array.buffers == nullptr ||
      (array.length > 0 && array.buffers[1] == nullptr)) {
    return UserError("the Arrow array of input " + Quoted(name) +
                         " lacks its values buffer (a primitive array has 2 buffers)",
                     std::string(name));
  }
  return Status::Ok();
}

// Element `index` (already offset) of a primitive values buffer as a float.
float ValueAt(ArrowNumber number, const void* buffer, std::int64_t index) {
  auto load = [&](auto type_tag) {
    using T = decltype(type_tag);
    T value;
    std::memcpy(&value, static_cast<const char*>(buffer) + index * std::int64_t{sizeof(T)},
                sizeof(T));
    return value;
  };
  switch (number) {
    case ArrowNumber::kFloat32:
      return load(float{});
    case ArrowNumber::kFloat64:
      return static_cast<float>(load(double{}));
    case ArrowNumber::kInt8:
      return static_cast<float>(load(std::int8_t{}));
    case ArrowNumber::kUint8:
      return static_cast<float>(load(std::uint8_t{}));
    case ArrowNumber::kInt16:
      return static_cast<float>(load(std::int16_t{}));
    case ArrowNumber::kUint16:
      return static_cast<float>(load(std::uint16_t{}));
    case ArrowNumber::kInt32:
      return static_cast<float>(load(std::int32_t{}));
    case ArrowNumber::kUint32:
      return static_cast<float>(load(std::uint32_t{}));
    case ArrowNumber::kInt64:
      return static_cast<float>(load(std::int64_t{}));
    case ArrowNumber::kUint64:
      return static_cast<float>(load(std::uint64_t{}));
    case ArrowNumber::kBool:
      return BitSet(buffer, index) ? 1.0f : 0.0f;
  }
  return std::numeric_limits<float>::quiet_NaN();
}

// Converts `count` elements of a primitive array from element `first` (not
// yet offset) into `out`; a null element, or every element of a null row
// (`row_null`), is NaN.
Status ConvertPrimitive(const ArrowArray& array, ArrowNumber number, std::int64_t first,
                        std::size_t count, std::string_view name, float* out) {
  const void* buffer = array.buffers[1];
  for (std::size_t k = 0; k < count; ++k) {
    const std::int64_t element = first + static_cast<std::int64_t>(k);
    if (IsNull(array, element)) {
      out[k] = std::numeric_limits<float>::quiet_NaN();
      continue;
    }
    const std::int64_t index = array.offset + element;
    if (number == ArrowNumber::kFloat64) {
      double value;
      std::memcpy(&value, static_cast<const char*>(buffer) + index * 8, 8);
      if (std::isfinite(value) && std::fabs(value) >= kFloat32Overflow) {
        char shown[32];
        const auto end = std::to_chars(shown, shown + sizeof(shown), value).ptr;
        return UserError("input " + Quoted(name) + " holds " + std::string(shown, end) + " (row " +
                             std::to_string(element) +
                             "), beyond the float32 range: it would become infinity",
                         std::string(name));
      }
    }
    out[k] = ValueAt(number, buffer, index);
  }
  return Status::Ok();
}

// "+w:32" -> 32.
std::optional<std::int64_t> FixedSizeListWidth(const char* format) {
  if (std::strncmp(format, "+w:", 3) != 0) return std::nullopt;
  const char* digits = format + 3;
  const char* end = digits + std::strlen(digits);
  std::int64_t width = 0;
  const auto [ptr, error] = std::from_chars(digits, end, width);
  if (error != std::errc() || ptr != end || width <= 0) return std::nullopt;
  return width;
}

Status UnsupportedFormat(const char* format, std::uint32_t dimension, std::string_view name) {
  const std::string expected =
      dimension == 0 ? "a numeric column (float32 read in place; int, uint, float64 or bool "
                       "converted)"
                     : "a fixed-size list of " + std::to_string(dimension) +
                           " numbers per row (format '+w:" + std::to_string(dimension) + "')";
  return UserError("input " + Quoted(name) + " is an Arrow column of format '" +
                       std::string(format) + "'; expected " + expected,
                   std::string(name));
}

bool Aligned(const void* data) {
  return reinterpret_cast<std::uintptr_t>(data) % alignof(float) == 0;
}

std::span<float> Allocate(const FloatAllocator& allocate, std::size_t count) {
  std::span<float> memory = allocate(count);
  return memory.first(count);
}

Result<ArrowFloats> ReadScalars(const ArrowArray& array, ArrowNumber number, std::string_view name,
                                const FloatAllocator& allocate) {
  CALCJIT_RETURN_IF_ERROR(CheckPrimitive(array, name));
  const auto rows = static_cast<std::size_t>(array.length);
  if (number == ArrowNumber::kFloat32 && !MayHaveNulls(array)) {
    const float* data =
        rows == 0 ? nullptr : static_cast<const float*>(array.buffers[1]) + array.offset;
    if (rows == 0 || Aligned(data)) return ArrowFloats{std::span<const float>(data, rows), false};
  }
  std::span<float> out = Allocate(allocate, rows);
  CALCJIT_RETURN_IF_ERROR(ConvertPrimitive(array, number, 0, rows, name, out.data()));
  return ArrowFloats{out, true};
}

Result<ArrowFloats> ReadVectors(const ArrowArray& array, const ArrowSchema& schema,
                                std::uint32_t dimension, std::string_view name,
                                const FloatAllocator& allocate) {
  const std::optional<std::int64_t> width = FixedSizeListWidth(schema.format);
  if (!width || *width != dimension || schema.n_children != 1 || schema.children == nullptr ||
      schema.children[0] == nullptr || schema.children[0]->format == nullptr) {
    return UnsupportedFormat(schema.format, dimension, name);
  }
  if (array.release == nullptr || array.n_children != 1 || array.children == nullptr ||
      array.children[0] == nullptr || array.length < 0 || array.offset < 0 ||
      (array.n_buffers > 0 && array.buffers == nullptr)) {
    return UserError("the Arrow array of input " + Quoted(name) +
                         " is not a valid fixed-size list (one child array)",
                     std::string(name));
  }
  const ArrowArray& child = *array.children[0];
  const std::optional<ArrowNumber> number = NumberOf(schema.children[0]->format);
  if (!number) return UnsupportedFormat(schema.format, dimension, name);
  CALCJIT_RETURN_IF_ERROR(CheckPrimitive(child, name));
  const auto rows = static_cast<std::size_t>(array.length);
  const std::size_t d = dimension;
  if (rows > std::numeric_limits<std::size_t>::max() / d) {
    return UserError("input " + Quoted(name) + " is too long", std::string(name));
  }
  const std::size_t count = rows * d;
  // The child's elements of row r are [(offset + r) * d, ...), in child index
  // space before the child's own offset.
  const std::int64_t first = array.offset * static_cast<std::int64_t>(d);
  if (child.length < first + static_cast<std::int64_t>(count)) {
    return UserError(
        "the Arrow array of input " + Quoted(name) + " has fewer list elements than its rows need",
        std::string(name));
  }
  if (*number == ArrowNumber::kFloat32 && !MayHaveNulls(array) && !MayHaveNulls(child)) {
    const float* data =
        count == 0 ? nullptr : static_cast<const float*>(child.buffers[1]) + child.offset + first;
    if (count == 0 || Aligned(data)) return ArrowFloats{std::span<const float>(data, count), false};
  }
  std::span<float> out = Allocate(allocate, count);
  CALCJIT_RETURN_IF_ERROR(ConvertPrimitive(child, *number, first, count, name, out.data()));
  for (std::size_t r = 0; r < rows; ++r) {
    if (!IsNull(array, static_cast<std::int64_t>(r))) continue;
    for (std::size_t k = 0; k < d; ++k) out[r * d + k] = std::numeric_limits<float>::quiet_NaN();
  }
  return ArrowFloats{out, true};
}

}  // namespace

Result<ArrowFloats> ReadArrowFloats(const ArrowArray& array, const ArrowSchema& schema,
                                    std::uint32_t dimension, std::string_view name,
                                    const FloatAllocator& allocate) {
  if (schema.release == nullptr || schema.format == nullptr) {
    return UserError("the Arrow schema of input " + Quoted(name) + " was released or has no format",
                     std::string(name));
  }
  if (schema.dictionary != nullptr) return UnsupportedFormat(schema.format, dimension, name);
  if (dimension > 0) return ReadVectors(array, schema, dimension, name, allocate);
  const std::optional<ArrowNumber> number = NumberOf(schema.format);
  if (!number) return UnsupportedFormat(schema.format, dimension, name);
  return ReadScalars(array, *number, name, allocate);
}

}  // namespace calcjit
