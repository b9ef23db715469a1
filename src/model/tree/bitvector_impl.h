// The bitvector and oblivious forms of the block evaluator (prepared_model.h,
// TreeForm), included by block_evaluator_impl.h inside its tier's namespace:
// compiled once per tier, internal linkage. Each function evaluates one tree
// for the items of one block (in_block <= kBlockItems; the block's keys past
// in_block are 0 and their results are never stored) and adds each item's
// leaf to out[i], in tree order like every form.
//
// The baseline tier's bitvector form is written over kVectorLanes items at a
// time with GCC's vector extensions (its default plan walks instead: this
// code is for PrepareOptions that ask for it, and for the tests); its
// oblivious form is SSE2 code; the avx2 and avx512 tiers have their own, in
// intrinsics, below: a tier's code is chosen by its compile flags, like the
// rest of the block evaluator.

// Items whose bitvector words are computed together.
constexpr std::size_t kVectorLanes = 16;

// Sixteen items' 32-bit words: GCC's vector extension, lowered to what the
// tier has (four SSE2 registers on baseline).
using Lanes = std::uint32_t __attribute__((vector_size(kVectorLanes * sizeof(std::uint32_t))));
using SignedLanes = std::int32_t __attribute__((vector_size(kVectorLanes * sizeof(std::uint32_t))));

// Word w's MaskNodes of a kBitvector tree.
inline const MaskNode* WordBegin(const MaskNode* nodes, const std::uint32_t* word_ends,
                                 std::uint32_t w) {
  return nodes + (w == 0 ? 0 : word_ends[w - 1]);
}

// A tree of at most kMaxBitvectorLeaves leaves, word by word from the
// highest: every MaskNode of the word compared for the group's items, the
// word ANDed with its keep mask where the item goes right; the exit leaf is
// in the lowest word not 0, at its lowest set bit.
template <typename Sum>
void PortableBitvectorTree(const MaskNode* nodes, const std::uint32_t* word_ends,
                           std::uint32_t words, const Sum* leaves, const unsigned char* keys,
                           std::size_t in_block, Sum* out) {
  for (std::size_t g = 0; g < in_block; g += kVectorLanes) {
    std::uint32_t leaf[kVectorLanes] = {};
    for (std::uint32_t w = words; w-- > 0;) {
      Lanes word = ~Lanes{};
      const MaskNode* end = nodes + word_ends[w];
      for (const MaskNode* node = WordBegin(nodes, word_ends, w); node != end; ++node) {
        SignedLanes key;
        std::memcpy(&key, keys + node->key_offset + g * sizeof(std::uint32_t), sizeof key);
        const Lanes left = reinterpret_cast<Lanes>(
            key < (SignedLanes{} + static_cast<std::int32_t>(node->threshold_key)));
        word &= left | node->keep;
      }
      for (std::size_t l = 0; l < kVectorLanes; ++l) {
        if (word[l] != 0) {
          leaf[l] = 32 * w + static_cast<std::uint32_t>(std::countr_zero(word[l]));
        }
      }
    }
    const std::size_t lanes = in_block - g < kVectorLanes ? in_block - g : kVectorLanes;
    for (std::size_t l = 0; l < lanes; ++l) out[g + l] += leaves[leaf[l]];
  }
}

#if defined(__AVX512F__) && defined(__AVX512CD__)
// AVX-512: sixteen items per register, four registers (a block of 64 items)
// per split, so that each split's mask and threshold are loaded once per
// block and eight AND chains run side by side.
#define CALCJIT_BITVECTOR_SIMD 1
constexpr std::size_t kSimdLanes = 16;
constexpr std::size_t kSimdGroups = PreparedModel::kBlockItems / kSimdLanes;

// word &= keep in the lanes of `right`, in place. GCC 12 copies the merge
// source of _mm512_mask_and_epi32 to a fresh register and back on every
// call in these loops (two extra moves per AND, measured): the instruction
// written out keeps the word in its register.
inline void AndWhere(__m512i& word, __mmask16 right, __m512i keep) {
  asm("vpandd %[keep], %[word], %[word]%{%[right]%}"
      : [word] "+v"(word)
      : [keep] "v"(keep), [right] "Yk"(right));
}
// index += 1 in the lanes of `right`, in place (as AndWhere).
inline void IncrementWhere(__m512i& index, __mmask16 right, __m512i one) {
  asm("vpaddd %[one], %[index], %[index]%{%[right]%}"
      : [index] "+v"(index)
      : [one] "v"(one), [right] "Yk"(right));
}

// The lowest set bit's position of each lane (lanes of 0: garbage).
inline __m512i LowestBit(__m512i x) {
  const __m512i lowest = _mm512_and_si512(x, _mm512_sub_epi32(_mm512_setzero_si512(), x));
  return _mm512_sub_epi32(_mm512_set1_epi32(31), _mm512_lzcnt_epi32(lowest));
}

// Adds leaves[index] to out[0, lanes) for the sixteen lanes of `index`.
inline void AddLeaves(const float* leaves, __m512i index, std::size_t lanes, float* out) {
  const __mmask16 valid = static_cast<__mmask16>((1u << lanes) - 1);
  const __m512 leaf = _mm512_i32gather_ps(index, leaves, 4);
  const __m512 sum = _mm512_add_ps(_mm512_maskz_loadu_ps(valid, out), leaf);
  _mm512_mask_storeu_ps(out, valid, sum);
}
inline void AddLeaves(const double* leaves, __m512i index, std::size_t lanes, double* out) {
  const std::uint32_t valid = (1u << lanes) - 1;
  const __m256i halves[2] = {_mm512_castsi512_si256(index), _mm512_extracti64x4_epi64(index, 1)};
  for (int h = 0; h < 2; ++h) {
    const __mmask8 m = static_cast<__mmask8>(valid >> (8 * h));
    const __m512d leaf = _mm512_i32gather_pd(halves[h], leaves, 8);
    double* at = out + 8 * h;
    _mm512_mask_storeu_pd(at, m, _mm512_add_pd(_mm512_maskz_loadu_pd(m, at), leaf));
  }
}

template <typename Sum>
void BitvectorTree(const MaskNode* nodes, const std::uint32_t* word_ends, std::uint32_t words,
                   const Sum* leaves, const unsigned char* keys, std::size_t in_block, Sum* out) {
  __m512i leaf[kSimdGroups];
  for (std::size_t g = 0; g < kSimdGroups; ++g) leaf[g] = _mm512_setzero_si512();
  for (std::uint32_t w = words; w-- > 0;) {
    __m512i word[kSimdGroups];
    for (std::size_t g = 0; g < kSimdGroups; ++g) word[g] = _mm512_set1_epi32(-1);
    const MaskNode* end = nodes + word_ends[w];
    for (const MaskNode* node = WordBegin(nodes, word_ends, w); node != end; ++node) {
      const __m512i threshold = _mm512_set1_epi32(static_cast<int>(node->threshold_key));
      const __m512i keep = _mm512_set1_epi32(static_cast<int>(node->keep));
      const unsigned char* at = keys + node->key_offset;
#pragma GCC unroll 8
      for (std::size_t g = 0; g < kSimdGroups; ++g) {
        const __m512i key = _mm512_loadu_si512(at + g * kSimdLanes * sizeof(std::uint32_t));
        const __mmask16 right = _mm512_cmp_epi32_mask(key, threshold, _MM_CMPINT_NLT);
        AndWhere(word[g], right, keep);
      }
    }
    const __m512i base = _mm512_set1_epi32(static_cast<int>(32 * w));
    for (std::size_t g = 0; g < kSimdGroups; ++g) {
      const __mmask16 found = _mm512_test_epi32_mask(word[g], word[g]);
      leaf[g] = _mm512_mask_add_epi32(leaf[g], found, LowestBit(word[g]), base);
    }
  }
  for (std::size_t g = 0; g < kSimdGroups && g * kSimdLanes < in_block; ++g) {
    const std::size_t rest = in_block - g * kSimdLanes;
    AddLeaves(leaves, leaf[g], rest < kSimdLanes ? rest : kSimdLanes, out + g * kSimdLanes);
  }
}

template <typename Sum>
void ObliviousTree(const HeapNode* levels, std::uint32_t depth, const Sum* leaves,
                   const unsigned char* keys, std::size_t in_block, Sum* out) {
  __m512i index[kSimdGroups];
  for (std::size_t g = 0; g < kSimdGroups; ++g) index[g] = _mm512_setzero_si512();
  const __m512i one = _mm512_set1_epi32(1);
  for (std::uint32_t d = 0; d < depth; ++d) {
    const HeapNode& level = levels[d];
    const __m512i threshold = _mm512_set1_epi32(static_cast<int>(level.threshold_key));
    const unsigned char* at = keys + level.key_offset;
#pragma GCC unroll 8
    for (std::size_t g = 0; g < kSimdGroups; ++g) {
      const __m512i key = _mm512_loadu_si512(at + g * kSimdLanes * sizeof(std::uint32_t));
      const __mmask16 right = _mm512_cmp_epi32_mask(key, threshold, _MM_CMPINT_NLT);
      index[g] = _mm512_add_epi32(index[g], index[g]);
      IncrementWhere(index[g], right, one);
    }
  }
  for (std::size_t g = 0; g < kSimdGroups && g * kSimdLanes < in_block; ++g) {
    const std::size_t rest = in_block - g * kSimdLanes;
    AddLeaves(leaves, index[g], rest < kSimdLanes ? rest : kSimdLanes, out + g * kSimdLanes);
  }
}

#elif defined(__AVX2__)
// AVX2: eight items per register, eight registers (64 items) per split;
// keys compare as signed (kKeyBias).
#define CALCJIT_BITVECTOR_SIMD 1
constexpr std::size_t kSimdLanes = 8;
constexpr std::size_t kSimdGroups = 8;

inline __m256i LowestBit(__m256i x) {
  // The lowest set bit alone, converted to float (exact: a power of two, or
  // -2^31 for bit 31): its exponent is the bit's position.
  const __m256i lowest = _mm256_and_si256(x, _mm256_sub_epi32(_mm256_setzero_si256(), x));
  const __m256i bits = _mm256_castps_si256(_mm256_cvtepi32_ps(lowest));
  return _mm256_sub_epi32(_mm256_and_si256(_mm256_srli_epi32(bits, 23), _mm256_set1_epi32(0xFF)),
                          _mm256_set1_epi32(127));
}

inline void AddLeaves(const float* leaves, __m256i index, std::size_t lanes, float* out) {
  if (lanes == kSimdLanes) {
    const __m256 leaf = _mm256_i32gather_ps(leaves, index, 4);
    _mm256_storeu_ps(out, _mm256_add_ps(_mm256_loadu_ps(out), leaf));
    return;
  }
  alignas(32) std::uint32_t at[kSimdLanes];
  _mm256_store_si256(reinterpret_cast<__m256i*>(at), index);
  for (std::size_t l = 0; l < lanes; ++l) out[l] += leaves[at[l]];
}
inline void AddLeaves(const double* leaves, __m256i index, std::size_t lanes, double* out) {
  if (lanes == kSimdLanes) {
    // The masked gathers (all lanes): GCC 12 warns about the plain one's
    // undefined source.
    const __m256d all = _mm256_castsi256_pd(_mm256_set1_epi32(-1));
    const __m256d first = _mm256_mask_i32gather_pd(_mm256_setzero_pd(), leaves,
                                                   _mm256_castsi256_si128(index), all, 8);
    const __m256d second = _mm256_mask_i32gather_pd(_mm256_setzero_pd(), leaves,
                                                    _mm256_extracti128_si256(index, 1), all, 8);
    _mm256_storeu_pd(out, _mm256_add_pd(_mm256_loadu_pd(out), first));
    _mm256_storeu_pd(out + 4, _mm256_add_pd(_mm256_loadu_pd(out + 4), second));
    return;
  }
  alignas(32) std::uint32_t at[kSimdLanes];
  _mm256_store_si256(reinterpret_cast<__m256i*>(at), index);
  for (std::size_t l = 0; l < lanes; ++l) out[l] += leaves[at[l]];
}

template <typename Sum>
void BitvectorTree(const MaskNode* nodes, const std::uint32_t* word_ends, std::uint32_t words,
                   const Sum* leaves, const unsigned char* keys, std::size_t in_block, Sum* out) {
  for (std::size_t first = 0; first < in_block; first += kSimdGroups * kSimdLanes) {
    __m256i leaf[kSimdGroups];
    for (std::size_t g = 0; g < kSimdGroups; ++g) leaf[g] = _mm256_setzero_si256();
    const unsigned char* group_keys = keys + first * sizeof(std::uint32_t);
    for (std::uint32_t w = words; w-- > 0;) {
      __m256i word[kSimdGroups];
      for (std::size_t g = 0; g < kSimdGroups; ++g) word[g] = _mm256_set1_epi32(-1);
      const MaskNode* end = nodes + word_ends[w];
      for (const MaskNode* node = WordBegin(nodes, word_ends, w); node != end; ++node) {
        const __m256i threshold = _mm256_set1_epi32(static_cast<int>(node->threshold_key));
        const __m256i keep = _mm256_set1_epi32(static_cast<int>(node->keep));
        const unsigned char* at = group_keys + node->key_offset;
#pragma GCC unroll 8
        for (std::size_t g = 0; g < kSimdGroups; ++g) {
          const __m256i key = _mm256_loadu_si256(
              reinterpret_cast<const __m256i*>(at + g * kSimdLanes * sizeof(std::uint32_t)));
          // All ones where the item goes left (key < threshold): keep all.
          const __m256i left = _mm256_cmpgt_epi32(threshold, key);
          word[g] = _mm256_and_si256(word[g], _mm256_or_si256(left, keep));
        }
      }
      const __m256i base = _mm256_set1_epi32(static_cast<int>(32 * w));
      for (std::size_t g = 0; g < kSimdGroups; ++g) {
        const __m256i empty = _mm256_cmpeq_epi32(word[g], _mm256_setzero_si256());
        leaf[g] = _mm256_blendv_epi8(_mm256_add_epi32(LowestBit(word[g]), base), leaf[g], empty);
      }
    }
    for (std::size_t g = 0; g < kSimdGroups && first + g * kSimdLanes < in_block; ++g) {
      const std::size_t rest = in_block - first - g * kSimdLanes;
      AddLeaves(leaves, leaf[g], rest < kSimdLanes ? rest : kSimdLanes,
                out + first + g * kSimdLanes);
    }
  }
}

template <typename Sum>
void ObliviousTree(const HeapNode* levels, std::uint32_t depth, const Sum* leaves,
                   const unsigned char* keys, std::size_t in_block, Sum* out) {
  for (std::size_t first = 0; first < in_block; first += kSimdGroups * kSimdLanes) {
    __m256i index[kSimdGroups];
    for (std::size_t g = 0; g < kSimdGroups; ++g) index[g] = _mm256_setzero_si256();
    const unsigned char* group_keys = keys + first * sizeof(std::uint32_t);
    for (std::uint32_t d = 0; d < depth; ++d) {
      const HeapNode& level = levels[d];
      const __m256i threshold = _mm256_set1_epi32(static_cast<int>(level.threshold_key));
      const unsigned char* at = group_keys + level.key_offset;
#pragma GCC unroll 8
      for (std::size_t g = 0; g < kSimdGroups; ++g) {
        const __m256i key = _mm256_loadu_si256(
            reinterpret_cast<const __m256i*>(at + g * kSimdLanes * sizeof(std::uint32_t)));
        // left is -1, so 2 * index + 1 + left is 2 * index + (right ? 1 : 0).
        const __m256i left = _mm256_cmpgt_epi32(threshold, key);
        index[g] = _mm256_add_epi32(_mm256_add_epi32(index[g], index[g]),
                                    _mm256_add_epi32(left, _mm256_set1_epi32(1)));
      }
    }
    for (std::size_t g = 0; g < kSimdGroups && first + g * kSimdLanes < in_block; ++g) {
      const std::size_t rest = in_block - first - g * kSimdLanes;
      AddLeaves(leaves, index[g], rest < kSimdLanes ? rest : kSimdLanes,
                out + first + g * kSimdLanes);
    }
  }
}
#endif

#ifndef CALCJIT_BITVECTOR_SIMD
template <typename Sum>
void BitvectorTree(const MaskNode* nodes, const std::uint32_t* word_ends, std::uint32_t words,
                   const Sum* leaves, const unsigned char* keys, std::size_t in_block, Sum* out) {
  PortableBitvectorTree<Sum>(nodes, word_ends, words, leaves, keys, in_block, out);
}
// The baseline tier's oblivious trees in SSE2 (part of x86-64): four items
// per register, the whole block (sixteen registers) per level; the plain
// loops above lost a factor of two to the compiler's shuffles (measured).
template <typename Sum>
void ObliviousTree(const HeapNode* levels, std::uint32_t depth, const Sum* leaves,
                   const unsigned char* keys, std::size_t in_block, Sum* out) {
  constexpr std::size_t kSseLanes = 4;
  constexpr std::size_t kSseGroups = PreparedModel::kBlockItems / kSseLanes;
  __m128i index[kSseGroups];
  for (std::size_t g = 0; g < kSseGroups; ++g) index[g] = _mm_setzero_si128();
  const __m128i one = _mm_set1_epi32(1);
  for (std::uint32_t d = 0; d < depth; ++d) {
    const HeapNode& level = levels[d];
    const __m128i threshold = _mm_set1_epi32(static_cast<int>(level.threshold_key));
    const unsigned char* at = keys + level.key_offset;
    for (std::size_t g = 0; g < kSseGroups; ++g) {
      const __m128i key = _mm_loadu_si128(
          reinterpret_cast<const __m128i*>(at + g * kSseLanes * sizeof(std::uint32_t)));
      // left is -1, so 2 * index + 1 + left is 2 * index + (right ? 1 : 0).
      const __m128i left = _mm_cmpgt_epi32(threshold, key);
      index[g] = _mm_add_epi32(_mm_add_epi32(index[g], index[g]), _mm_add_epi32(left, one));
    }
  }
  alignas(16) std::uint32_t at[PreparedModel::kBlockItems];
  for (std::size_t g = 0; g < kSseGroups; ++g) {
    _mm_store_si128(reinterpret_cast<__m128i*>(at + g * kSseLanes), index[g]);
  }
  for (std::size_t i = 0; i < in_block; ++i) out[i] += leaves[at[i]];
}
#endif
#undef CALCJIT_BITVECTOR_SIMD
