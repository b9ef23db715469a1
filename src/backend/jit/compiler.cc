// The one translation unit that includes ORC and the pass builder (they are
// expensive to compile, BUILD-NOTES.md); LLVM errors become Status here.
#include "backend/jit/compiler.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <list>
#include <map>
#include <mutex>
#include <unordered_map>

#include <unistd.h>

#include "backend/jit/codegen.h"
#include "backend/jit/kernel_bitcode.h"
#include "backend/jit/piece_key.h"
#include "backend/jit/section_pages.h"
#include "backend/jit/vector_kernels.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/ExecutionEngine/JITEventListener.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/SectionMemoryManager.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/SymbolSize.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

namespace calcjit::jit {

namespace {

constexpr const char* kTriple = "x86_64-pc-linux-gnu";

// Every LLVM error becomes a Status here, and nowhere else.
Status FromLlvm(llvm::Error error, const std::string& what) {
  return InternalError("JIT: " + what + ": " + llvm::toString(std::move(error)));
}

void InitializeLlvm() {
  // Only the target, its assembly printer and parser: no signal handlers,
  // no fatal-error handlers (calcjit lives inside JVMs and Python processes
  // that own their signals).
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

// The contract's floating point: no fusing of a*b+c (FPOpFusion::Strict), no
// fast-math assumptions (the TargetOptions defaults). The large code model
// with static relocations: every reference to the piece's constants, and
// every call into the library, is a 64-bit absolute address. RuntimeDyld's
// SectionMemoryManager maps an object's code and read-only data separately,
// and they may land more than 2 GiB apart; the small code model's 32-bit
// PC-relative references then wrap silently and a piece reads the wrong
// memory (seen as a rare crash in the reload stress test under
// AddressSanitizer, whose mappings spread the address space).
Result<std::unique_ptr<llvm::TargetMachine>> MakeTargetMachine(Isa isa) {
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(kTriple, error);
  if (target == nullptr) return InternalError("JIT: no x86-64 target in LLVM: " + error);
  llvm::TargetOptions options;
  options.AllowFPOpFusion = llvm::FPOpFusion::Strict;
  std::unique_ptr<llvm::TargetMachine> machine(
      target->createTargetMachine(kTriple, TargetCpu(isa), "", options, llvm::Reloc::Static,
                                  llvm::CodeModel::Large, llvm::CodeGenOpt::Aggressive));
  if (!machine) return InternalError("JIT: cannot make a target machine for " + TargetCpu(isa));
  return machine;
}

// A perf map (/tmp/perf-<pid>.map, the format perf and async-profiler read)
// entry for every function the JIT loads, named after its features; written
// only when CALCJIT_PERF_MAP is set in the environment.
class PerfMapListener final : public llvm::JITEventListener {
 public:
  void notifyObjectLoaded(ObjectKey, const llvm::object::ObjectFile& object,
                          const llvm::RuntimeDyld::LoadedObjectInfo& info) override {
    const llvm::object::OwningBinary<llvm::object::ObjectFile> loaded =
        info.getObjectForDebug(object);
    if (loaded.getBinary() == nullptr) return;
    const std::lock_guard<std::mutex> lock(mutex_);
    if (file_ == nullptr) {
      file_ = std::fopen(("/tmp/perf-" + std::to_string(::getpid()) + ".map").c_str(), "a");
      if (file_ == nullptr) return;
    }
    for (const auto& [symbol, size] : llvm::object::computeSymbolSizes(*loaded.getBinary())) {
      llvm::Expected<llvm::object::SymbolRef::Type> type = symbol.getType();
      llvm::Expected<llvm::StringRef> name = symbol.getName();
      llvm::Expected<std::uint64_t> address = symbol.getAddress();
      if (!type || !name || !address || *type != llvm::object::SymbolRef::ST_Function) {
        llvm::consumeError(type.takeError());
        llvm::consumeError(name.takeError());
        llvm::consumeError(address.takeError());
        continue;
      }
      std::fprintf(file_, "%llx %llx %s\n", static_cast<unsigned long long>(*address),
                   static_cast<unsigned long long>(size), name->str().c_str());
    }
    std::fflush(file_);
  }

 private:
  std::mutex mutex_;
  std::FILE* file_ = nullptr;
};

// The sections of the object being loaded, recorded by the memory manager
// below. Objects are loaded one at a time under LinkMutex(), which guards it.
std::vector<SectionRange>* recording = nullptr;

// RuntimeDyld's SectionMemoryManager, recording where each section goes and
// refusing an object whose code shares a page with writable data
// (section_pages.h).
class RecordingMemoryManager final : public llvm::SectionMemoryManager {
 public:
  std::uint8_t* allocateCodeSection(std::uintptr_t size, unsigned alignment, unsigned id,
                                    llvm::StringRef name) override {
    std::uint8_t* address =
        llvm::SectionMemoryManager::allocateCodeSection(size, alignment, id, name);
    Record(address, size, SectionKind::kCode);
    return address;
  }
  std::uint8_t* allocateDataSection(std::uintptr_t size, unsigned alignment, unsigned id,
                                    llvm::StringRef name, bool read_only) override {
    std::uint8_t* address =
        llvm::SectionMemoryManager::allocateDataSection(size, alignment, id, name, read_only);
    Record(address, size, read_only ? SectionKind::kReadOnlyData : SectionKind::kWritableData);
    return address;
  }
  bool finalizeMemory(std::string* error) override {
    const Status apart = CheckCodeApartFromWritableData(sections_);
    if (!apart.ok()) {
      if (error != nullptr) *error = apart.message();
      return true;
    }
    return llvm::SectionMemoryManager::finalizeMemory(error);
  }

 private:
  void Record(const std::uint8_t* address, std::uintptr_t size, SectionKind kind) {
    if (address == nullptr) return;
    const SectionRange range{reinterpret_cast<std::uintptr_t>(address), size, kind};
    sections_.push_back(range);
    if (recording != nullptr) recording->push_back(range);
  }

  std::vector<SectionRange> sections_;
};

// One LLJIT per tier, made on first use and never destroyed: code handed out
// may be in use until the process ends, and static destruction order would
// otherwise free it first.
struct Jit {
  std::unique_ptr<llvm::orc::LLJIT> lljit;
};

Result<llvm::orc::LLJIT*> JitFor(Isa isa) {
  static std::mutex mutex;
  static auto* jits = new std::map<Isa, Jit>();
  const std::lock_guard<std::mutex> lock(mutex);
  Jit& jit = (*jits)[isa];
  if (jit.lljit) return jit.lljit.get();
  InitializeLlvm();
  llvm::orc::JITTargetMachineBuilder machine{llvm::Triple(kTriple)};
  machine.setCPU(TargetCpu(isa));
  machine.getOptions().AllowFPOpFusion = llvm::FPOpFusion::Strict;
  auto created =
      llvm::orc::LLJITBuilder()
          .setJITTargetMachineBuilder(std::move(machine))
          .setObjectLinkingLayerCreator(
              [](llvm::orc::ExecutionSession& session,
                 const llvm::Triple&) -> llvm::Expected<std::unique_ptr<llvm::orc::ObjectLayer>> {
                auto layer = std::make_unique<llvm::orc::RTDyldObjectLinkingLayer>(
                    session, [] { return std::make_unique<RecordingMemoryManager>(); });
                // gdb finds JIT code through its registration interface.
                layer->registerJITEventListener(
                    *llvm::JITEventListener::createGDBRegistrationListener());
                if (std::getenv("CALCJIT_PERF_MAP") != nullptr) {
                  static auto* perf_map = new PerfMapListener();
                  layer->registerJITEventListener(*perf_map);
                }
                if (std::getenv("CALCJIT_PERF_JITDUMP") != nullptr) {
                  if (auto* jitdump = llvm::JITEventListener::createPerfJITEventListener()) {
                    layer->registerJITEventListener(*jitdump);
                  }
                }
                return layer;
              })
          .create();
  if (!created) return FromLlvm(created.takeError(), "creating the JIT");
  jit.lljit = std::move(*created);
  // Generated code may call memcpy/memset (LLVM may form them from loops).
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      jit.lljit->getDataLayout().getGlobalPrefix());
  if (!process) return FromLlvm(process.takeError(), "opening the process's symbols");
  jit.lljit->getMainJITDylib().addGenerator(std::move(*process));
  // The library's vector kernels and their vector variants.
  llvm::orc::SymbolMap kernels;
  for (const KernelSymbol& symbol : VectorKernelSymbols()) {
    kernels[jit.lljit->mangleAndIntern(symbol.name)] =
        llvm::JITEvaluatedSymbol(llvm::pointerToJITTargetAddress(symbol.address),
                                 llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
  }
  if (llvm::Error error =
          jit.lljit->getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(kernels)))) {
    return FromLlvm(std::move(error), "defining the kernels' symbols");
  }
  return jit.lljit.get();
}

// The generated module with the kernels of src/math linked in from their
// bitcode, made internal and always inlined, everything for `machine`.
Result<std::unique_ptr<llvm::Module>> Link(std::unique_ptr<llvm::Module> module,
                                           llvm::TargetMachine& machine) {
  llvm::LLVMContext& context = module->getContext();
  const std::string_view bitcode = KernelBitcode();
  llvm::Expected<std::unique_ptr<llvm::Module>> kernels = llvm::parseBitcodeFile(
      llvm::MemoryBufferRef(llvm::StringRef(bitcode.data(), bitcode.size()), "calcjit_kernels"),
      context);
  if (!kernels) return FromLlvm(kernels.takeError(), "reading the kernels' bitcode");
  module->setTargetTriple(kTriple);
  module->setDataLayout(machine.createDataLayout());
  (*kernels)->setTargetTriple(kTriple);
  (*kernels)->setDataLayout(machine.createDataLayout());
  std::vector<std::string> generated;
  for (llvm::Function& function : *module) {
    if (!function.isDeclaration()) generated.push_back(function.getName().str());
  }
  if (llvm::Linker::linkModules(*module, std::move(*kernels), llvm::Linker::LinkOnlyNeeded)) {
    return InternalError("JIT: linking the kernels' bitcode failed");
  }
  // The kernels' tables are internal constants: alias analysis then knows
  // that no store of the loop touches them, and the vectorizer needs no
  // run-time checks for their (gathered) loads.
  for (llvm::GlobalVariable& global : module->globals()) {
    if (!global.isDeclaration() && !global.getName().startswith("llvm.")) {
      global.setLinkage(llvm::GlobalValue::InternalLinkage);
    }
  }
  for (llvm::Function& function : *module) {
    // One target for every function, so that the kernels inline anywhere.
    function.removeFnAttr("target-cpu");
    function.removeFnAttr("target-features");
    function.removeFnAttr("tune-cpu");
    function.addFnAttr("target-cpu", machine.getTargetCPU());
    // LLVM tunes x86-64-v4 for 256-bit vectors; the point of that tier is 512.
    if (machine.getTargetCPU() == "x86-64-v4") function.addFnAttr("prefer-vector-width", "512");
    if (function.isDeclaration()) continue;
    if (std::find(generated.begin(), generated.end(), function.getName().str()) ==
        generated.end()) {
      function.setLinkage(llvm::GlobalValue::InternalLinkage);
      function.removeFnAttr(llvm::Attribute::NoInline);
      function.removeFnAttr(llvm::Attribute::OptimizeNone);
      function.addFnAttr(llvm::Attribute::AlwaysInline);
    }
  }
  std::string problems;
  llvm::raw_string_ostream stream(problems);
  if (llvm::verifyModule(*module, &stream)) {
    return InternalError("JIT: the generated module does not verify: " + stream.str());
  }
  return module;
}

// The loops codegen.cc makes carry llvm.loop.parallel_accesses: iterations
// are independent. The vectorizer believes it only if every memory access in
// the loop belongs to the loop's access group, and the loads the inlined
// kernels add (from their constant tables) do not. This pass, run just
// before the vectorizer, adds them: they read constant memory, which no
// iteration writes, so the claim stays true.
struct TagParallelAccesses : llvm::PassInfoMixin<TagParallelAccesses> {
  llvm::PreservedAnalyses run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses) {
    llvm::LoopInfo& loops = analyses.getResult<llvm::LoopAnalysis>(function);
    for (llvm::Loop* loop : loops.getLoopsInPreorder()) {
      llvm::MDNode* id = loop->getLoopID();
      if (id == nullptr) continue;
      llvm::MDNode* group = nullptr;
      for (unsigned k = 1; k < id->getNumOperands(); ++k) {
        auto* entry = llvm::dyn_cast<llvm::MDNode>(id->getOperand(k));
        if (entry == nullptr || entry->getNumOperands() != 2) continue;
        auto* name = llvm::dyn_cast<llvm::MDString>(entry->getOperand(0));
        if (name != nullptr && name->getString() == "llvm.loop.parallel_accesses") {
          group = llvm::dyn_cast<llvm::MDNode>(entry->getOperand(1));
        }
      }
      if (group == nullptr) continue;
      for (llvm::BasicBlock* block : loop->blocks()) {
        for (llvm::Instruction& instruction : *block) {
          if (instruction.mayReadOrWriteMemory() &&
              instruction.getMetadata(llvm::LLVMContext::MD_access_group) == nullptr) {
            instruction.setMetadata(llvm::LLVMContext::MD_access_group, group);
          }
        }
      }
    }
    return llvm::PreservedAnalyses::all();
  }
};

void Optimize(llvm::Module& module, llvm::TargetMachine& machine) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  // The loops need the loop vectorizer; the SLP vectorizer and the unroller
  // find next to nothing in them and cost compile time.
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = false;
  tuning.LoopUnrolling = false;
  llvm::PassBuilder builder(&machine, tuning);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(cgscc);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, cgscc, modules);
  builder.registerVectorizerStartEPCallback(
      [](llvm::FunctionPassManager& passes, llvm::OptimizationLevel) {
        passes.addPass(TagParallelAccesses());
      });
  llvm::ModulePassManager pipeline =
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
  pipeline.run(module, modules);
}

Result<std::string> Emit(llvm::Module& module, llvm::TargetMachine& machine,
                         llvm::CodeGenFileType type) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream stream(buffer);
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, stream, nullptr, type)) {
    return InternalError("JIT: the target cannot emit this file type");
  }
  passes.run(module);
  return std::string(buffer.data(), buffer.size());
}

struct Prepared {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::TargetMachine> machine;
  std::unique_ptr<llvm::Module> module;
};

// Generates, links, verifies and optimizes a piece's module.
Result<Prepared> Prepare(const program::Region& piece, Isa isa, const std::string& symbol,
                         DumpStage stop_at, std::string* ir_before, bool staged = true) {
  InitializeLlvm();
  Prepared prepared;
  prepared.context = std::make_unique<llvm::LLVMContext>();
  Result<std::unique_ptr<llvm::TargetMachine>> machine = MakeTargetMachine(isa);
  if (!machine.ok()) return machine.status();
  prepared.machine = std::move(machine).value();
  std::unique_ptr<llvm::Module> module =
      GeneratePiece(*prepared.context, piece, symbol, isa, staged);
  if (ir_before != nullptr) {
    llvm::raw_string_ostream stream(*ir_before);
    module->print(stream, nullptr);
  }
  if (stop_at == DumpStage::kIr) return prepared;
  Result<std::unique_ptr<llvm::Module>> linked = Link(std::move(module), *prepared.machine);
  if (!linked.ok()) return linked.status();
  prepared.module = std::move(linked).value();
  Optimize(*prepared.module, *prepared.machine);
  return prepared;
}

// Loading, looking up and removing objects in the JIT one at a time. This
// was added when a piece was seen reading unmapped memory under the reload
// stress test and blamed on concurrent loads and removals; the cause was the
// code model (MakeTargetMachine). Kept: these steps take microseconds, and
// code generation, the slow part, still runs in parallel.
std::mutex& LinkMutex() {
  static auto* mutex = new std::mutex();
  return *mutex;
}

std::atomic<std::size_t> live_objects{0};
std::atomic<std::size_t> live_bytes{0};

class OrcCode final : public CompiledCode {
 public:
  OrcCode(llvm::orc::ResourceTrackerSP tracker, std::size_t bytes)
      : tracker_(std::move(tracker)), bytes_(bytes) {
    live_objects.fetch_add(1);
    live_bytes.fetch_add(bytes);
  }
  ~OrcCode() override {
    {
      const std::lock_guard<std::mutex> lock(LinkMutex());
      llvm::consumeError(tracker_->remove());
    }
    live_objects.fetch_sub(1);
    live_bytes.fetch_sub(bytes_);
  }
  std::size_t bytes() const override { return bytes_; }

 private:
  llvm::orc::ResourceTrackerSP tracker_;
  std::size_t bytes_;
};

// A piece's symbol names its features, for profilers and debuggers. Loaded
// code gets a unique suffix (the same piece may be compiled again after it
// left the cache while an engine still holds the first copy); dumps do not,
// so that they are the same from run to run.
std::string SymbolFor(const program::Region& piece, bool unique) {
  static std::atomic<std::uint64_t> counter{0};
  std::string name = "calcjit." + piece.name;
  for (char& c : name) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '_' || c == '.';
    if (!plain) c = '_';
  }
  if (name.size() > 200) name.resize(200);
  return unique ? name + "." + std::to_string(counter.fetch_add(1)) : name;
}

Result<CompiledPiece> CompileUncached(const program::Region& piece, Isa isa, bool staged) {
  const std::string symbol = SymbolFor(piece, true);
  Result<Prepared> prepared = Prepare(piece, isa, symbol, DumpStage::kAssembly, nullptr, staged);
  if (!prepared.ok()) return prepared.status();
  Result<std::string> object = Emit(*prepared->module, *prepared->machine, llvm::CGFT_ObjectFile);
  if (!object.ok()) return object.status();
  Result<llvm::orc::LLJIT*> jit = JitFor(isa);
  if (!jit.ok()) return jit.status();
  const std::lock_guard<std::mutex> lock(LinkMutex());
  // The object is loaded (its memory allocated) on this thread, during the
  // lookup, while the lock is held.
  std::vector<SectionRange> sections;
  recording = &sections;
  struct StopRecording {
    ~StopRecording() { recording = nullptr; }
  } stop;
  llvm::orc::ResourceTrackerSP tracker = (*jit)->getMainJITDylib().createResourceTracker();
  const std::size_t bytes = object->size();
  if (llvm::Error error =
          (*jit)->addObjectFile(tracker, llvm::MemoryBuffer::getMemBufferCopy(*object, symbol))) {
    return FromLlvm(std::move(error), "loading " + symbol);
  }
  llvm::Expected<llvm::orc::ExecutorAddr> address = (*jit)->lookup(symbol);
  if (!address) {
    llvm::consumeError(tracker->remove());
    return FromLlvm(address.takeError(), "finding " + symbol);
  }
  CompiledPiece compiled;
  compiled.function = address->toPtr<PieceFunction>();
  compiled.data_pages = DataPages(sections);
  compiled.code = std::make_shared<OrcCode>(std::move(tracker), bytes);
  return compiled;
}

// Compiled pieces by their content (piece_key.h), least recently used first
// out once the code they hold exceeds the limit in bytes or in entries (each
// loaded object holds a few memory mappings of its own, and the kernel
// allows a process some 65,000).
class CodeCache {
 public:
  std::optional<CompiledPiece> Find(const std::string& key) {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto it = index_.find(key);
    if (it == index_.end()) {
      ++misses_;
      return std::nullopt;
    }
    ++hits_;
    order_.splice(order_.begin(), order_, it->second);
    return it->second->second;
  }

  void Add(const std::string& key, const CompiledPiece& piece) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (index_.count(key) != 0) return;
    order_.emplace_front(key, piece);
    index_[key] = order_.begin();
    bytes_ += piece.code->bytes();
    Trim();
  }

  void SetLimit(std::size_t bytes) {
    const std::lock_guard<std::mutex> lock(mutex_);
    limit_ = bytes;
    Trim();
  }

  void Clear() {
    const std::lock_guard<std::mutex> lock(mutex_);
    order_.clear();
    index_.clear();
    bytes_ = 0;
  }

  CodeCacheStats Stats() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return CodeCacheStats{index_.size(),       bytes_,           hits_, misses_, limit_,
                          live_objects.load(), live_bytes.load()};
  }

 private:
  void Trim() {
    constexpr std::size_t kMaxEntries = 4096;
    while ((bytes_ > limit_ || order_.size() > kMaxEntries) && !order_.empty()) {
      bytes_ -= order_.back().second.code->bytes();
      index_.erase(order_.back().first);
      order_.pop_back();
    }
  }

  std::mutex mutex_;
  std::list<std::pair<std::string, CompiledPiece>> order_;
  std::unordered_map<std::string, std::list<std::pair<std::string, CompiledPiece>>::iterator>
      index_;
  std::size_t bytes_ = 0;
  std::size_t limit_ = std::size_t{64} << 20;
  std::size_t hits_ = 0;
  std::size_t misses_ = 0;
};

CodeCache& Cache() {
  static auto* cache = new CodeCache();  // never destroyed: see JitFor
  return *cache;
}

}  // namespace

std::string TargetCpu(Isa isa) {
  switch (isa) {
    case Isa::kAvx512:
      return "x86-64-v4";
    case Isa::kAvx2:
      return "x86-64-v3";
    default:
      return "x86-64";
  }
}

std::string CompilerVersion() {
  return "LLVM " LLVM_VERSION_STRING;
}

Result<CompiledPiece> CompilePiece(const program::Region& piece, Isa isa, bool use_cache,
                                   bool staged) {
  if (!use_cache) return CompileUncached(piece, isa, staged);
  const std::string key = PieceKey(
      piece, TargetCpu(isa) + "/" + CompilerVersion() + (staged ? "/staged" : "/one-loop"));
  if (std::optional<CompiledPiece> cached = Cache().Find(key)) return *cached;
  Result<CompiledPiece> compiled = CompileUncached(piece, isa, staged);
  if (compiled.ok()) Cache().Add(key, *compiled);
  return compiled;
}

Result<std::string> DumpPiece(const program::Region& piece, Isa isa, DumpStage stage) {
  std::string before;
  Result<Prepared> prepared = Prepare(piece, isa, SymbolFor(piece, false), stage, &before);
  if (!prepared.ok()) return prepared.status();
  if (stage == DumpStage::kIr) return before;
  if (stage == DumpStage::kOptimizedIr) {
    std::string text;
    llvm::raw_string_ostream stream(text);
    prepared->module->print(stream, nullptr);
    return stream.str();
  }
  return Emit(*prepared->module, *prepared->machine, llvm::CGFT_AssemblyFile);
}

CodeCacheStats GetCodeCacheStats() {
  return Cache().Stats();
}
void SetCodeCacheLimit(std::size_t bytes) {
  Cache().SetLimit(bytes);
}
void ClearCodeCache() {
  Cache().Clear();
}

}  // namespace calcjit::jit
