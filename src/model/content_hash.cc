#include "model/content_hash.h"

#include <cstdio>

#include <xxhash.h>

namespace calcjit::model {

std::string ContentHash::ToHex() const {
  char text[33];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(high),
                static_cast<unsigned long long>(low));
  return text;
}

ContentHash HashModelBytes(std::string_view bytes) {
  const XXH128_hash_t hash = XXH3_128bits(bytes.data(), bytes.size());
  return {hash.high64, hash.low64};
}

}  // namespace calcjit::model
