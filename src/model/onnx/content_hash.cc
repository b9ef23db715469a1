#include "model/onnx/content_hash.h"

#include <bit>
#include <cstddef>

namespace calcjit::model {

namespace {

constexpr std::uint64_t kC1 = 0x87c37b91114253d5ull;
constexpr std::uint64_t kC2 = 0x4cf5ad432745937full;

// Little-endian whatever the host, so a hash is the same on every machine.
std::uint64_t LittleEndian64(const unsigned char* p, std::size_t count = 8) {
  std::uint64_t value = 0;
  for (std::size_t i = count; i-- > 0;) value = (value << 8) | p[i];
  return value;
}

std::uint64_t FinalMix(std::uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  k ^= k >> 33;
  return k;
}

std::uint64_t MixK1(std::uint64_t k1) {
  return std::rotl(k1 * kC1, 31) * kC2;
}
std::uint64_t MixK2(std::uint64_t k2) {
  return std::rotl(k2 * kC2, 33) * kC1;
}

}  // namespace

std::string OnnxContentHash::ToHex() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text(32, '0');
  for (int i = 0; i < 16; ++i) {
    text[15 - i] = kDigits[(high >> (4 * i)) & 15];
    text[31 - i] = kDigits[(low >> (4 * i)) & 15];
  }
  return text;
}

OnnxContentHash HashOnnxBytes(std::string_view bytes) {
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t size = bytes.size();
  std::uint64_t h1 = 0;
  std::uint64_t h2 = 0;
  const std::size_t blocks = size / 16;
  for (std::size_t i = 0; i < blocks; ++i) {
    h1 ^= MixK1(LittleEndian64(data + 16 * i));
    h1 = (std::rotl(h1, 27) + h2) * 5 + 0x52dce729;
    h2 ^= MixK2(LittleEndian64(data + 16 * i + 8));
    h2 = (std::rotl(h2, 31) + h1) * 5 + 0x38495ab5;
  }
  const unsigned char* tail = data + 16 * blocks;
  const std::size_t rest = size & 15;
  if (rest > 8) h2 ^= MixK2(LittleEndian64(tail + 8, rest - 8));
  if (rest > 0) h1 ^= MixK1(LittleEndian64(tail, rest < 8 ? rest : 8));
  h1 ^= size;
  h2 ^= size;
  h1 += h2;
  h2 += h1;
  h1 = FinalMix(h1);
  h2 = FinalMix(h2);
  h1 += h2;
  h2 += h1;
  return {h1, h2};
}

}  // namespace calcjit::model
