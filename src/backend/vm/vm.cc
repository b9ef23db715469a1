#include "backend/vm/vm.h"

#include <algorithm>
#include <memory>

#include "backend/kernels/kernels.h"
#include "backend/vm/instructions.h"
#include "backend/vm/region_lowering.h"

namespace calcjit::vm {

namespace {

constexpr std::string_view kStepNames[] = {"reuse", "fuse"};

// A region's instructions, run block after block of items.
class VmCode final : public program::RegionCode {
 public:
  VmCode(RegionInstructions code, const kernels::KernelTable& kernels, std::uint32_t block)
      : code_(std::move(code)), kernels_(kernels), block_(block) {}

  std::size_t ScratchFloats() const override {
    return static_cast<std::size_t>(code_.registers) * block_;
  }

  void Run(const program::RegionArgs& args, float* scratch) const override {
    for (std::size_t begin = 0; begin < args.item_count; begin += block_) {
      const std::size_t count = std::min<std::size_t>(block_, args.item_count - begin);
      for (const Instruction& in : code_.instructions) Execute(in, args, scratch, begin, count);
    }
  }

  std::string Dump() const override { return code_.Dump(); }

 private:
  float* Locate(const Operand& operand, const program::RegionArgs& args, float* scratch,
                std::size_t begin) const {
    switch (operand.loc) {
      case Loc::kRegister:
        return scratch + static_cast<std::size_t>(operand.index) * block_;
      case Loc::kRead:  // read only: inputs and read columns are never written
        return const_cast<float*>(args.reads[operand.index]) + begin;
      case Loc::kWrite:
        return args.writes[operand.index] + begin;
      case Loc::kScalar:
        return const_cast<float*>(args.scalars + operand.index);
      case Loc::kConstant:
        return const_cast<float*>(code_.constants.data() + operand.index);
      case Loc::kNone:
        break;
    }
    return nullptr;
  }

  void Execute(const Instruction& in, const program::RegionArgs& args, float* scratch,
               std::size_t begin, std::size_t count) const {
    const int op = static_cast<int>(in.op);
    auto at = [&](const Operand& operand) { return Locate(operand, args, scratch, begin); };
    switch (in.form) {
      case Form::kUnary:
        kernels_.unary[op](at(in.a), at(in.out), count);
        return;
      case Form::kBinary:
        kernels_.binary[op](at(in.a), at(in.b), at(in.out), count);
        return;
      case Form::kScalarB:
        kernels_.scalar_b[op](at(in.a), *at(in.b), at(in.out), count);
        return;
      case Form::kScalarA:
        kernels_.scalar_a[op](*at(in.a), at(in.b), at(in.out), count);
        return;
      case Form::kIf:
        kernels_.if_kernel(at(in.c), at(in.a), at(in.b), at(in.out), count);
        return;
      case Form::kFill:
        kernels_.fill(*at(in.a), at(in.out), count);
        return;
      case Form::kMulAdd:
        kernels_.mul_add(at(in.a), *at(in.c), at(in.b), at(in.out), count);
        return;
      case Form::kStore:
        kernels_.store(at(in.a), at(in.out), count);
        return;
      case Form::kFold: {
        const float* columns[kMaxFold];
        for (std::uint32_t t = 0; t < in.count; ++t) {
          columns[t] = at(code_.fold_operands[in.first + t]);
        }
        kernels_.fold[op](columns, in.count, at(in.out), count);
        return;
      }
    }
  }

  const RegionInstructions code_;
  const kernels::KernelTable& kernels_;
  const std::uint32_t block_;
};

}  // namespace

std::span<const std::string_view> VmStepNames() {
  return kStepNames;
}

program::CompiledRegions CompileRegions(const program::Program& program, const VmOptions& options) {
  LowerOptions lower;
  lower.reuse_registers = options.reuse_registers;
  lower.fuse = options.fuse;
  const kernels::KernelTable& kernels = kernels::KernelsFor(options.isa);
  program::CompiledRegions compiled;
  for (const program::Region* region : program.Regions()) {
    compiled.code.push_back(
        std::make_unique<VmCode>(LowerRegion(*region, lower), kernels, options.block_size));
  }
  return compiled;
}

}  // namespace calcjit::vm
