// A content hash of model bytes, for caching prepared models: equal bytes,
// equal hash. 128 bits (MurmurHash3's x64_128 construction, seed 0): not a
// cryptographic hash, so a cache keyed by it trusts whoever supplies the
// models not to forge collisions.
#ifndef CALCJIT_MODEL_CONTENT_HASH_H_
#define CALCJIT_MODEL_CONTENT_HASH_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace calcjit::model {

struct ContentHash {
  std::uint64_t high = 0;
  std::uint64_t low = 0;

  bool operator==(const ContentHash&) const = default;
  // 32 lowercase hex digits, high word first.
  std::string ToHex() const;
};

ContentHash HashModelBytes(std::string_view bytes);

}  // namespace calcjit::model

#endif  // CALCJIT_MODEL_CONTENT_HASH_H_
