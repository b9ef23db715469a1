#include "backend/jit/jit.h"

#include "backend/jit/section_pages.h"
#include "backend/jit/stages.h"
#include "backend/jit/tail_blocks.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace calcjit::jit {

namespace {

// A compiled region: its function computes any n of at least kChunk items
// (codegen.h); a batch of fewer goes through it as one chunk, copied into a
// padded chunk buffer per column (the scratch), its results copied back. A
// staged piece's buffers (stages.h) come first in the scratch.
class JitCode final : public program::RegionCode {
 public:
  JitCode(const program::Region& region, CompiledPiece piece, Isa isa, bool staged)
      : reads_(region.reads.size()),
        writes_(region.writes.size()),
        stage_floats_(MakeStagePlan(region, staged).ScratchFloats()),
        piece_(std::move(piece)),
        tail_(TailBlocksFor(isa)) {}

  std::size_t ScratchFloats() const override {
    return stage_floats_ + (reads_ + writes_) * 2 * kChunk;
  }

  void Run(const program::RegionArgs& args, float* scratch) const override {
    const std::size_t n = args.item_count;
    if (n == 0) return;
    TouchPages(piece_.data_pages);
    float* stage = scratch;
    if (n >= kChunk) return piece_.function(args.reads, args.scalars, args.writes, n, stage);
    scratch += stage_floats_;  // a multiple of 16 floats: 64-byte alignment kept
    // Scratch layout: the padded reads, the padded writes, then the pointer
    // arrays to them (as floats' room: a pointer fits in two floats).
    float* padded_reads = scratch;
    float* padded_writes = scratch + reads_ * kChunk;
    auto** read_pointers = reinterpret_cast<const float**>(padded_writes + writes_ * kChunk);
    auto** write_pointers =
        reinterpret_cast<float**>(padded_writes + writes_ * kChunk + 2 * reads_);
    for (std::size_t r = 0; r < reads_; ++r) {
      float* padded = padded_reads + r * kChunk;
      tail_.load(args.reads[r], n, padded);
      read_pointers[r] = padded;
    }
    for (std::size_t w = 0; w < writes_; ++w) write_pointers[w] = padded_writes + w * kChunk;
    piece_.function(read_pointers, args.scalars, write_pointers, kChunk, stage);
    for (std::size_t w = 0; w < writes_; ++w) {
      tail_.store(write_pointers[w], n, args.writes[w]);
    }
  }

 private:
  const std::size_t reads_;
  const std::size_t writes_;
  const std::size_t stage_floats_;
  const CompiledPiece piece_;
  const TailBlocks tail_;
};

}  // namespace

Result<program::CompiledRegions> CompileRegions(const program::Program& program,
                                                const JitOptions& options) {
  const std::vector<const program::Region*> regions = program.Regions();
  std::vector<Result<CompiledPiece>> results(regions.size(), InternalError("not compiled"));
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t k = next++; k < regions.size(); k = next++) {
      results[k] = CompilePiece(*regions[k], options.isa, options.use_code_cache, options.stage);
    }
  };
  const std::size_t threads =
      options.parallel
          ? std::min<std::size_t>(regions.size(), std::max(1u, std::thread::hardware_concurrency()))
          : 1;
  std::vector<std::thread> workers;
  for (std::size_t t = 1; t < threads; ++t) workers.emplace_back(work);
  work();
  for (std::thread& worker : workers) worker.join();

  program::CompiledRegions compiled;
  for (std::size_t k = 0; k < regions.size(); ++k) {
    if (!results[k].ok()) return results[k].status();
    compiled.code.push_back(std::make_unique<JitCode>(*regions[k], std::move(results[k]).value(),
                                                      options.isa, options.stage));
  }
  return compiled;
}

std::span<const std::string_view> JitStepNames() {
  static constexpr std::string_view kNames[] = {"stage"};
  return kNames;
}

Result<std::string> DumpRegions(const program::Program& program, Isa isa, DumpStage stage) {
  std::string out;
  for (const program::Region* region : program.Regions()) {
    Result<std::string> code = DumpPiece(*region, isa, stage);
    if (!code.ok()) return code.status();
    out += "\n; ---- region '" + region->name + "' ----\n" + *code;
  }
  return out;
}

}  // namespace calcjit::jit
