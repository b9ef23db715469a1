// libFuzzer target: Arrow columns of every shape a producer of the C Data
// Interface could hand calcjit_session_bind_input_arrow (src/capi/
// arrow_input.cc). The bytes choose the format strings (known ones or any
// text), lengths, offsets, null counts, validity bitmaps, buffer and child
// counts, released structs, dictionaries, misaligned buffers and the values.
// The buffers always hold what the arrays declare (a producer that lies about
// its buffer sizes cannot be detected through this ABI); every other field is
// hostile. The property: an error, or the bound column's values read as the
// C Data Interface specifies them (nulls as NaN, numbers converted to the
// nearest float32), and a well-formed column is never refused; float32
// without nulls at an aligned address is read in place.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "calcjit/calcjit.h"

namespace {

void Require(bool condition, const char* what) {
  if (condition) return;
  std::fprintf(stderr, "fuzz check failed: %s (last error: %s)\n", what, calcjit_last_error());
  std::abort();
}

// The fuzzer's bytes, read front to back; zeros once they run out.
class Bytes {
 public:
  Bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t Next() { return at_ < size_ ? data_[at_++] : 0; }
  bool Flag() { return (Next() & 1) != 0; }
  // The rest, cyclically: the values of the buffers.
  std::uint8_t Fill(std::size_t k) const { return size_ == 0 ? 0 : data_[k % size_]; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

// The numeric formats and their element sizes in bits (0: not numeric).
struct Format {
  const char* text;
  int bits;
};
constexpr Format kFormats[] = {{"f", 32}, {"g", 64}, {"c", 8},  {"C", 8},    {"s", 16},
                               {"S", 16}, {"i", 32}, {"I", 32}, {"l", 64},   {"L", 64},
                               {"b", 1},  {"e", 0},  {"u", 0},  {"+w:2", 0}, {"", 0}};

int BitsOf(const std::string& format) {
  for (const Format& f : kFormats) {
    if (format == f.text) return f.bits;
  }
  return 0;
}

// A format string: a known one, or up to 6 bytes of anything.
std::string PickFormat(Bytes& in) {
  const std::uint8_t pick = in.Next();
  if (pick < 224) return kFormats[pick % std::size(kFormats)].text;
  std::string text;
  for (int n = pick % 7; n > 0; --n) {
    const char c = static_cast<char>(in.Next());
    if (c != '\0') text.push_back(c);
  }
  return text;
}

bool BitSet(const std::uint8_t* bitmap, std::int64_t index) {
  return ((bitmap[index >> 3] >> (index & 7)) & 1) != 0;
}

// Element `index` of a values buffer of `format`, as the C Data Interface
// defines it; nullopt for a float64 whose nearest float32 is infinite.
std::optional<float> ElementAsFloat(const std::string& format, const std::uint8_t* values,
                                    std::int64_t index) {
  auto load = [&](auto tag) {
    decltype(tag) value;
    std::memcpy(&value, values + index * static_cast<std::int64_t>(sizeof value), sizeof value);
    return value;
  };
  switch (format[0]) {
    case 'f':
      return load(float{});
    case 'g': {
      const double value = load(double{});
      const float rounded = static_cast<float>(value);
      if (std::isfinite(value) && std::isinf(rounded)) return std::nullopt;
      return rounded;
    }
    case 'c':
      return static_cast<float>(load(std::int8_t{}));
    case 'C':
      return static_cast<float>(load(std::uint8_t{}));
    case 's':
      return static_cast<float>(load(std::int16_t{}));
    case 'S':
      return static_cast<float>(load(std::uint16_t{}));
    case 'i':
      return static_cast<float>(load(std::int32_t{}));
    case 'I':
      return static_cast<float>(load(std::uint32_t{}));
    case 'l':
      return static_cast<float>(load(std::int64_t{}));
    case 'L':
      return static_cast<float>(load(std::uint64_t{}));
    case 'b':
      return BitSet(values, index) ? 1.0f : 0.0f;
  }
  std::abort();
}

// One primitive array and the memory behind it.
struct Primitive {
  std::string format;
  std::vector<std::uint8_t> validity;
  std::vector<std::uint8_t> values;  // one spare byte in front, for misalignment
  const std::uint8_t* values_at = nullptr;
  const void* buffers[3] = {nullptr, nullptr, nullptr};
  ArrowArray array{};
  bool has_validity = false;
};

void NoRelease(ArrowArray* array) {
  array->release = nullptr;
}
void NoReleaseSchema(ArrowSchema* schema) {
  schema->release = nullptr;
}

// `elements` elements after `offset`, honest buffers; hostile fields.
void MakePrimitive(Bytes& in, const std::string& format, std::int64_t elements, Primitive* out) {
  out->format = format;
  const std::int64_t offset = in.Next() % 9;
  const std::int64_t total = offset + elements;
  const int bits = BitsOf(format) == 0 ? 32 : BitsOf(format);
  const bool misaligned = (in.Next() & 7) == 0;
  out->values.resize(1 + static_cast<std::size_t>((total * bits + 7) / 8) + 8);
  for (std::size_t k = 0; k < out->values.size(); ++k) out->values[k] = in.Fill(k * 7 + 3);
  out->values_at = out->values.data() + (misaligned ? 1 : 0);
  out->has_validity = in.Flag();
  if (out->has_validity) {
    out->validity.resize(static_cast<std::size_t>((total + 7) / 8) + 1);
    for (std::size_t k = 0; k < out->validity.size(); ++k) {
      out->validity[k] = static_cast<std::uint8_t>(in.Fill(k * 5 + 1) | in.Next());
    }
  }
  out->buffers[0] = out->has_validity ? out->validity.data() : nullptr;
  out->buffers[1] = (elements > 0 || in.Flag()) ? out->values_at : nullptr;
  ArrowArray& a = out->array;
  a.length = elements;
  a.offset = offset;
  const std::uint8_t nulls = in.Next();
  a.null_count = nulls < 128 ? 0 : nulls < 192 ? -1 : nulls % 5;
  a.n_buffers = (in.Next() & 15) == 0 ? in.Next() % 3 : 2;
  a.buffers = (in.Next() & 31) == 0 ? nullptr : out->buffers;
  a.release = (in.Next() & 31) == 0 ? nullptr : NoRelease;
}

// Whether element `index` (offset applied) of `p` is null as calcjit reads
// nulls: a validity buffer present and a nonzero null count.
bool IsNull(const Primitive& p, std::int64_t index) {
  return p.has_validity && p.array.null_count != 0 && p.array.buffers != nullptr &&
         p.array.n_buffers > 0 && !BitSet(p.validity.data(), index);
}

bool Usable(const Primitive& p, std::int64_t needed) {
  const ArrowArray& a = p.array;
  return a.release != nullptr && a.n_buffers >= 2 && a.buffers != nullptr &&
         (needed == 0 || a.buffers[1] != nullptr);
}

bool SameFloat(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

struct Engines {
  calcjit_session* scalar = nullptr;  // input x; y = x
  calcjit_session* vector = nullptr;  // input v: item[2]; a, b its elements
  // The engines live as long as the process, held here so that the leak
  // checker sees them reachable.
  calcjit_engine* engines[2] = {nullptr, nullptr};
};

Engines& Setup() {
  static Engines engines = [] {
    Engines made;
    const auto session_of = [](const char* text, calcjit_engine** engine_out) {
      calcjit_set* set = nullptr;
      Require(calcjit_set_parse(text, std::strlen(text), CALCJIT_FORMAT_TEXT, &set) == CALCJIT_OK,
              "parse");
      calcjit_options options;
      calcjit_options_init(&options);
      options.backend = CALCJIT_BACKEND_VM;
      Require(calcjit_engine_create(set, &options, engine_out) == CALCJIT_OK, "engine");
      calcjit_engine* engine = *engine_out;
      calcjit_set_free(set);
      calcjit_session* session = nullptr;
      Require(calcjit_session_create(engine, &session) == CALCJIT_OK, "session");
      return session;
    };
    made.scalar = session_of("input x;\ny = x;\n", &made.engines[0]);
    made.vector = session_of(
        "input v: item[2];\ninput e0: query[2];\ninput e1: query[2];\n"
        "a = dot(v, e0);\nb = dot(v, e1);\n",
        &made.engines[1]);
    static const float kE0[2] = {1.0f, 0.0f};
    static const float kE1[2] = {0.0f, 1.0f};
    Require(calcjit_session_bind_input(made.vector, "e0", kE0, 2) == CALCJIT_OK, "bind e0");
    Require(calcjit_session_bind_input(made.vector, "e1", kE1, 2) == CALCJIT_OK, "bind e1");
    return made;
  }();
  return engines;
}

const float* Output(calcjit_session* session, const char* name, std::int64_t rows) {
  const float* data = nullptr;
  std::size_t count = 0;
  Require(calcjit_session_output(session, name, &data, &count) == CALCJIT_OK, "output");
  Require(count == static_cast<std::size_t>(rows), "output length");
  return data;
}

ArrowSchema MakeSchema(Bytes& in, const std::string& format) {
  ArrowSchema schema{};
  schema.format = format.c_str();
  schema.flags = ARROW_FLAG_NULLABLE;
  schema.release = (in.Next() & 31) == 0 ? nullptr : NoReleaseSchema;
  return schema;
}

void FuzzScalar(Bytes& in) {
  calcjit_session* session = Setup().scalar;
  const std::string format = PickFormat(in);
  const std::int64_t rows = in.Next() % 70;
  Primitive column;
  MakePrimitive(in, format, rows, &column);
  ArrowSchema schema = MakeSchema(in, format);
  ArrowSchema dictionary = MakeSchema(in, "i");
  if ((in.Next() & 31) == 0) schema.dictionary = &dictionary;
  int copied = -1;
  const bool bound =
      calcjit_session_bind_input_arrow(session, "x", &column.array, &schema, &copied) == CALCJIT_OK;
  const bool well_formed = schema.release != nullptr && schema.dictionary == nullptr &&
                           BitsOf(format) > 0 && Usable(column, rows);
  bool in_range = true;
  std::vector<float> expected(static_cast<std::size_t>(rows));
  if (well_formed) {
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::int64_t index = column.array.offset + r;
      if (IsNull(column, index)) {
        expected[r] = NAN;
        continue;
      }
      const std::optional<float> value = ElementAsFloat(format, column.values_at, index);
      if (!value) in_range = false;
      expected[r] = value.value_or(0.0f);
    }
  }
  if (!bound) {
    Require(!well_formed || !in_range, "a well-formed column was refused");
    return;
  }
  Require(well_formed && in_range, "a malformed column was accepted");
  const bool aligned = reinterpret_cast<std::uintptr_t>(column.values_at) % 4 == 0;
  const bool no_nulls = !(column.has_validity && column.array.null_count != 0);
  if (format == "f" && no_nulls && (aligned || rows == 0)) {
    Require(copied == 0, "float32 without nulls was copied");
  } else if (rows > 0) {
    Require(copied == 1, "a converted column says it was read in place");
  }
  Require(calcjit_session_evaluate(session, static_cast<std::size_t>(rows), nullptr) == CALCJIT_OK,
          "evaluate");
  const float* y = Output(session, "y", rows);
  for (std::int64_t r = 0; r < rows; ++r) Require(SameFloat(y[r], expected[r]), "value");
}

// "+w:2", also spelled with leading zeros ("+w:002"), as Arrow's own format
// parser reads the width: a decimal number, nothing else.
bool IsWidthTwo(const std::string& format) {
  if (format.rfind("+w:", 0) != 0 || format.size() == 3) return false;
  const std::string digits = format.substr(3);
  if (digits.find_first_not_of("0123456789") != std::string::npos) return false;
  const std::size_t first = digits.find_first_not_of('0');
  return first != std::string::npos && digits.substr(first) == "2";
}

void FuzzVector(Bytes& in) {
  calcjit_session* session = Setup().vector;
  const std::uint8_t width_pick = in.Next();
  std::string list_format = width_pick < 200 ? "+w:2" : "+w:" + std::to_string(width_pick % 4);
  if (width_pick >= 250) list_format = PickFormat(in);
  const std::string child_format = PickFormat(in);
  const std::int64_t rows = in.Next() % 40;
  const std::int64_t list_offset = in.Next() % 5;
  // The child holds (list_offset + rows) * 2 elements, or fewer or more.
  std::int64_t child_elements = (list_offset + rows) * 2;
  const std::uint8_t change = in.Next();
  if (change >= 224) child_elements = std::max<std::int64_t>(0, child_elements - change % 4);
  if (change >= 192 && change < 224) child_elements += change % 4;
  Primitive child;
  MakePrimitive(in, child_format, child_elements, &child);
  std::vector<std::uint8_t> list_validity(static_cast<std::size_t>((list_offset + rows) / 8 + 2));
  for (std::uint8_t& byte : list_validity) byte = static_cast<std::uint8_t>(~in.Next() | in.Next());
  const bool list_has_validity = in.Flag();
  const void* list_buffers[1] = {list_has_validity ? list_validity.data() : nullptr};
  ArrowArray* children[1] = {&child.array};
  ArrowArray list{};
  list.length = rows;
  list.offset = list_offset;
  const std::uint8_t nulls = in.Next();
  list.null_count = nulls < 128 ? 0 : nulls < 192 ? -1 : nulls % 5;
  list.n_buffers = 1;
  list.buffers = (in.Next() & 31) == 0 ? nullptr : list_buffers;
  list.n_children = (in.Next() & 31) == 0 ? in.Next() % 3 : 1;
  list.children = (in.Next() & 31) == 0 ? nullptr : children;
  list.release = (in.Next() & 31) == 0 ? nullptr : NoRelease;
  ArrowSchema child_schema = MakeSchema(in, child_format);
  ArrowSchema* schema_children[1] = {&child_schema};
  ArrowSchema schema = MakeSchema(in, list_format);
  schema.n_children = (in.Next() & 31) == 0 ? in.Next() % 3 : 1;
  schema.children = (in.Next() & 31) == 0 ? nullptr : schema_children;
  int copied = -1;
  const bool bound =
      calcjit_session_bind_input_arrow(session, "v", &list, &schema, &copied) == CALCJIT_OK;
  const std::int64_t needed = (list_offset + rows) * 2;
  const bool well_formed =
      schema.release != nullptr && IsWidthTwo(list_format) && schema.n_children == 1 &&
      schema.children != nullptr && BitsOf(child_format) > 0 && list.release != nullptr &&
      list.n_children == 1 && list.children != nullptr && list.buffers != nullptr &&
      Usable(child, needed) && child_elements >= needed;
  const bool list_nulls = list_has_validity && list.null_count != 0 && list.buffers != nullptr;
  bool in_range = true;
  std::vector<float> elements(static_cast<std::size_t>(rows * 2));
  if (well_formed) {
    for (std::int64_t r = 0; r < rows; ++r) {
      const bool row_null = list_nulls && !BitSet(list_validity.data(), list_offset + r);
      for (std::int64_t k = 0; k < 2; ++k) {
        const std::int64_t index = child.array.offset + (list_offset + r) * 2 + k;
        std::optional<float> value = IsNull(child, index)
                                         ? std::optional<float>(NAN)
                                         : ElementAsFloat(child_format, child.values_at, index);
        if (!value) in_range = false;
        elements[r * 2 + k] = row_null ? NAN : value.value_or(0.0f);
      }
    }
  }
  if (!bound) {
    Require(!well_formed || !in_range, "a well-formed list column was refused");
    return;
  }
  Require(well_formed && in_range, "a malformed list column was accepted");
  const bool aligned = reinterpret_cast<std::uintptr_t>(child.values_at) % 4 == 0;
  const bool child_nulls = child.has_validity && child.array.null_count != 0;
  if (child_format == "f" && !child_nulls && !list_nulls && (aligned || rows == 0)) {
    Require(copied == 0, "float32 lists without nulls were copied");
  }
  Require(calcjit_session_evaluate(session, static_cast<std::size_t>(rows), nullptr) == CALCJIT_OK,
          "evaluate");
  const float* a = Output(session, "a", rows);
  const float* b = Output(session, "b", rows);
  for (std::int64_t r = 0; r < rows; ++r) {
    const float v0 = elements[r * 2];
    const float v1 = elements[r * 2 + 1];
    // dot(v, (1, 0)) is v0 * 1 + v1 * 0: v0 when v1 is finite (up to the
    // sign of a zero), NaN when either is NaN or v1 is infinite.
    if (std::isfinite(v1) || std::isnan(v0)) {
      Require(SameFloat(a[r], std::isnan(v1) ? NAN : v0), "element 0");
    } else {
      Require(std::isnan(a[r]), "element 0 beside an infinity");
    }
    if (std::isfinite(v0) || std::isnan(v1)) {
      Require(SameFloat(b[r], std::isnan(v0) ? NAN : v1), "element 1");
    } else {
      Require(std::isnan(b[r]), "element 1 beside an infinity");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Bytes in(data, size);
  if (in.Flag()) {
    FuzzVector(in);
  } else {
    FuzzScalar(in);
  }
  return 0;
}
