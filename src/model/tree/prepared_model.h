// A tree ensemble laid out for the block evaluator (block_evaluator.h).
//
// Every decision becomes one unsigned compare `key < threshold_key`: before
// the trees run, each input column a model reads is turned, block by block,
// into order-preserving uint32 keys ("slots") in scratch memory, one slot per
// (feature, way of treating NaN and zero) the model uses:
//
//   key(x) = bits(x) | 0x80000000 for x >= +0, ~bits(x) for x < 0, -0 as +0,
//
// so that x < y iff key(x) < key(y) for non-NaN floats. NaN becomes key 0 in
// a slot whose nodes send it left, and the keys shift down by one with NaN at
// 0xFFFFFFFF in a slot whose nodes send it right: a default direction costs
// nothing at evaluation. The other rules of TreeRules and TreeNode (tiny
// values as 0, NaN as 0 unless the missing type is NaN, zero as missing) are
// further ways of making keys; `x < t` is `key(x) < key(smallest float32 >= t)`
// and `x <= t` in float64 is `key(x) < key(largest float32 <= t) + 1`. A
// categorical split reads a slot whose key is 0 (left) or 1 (right),
// computed per item from the category set. A leaf compares against 0 (never
// less) and points to itself. (The binned form reads categories as codes
// instead: kCategoryCode, below.)
//
// Nodes are 8 bytes: the threshold key, the slot, and the offset from the
// node to its pair of children (right child first, left child second), so
// `next = node + delta + (key < threshold)`. Each tree is laid out in
// breadth-first order from its root and walked for exactly its depth: an item
// that reaches a leaf early stays there. Trees are grouped into chunks of
// about 16 KiB of nodes and leaves, so that a chunk stays in the L1 cache
// (with one block's keys) while every block of a pass runs through it:
// measured on the 500-tree benchmark model, 16 KiB chunks take 5.4-5.7 ns
// per tree-row where 384 KiB (L2-sized) took 8.4-9.8.
//
// A shallow tree that is not too sparse (depth <= 10, 2^depth at most four
// times its node count) is laid out in heap order instead: position h has its
// children at 2h (right) and 2h + 1 (left), a leaf above the last level is
// padded with never-less splits down to it, and a node is just the threshold
// key and the byte offset of its slot, so `next = 2 * h + (key < threshold)`:
// no child offset to add and no slot to shift (docs/PERFORMANCE.md, run M).
//
// Two more forms, chosen per tree (TreeForm; docs/DESIGN.md, "Tree
// evaluators"):
//
// - kBitvector, a tree of at most kMaxBitvectorLeaves leaves (any shape),
//   evaluated the QuickScorer way (Lucchese et al., SIGIR 2015; vectorized
//   across items as in vQS, SIGIR 2016): its leaves are numbered left to
//   right; a split that is false for an item (the item goes right) clears
//   the leaves of its left subtree, a range, from the item's bitvector, which
//   starts all ones; the exit leaf is the lowest bit left. The bitvector is
//   split into 32-bit words, and each word is computed on its own from the
//   MaskNodes whose range meets it (most splits meet one word: their
//   compare, a masked AND), so a register holds one word of sixteen items
//   and the cost is about one compare and one AND per split, whatever the
//   number of words; the exit leaf is in the lowest word not 0. No
//   dependent loads and no branch on the data.
// - kBinned, the bitvector form over small keys: each slot's keys are
//   replaced, per block, by bins (a bin slot: how many of the model's sorted
//   distinct thresholds on that slot are at or below the key, at most
//   kMaxBinThresholds of them, so a byte; a slot with more has several bin
//   slots), and a split's compare `key < threshold` becomes the same
//   decision `bin < rank of threshold + 1` on bytes: 64 items per AVX-512
//   register instead of 16. The bitvector's words are 8 leaves (a byte) per
//   item, so one compare and one masked AND handle a split for the whole
//   block (docs/PERFORMANCE.md, run Q3).
// - kOblivious, a symmetric tree (symmetric_tree.h: CatBoost's, or any that
//   happens to be) of depth at most kMaxObliviousDepth: one HeapNode per
//   level, and the leaf index is the level's decisions as bits (right = 1,
//   the first level highest): d compares, no walk.
//
// Immutable once built; shared by threads.
#ifndef CALCJIT_MODEL_TREE_PREPARED_MODEL_H_
#define CALCJIT_MODEL_TREE_PREPARED_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "calcjit/cpu.h"
#include "calcjit/status.h"
#include "model/tree/ensemble.h"

namespace calcjit::model {

class SlotTable;

struct FastNode {
  std::uint32_t threshold_key;
  std::uint16_t slot;
  std::uint16_t child_delta;
};
static_assert(sizeof(FastNode) == 8);

// How a slot's keys are made from its feature's column (TreeRules,
// TreeNode::missing and default_left).
enum class SlotKind : std::uint8_t {
  kNanLow,           // NaN -> 0, others key
  kNanHigh,          // NaN -> 0xFFFFFFFF, others key - 1
  kZeroMissingLow,   // NaN and +-0 -> 0, others key
  kZeroMissingHigh,  // NaN and +-0 -> 0xFFFFFFFF, others key - 1
  kTinyNanLow,       // the four above with |x| <= 1e-35f as +0 first
  kTinyNanHigh,      // (TreeRules::tiny_as_zero)
  kTinyZeroMissingLow,
  kTinyZeroMissingHigh,
  kCategoryInSetRight,  // 0 if TreeRules::Categories::kInSetGoesRight goes left, else 1
  kCategoryInSetLeft,   // the same for kInSetGoesLeft
  // The category as a code (split_keys.h, CategoryCode): 0-253 a category,
  // kCodeNan, or kCodeOther; one slot per feature, for the binned form's
  // categorical splits, whatever their sets.
  kCategoryCode,
};

struct Slot {
  SlotKind kind;
  bool default_left = false;  // kCategoryInSetRight: where NaN goes
  std::uint32_t feature = 0;
  std::uint32_t category_set = 0;  // categorical kinds
};

// A node of a tree laid out in heap order (see PreparedModel).
struct HeapNode {
  std::uint32_t threshold_key;
  std::uint32_t key_offset;  // slot << kSlotShift: bytes from the block's keys
};
static_assert(sizeof(HeapNode) == 8);

// A split of a kBitvector tree as it meets one word of the bitvector: the
// item goes left iff key < threshold_key; when it does not, the word is
// ANDed with keep.
struct MaskNode {
  std::uint32_t threshold_key;
  std::uint32_t key_offset;  // slot << kSlotShift: bytes from the block's keys
  std::uint32_t keep;
};
static_assert(sizeof(MaskNode) == 12);

// A split of a kBinned tree as it meets one 8-leaf word: the item goes to
// the subtree laid out second iff the byte at bins_offset bytes from the
// block's bins is at least threshold, and the word is then ANDed with keep.
// For a split laid out left first the byte is its bin (a signed byte:
// kByteBias) and threshold the bin it goes left below; for one laid out
// right first, the complemented bin and the threshold negated (bitwise not
// reverses the order: prepared_binned.cc). The two bytes are stored four
// times over, so that a vector register is filled from them by a plain load
// (a 32-bit broadcast) where a byte broadcast would cost a shuffle per split.
struct BinNode {
  std::uint32_t bins_offset;  // bin slot * kBlockItems
  std::uint32_t threshold;    // the biased byte, four times
  std::uint32_t keep;         // the byte, four times
};
static_assert(sizeof(BinNode) == 12);

// One slot's keys made bytes (kBinned): an item's bin is how many of the
// bin slot's `count` thresholds (sorted distinct threshold keys) are at or
// below its key in `slot`. bin_thresholds()[first_threshold, +
// kBinTableSize) holds them as a search tree of `depth` levels in
// breadth-first ("Eytzinger") order from index 1: entry i's children are 2i
// and 2i + 1, the 2^depth - 1 - count entries past the last threshold are
// 0xFFFFFFFF, and `depth` steps of i = 2i + (entry i <= key) from i = 1 end
// at 2^depth + the bin. The first levels of the tree fit in registers.
//
// A bin slot of a kCategoryCode slot has no thresholds (count 0): its bins
// are where the code's byte of a CategoryNode's sides is (code >> 3, in the
// form the tier's lookup takes: binned_impl.h, MakeCodeBins) and the code's
// bit within it (1 << (code & 7)), the latter in the complemented copy's
// place.
struct BinSlot {
  std::uint16_t slot = 0;
  std::uint8_t count = 0;
  std::uint8_t depth = 0;
  std::uint32_t first_threshold = 0;
  bool codes() const { return count == 0; }
};

// A categorical split of a kBinned tree as it meets one 8-leaf word: bit
// c % 8 of second[c / 8] is set where an item of category code c goes to the
// subtree laid out second, and the word is then ANDed with keep. bins_offset
// is its code bin slot's (the byte rows; the bit rows are the complemented
// copy's). A lookup of each item's byte of `second` (one byte permute, or
// two shuffles) and a test of its bit decide the split for a block
// (binned_impl.h).
struct CategoryNode {
  std::uint32_t bins_offset;
  std::uint32_t keep;  // the byte, four times
  std::uint8_t second[32];
};
static_assert(sizeof(CategoryNode) == 40);

// How a tree is evaluated, chosen once at preparation (PreparedModel).
enum class TreeForm : std::uint8_t {
  kWalk,       // breadth-first FastNodes, walked depth steps
  kHeap,       // heap-ordered HeapNodes, walked depth steps
  kBitvector,  // MaskNodes, every split compared, the exit leaf by bit scan
  kOblivious,  // a HeapNode per level, the leaf index from d compares
  kBinned,     // BinNodes over byte bins, every split compared, the exit leaf by bit scan
  kReference,  // the reference walk (a tree too large for 16-bit offsets)
};

// "bitvector", ...: what `calcjit check` shows.
const char* TreeFormName(TreeForm form);

struct FastTree {
  // kWalk: into PreparedModel::nodes and leaf values; kHeap, kOblivious:
  // into heap_nodes; kBitvector: into mask_nodes; kBinned: into bin_nodes.
  std::uint32_t first_node = 0;
  // kWalk, kHeap: steps every item takes; kOblivious: levels; kBitvector:
  // splits.
  std::uint32_t depth = 0;
  std::uint32_t output = 0;
  TreeForm form = TreeForm::kWalk;
  // kHeap: the tree's splits are heap_nodes()[first_node + h] for heap
  // positions h in [1, 2^depth), its leaves *_leaves()[first_leaf + h - 2^depth].
  // kBitvector: leaf i (left to right) is *_leaves()[first_leaf + i];
  // kOblivious: leaf index i (decisions as bits) likewise; kBinned as kBitvector.
  std::uint32_t leaves = 0;  // kBitvector, kBinned: the tree's leaves
  // kBitvector: 32-bit words of its bitvector (leaves / 32, rounded up);
  // word w's MaskNodes are mask_nodes()[first_node + word_ends()[first_word +
  // w - 1], first_node + word_ends()[first_word + w]) (from 0 for w = 0).
  // kBinned: the same with 8-leaf words and bin_nodes() (prepared_binned.cc
  // chooses which subtree of each split is laid out first, for the fewest
  // (split, word) pairs); a categorical tree's categorical splits of word w
  // are category_nodes()[first_category_node + category_word_ends()[first_word
  // + w - 1], ...], after its numerical ones.
  std::uint32_t words = 0;
  std::uint32_t first_word = 0;
  std::uint32_t first_leaf = 0;
  std::uint32_t bytes = 0;                // of nodes and leaves, for grouping into chunks
  std::uint32_t first_category_node = 0;  // kBinned with categorical splits
  bool categorical = false;               // kBinned: has CategoryNodes
  // A tree too large for 16-bit child offsets (over 65,535 nodes) is walked
  // by the reference evaluator: same bits, slower. -1 otherwise.
  std::int64_t reference_tree = -1;
};

// Where Evaluate keeps what it computes, in bytes from the (64-byte aligned)
// start of the caller's scratch: a pass's blocks (each: its slot keys slot
// by slot, then the same slots' flipped keys: kKeyBias, then its bins bin
// slot by bin slot, 64 bytes each, then the same bins complemented), the
// float64 sums of TreeRules::Sum::kFloat64 (output by output), and a pointer
// per output.
struct ScratchLayout {
  std::size_t block_bytes = 0;
  std::size_t bins_offset = 0;  // in a block
  std::size_t sums_offset = 0;
  std::size_t pointers_offset = 0;
  std::size_t total_bytes = 0;
};

// Which forms preparation may choose (all, but for benchmarks and tests
// that compare with the walk).
struct PrepareOptions {
  bool bitvector = true;
  bool oblivious = true;
  // Per tier (baseline, avx2, avx512): trees of at most this many leaves
  // take the bitvector form (at most kMaxBitvectorLeaves), larger ones a
  // walk. Measured (docs/PERFORMANCE.md, run Q): the baseline tier's plain
  // loops lose to the walk; AVX2 wins up to 64 leaves, AVX-512 up to 256.
  std::uint32_t max_bitvector_leaves[3] = {0, 64, 256};
  // The same for the binned form, which a tier takes before the 32-bit
  // bitvector (docs/PERFORMANCE.md, run Q3)...
  bool binned = true;
  std::uint32_t max_binned_leaves[3] = {256, 256, 256};
  // ... while the model's bin slots are at most this many per tree that
  // would take it: a bin slot's bins cost each item about what a tree of
  // 64 leaves does on AVX2 and AVX-512, eight times that in the baseline's
  // scalar search (run Q3). Tests raise them to force the form.
  double bin_slots_per_tree[3] = {0.125, 1.0, 1.0};
  // AVX-512: the binned form's split steps by GFNI's affine transform (and
  // a categorical split's lookup by VBMI's byte permute) where the CPU has
  // both (Ice Lake and later, Zen 4): two uops per numerical split and
  // block instead of three, the same bits (binned_impl.h,
  // docs/PERFORMANCE.md runs Q5, Q6). Tests clear it to run the portable
  // steps on such CPUs too.
  bool gfni = true;
};

// How many trees took each form on one tier and why, for `calcjit check`
// (the model's description): "480 bitvector, 20 walk (over 256 leaves)".
struct TreePlan {
  std::uint64_t bitvector = 0;
  std::uint64_t binned = 0;
  std::uint64_t oblivious = 0;
  std::uint64_t walk_many_leaves = 0;  // kWalk or kHeap: over kMaxBitvectorLeaves
  std::uint64_t walk_too_deep_oblivious = 0;
  // kWalk or kHeap: binned would fit, but the model's bin slots per tree are
  // past the tier's PrepareOptions::bin_slots_per_tree.
  std::uint64_t walk_costly_bins = 0;
  std::uint64_t reference = 0;             // too large for the layout
  std::uint32_t max_bitvector_leaves = 0;  // of the bitvector and binned forms
  bool gfni_split_step = false;            // binned trees by GFNI, VBMI (PrepareOptions::gfni)
  std::string Describe() const;
};

class PreparedModel {
 public:
  // Items per block: the slot keys of a block are slot * kBlockItems * 4
  // bytes apart.
  static constexpr std::size_t kBlockItems = 64;
  static constexpr unsigned kSlotShift = 8;  // log2(kBlockItems * sizeof(uint32_t))
  // Trees of at most this many leaves take the bitvector form.
  static constexpr std::uint32_t kMaxBitvectorLeaves = 256;
  // Thresholds of one bin slot (a bin fits a byte), and the size of its
  // table (kBinned).
  static constexpr std::uint32_t kMaxBinThresholds = 255;
  static constexpr std::uint32_t kBinTableSize = 256;
  // Symmetric trees of at most this depth take the oblivious form (2^depth
  // leaves kept).
  static constexpr std::uint32_t kMaxObliviousDepth = 12;

  static Result<PreparedModel> Prepare(std::shared_ptr<const TreeEnsemble> model,
                                       const PrepareOptions& options = {});

  const TreeEnsemble& ensemble() const { return *ensemble_; }
  const ModelInfo& info() const { return ensemble_->info; }
  const TreeRules& rules() const { return ensemble_->rules; }
  bool sums_float64() const { return ensemble_->rules.sum == TreeRules::Sum::kFloat64; }

  const std::vector<FastNode>& nodes() const { return nodes_; }
  const std::vector<HeapNode>& heap_nodes() const { return heap_nodes_; }
  const std::vector<MaskNode>& mask_nodes() const { return mask_nodes_; }
  const std::vector<std::uint32_t>& word_ends() const { return word_ends_; }
  const std::vector<BinNode>& bin_nodes() const { return bin_nodes_; }
  const std::vector<CategoryNode>& category_nodes() const { return category_nodes_; }
  const std::vector<std::uint32_t>& category_word_ends() const { return category_word_ends_; }
  const std::vector<BinSlot>& bin_slots() const { return bin_slots_; }
  const std::vector<std::uint32_t>& bin_thresholds() const { return bin_thresholds_; }
  const std::vector<float>& float_leaves() const { return float_leaves_; }     // Sum::kFloat32
  const std::vector<double>& double_leaves() const { return double_leaves_; }  // Sum::kFloat64
  const std::vector<Slot>& slots() const { return slots_; }
  // The trees as tier `tier` evaluates them (kAuto: this CPU's best), in
  // the file's order: each tier has its plan, chosen once, here.
  const std::vector<FastTree>& trees(Isa tier = Isa::kAuto) const {
    return tier_trees_[TierIndex(tier)];
  }
  // Tree chunk c is trees [chunk_starts[c], chunk_starts[c + 1]).
  const std::vector<std::uint32_t>& chunk_starts(Isa tier = Isa::kAuto) const {
    return tier_chunks_[TierIndex(tier)];
  }
  // Items evaluated together between chunks (a multiple of kBlockItems).
  std::size_t items_per_pass() const { return items_per_pass_; }
  // The whole model goes through the reference evaluator (more than 65,535
  // slots): same bits, slower.
  bool reference_only() const { return reference_only_; }
  const ScratchLayout& scratch_layout() const { return scratch_layout_; }
  // The form of every tree, counted (the one selection point is Prepare).
  const TreePlan& plan(Isa tier = Isa::kAuto) const { return plans_[TierIndex(tier)]; }

 private:
  // One tree in heap order; `slots` is Prepare's table (split_keys.h).
  static void LayOutHeap(const TreeEnsemble& model, const Tree& tree, bool float64,
                         SlotTable* slots, PreparedModel* prepared, FastTree* fast);
  // One tree of at most kMaxBitvectorLeaves leaves as MaskNodes.
  static void LayOutBitvector(const TreeEnsemble& model, const Tree& tree, bool float64,
                              SlotTable* slots, PreparedModel* prepared, FastTree* fast);
  // The binned form of the trees given (Prepare's candidates), with the bin
  // slots they need; false (and nothing laid out) when their bin slots would
  // cost more than the trees (prepared_binned.cc).
  static bool LayOutBinned(const TreeEnsemble& model, bool float64, double max_bin_slots_per_tree,
                           SlotTable* slots, PreparedModel* prepared, std::vector<FastTree>* trees);
  // One symmetric tree of `depth` levels.
  static void LayOutOblivious(const TreeEnsemble& model, const Tree& tree, std::uint32_t depth,
                              bool float64, SlotTable* slots, PreparedModel* prepared,
                              FastTree* fast);
  // Room for `count` leaves of this model's sum type; returns the first.
  std::uint32_t AddLeaves(bool float64, std::size_t count);
  void SetLeaf(bool float64, std::size_t at, double value);

  std::shared_ptr<const TreeEnsemble> ensemble_;
  std::vector<FastNode> nodes_;
  std::vector<HeapNode> heap_nodes_;
  std::vector<MaskNode> mask_nodes_;
  std::vector<std::uint32_t> word_ends_;
  std::vector<BinNode> bin_nodes_;
  std::vector<CategoryNode> category_nodes_;
  std::vector<std::uint32_t> category_word_ends_;
  std::vector<BinSlot> bin_slots_;
  std::vector<std::uint32_t> bin_thresholds_;
  std::vector<float> float_leaves_;
  std::vector<double> double_leaves_;
  std::vector<Slot> slots_;
  static constexpr int kTiers = 3;
  static int TierIndex(Isa tier) {
    const Isa isa = tier == Isa::kAuto ? BestIsa() : tier;
    return isa == Isa::kAvx512 ? 2 : isa == Isa::kAvx2 ? 1 : 0;
  }
  std::vector<FastTree> trees_;  // while preparing: each tree's walk form
  std::vector<FastTree> tier_trees_[kTiers];
  std::vector<std::uint32_t> tier_chunks_[kTiers];
  std::size_t items_per_pass_ = kBlockItems;
  bool reference_only_ = false;
  ScratchLayout scratch_layout_;
  TreePlan plans_[kTiers];
};

// Each slot's keys are in scratch twice: as they are, for the walks
// (unsigned compares: `cmp; adc` in the breadth-first walk), and with their
// top bit flipped, num_slots slots further, for the bitvector and oblivious
// forms, whose threshold keys are flipped too and which compare as signed
// 32-bit integers (the flipped keys' signed order is the keys' order): x86
// has signed 32-bit compares at every vector width, SSE2 and AVX2 no
// unsigned ones, so no tier flips a key per compare.
inline constexpr std::uint32_t kKeyBias = 0x80000000u;
// Bins are stored with their top bit flipped too, for signed byte compares.
inline constexpr std::uint8_t kByteBias = 0x80u;

// The order-preserving key of a non-NaN float (see above).
inline std::uint32_t OrderKey(std::uint32_t bits) {
  if (bits == 0x80000000u) bits = 0;  // -0 as +0
  return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}

}  // namespace calcjit::model

#endif  // CALCJIT_MODEL_TREE_PREPARED_MODEL_H_
