#include "backend/jit/codegen.h"

#include <algorithm>
#include <vector>

#include "backend/jit/stages.h"
#include "backend/jit/vector_kernels.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

namespace calcjit::jit {

namespace {

using program::RegionOperand;

// Names as LLVM keeps them: printable, and traceable to the feature.
std::string ValueName(const std::string& name) {
  return name.empty() ? "v" : name;
}

class PieceGenerator {
 public:
  PieceGenerator(llvm::LLVMContext& context, const program::Region& piece,
                 const std::string& function, Isa isa, bool staged)
      : staged_(staged),
        context_(context),
        piece_(piece),
        isa_(isa),
        module_(std::make_unique<llvm::Module>(function, context)),
        builder_(context),
        float_(llvm::Type::getFloatTy(context)),
        ptr_(llvm::PointerType::get(context, 0)),
        i64_(llvm::Type::getInt64Ty(context)) {
    Generate(function);
  }

  std::unique_ptr<llvm::Module> Take() && { return std::move(module_); }

 private:
  void Generate(const std::string& name) {
    auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(context_),
                                         {ptr_, ptr_, ptr_, i64_, ptr_}, false);
    function_ = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, *module_);
    function_->addFnAttr(llvm::Attribute::NoUnwind);
    const char* argument_names[] = {"reads", "scalars", "writes", "n", "stage"};
    for (unsigned a = 0; a < 5; ++a) {
      function_->getArg(a)->setName(argument_names[a]);
      if (a == 3) continue;
      function_->addParamAttr(a, llvm::Attribute::NoAlias);
      function_->addParamAttr(a, llvm::Attribute::NoCapture);
      if (a < 3) function_->addParamAttr(a, llvm::Attribute::ReadOnly);
    }
    plan_ = MakeStagePlan(piece_, staged_);
    auto* entry = llvm::BasicBlock::Create(context_, "entry", function_);
    auto* loop = llvm::BasicBlock::Create(context_, "items", function_);
    auto* exit = llvm::BasicBlock::Create(context_, "done", function_);

    // The entry block loads every pointer and scalar once.
    builder_.SetInsertPoint(entry);
    for (std::size_t r = 0; r < piece_.reads.size(); ++r) {
      read_bases_.push_back(LoadArray(ptr_, function_->getArg(0), r, piece_.read_names[r]));
    }
    for (std::size_t s = 0; s < piece_.scalars.size(); ++s) {
      scalars_.push_back(LoadArray(float_, function_->getArg(1), s, piece_.scalar_names[s]));
    }
    for (std::size_t w = 0; w < piece_.writes.size(); ++w) {
      const program::RegionWrite& write = piece_.writes[w];
      write_bases_.push_back(
          LoadArray(ptr_, function_->getArg(2), w, "out." + piece_.nodes[write.node].name));
    }
    // Every piece runs blocks of whole chunks (GenerateBlocks); an n below one
    // chunk comes padded to one by the engine (jit.cc).
    llvm::Value* n = function_->getArg(3);
    builder_.CreateCondBr(builder_.CreateICmpULT(n, llvm::ConstantInt::get(i64_, kChunk), "short"),
                          exit, loop);
    access_group_ = llvm::MDNode::getDistinct(context_, {});
    GenerateBlocks(loop, exit, n);
    builder_.SetInsertPoint(exit);
    builder_.CreateRetVoid();
    KeepVariants();
  }

  // The loop's metadata: its iterations are independent (parallel_accesses:
  // every write goes to the item's own slot of its column, and the engine's
  // contract keeps outputs apart from inputs, so the vectorizer adds no
  // run-time alias checks) and not interleaved (the bodies are long enough to keep the CPU busy,
  // and interleaved copies would multiply the code to compile).
  void MarkParallel(llvm::BranchInst* back) {
    llvm::MDNode* parallel = llvm::MDNode::get(
        context_, {llvm::MDString::get(context_, "llvm.loop.parallel_accesses"), access_group_});
    llvm::MDNode* no_interleave =
        llvm::MDNode::get(context_, {llvm::MDString::get(context_, "llvm.loop.interleave.count"),
                                     llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(
                                         llvm::Type::getInt32Ty(context_), 1))});
    llvm::MDNode* loop_id = llvm::MDNode::getDistinct(context_, {nullptr, parallel, no_interleave});
    loop_id->replaceOperandWith(0, loop_id);
    back->setMetadata(llvm::LLVMContext::MD_loop, loop_id);
  }

  // The piece's blocks: at most kStageBlock items each and a whole number of
  // chunks, so that the vectorizer needs no epilogue. Per block one loop per
  // stage (stages.h; a piece of one stage is one loop). A batch whose n
  // (at least one chunk) is not a multiple of 16 ends on a block that
  // overlaps the one before it: its last items are computed a second time,
  // to the same bits, since every item is computed from its own slots alone
  // and a region's writes never share a buffer with its reads
  // (program/program.h). n = 1,000: [0, 512), [504, 1,000); n = 100: [0, 96),
  // [84, 100). That costs one call of the function per evaluation, where a
  // padded copy of the tail cost a second call and a copy of every column in
  // and out (docs/PERFORMANCE.md, run U9). `head` is the first block's head;
  // the last block branches to `exit`.
  void GenerateBlocks(llvm::BasicBlock* head, llvm::BasicBlock* exit, llvm::Value* n) {
    llvm::BasicBlock* entry = builder_.GetInsertBlock();
    builder_.SetInsertPoint(head);
    llvm::PHINode* next_start = builder_.CreatePHI(i64_, 2, "from");
    next_start->addIncoming(llvm::ConstantInt::get(i64_, 0), entry);
    llvm::Value* const chunk_mask = llvm::ConstantInt::get(i64_, -kChunk);
    llvm::Value* rest = builder_.CreateSub(n, next_start, "rest", true, true);
    // The rest rounded up to whole chunks, at most one block; it fits before
    // n unless this is the first block and n is no multiple of 16.
    llvm::Value* up = builder_.CreateAnd(
        builder_.CreateAdd(rest, llvm::ConstantInt::get(i64_, kChunk - 1), "", true, true),
        chunk_mask);
    llvm::Value* block = llvm::ConstantInt::get(i64_, kStageBlock);
    up = builder_.CreateSelect(builder_.CreateICmpULT(up, block), up, block, "up");
    llvm::Value* fits = builder_.CreateICmpULE(up, n, "fits");
    llvm::Value* back = builder_.CreateSub(n, up, "back", true, true);
    llvm::Value* start = builder_.CreateSelect(
        fits, builder_.CreateSelect(builder_.CreateICmpULT(back, next_start), back, next_start),
        next_start, "block");
    // A multiple of 16 either way, said so for the vectorizer.
    llvm::Value* length =
        builder_.CreateAnd(builder_.CreateSelect(fits, up, rest), chunk_mask, "length");
    // Never taken (n is at least one chunk), but it tells the vectorizer that
    // the stages' loops run at least once: no scalar copy of each loop.
    auto* body = llvm::BasicBlock::Create(context_, "block.body", function_);
    builder_.CreateCondBr(
        builder_.CreateICmpEQ(length, llvm::ConstantInt::get(i64_, 0), "no.items"), exit, body);
    builder_.SetInsertPoint(body);
    values_.assign(piece_.nodes.size(), nullptr);
    for (std::uint32_t s = 0; s < plan_.stage_count; ++s) {
      const bool columns = plan_.staged() && ColumnCallStage(s);
      if (columns) {
        EmitColumnCalls(s, start, length);
        if (!HasWrites(s)) continue;
      }
      auto* loop = llvm::BasicBlock::Create(context_, "stage" + std::to_string(s), function_);
      llvm::BasicBlock* before = builder_.GetInsertBlock();
      builder_.CreateBr(loop);
      builder_.SetInsertPoint(loop);
      llvm::PHINode* j = builder_.CreatePHI(i64_, 2, "j");
      j->addIncoming(llvm::ConstantInt::get(i64_, 0), before);
      block_item_ = j;
      item_ = builder_.CreateAdd(start, j, "i", true, true);
      stage_ = s;
      read_values_.assign(piece_.reads.size(), nullptr);
      std::fill(values_.begin(), values_.end(), nullptr);
      buffer_values_.assign(piece_.nodes.size(), nullptr);
      if (columns) {
        EmitBufferedWrites(s);
      } else {
        EmitStage(s);
      }
      llvm::Value* next =
          builder_.CreateAdd(j, llvm::ConstantInt::get(i64_, 1), "next", true, true);
      j->addIncoming(next, builder_.GetInsertBlock());
      auto* after =
          llvm::BasicBlock::Create(context_, "stage" + std::to_string(s) + ".done", function_);
      MarkParallel(builder_.CreateCondBr(builder_.CreateICmpEQ(next, length), after, loop));
      builder_.SetInsertPoint(after);
    }
    llvm::Value* end = builder_.CreateAdd(start, length, "end", true, true);
    next_start->addIncoming(end, builder_.GetInsertBlock());
    builder_.CreateCondBr(builder_.CreateICmpUGE(end, n), exit, head);
    stage_ = kNoStage;
  }

  // Whether stage `s` is calls only, each with its tier's column kernel and
  // every operand a buffer of an earlier stage or an input column: then
  // EmitColumnCalls runs it.
  bool ColumnCallStage(std::uint32_t s) const {
    bool any = false;
    for (std::uint32_t v = 0; v < piece_.nodes.size(); ++v) {
      if (plan_.stage[v] != s) continue;
      const program::RegionNode& node = piece_.nodes[v];
      if (!IsColumnCall(piece_, v) || !HasColumnKernel(node.op)) return false;
      // A call's node operands come from earlier stages, and through buffers.
      for (const RegionOperand& operand : piece_.OperandsOf(v)) {
        if (operand.kind == RegionOperand::Kind::kNode &&
            (plan_.stage[operand.index] == s || plan_.buffer[operand.index] < 0)) {
          return false;
        }
      }
      any = true;
    }
    return any;
  }

  bool HasWrites(std::uint32_t s) const {
    for (const program::RegionWrite& write : piece_.writes) {
      if (plan_.stage[write.node] == s) return true;
    }
    return false;
  }

  // Where a block's items of a node's buffer or of an input column start.
  llvm::Value* BlockStart(const RegionOperand& operand, llvm::Value* start) {
    if (operand.kind == RegionOperand::Kind::kRead) {
      return builder_.CreateInBoundsGEP(float_, read_bases_[operand.index], start);
    }
    return BufferStart(operand.index);
  }
  llvm::Value* BufferStart(std::uint32_t node) {
    return builder_.CreateInBoundsGEP(
        float_, function_->getArg(4),
        llvm::ConstantInt::get(i64_,
                               static_cast<std::int64_t>(plan_.buffer[node]) * kStageBufferStride));
  }

  // A call stage as one call of the column kernel per node, over the block's
  // `length` items, into the node's buffer.
  void EmitColumnCalls(std::uint32_t s, llvm::Value* start, llvm::Value* length) {
    for (std::uint32_t v = 0; v < piece_.nodes.size(); ++v) {
      if (plan_.stage[v] != s) continue;
      const program::RegionNode& node = piece_.nodes[v];
      std::vector<llvm::Value*> arguments;
      for (const RegionOperand& operand : piece_.OperandsOf(v)) {
        arguments.push_back(BlockStart(operand, start));
      }
      arguments.push_back(BufferStart(v));
      arguments.push_back(length);
      std::vector<llvm::Type*> types(node.operand_count + 1, ptr_);
      types.push_back(i64_);
      llvm::FunctionCallee callee = module_->getOrInsertFunction(
          ColumnKernelName(node.op, isa_),
          llvm::FunctionType::get(llvm::Type::getVoidTy(context_), types, false));
      auto* call = builder_.CreateCall(callee, arguments);
      call->addFnAttr(llvm::Attribute::NoUnwind);
    }
  }

  // The writes of a column call stage, from the calls' buffers.
  void EmitBufferedWrites(std::uint32_t s) {
    for (std::size_t w = 0; w < piece_.writes.size(); ++w) {
      const program::RegionWrite& write = piece_.writes[w];
      if (plan_.stage[write.node] != s) continue;
      auto* load = builder_.CreateLoad(float_, BufferSlot(write.node),
                                       ValueName(piece_.nodes[write.node].name));
      Tag(load);
      StoreWrite(w, load);
    }
  }

  // The nodes of stage `s` that a later stage reads (stored to their buffers)
  // and the writes of the stage's nodes, in node order. Every buffer the stage
  // reads is loaded first: a value stored here may take the buffer of one
  // read here for the last time (stages.cc). Each write is computed and
  // stored in turn, every node emitted just before its first use: the fewer
  // values live across a vector kernel's call (which clobbers every vector
  // register), the fewer spills.
  void EmitStage(std::uint32_t s) {
    for (std::uint32_t v = 0; v < piece_.nodes.size(); ++v) {
      if (plan_.stage[v] != s) continue;
      for (const RegionOperand& operand : piece_.OperandsOf(v)) {
        if (operand.kind == RegionOperand::Kind::kNode && !Here(operand.index)) Operand(operand);
      }
    }
    for (std::uint32_t v = 0; v < piece_.nodes.size(); ++v) {
      if (plan_.stage[v] != s || plan_.buffer[v] < 0) continue;
      llvm::Value* value = Demand(v);
      Tag(builder_.CreateStore(value, BufferSlot(v)));
    }
    for (std::size_t w = 0; w < piece_.writes.size(); ++w) {
      const program::RegionWrite& write = piece_.writes[w];
      if (plan_.stage[write.node] != s) continue;
      StoreWrite(w, Demand(write.node));
    }
  }

  // Stores the item's `value` of write `w`; an output's NaN canonical first,
  // as every backend writes it.
  void StoreWrite(std::size_t w, llvm::Value* value) {
    if (piece_.writes[w].target.loc == program::Loc::kOutput) {
      value = Call("calcjit_canonicalize", {value}, "canonical");
    }
    auto* slot = builder_.CreateInBoundsGEP(float_, write_bases_[w], item_);
    Tag(builder_.CreateStore(value, slot));
  }

  llvm::Value* BufferSlot(std::uint32_t node) {
    llvm::Value* offset = builder_.CreateAdd(
        llvm::ConstantInt::get(i64_,
                               static_cast<std::int64_t>(plan_.buffer[node]) * kStageBufferStride),
        block_item_, "", true, true);
    return builder_.CreateInBoundsGEP(float_, function_->getArg(4), offset);
  }

  // Whether a node is computed in the stage being emitted (always, unstaged).
  bool Here(std::uint32_t node) const { return stage_ == kNoStage || plan_.stage[node] == stage_; }

  llvm::Value* LoadArray(llvm::Type* type, llvm::Value* array, std::size_t index,
                         const std::string& name) {
    llvm::Value* slot =
        builder_.CreateConstInBoundsGEP1_64(type == float_ ? float_ : ptr_, array, index);
    return builder_.CreateLoad(type, slot, ValueName(name));
  }

  void Tag(llvm::Instruction* access) {
    access->setMetadata(llvm::LLVMContext::MD_access_group, access_group_);
  }

  llvm::Value* Operand(const RegionOperand& operand) {
    switch (operand.kind) {
      case RegionOperand::Kind::kConstant:
        return llvm::ConstantFP::get(float_, operand.constant);
      case RegionOperand::Kind::kScalar:
        return scalars_[operand.index];
      case RegionOperand::Kind::kNode: {
        if (Here(operand.index)) return values_[operand.index];
        // From an earlier stage: its buffer, loaded once per stage.
        llvm::Value*& loaded = buffer_values_[operand.index];
        if (loaded == nullptr) {
          auto* load = builder_.CreateLoad(float_, BufferSlot(operand.index),
                                           ValueName(piece_.nodes[operand.index].name));
          Tag(load);
          loaded = load;
        }
        return loaded;
      }
      case RegionOperand::Kind::kRead: {
        llvm::Value*& loaded = read_values_[operand.index];
        if (loaded == nullptr) {
          auto* slot = builder_.CreateInBoundsGEP(float_, read_bases_[operand.index], item_);
          auto* load =
              builder_.CreateLoad(float_, slot, ValueName(piece_.read_names[operand.index]));
          Tag(load);
          loaded = load;
        }
        return loaded;
      }
    }
    return nullptr;
  }

  // The value of `root`, emitting the nodes it needs that are not emitted
  // yet, operands first (depth first, without recursion: formulas may be
  // thousands of nodes deep).
  llvm::Value* Demand(std::uint32_t root) {
    std::vector<std::uint32_t> stack = {root};
    while (!stack.empty()) {
      const std::uint32_t index = stack.back();
      if (values_[index] != nullptr) {
        stack.pop_back();
        continue;
      }
      const std::size_t pending = stack.size();
      // Pushed last to first, so that operands are emitted in their order.
      const std::span<const RegionOperand> operands = piece_.OperandsOf(index);
      for (auto operand = operands.rbegin(); operand != operands.rend(); ++operand) {
        if (operand->kind == RegionOperand::Kind::kNode && values_[operand->index] == nullptr &&
            Here(operand->index)) {
          stack.push_back(operand->index);
        }
      }
      if (stack.size() == pending) {
        values_[index] = Emit(index);
        stack.pop_back();
      }
    }
    return values_[root];
  }

  llvm::Value* Emit(std::uint32_t v) {
    const program::RegionNode& node = piece_.nodes[v];
    std::vector<llvm::Value*> operands;
    for (const RegionOperand& operand : piece_.OperandsOf(v)) operands.push_back(Operand(operand));
    if (node.op == ir::Op::kConstant) return operands[0];
    if (HasVectorKernel(node.op)) return CallVectorKernel(node.op, operands, ValueName(node.name));
    return Call("calcjit_op_" + std::string(ir::Info(node.op).name), operands,
                ValueName(node.name));
  }

  // A call to calcjit_vec_<Name> that names its vector variants, which are
  // declared (and kept alive until the vectorizer has used them).
  llvm::Value* CallVectorKernel(ir::Op op, const std::vector<llvm::Value*>& operands,
                                const std::string& name) {
    const std::string scalar = "calcjit_vec_" + std::string(ir::Info(op).name);
    std::string mappings;
    for (const VectorVariant& variant : VectorVariants(op, isa_)) {
      auto* lanes = llvm::FixedVectorType::get(float_, variant.lanes);
      std::vector<llvm::Type*> types(operands.size(), lanes);
      llvm::FunctionCallee declared =
          module_->getOrInsertFunction(variant.name, llvm::FunctionType::get(lanes, types, false));
      auto* function = llvm::dyn_cast<llvm::Function>(declared.getCallee());
      // In order of first use, so that the module prints the same every time.
      if (function != nullptr && std::find(kept_.begin(), kept_.end(), function) == kept_.end()) {
        kept_.push_back(function);
      }
      mappings += (mappings.empty() ? "" : ",") + variant.name + "(" + variant.name + ")";
    }
    auto* call = llvm::cast<llvm::CallInst>(Call(scalar, operands, name));
    call->addFnAttr(llvm::Attribute::get(context_, "vector-function-abi-variant", mappings));
    call->addFnAttr(llvm::Attribute::NoUnwind);
    call->addFnAttr(llvm::Attribute::WillReturn);
    call->setDoesNotAccessMemory();
    return call;
  }

  void KeepVariants() {
    if (!kept_.empty()) llvm::appendToCompilerUsed(*module_, kept_);
  }

  llvm::Value* Call(const std::string& kernel, const std::vector<llvm::Value*>& operands,
                    const std::string& name) {
    std::vector<llvm::Type*> types(operands.size(), float_);
    llvm::FunctionCallee callee =
        module_->getOrInsertFunction(kernel, llvm::FunctionType::get(float_, types, false));
    return builder_.CreateCall(callee, operands, name);
  }

  const bool staged_;
  llvm::LLVMContext& context_;
  const program::Region& piece_;
  const Isa isa_;
  std::vector<llvm::GlobalValue*> kept_;
  std::unique_ptr<llvm::Module> module_;
  llvm::IRBuilder<> builder_;
  llvm::Type* float_;
  llvm::PointerType* ptr_;
  llvm::IntegerType* i64_;
  llvm::Function* function_ = nullptr;
  llvm::MDNode* access_group_ = nullptr;
  llvm::Value* item_ = nullptr;
  std::vector<llvm::Value*> read_bases_;
  std::vector<llvm::Value*> read_values_;
  std::vector<llvm::Value*> scalars_;
  std::vector<llvm::Value*> write_bases_;
  std::vector<llvm::Value*> values_;
  // Staging (stages.h): the plan, the stage being emitted, the item's index
  // in its block, and the values of earlier stages loaded in this one.
  static constexpr std::uint32_t kNoStage = ~std::uint32_t{0};
  StagePlan plan_;
  std::uint32_t stage_ = kNoStage;
  llvm::Value* block_item_ = nullptr;
  std::vector<llvm::Value*> buffer_values_;
};

}  // namespace

std::unique_ptr<llvm::Module> GeneratePiece(llvm::LLVMContext& context,
                                            const program::Region& piece,
                                            const std::string& function, Isa isa, bool staged) {
  return PieceGenerator(context, piece, function, isa, staged).Take();
}

}  // namespace calcjit::jit
