// The binned bitvector form of the block evaluator (prepared_model.h,
// TreeForm::kBinned), included by block_evaluator_impl.h inside its tier's
// namespace after bitvector_impl.h (whose AddLeaves it shares): compiled once
// per tier, internal linkage.
//
// MakeBins turns one slot's keys of a block into one bin slot's bytes;
// BinnedTree evaluates one tree for a whole block. Its loop over splits is
// written once, over GCC's vector extension of 64 bytes (a block), which each
// tier lowers to what it has: one AVX-512 register and a mask, two AVX2
// registers, four SSE2 ones.

// A block's bytes: one per item.
using BlockBytes = std::int8_t __attribute__((vector_size(PreparedModel::kBlockItems)));

// One binned tree's splits (FastTree, kBinned) and the bins of the blocks
// it runs on: word w's numerical splits are nodes[word_ends[w - 1],
// word_ends[w]) (from 0 for w = 0), then, in a categorical tree, its
// categorical ones likewise in category_nodes.
struct BinnedWords {
  const BinNode* nodes;
  const std::uint32_t* word_ends;
  const CategoryNode* category_nodes;
  const std::uint32_t* category_word_ends;
  std::uint32_t words;
  const unsigned char* bins;  // the first block's
  std::size_t stride;         // bytes from a block's bins to the next block's
  std::size_t bit_rows;       // bytes from a code bin slot's byte row to its bit row

  const BinNode* begin(std::uint32_t w) const { return nodes + (w == 0 ? 0 : word_ends[w - 1]); }
  const BinNode* end(std::uint32_t w) const { return nodes + word_ends[w]; }
  const CategoryNode* category_begin(std::uint32_t w) const {
    return category_nodes + (w == 0 ? 0 : category_word_ends[w - 1]);
  }
  const CategoryNode* category_end(std::uint32_t w) const {
    return category_nodes + category_word_ends[w];
  }
};

// The bins of a code bin slot (BinSlot::codes) for the 64 keys of a block
// (codes, split_keys.h): which byte of a CategoryNode's 32 bytes of sides
// holds the code's (code >> 3: with `permute`, as VPERMB indexes them;
// else + kShuffleBias, as two byte shuffles take it: CategoryStep), and the
// code's bit within it.
constexpr unsigned kShuffleBias = 0x70;
inline void MakeCodeBins(const std::uint32_t* codes, bool permute, std::int8_t* bytes,
                         std::int8_t* bits) {
  const unsigned bias = permute ? 0 : kShuffleBias;
  for (std::size_t i = 0; i < PreparedModel::kBlockItems; ++i) {
    bytes[i] = static_cast<std::int8_t>((codes[i] >> 3) + bias);
    bits[i] = static_cast<std::int8_t>(1u << (codes[i] & 7u));
  }
}

// The bins of one bin slot (BinSlot) for the 64 keys of a block, biased
// (kByteBias): `depth` steps down the bin slot's search tree `tree`, every
// item of the block at once; the first levels' entries are read from
// registers by a permute, the deeper ones gathered.
#if defined(__AVX512F__)
inline void MakeBins(const BinSlot& bin_slot, const std::uint32_t* tree, const std::uint32_t* keys,
                     std::int8_t* bins, std::int8_t* complemented) {
  constexpr std::size_t kGroups = PreparedModel::kBlockItems / 16;
  // Entries 1-31 (levels 1-5) and 32-63 (level 6): a two-register permute each.
  const __m512i top[2] = {_mm512_loadu_si512(tree), _mm512_loadu_si512(tree + 16)};
  const __m512i middle[2] = {_mm512_loadu_si512(tree + 32), _mm512_loadu_si512(tree + 48)};
  const __m512i minus_one = _mm512_set1_epi32(-1);
  __m512i key[kGroups];
  __m512i at[kGroups];
  for (std::size_t g = 0; g < kGroups; ++g) {
    key[g] = _mm512_load_si512(keys + 16 * g);
    at[g] = _mm512_set1_epi32(1);
  }
  for (int level = 0; level < bin_slot.depth; ++level) {
    for (std::size_t g = 0; g < kGroups; ++g) {
      const __m512i entry = level < 5    ? _mm512_permutex2var_epi32(top[0], at[g], top[1])
                            : level == 5 ? _mm512_permutex2var_epi32(middle[0], at[g], middle[1])
                                         : _mm512_i32gather_epi32(at[g], tree, 4);
      const __mmask16 right = _mm512_cmple_epu32_mask(entry, key[g]);
      at[g] = _mm512_mask_sub_epi32(_mm512_add_epi32(at[g], at[g]), right,
                                    _mm512_add_epi32(at[g], at[g]), minus_one);
    }
  }
  const __m512i first_leaf = _mm512_set1_epi32(1 << bin_slot.depth);
  const __m512i count = _mm512_set1_epi32(bin_slot.count);
  const __m512i bias = _mm512_set1_epi32(kByteBias);
  for (std::size_t g = 0; g < kGroups; ++g) {
    const __m512i bin = _mm512_min_epu32(_mm512_sub_epi32(at[g], first_leaf), count);
    const __m128i biased = _mm512_cvtepi32_epi8(_mm512_xor_si512(bin, bias));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(bins + 16 * g), biased);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(complemented + 16 * g),
                     _mm_xor_si128(biased, _mm_set1_epi32(-1)));
  }
}
#elif defined(__AVX2__)
inline void MakeBins(const BinSlot& bin_slot, const std::uint32_t* tree, const std::uint32_t* keys,
                     std::int8_t* bins, std::int8_t* complemented) {
  constexpr std::size_t kGroups = PreparedModel::kBlockItems / 8;
  // Entries 1-7 (levels 1-3) and 8-15 (level 4): a one-register permute each.
  const __m256i top = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(tree));
  const __m256i middle = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(tree + 8));
  // Unsigned compares as signed ones of biased values (kKeyBias).
  const __m256i key_bias = _mm256_set1_epi32(static_cast<int>(kKeyBias));
  __m256i key[kGroups];
  __m256i at[kGroups];
  for (std::size_t g = 0; g < kGroups; ++g) {
    key[g] = _mm256_xor_si256(_mm256_load_si256(reinterpret_cast<const __m256i*>(keys + 8 * g)),
                              key_bias);
    at[g] = _mm256_set1_epi32(1);
  }
  for (int level = 0; level < bin_slot.depth; ++level) {
    for (std::size_t g = 0; g < kGroups; ++g) {
      const __m256i entry =
          level < 3    ? _mm256_permutevar8x32_epi32(top, at[g])
          : level == 3 ? _mm256_permutevar8x32_epi32(middle, at[g])
                       : _mm256_i32gather_epi32(reinterpret_cast<const int*>(tree), at[g], 4);
      // -1 where the entry is above the key (go left): 2 * at + 1 + that.
      const __m256i left = _mm256_cmpgt_epi32(_mm256_xor_si256(entry, key_bias), key[g]);
      at[g] = _mm256_add_epi32(_mm256_add_epi32(at[g], at[g]),
                               _mm256_add_epi32(left, _mm256_set1_epi32(1)));
    }
  }
  const __m256i first_leaf = _mm256_set1_epi32(1 << bin_slot.depth);
  const __m256i count = _mm256_set1_epi32(bin_slot.count);
  for (std::size_t g = 0; g < kGroups; ++g) {
    alignas(32) std::uint32_t bin[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(bin),
                       _mm256_min_epu32(_mm256_sub_epi32(at[g], first_leaf), count));
    for (std::size_t l = 0; l < 8; ++l) {
      bins[8 * g + l] = static_cast<std::int8_t>(bin[l] ^ kByteBias);
      complemented[8 * g + l] = static_cast<std::int8_t>(~(bin[l] ^ kByteBias));
    }
  }
}
#else
inline void MakeBins(const BinSlot& bin_slot, const std::uint32_t* tree, const std::uint32_t* keys,
                     std::int8_t* bins, std::int8_t* complemented) {
  for (std::size_t i = 0; i < PreparedModel::kBlockItems; ++i) {
    std::uint32_t at = 1;
    for (int level = 0; level < bin_slot.depth; ++level) {
      at = 2 * at + static_cast<std::uint32_t>(tree[at] <= keys[i]);
    }
    const std::uint32_t bin = std::min<std::uint32_t>(at - (1u << bin_slot.depth), bin_slot.count);
    bins[i] = static_cast<std::int8_t>(bin ^ kByteBias);
    complemented[i] = static_cast<std::int8_t>(~(bin ^ kByteBias));
  }
}
#endif

// The position of the lowest set bit of a byte holding that bit alone, by
// its low and its high nibble (two 16-entry lookups, pshufb).
alignas(16) inline constexpr std::int8_t kLowNibbleBit[16] = {0, 0, 1, 0, 2, 0, 0, 0,
                                                              3, 0, 0, 0, 0, 0, 0, 0};
alignas(16) inline constexpr std::int8_t kHighNibbleBit[16] = {0, 4, 5, 0, 6, 0, 0, 0,
                                                               7, 0, 0, 0, 0, 0, 0, 0};

// The exit leaves of a tree's items in a block: each 8-leaf word from the
// highest, every BinNode of the word compared for the whole block and the
// word ANDed with its keep mask where the item goes right; the exit leaf is
// in the lowest word not 0, at its lowest set bit.
#if defined(__AVX512F__)
// The position of each byte's lowest set bit (bytes of 0: garbage), by two
// 16-entry table lookups of the bit alone.
inline __m512i LowestBitOfBytes(__m512i word) {
  const __m512i nibble = _mm512_set1_epi8(0x0F);
  const __m512i low_table =
      _mm512_broadcast_i32x4(_mm_load_si128(reinterpret_cast<const __m128i*>(kLowNibbleBit)));
  const __m512i high_table =
      _mm512_broadcast_i32x4(_mm_load_si128(reinterpret_cast<const __m128i*>(kHighNibbleBit)));
  const __m512i lowest = _mm512_and_si512(word, _mm512_sub_epi8(_mm512_setzero_si512(), word));
  const __m512i low = _mm512_shuffle_epi8(low_table, _mm512_and_si512(lowest, nibble));
  const __m512i high =
      _mm512_shuffle_epi8(high_table, _mm512_and_si512(_mm512_srli_epi16(lowest, 4), nibble));
  return _mm512_or_si512(low, high);
}

// GF(2) affine matrices that AND a byte with `keep` (bit i of the result is
// bit i of the byte where bit i of keep is set, else 0), by keep: row i of
// the matrix (byte 7 - i of the qword, as GF2P8AFFINEQB reads it) holds bit
// i alone where keep has it.
struct KeepMatrices {
  std::uint64_t by_keep[256];
  constexpr KeepMatrices() : by_keep() {
    for (unsigned keep = 0; keep < 256; ++keep) {
      for (unsigned i = 0; i < 8; ++i) {
        if ((keep >> i & 1u) != 0) by_keep[keep] |= std::uint64_t{1} << i << 8 * (7 - i);
      }
    }
  }
};
inline constexpr KeepMatrices kKeepMatrices;

// word = where `second`, word & keep; else word. Written out in assembly
// because GCC 12, given the intrinsics, merges into a fresh register and
// copies it back, one more 512-bit uop per split and block. With kGfni the
// AND is one merge-masked GF2P8AFFINEQB of the word by keep's matrix
// (kKeepMatrices): with the compare, two uops per split and block, one on
// port 5 and one on port 0, where the portable step takes three (an AND and
// a masked move besides the compare) on those two ports (docs/PERFORMANCE.md,
// run Q5).
template <bool kGfni>
inline void ApplyKeep(__mmask64 second, __m512i keep, __m512i* word) {
  if constexpr (kGfni) {
    asm("vgf2p8affineqb $0, %[keep], %[word], %[word]%{%[second]%}"
        : [word] "+v"(*word)
        : [second] "Yk"(second), [keep] "v"(keep));
  } else {
    __m512i cleared;
    asm("vpandd %[keep], %[word], %[cleared]\n\t"
        "vmovdqu8 %[cleared], %[word]%{%[second]%}"
        : [word] "+v"(*word), [cleared] "=&v"(cleared)
        : [second] "Yk"(second), [keep] "v"(keep));
  }
}

// Keep mask `keep` (a byte, four times) as ApplyKeep takes it.
template <bool kGfni>
inline __m512i KeepOperand(std::uint32_t keep) {
  return kGfni ? _mm512_set1_epi64(static_cast<long long>(kKeepMatrices.by_keep[keep & 0xFFu]))
               : _mm512_set1_epi32(static_cast<int>(keep));
}

// One numerical split for kBlocks blocks: the item goes to the second
// subtree where its bin (or complemented bin) >= threshold. The compare is
// in the same assembly as ApplyKeep's step, reading the bins from memory:
// given the intrinsic, GCC loads each into a register first and copies
// some words back and forth around the step.
template <int kBlocks, bool kGfni>
inline void SplitStep(const BinNode& node, const BinnedWords& tree, __m512i* word) {
  const __m512i threshold = _mm512_set1_epi32(static_cast<int>(node.threshold));
  const __m512i keep = KeepOperand<kGfni>(node.keep);
  for (int k = 0; k < kBlocks; ++k) {
    const auto* bin =
        reinterpret_cast<const __m512i*>(tree.bins + k * tree.stride + node.bins_offset);
    __mmask64 second;
    if constexpr (kGfni) {
      asm("vpcmpleb %[bin], %[threshold], %[second]\n\t"
          "vgf2p8affineqb $0, %[keep], %[word], %[word]%{%[second]%}"
          : [word] "+v"(word[k]), [second] "=&Yk"(second)
          : [bin] "m"(*bin), [threshold] "v"(threshold), [keep] "v"(keep));
    } else {
      __m512i cleared;
      asm("vpcmpleb %[bin], %[threshold], %[second]\n\t"
          "vpandd %[keep], %[word], %[cleared]\n\t"
          "vmovdqu8 %[cleared], %[word]%{%[second]%}"
          : [word] "+v"(word[k]), [second] "=&Yk"(second), [cleared] "=&v"(cleared)
          : [bin] "m"(*bin), [threshold] "v"(threshold), [keep] "v"(keep));
    }
  }
}

// One categorical split for kBlocks blocks: each item's byte of the split's
// 32 bytes of sides, tested with the code's bit. With kGfni (where the CPU
// also has VBMI) the byte is one VPERMB of the 32 bytes (twice over) by the
// byte's index; else two byte shuffles, one per 16 bytes, of which the one
// whose half the index is not in gives 0 (bit 7 of its index set:
// kShuffleBias).
template <int kBlocks, bool kGfni>
inline void CategoryStep(const CategoryNode& node, const BinnedWords& tree, __m512i* word) {
  const __m512i keep = KeepOperand<kGfni>(node.keep);
  if constexpr (kGfni) {
    const __m512i sides =
        _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(node.second)));
    for (int k = 0; k < kBlocks; ++k) {
      const unsigned char* at = tree.bins + k * tree.stride + node.bins_offset;
      __m512i byte;
      asm("vpermb %[sides], %[index], %[byte]"
          : [byte] "=v"(byte)
          : [sides] "v"(sides), [index] "v"(_mm512_load_si512(at)));
      ApplyKeep<kGfni>(_mm512_test_epi8_mask(byte, _mm512_load_si512(at + tree.bit_rows)), keep,
                       &word[k]);
    }
  } else {
    const __m512i low =
        _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(node.second)));
    const __m512i high =
        _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(node.second + 16)));
    const __m512i other_half = _mm512_set1_epi8(static_cast<char>(0x80));
    for (int k = 0; k < kBlocks; ++k) {
      const unsigned char* at = tree.bins + k * tree.stride + node.bins_offset;
      const __m512i index = _mm512_load_si512(at);
      const __m512i byte =
          _mm512_or_si512(_mm512_shuffle_epi8(low, index),
                          _mm512_shuffle_epi8(high, _mm512_xor_si512(index, other_half)));
      ApplyKeep<kGfni>(_mm512_test_epi8_mask(byte, _mm512_load_si512(at + tree.bit_rows)), keep,
                       &word[k]);
    }
  }
}

// `step` for each node of [node, end), alternately into the word's halves
// `first` and `second`.
template <typename Node, typename Step>
inline void Alternate(const Node* node, const Node* end, __m512i* first, __m512i* second,
                      Step step) {
  for (; end - node >= 2; node += 2) {
    step(node[0], first);
    step(node[1], second);
  }
  if (node != end) step(*node, first);
}

// The exit leaves of kBlocks blocks: each split's threshold and keep mask
// are loaded once for all of them (two blocks per split measured 20% faster
// than one, four 7% faster than two: block_evaluator_impl.h, kBinnedGroup).
template <int kBlocks, bool kGfni, bool kCategorical>
void BinnedExitLeaves(const BinnedWords& tree, BlockBytes* leaves) {
  const __m512i ones = _mm512_set1_epi32(-1);
  const __m512i eight = _mm512_set1_epi8(8);
  // The lowest word not 0 so far and its first leaf, per item: the bit scan
  // runs once, after the last word (per word it cost as much as the splits
  // of a 64-leaf tree's word).
  __m512i exit_word[kBlocks];
  __m512i exit_base[kBlocks];
  for (int k = 0; k < kBlocks; ++k) exit_word[k] = exit_base[k] = _mm512_setzero_si512();
  __m512i base = _mm512_set1_epi8(static_cast<char>(8 * tree.words));
  for (std::uint32_t w = tree.words; w-- > 0;) {
    base = _mm512_sub_epi8(base, eight);
    // Two halves of each word, the splits alternating between them and
    // ANDed at the end: GF2P8AFFINEQB's latency is 5 cycles, so one chain
    // per block would wait on it (run Q5).
    __m512i word[kBlocks];
    __m512i other[kBlocks];
    for (int k = 0; k < kBlocks; ++k) word[k] = other[k] = ones;
    Alternate(tree.begin(w), tree.end(w), word, other, [&](const BinNode& node, __m512i* half) {
      SplitStep<kBlocks, kGfni>(node, tree, half);
    });
    if constexpr (kCategorical) {
      Alternate(tree.category_begin(w), tree.category_end(w), other, word,
                [&](const CategoryNode& node, __m512i* half) {
                  CategoryStep<kBlocks, kGfni>(node, tree, half);
                });
    }
    for (int k = 0; k < kBlocks; ++k) {
      word[k] = _mm512_and_si512(word[k], other[k]);
      const __mmask64 found = _mm512_test_epi8_mask(word[k], word[k]);
      exit_word[k] = _mm512_mask_mov_epi8(exit_word[k], found, word[k]);
      exit_base[k] = _mm512_mask_mov_epi8(exit_base[k], found, base);
    }
  }
  for (int k = 0; k < kBlocks; ++k) {
    const __m512i leaf = _mm512_add_epi8(LowestBitOfBytes(exit_word[k]), exit_base[k]);
    std::memcpy(&leaves[k], &leaf, sizeof leaf);
  }
}

// Adds the leaves of 64 items' exit leaves to out[0, in_block): up to 64
// float leaves are read from four registers by permutes (a gather of
// sixteen costs sixteen loads), more gathered.
inline void AddBinnedLeaves(const float* leaves, std::uint32_t count, const BlockBytes& leaf,
                            std::size_t in_block, float* out) {
  __m512 table[4];
  if (count <= 64) {
    for (int r = 0; r < 4; ++r) table[r] = _mm512_loadu_ps(leaves + 16 * r);
  }
  for (std::size_t g = 0; g * kSimdLanes < in_block; ++g) {
    const std::size_t rest = in_block - g * kSimdLanes;
    const __m512i index =
        _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(&leaf) + g));
    if (count > 64) {
      AddLeaves(leaves, index, rest < kSimdLanes ? rest : kSimdLanes, out + g * kSimdLanes);
      continue;
    }
    const __m512 low = _mm512_permutex2var_ps(table[0], index, table[1]);
    const __m512 high = _mm512_permutex2var_ps(table[2], index, table[3]);
    const __m512 value =
        _mm512_mask_blend_ps(_mm512_test_epi32_mask(index, _mm512_set1_epi32(32)), low, high);
    const __mmask16 valid = rest < kSimdLanes ? static_cast<__mmask16>((1u << rest) - 1)
                                              : static_cast<__mmask16>(0xFFFF);
    float* at = out + g * kSimdLanes;
    _mm512_mask_storeu_ps(at, valid, _mm512_add_ps(_mm512_maskz_loadu_ps(valid, at), value));
  }
}
inline void AddBinnedLeaves(const double* leaves, std::uint32_t, const BlockBytes& leaf,
                            std::size_t in_block, double* out) {
  for (std::size_t g = 0; g * kSimdLanes < in_block; ++g) {
    const std::size_t rest = in_block - g * kSimdLanes;
    const __m512i index =
        _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(&leaf) + g));
    AddLeaves(leaves, index, rest < kSimdLanes ? rest : kSimdLanes, out + g * kSimdLanes);
  }
}
#elif defined(__AVX2__)
inline __m256i LowestBitOfBytes(__m256i word) {
  const __m256i nibble = _mm256_set1_epi8(0x0F);
  const __m256i low_table =
      _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(kLowNibbleBit)));
  const __m256i high_table =
      _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(kHighNibbleBit)));
  const __m256i lowest = _mm256_and_si256(word, _mm256_sub_epi8(_mm256_setzero_si256(), word));
  const __m256i low = _mm256_shuffle_epi8(low_table, _mm256_and_si256(lowest, nibble));
  const __m256i high =
      _mm256_shuffle_epi8(high_table, _mm256_and_si256(_mm256_srli_epi16(lowest, 4), nibble));
  return _mm256_or_si256(low, high);
}

template <int kBlocks, bool kGfni, bool kCategorical>
void BinnedExitLeaves(const BinnedWords& tree, BlockBytes* leaves) {
  static_assert(!kGfni, "GFNI's split step is AVX-512's");
  constexpr int kHalves = 2 * kBlocks;  // registers of 32 items
  const __m256i zero = _mm256_setzero_si256();
  // The lowest word not 0 so far and its first leaf, per item (in memory
  // with four blocks: sixteen registers hold the words): the bit scan runs
  // once, after the last word, as on AVX-512 (run Q5).
  __m256i exit_word[kHalves];
  __m256i exit_base[kHalves];
  for (int h = 0; h < kHalves; ++h) {
    exit_word[h] = zero;
    exit_base[h] = _mm256_set1_epi8(-1);
  }
  for (std::uint32_t w = tree.words; w-- > 0;) {
    __m256i word[kHalves];
    for (int h = 0; h < kHalves; ++h) word[h] = _mm256_set1_epi32(-1);
    // Cleared where the item goes to the split's second subtree: where its
    // bin (or complemented bin) is not below the threshold.
    for (const BinNode* node = tree.begin(w); node != tree.end(w); ++node) {
      const __m256i threshold = _mm256_set1_epi32(static_cast<int>(node->threshold));
      const __m256i keep = _mm256_set1_epi32(static_cast<int>(node->keep));
      for (int h = 0; h < kHalves; ++h) {
        const unsigned char* at =
            tree.bins + (h / 2) * tree.stride + node->bins_offset + 32 * (h % 2);
        const __m256i bin = _mm256_load_si256(reinterpret_cast<const __m256i*>(at));
        // All ones where the item goes to the first subtree: keep all.
        const __m256i first = _mm256_cmpgt_epi8(threshold, bin);
        word[h] = _mm256_and_si256(word[h], _mm256_or_si256(first, keep));
      }
    }
    // A categorical split: the item's byte of its sides (two shuffles, one
    // per 16 bytes: kShuffleBias) without the code's bit where the item goes
    // to the first subtree.
    if constexpr (kCategorical) {
      const __m256i other_half = _mm256_set1_epi8(static_cast<char>(0x80));
      for (const CategoryNode* node = tree.category_begin(w); node != tree.category_end(w);
           ++node) {
        const __m256i low = _mm256_broadcastsi128_si256(
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(node->second)));
        const __m256i high = _mm256_broadcastsi128_si256(
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(node->second + 16)));
        const __m256i keep = _mm256_set1_epi32(static_cast<int>(node->keep));
        for (int h = 0; h < kHalves; ++h) {
          const unsigned char* at =
              tree.bins + (h / 2) * tree.stride + node->bins_offset + 32 * (h % 2);
          const __m256i index = _mm256_load_si256(reinterpret_cast<const __m256i*>(at));
          const __m256i byte =
              _mm256_or_si256(_mm256_shuffle_epi8(low, index),
                              _mm256_shuffle_epi8(high, _mm256_xor_si256(index, other_half)));
          const __m256i bit =
              _mm256_load_si256(reinterpret_cast<const __m256i*>(at + tree.bit_rows));
          const __m256i first = _mm256_cmpeq_epi8(_mm256_and_si256(byte, bit), zero);
          word[h] = _mm256_and_si256(word[h], _mm256_or_si256(first, keep));
        }
      }
    }
    const __m256i base = _mm256_set1_epi8(static_cast<char>(8 * w));
    for (int h = 0; h < kHalves; ++h) {
      const __m256i empty = _mm256_cmpeq_epi8(word[h], zero);
      // Where the word is not 0 it replaces the exit word, and its first
      // leaf (lower than any before: the words go down) the exit base.
      exit_word[h] = _mm256_or_si256(word[h], _mm256_and_si256(exit_word[h], empty));
      exit_base[h] = _mm256_min_epu8(exit_base[h], _mm256_or_si256(base, empty));
    }
  }
  __m256i leaf[kHalves];
  for (int h = 0; h < kHalves; ++h) {
    leaf[h] = _mm256_add_epi8(LowestBitOfBytes(exit_word[h]), exit_base[h]);
  }
  for (int k = 0; k < kBlocks; ++k) std::memcpy(&leaves[k], &leaf[2 * k], sizeof leaves[k]);
}
#else
// Baseline (SSE2): a block is four registers of sixteen bytes. GCC's vector
// extension over 16 bytes lowers to SSE2 instructions one for one (over the
// whole 64-byte block it went through memory, 40x slower, measured).
using SseBytes = std::int8_t __attribute__((vector_size(16)));
constexpr int kSseRegisters = PreparedModel::kBlockItems / 16;

// The position of the lowest set bit of each byte (bytes of 0: 0).
inline SseBytes LowestBitOfBytes(SseBytes word) {
  // Negated as unsigned bytes (-128 as a signed byte has no negation).
  using UnsignedBytes = std::uint8_t __attribute__((vector_size(16)));
  const SseBytes lowest = word & reinterpret_cast<SseBytes>(-reinterpret_cast<UnsignedBytes>(word));
  const SseBytes zero = {};
  const SseBytes one = zero + 1;
  return (((lowest & static_cast<std::int8_t>(0xAA)) != zero) & one) |
         (((lowest & static_cast<std::int8_t>(0xCC)) != zero) & (one + one)) |
         (((lowest & static_cast<std::int8_t>(0xF0)) != zero) & (one + one + one + one));
}

template <int kBlocks, bool kGfni, bool kCategorical>
void BinnedExitLeaves(const BinnedWords& tree, BlockBytes* leaves) {
  static_assert(!kGfni, "GFNI's split step is AVX-512's");
  constexpr int kRegisters = kSseRegisters * kBlocks;
  const SseBytes zero = {};
  SseBytes exit_word[kRegisters];
  SseBytes exit_base[kRegisters];
  for (int r = 0; r < kRegisters; ++r) exit_word[r] = exit_base[r] = zero;
  for (std::uint32_t w = tree.words; w-- > 0;) {
    SseBytes word[kRegisters];
    for (int r = 0; r < kRegisters; ++r) word[r] = ~zero;
    // Cleared where the item goes to the split's second subtree.
    for (const BinNode* node = tree.begin(w); node != tree.end(w); ++node) {
      const SseBytes threshold = zero + static_cast<std::int8_t>(node->threshold & 0xFFu);
      const SseBytes keep = zero + static_cast<std::int8_t>(node->keep & 0xFFu);
      for (int r = 0; r < kRegisters; ++r) {
        SseBytes bin;
        std::memcpy(&bin,
                    tree.bins + (r / kSseRegisters) * tree.stride + node->bins_offset +
                        16 * (r % kSseRegisters),
                    sizeof bin);
        word[r] &= (bin < threshold) | keep;
      }
    }
    // A categorical split: SSE2 has no byte shuffle, so each item's byte of
    // the split's sides is read one by one.
    if constexpr (kCategorical) {
      for (const CategoryNode* node = tree.category_begin(w); node != tree.category_end(w);
           ++node) {
        const SseBytes keep = zero + static_cast<std::int8_t>(node->keep & 0xFFu);
        for (int r = 0; r < kRegisters; ++r) {
          const unsigned char* at = tree.bins + (r / kSseRegisters) * tree.stride +
                                    node->bins_offset + 16 * (r % kSseRegisters);
          SseBytes first;
          for (int j = 0; j < 16; ++j) {
            const unsigned byte = node->second[(at[j] - kShuffleBias) & 31u];
            first[j] = (byte & at[j + tree.bit_rows]) != 0 ? 0 : -1;
          }
          word[r] &= first | keep;
        }
      }
    }
    const SseBytes base = zero + static_cast<std::int8_t>(8 * w);
    for (int r = 0; r < kRegisters; ++r) {
      const SseBytes found = word[r] != zero;
      exit_word[r] = (found & word[r]) | (~found & exit_word[r]);
      exit_base[r] = (found & base) | (~found & exit_base[r]);
    }
  }
  for (int r = 0; r < kRegisters; ++r) {
    const SseBytes leaf = LowestBitOfBytes(exit_word[r]) + exit_base[r];
    std::memcpy(
        reinterpret_cast<unsigned char*>(&leaves[r / kSseRegisters]) + 16 * (r % kSseRegisters),
        &leaf, sizeof leaf);
  }
}
#endif

#if defined(__AVX2__) && !defined(__AVX512F__)
// Adds the leaves of 64 items' exit leaves to out[0, in_block), gathered.
template <typename Sum>
void AddBinnedLeaves(const Sum* leaves, std::uint32_t, const BlockBytes& leaf, std::size_t in_block,
                     Sum* out) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(&leaf);
  for (std::size_t g = 0; g * kSimdLanes < in_block; ++g) {
    const std::size_t rest = in_block - g * kSimdLanes;
    const __m256i index = _mm256_cvtepu8_epi32(
        _mm_loadl_epi64(reinterpret_cast<const __m128i*>(bytes + g * kSimdLanes)));
    AddLeaves(leaves, index, rest < kSimdLanes ? rest : kSimdLanes, out + g * kSimdLanes);
  }
}
#endif

// One tree for kBlocks blocks (their bins `stride` bytes apart, their
// outputs kBlockItems apart; the last has in_last items).
template <int kBlocks, bool kGfni, bool kCategorical, typename Sum>
void BinnedTree(const BinnedWords& tree, const Sum* leaves, std::uint32_t count,
                std::size_t in_last, Sum* out) {
  BlockBytes leaf[kBlocks];
  BinnedExitLeaves<kBlocks, kGfni, kCategorical>(tree, leaf);
  for (int k = 0; k < kBlocks; ++k) {
    const std::size_t in_block = k + 1 < kBlocks ? PreparedModel::kBlockItems : in_last;
    Sum* at = out + k * PreparedModel::kBlockItems;
#if defined(__AVX512F__) || defined(__AVX2__)
    AddBinnedLeaves(leaves, count, leaf[k], in_block, at);
#else
    (void)count;
    for (std::size_t i = 0; i < in_block; ++i)
      at[i] += leaves[static_cast<std::uint8_t>(leaf[k][i])];
#endif
  }
}
