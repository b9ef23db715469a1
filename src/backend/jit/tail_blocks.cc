#include "backend/jit/tail_blocks.h"

#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "math/masked_lanes.h"

namespace calcjit::jit {

namespace {

static_assert(kChunk == 16, "the masked variants move 16 floats");

void LoadPortable(const float* src, std::size_t n, float* block) {
  std::copy_n(src, n, block);
  std::fill(block + n, block + kChunk, 0.0f);
}

void StorePortable(const float* block, std::size_t n, float* dst) {
  std::copy_n(block, n, dst);
}

// The lanes below n, as AVX2's maskload/maskstore take them (sign bits).
__attribute__((target("avx2"))) __m256i LanesBelow(std::size_t n, int first) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n) - first), lane);
}

// The masked variants go masked only when their masked-off lanes stay on the
// pages of the active ones (math/masked_lanes.h): otherwise, when the tail
// ends within 64 bytes of a page end, or for n = 0, they copy.
bool MaskedIsSafe(const float* p, std::size_t n) {
  return n > 0 && math::MaskedLanesStayOnActivePages(p, n, kChunk);
}

__attribute__((target("avx2"))) void LoadAvx2(const float* src, std::size_t n, float* block) {
  if (!MaskedIsSafe(src, n)) return LoadPortable(src, n, block);
  _mm256_storeu_ps(block, _mm256_maskload_ps(src, LanesBelow(n, 0)));
  _mm256_storeu_ps(block + 8, _mm256_maskload_ps(src + 8, LanesBelow(n, 8)));
}

__attribute__((target("avx2"))) void StoreAvx2(const float* block, std::size_t n, float* dst) {
  if (!MaskedIsSafe(dst, n)) return StorePortable(block, n, dst);
  _mm256_maskstore_ps(dst, LanesBelow(n, 0), _mm256_loadu_ps(block));
  _mm256_maskstore_ps(dst + 8, LanesBelow(n, 8), _mm256_loadu_ps(block + 8));
}

__attribute__((target("avx512f"))) __mmask16 MaskBelow(std::size_t n) {
  return static_cast<__mmask16>((std::uint32_t{1} << n) - 1);
}

__attribute__((target("avx512f"))) void LoadAvx512(const float* src, std::size_t n, float* block) {
  if (!MaskedIsSafe(src, n)) return LoadPortable(src, n, block);
  _mm512_storeu_ps(block, _mm512_maskz_loadu_ps(MaskBelow(n), src));
}

__attribute__((target("avx512f"))) void StoreAvx512(const float* block, std::size_t n, float* dst) {
  if (!MaskedIsSafe(dst, n)) return StorePortable(block, n, dst);
  _mm512_mask_storeu_ps(dst, MaskBelow(n), _mm512_loadu_ps(block));
}

}  // namespace

TailBlocks TailBlocksFor(Isa isa) {
  switch (isa) {
    case Isa::kAvx512:
      return {&LoadAvx512, &StoreAvx512};
    case Isa::kAvx2:
      return {&LoadAvx2, &StoreAvx2};
    case Isa::kAuto:
    case Isa::kBaseline:
      break;
  }
  return {&LoadPortable, &StorePortable};
}

}  // namespace calcjit::jit
