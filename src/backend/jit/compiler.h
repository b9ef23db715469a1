// Compiling native pieces to machine code with LLVM 16 (ORC). The only
// interface to LLVM the rest of calcjit sees; no LLVM type appears here.
#ifndef CALCJIT_BACKEND_JIT_COMPILER_H_
#define CALCJIT_BACKEND_JIT_COMPILER_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "backend/jit/codegen.h"
#include "backend/program/program.h"
#include "calcjit/cpu.h"
#include "calcjit/status.h"

namespace calcjit::jit {

// Keeps one piece's machine code alive; the last owner frees it (its ORC
// ResourceTracker).
class CompiledCode {
 public:
  virtual ~CompiledCode() = default;
  virtual std::size_t bytes() const = 0;
};

struct CompiledPiece {
  PieceFunction function = nullptr;
  std::shared_ptr<const CompiledCode> code;
  // The pages of its constant pool and tables, touched before each call
  // (section_pages.h says why).
  std::vector<const volatile char*> data_pages;
};

// The target each tier compiles for: "x86-64", "x86-64-v3", "x86-64-v4".
std::string TargetCpu(Isa isa);
// "LLVM 16.0.6": part of every cache key.
std::string CompilerVersion();

// Compiles a piece for a tier (a concrete one, never kAuto). Thread-safe, so
// an engine's pieces compile in parallel. Results are cached by the piece's
// content, target and compiler version: the same piece in another engine (a
// reloaded set, or the unchanged part of an edited one) reuses the code.
// With use_cache false, compiles anew and leaves the cache as it was.
// `staged` false: one loop whatever the calls (the "stage" step off: stages.h).
Result<CompiledPiece> CompilePiece(const program::Region& piece, Isa isa, bool use_cache = true,
                                   bool staged = true);

enum class DumpStage {
  kIr,           // as generated: one loop, calls to the kernels
  kOptimizedIr,  // after linking and inlining the kernels and LLVM's O2 pipeline
  kAssembly,     // the machine code
};
Result<std::string> DumpPiece(const program::Region& piece, Isa isa, DumpStage stage);

// The code cache: hits and misses since start, the code it keeps, its bound.
struct CodeCacheStats {
  std::size_t entries = 0;
  std::size_t bytes = 0;
  std::size_t hits = 0;
  std::size_t misses = 0;
  std::size_t limit_bytes = 0;
  // All loaded code, cached or held by engines: what is freed when the last
  // engine using it is released and the cache lets it go.
  std::size_t live_objects = 0;
  std::size_t live_bytes = 0;
};
CodeCacheStats GetCodeCacheStats();
// Code beyond the bound is dropped from the cache (least recently used
// first); engines that use it keep it alive.
void SetCodeCacheLimit(std::size_t bytes);
void ClearCodeCache();

}  // namespace calcjit::jit

#endif  // CALCJIT_BACKEND_JIT_COMPILER_H_
