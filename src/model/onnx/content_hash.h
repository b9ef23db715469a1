// A content hash of model bytes, for caching prepared nets: equal bytes,
// equal hash. 128 bits, MurmurHash3's x64_128 construction with seed 0 (the
// same function and values as the tree models' hash, so one cache can key
// both). Not a cryptographic hash: a cache keyed by it trusts whoever
// supplies the models not to forge collisions.
#ifndef CALCJIT_MODEL_ONNX_CONTENT_HASH_H_
#define CALCJIT_MODEL_ONNX_CONTENT_HASH_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace calcjit::model {

struct OnnxContentHash {
  std::uint64_t high = 0;
  std::uint64_t low = 0;

  bool operator==(const OnnxContentHash&) const = default;
  // 32 lowercase hex digits, high word first.
  std::string ToHex() const;
};

OnnxContentHash HashOnnxBytes(std::string_view bytes);

}  // namespace calcjit::model

#endif  // CALCJIT_MODEL_ONNX_CONTENT_HASH_H_
