// UTF-8 validation: names reach JSON and protobuf strings, which must be
// valid UTF-8, and error messages reach Java and Python strings.
#ifndef CALCJIT_COMMON_UTF8_H_
#define CALCJIT_COMMON_UTF8_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace calcjit {

// Length in bytes of the well-formed UTF-8 sequence at the start of `text`,
// or 0 if it does not start with one (overlong forms, surrogates and code
// points above U+10FFFF are ill-formed).
inline std::size_t Utf8SequenceLength(std::string_view text) {
  if (text.empty()) return 0;
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char b0 = byte(0);
  if (b0 < 0x80) return 1;
  std::size_t length;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    length = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    length = 3;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    length = 4;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (text.size() < length) return 0;
  if (byte(1) < lo || byte(1) > hi) return 0;
  for (std::size_t i = 2; i < length; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return 0;
  }
  return length;
}

inline bool IsValidUtf8(std::string_view text) {
  while (!text.empty()) {
    const std::size_t length = Utf8SequenceLength(text);
    if (length == 0) return false;
    text.remove_prefix(length);
  }
  return true;
}

// `text` for a message: whole when short, else its first `max_bytes` bytes
// (cut at a character boundary) and how long it is, so that a 100 MB number
// or name does not become a 100 MB message.
inline std::string Excerpt(std::string_view text, std::size_t max_bytes = 64) {
  if (text.size() <= max_bytes) return std::string(text);
  std::size_t cut = 0;
  while (cut < max_bytes) {
    const std::size_t length = Utf8SequenceLength(text.substr(cut));
    if (length == 0 || cut + length > max_bytes) break;
    cut += length;
  }
  if (cut == 0) cut = max_bytes;  // not UTF-8: the bytes, escaped by Status
  return std::string(text.substr(0, cut)) + "... (" + std::to_string(text.size()) + " bytes)";
}

}  // namespace calcjit

#endif  // CALCJIT_COMMON_UTF8_H_
