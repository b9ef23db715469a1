#include "model/content_hash.h"

#include <bit>
#include <cstring>

namespace calcjit::model {

namespace {

constexpr std::uint64_t kC1 = 0x87c37b91114253d5ull;
constexpr std::uint64_t kC2 = 0x4cf5ad432745937full;

std::uint64_t Load64(const unsigned char* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];  // little-endian on every host
  return v;
}

std::uint64_t Mix64(std::uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  k ^= k >> 33;
  return k;
}

}  // namespace

std::string ContentHash::ToHex() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(32, '0');
  for (int i = 0; i < 16; ++i) {
    out[15 - i] = kDigits[(high >> (4 * i)) & 15];
    out[31 - i] = kDigits[(low >> (4 * i)) & 15];
  }
  return out;
}

ContentHash HashModelBytes(std::string_view bytes) {
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t size = bytes.size();
  std::uint64_t h1 = 0, h2 = 0;
  const std::size_t blocks = size / 16;
  for (std::size_t i = 0; i < blocks; ++i) {
    std::uint64_t k1 = Load64(data + 16 * i);
    std::uint64_t k2 = Load64(data + 16 * i + 8);
    k1 *= kC1;
    k1 = std::rotl(k1, 31);
    k1 *= kC2;
    h1 ^= k1;
    h1 = std::rotl(h1, 27);
    h1 += h2;
    h1 = h1 * 5 + 0x52dce729;
    k2 *= kC2;
    k2 = std::rotl(k2, 33);
    k2 *= kC1;
    h2 ^= k2;
    h2 = std::rotl(h2, 31);
    h2 += h1;
    h2 = h2 * 5 + 0x38495ab5;
  }
  const unsigned char* tail = data + 16 * blocks;
  std::uint64_t k1 = 0, k2 = 0;
  const std::size_t rest = size & 15;
  for (std::size_t i = rest; i > 8; --i) k2 = (k2 << 8) | tail[i - 1];
  for (std::size_t i = rest < 8 ? rest : 8; i > 0; --i) k1 = (k1 << 8) | tail[i - 1];
  if (rest > 8) {
    k2 *= kC2;
    k2 = std::rotl(k2, 33);
    k2 *= kC1;
    h2 ^= k2;
  }
  if (rest > 0) {
    k1 *= kC1;
    k1 = std::rotl(k1, 31);
    k1 *= kC2;
    h1 ^= k1;
  }
  h1 ^= size;
  h2 ^= size;
  h1 += h2;
  h2 += h1;
  h1 = Mix64(h1);
  h2 = Mix64(h2);
  h1 += h2;
  h2 += h1;
  return ContentHash{h1, h2};
}

}  // namespace calcjit::model
