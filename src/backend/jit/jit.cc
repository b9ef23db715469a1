#include "backend/jit/jit.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include "backend/vm/isa.h"

namespace calcjit::jit {

namespace {

vm::VmOptions ProgramOptions(const JitOptions& options) {
  vm::VmOptions vm_options;
  vm_options.isa = options.isa == Isa::kAuto ? vm::DetectIsa() : options.isa;
  vm_options.disabled_passes = options.disabled_passes;
  vm_options.native = true;
  vm_options.max_piece_nodes = options.max_piece_nodes;
  return vm_options;
}

// Compiles every piece of the program, on up to one thread per core.
Result<std::vector<std::shared_ptr<const void>>> CompileAll(vm::Program& program, Isa isa,
                                                            bool parallel, bool use_cache) {
  std::vector<vm::NativePiece*> pieces;
  for (vm::Phase& phase : program.phases) {
    for (vm::NativePiece& piece : phase.pieces) pieces.push_back(&piece);
  }
  std::vector<Result<CompiledPiece>> results(pieces.size(), InternalError("not compiled"));
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t k = next++; k < pieces.size(); k = next++) {
      results[k] = CompilePiece(*pieces[k], isa, use_cache);
    }
  };
  const std::size_t threads =
      parallel
          ? std::min<std::size_t>(pieces.size(), std::max(1u, std::thread::hardware_concurrency()))
          : 1;
  std::vector<std::thread> workers;
  for (std::size_t t = 1; t < threads; ++t) workers.emplace_back(work);
  work();
  for (std::thread& worker : workers) worker.join();

  std::vector<std::shared_ptr<const void>> code;
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    if (!results[k].ok()) return results[k].status();
    pieces[k]->function = results[k]->function;
    code.push_back(results[k]->code);
  }
  return code;
}

}  // namespace

Result<std::unique_ptr<backend::Executable>> MakeJitExecutable(
    std::shared_ptr<const ir::EvalPlan> plan, const JitOptions& options) {
  const vm::VmOptions vm_options = ProgramOptions(options);
  Result<vm::PreparedProgram> prepared = vm::PrepareProgram(plan, vm_options, false);
  if (!prepared.ok()) return prepared.status();
  vm::Program program = std::move(prepared->program);
  Result<std::vector<std::shared_ptr<const void>>> code =
      CompileAll(program, vm_options.isa, options.parallel, options.use_code_cache);
  if (!code.ok()) return code.status();
  return vm::MakeProgramExecutable(std::move(plan), std::move(program), std::move(code).value());
}

Result<std::string> DumpJit(std::shared_ptr<const ir::EvalPlan> plan, const JitOptions& options,
                            DumpStage stage) {
  const vm::VmOptions vm_options = ProgramOptions(options);
  Result<vm::PreparedProgram> prepared = vm::PrepareProgram(std::move(plan), vm_options, false);
  if (!prepared.ok()) return prepared.status();
  std::string out = prepared->program.Dump();
  for (const vm::Phase& phase : prepared->program.phases) {
    for (const vm::NativePiece& piece : phase.pieces) {
      Result<std::string> code = DumpPiece(piece, vm_options.isa, stage);
      if (!code.ok()) return code.status();
      out += "\n; ---- piece '" + piece.name + "' ----\n" + *code;
    }
  }
  return out;
}

}  // namespace calcjit::jit
