// A content hash of model bytes, for caching loaded models: equal bytes,
// equal hash. xxHash's XXH3 128-bit hash (Debian's libxxhash): not a
// cryptographic hash, so a cache keyed by it trusts whoever supplies the
// models not to forge collisions (the models are code the service runs).
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
