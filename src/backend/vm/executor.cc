// Runs a VM program over one batch.
#include "backend/vm/executor.h"

#include <algorithm>
#include <cstdlib>
#include <new>

#include "backend/vm/kernels.h"
#include "math/bits.h"

namespace calcjit::vm {

namespace {

using backend::InputLayout;
using backend::InputView;

// Float storage aligned to a cache line, grown (never shrunk) on demand.
void Grow(AlignedFloats& buffer, std::size_t count) {
  if (count <= buffer.capacity) return;
  constexpr std::size_t kAlign = 64;
  const std::size_t bytes = (count * sizeof(float) + kAlign - 1) / kAlign * kAlign;
  float* data = static_cast<float*>(std::aligned_alloc(kAlign, bytes));
  if (data == nullptr) throw std::bad_alloc();
  std::free(buffer.data);
  buffer.data = data;
  buffer.capacity = count;
}

class Execution {
 public:
  Execution(const Program& program, const backend::EvalArgs& args, VmWorkspace& ws)
      : program_(program),
        kernels_(*program.kernels),
        args_(args),
        ws_(ws),
        n_(args.item_count),
        block_(program.block_size) {}

  void Run() {
    std::copy(program_.scalar_init.begin(), program_.scalar_init.end(), ws_.scalars.data);
    for (const Program::InputScalar& input : program_.input_scalars) {
      ws_.scalars.data[input.scalar] = args_.inputs[input.slot].data[0];
    }
    // An item input left to its default is one value for every item: a
    // block-sized buffer of it stands in for the column.
    for (std::size_t slot = 0; slot < args_.inputs.size(); ++slot) {
      const InputView& view = args_.inputs[slot];
      if (view.layout == InputLayout::kBroadcast && view.dimension == 0) {
        std::fill_n(ws_.broadcast.data + slot * block_, block_, view.data[0]);
      }
    }
    // Native pieces read whole columns: a defaulted input they read is
    // broadcast into a whole column.
    for (std::size_t k = 0; k < program_.whole_input_slots.size(); ++k) {
      const InputView& view = args_.inputs[program_.whole_input_slots[k]];
      if (view.layout == InputLayout::kBroadcast) {
        std::fill_n(ws_.whole_inputs.data + k * ws_.column_capacity, n_, view.data[0]);
      }
    }
    for (const Phase& phase : program_.phases) {
      for (const AggregateStep& step : phase.aggregates) RunAggregate(step);
      for (const Instruction& in : phase.scalars) Execute(in, 0, 1);
      if (!phase.block.empty()) {
        for (std::size_t begin = 0; begin < n_; begin += block_) {
          const std::size_t count = std::min(block_, n_ - begin);
          for (const Instruction& in : phase.block) Execute(in, begin, count);
        }
      }
      for (const NativePiece& piece : phase.pieces) RunPiece(piece);
    }
    for (const Program::UniformOutput& output : program_.uniform_outputs) {
      std::fill_n(args_.outputs[output.output], n_,
                  math::CanonicalizeNan(ws_.scalars.data[output.scalar]));
    }
  }

 private:
  float* Locate(const Operand& operand, std::size_t begin) const {
    switch (operand.loc) {
      case Loc::kRegister:
        return ws_.registers.data + static_cast<std::size_t>(operand.index) * block_;
      case Loc::kColumn:
        return ws_.columns.data + static_cast<std::size_t>(operand.index) * ws_.column_capacity +
               begin;
      case Loc::kScalar:
        return ws_.scalars.data + operand.index;
      case Loc::kInput: {
        const InputView& view = args_.inputs[operand.index];
        if (view.layout == InputLayout::kBroadcast) {
          return ws_.broadcast.data + static_cast<std::size_t>(operand.index) * block_;
        }
        return const_cast<float*>(view.data) + begin;  // read only: inputs are never written
      }
      case Loc::kOutput:
        return args_.outputs[operand.index] + begin;
      case Loc::kNone:
        break;
    }
    return nullptr;
  }

  float Scalar(const Operand& operand) const { return ws_.scalars.data[operand.index]; }

  // A native piece's whole-column read.
  const float* WholeRead(const Operand& operand) const {
    if (operand.loc == Loc::kInput &&
        args_.inputs[operand.index].layout == InputLayout::kBroadcast) {
      const auto& slots = program_.whole_input_slots;
      const std::size_t k = static_cast<std::size_t>(
          std::find(slots.begin(), slots.end(), operand.index) - slots.begin());
      return ws_.whole_inputs.data + k * ws_.column_capacity;
    }
    return Locate(operand, 0);
  }

  // A piece over all items: the function covers whole chunks of
  // kNativeChunk items; the last n % kNativeChunk go through it once more,
  // copied into padded chunk buffers, their results copied back.
  void RunPiece(const NativePiece& piece) {
    for (std::size_t r = 0; r < piece.reads.size(); ++r)
      ws_.piece_reads[r] = WholeRead(piece.reads[r]);
    for (std::size_t s = 0; s < piece.scalars.size(); ++s) {
      ws_.piece_scalars.data[s] = Scalar(piece.scalars[s]);
    }
    for (std::size_t w = 0; w < piece.writes.size(); ++w) {
      ws_.piece_writes[w] = Locate(piece.writes[w].target, 0);
    }
    constexpr std::size_t kChunk = kNativeChunk;
    const std::size_t whole = n_ - n_ % kChunk;
    if (whole > 0) {
      piece.function(ws_.piece_reads.data(), ws_.piece_scalars.data, ws_.piece_writes.data(),
                     whole);
    }
    const std::size_t tail = n_ - whole;
    if (tail == 0) return;
    for (std::size_t r = 0; r < piece.reads.size(); ++r) {
      float* padded = ws_.tail_reads.data + r * kChunk;
      std::fill_n(padded, kChunk, 0.0f);
      std::copy_n(ws_.piece_reads[r] + whole, tail, padded);
      ws_.piece_reads[r] = padded;
    }
    for (std::size_t w = 0; w < piece.writes.size(); ++w) {
      ws_.piece_writes[w] = ws_.tail_writes.data + w * kChunk;
    }
    piece.function(ws_.piece_reads.data(), ws_.piece_scalars.data, ws_.piece_writes.data(), kChunk);
    for (std::size_t w = 0; w < piece.writes.size(); ++w) {
      std::copy_n(ws_.tail_writes.data + w * kChunk, tail, Locate(piece.writes[w].target, whole));
    }
  }

  // Row `begin` of a vector input and the distance between rows.
  std::pair<const float*, std::size_t> VectorRows(std::uint32_t slot, std::size_t begin) const {
    const InputView& view = args_.inputs[slot];
    if (view.layout == InputLayout::kItemVector) {
      return {view.data + begin * view.dimension, view.dimension};
    }
    return {view.data, 0};
  }

  void Execute(const Instruction& in, std::size_t begin, std::size_t count) {
    const int op = static_cast<int>(in.op);
    switch (in.form) {
      case Form::kUnary:
        kernels_.unary[op](Locate(in.a, begin), Locate(in.out, begin), count);
        return;
      case Form::kBinary:
        kernels_.binary[op](Locate(in.a, begin), Locate(in.b, begin), Locate(in.out, begin), count);
        return;
      case Form::kScalarB:
        kernels_.scalar_b[op](Locate(in.a, begin), Scalar(in.b), Locate(in.out, begin), count);
        return;
      case Form::kScalarA:
        kernels_.scalar_a[op](Scalar(in.a), Locate(in.b, begin), Locate(in.out, begin), count);
        return;
      case Form::kIf:
        kernels_.if_kernel(Locate(in.c, begin), Locate(in.a, begin), Locate(in.b, begin),
                           Locate(in.out, begin), count);
        return;
      case Form::kFill:
        kernels_.fill(Scalar(in.a), Locate(in.out, begin), count);
        return;
      case Form::kMulAdd:
        kernels_.mul_add(Locate(in.a, begin), Scalar(in.c), Locate(in.b, begin),
                         Locate(in.out, begin), count);
        return;
      case Form::kVector: {
        const auto [a, a_stride] = VectorRows(in.slot, begin);
        const auto [b, b_stride] = in.slot2 == kNoInput
                                       ? std::pair<const float*, std::size_t>{nullptr, 0}
                                       : VectorRows(in.slot2, begin);
        kernels_.vector[op](a, a_stride, b, b_stride, args_.inputs[in.slot].dimension,
                            Locate(in.out, begin), count);
        return;
      }
      case Form::kStore:
        kernels_.store(Locate(in.a, begin), args_.outputs[in.slot] + begin, count);
        return;
      case Form::kFold: {
        const float* columns[kMaxFold];
        for (std::uint32_t t = 0; t < in.slot2; ++t) {
          columns[t] = Locate(program_.fold_operands[in.slot + t], begin);
        }
        kernels_.fold[op](columns, in.slot2, Locate(in.out, begin), count);
        return;
      }
    }
  }

  // The whole operand column of an aggregate.
  std::span<const float> WholeColumn(const Operand& operand) {
    switch (operand.loc) {
      case Loc::kColumn:
        return {Locate(operand, 0), n_};
      case Loc::kInput:
        if (args_.inputs[operand.index].layout != InputLayout::kBroadcast) {
          return {args_.inputs[operand.index].data, n_};
        }
        std::fill_n(ws_.operand.data, n_, args_.inputs[operand.index].data[0]);
        return {ws_.operand.data, n_};
      case Loc::kScalar:  // an aggregate of a uniform value: every item holds it
        std::fill_n(ws_.operand.data, n_, Scalar(operand));
        return {ws_.operand.data, n_};
      default:
        return {};
    }
  }

  void RunAggregate(const AggregateStep& step) {
    const std::span<const float> x = WholeColumn(step.operand);
    // A statistic fills its whole result: one scalar, or a column of n.
    const std::size_t out_n = step.result.loc == Loc::kScalar ? 1 : n_;
    kernels_.aggregate[static_cast<int>(step.op)](x.data(), n_, Locate(step.result, 0), out_n,
                                                  reinterpret_cast<std::uint64_t*>(ws_.rank.data));
  }

  const Program& program_;
  const KernelTable& kernels_;
  const backend::EvalArgs& args_;
  VmWorkspace& ws_;
  const std::size_t n_;
  const std::size_t block_;
};

}  // namespace

AlignedFloats::~AlignedFloats() {
  std::free(data);
}

VmWorkspace::VmWorkspace(const Program& program, std::size_t input_count) {
  Grow(registers, std::max<std::size_t>(1, program.registers) * program.block_size);
  Grow(scalars, std::max<std::size_t>(1, program.scalar_init.size()));
  Grow(broadcast, std::max<std::size_t>(1, input_count) * program.block_size);
  std::size_t reads = 1, scalar_count = 1, writes = 1;
  for (const Phase& phase : program.phases) {
    for (const NativePiece& piece : phase.pieces) {
      reads = std::max(reads, piece.reads.size());
      scalar_count = std::max(scalar_count, piece.scalars.size());
      writes = std::max(writes, piece.writes.size());
    }
  }
  piece_reads.resize(reads);
  Grow(piece_scalars, scalar_count);
  piece_writes.resize(writes);
  Grow(tail_reads, reads * kNativeChunk);
  Grow(tail_writes, writes * kNativeChunk);
}

void VmWorkspace::Reserve(const Program& program, std::size_t item_count) {
  if (item_count <= column_capacity && item_count <= operand.capacity) return;
  const std::size_t capacity = std::max(item_count, column_capacity);
  Grow(columns, std::max<std::size_t>(1, program.columns * capacity));
  Grow(whole_inputs, std::max<std::size_t>(1, program.whole_input_slots.size() * capacity));
  Grow(operand, capacity);
  Grow(rank, 4 * capacity);  // rank sorts 2n 64-bit keys
  column_capacity = capacity;
}

void RunProgram(const Program& program, const backend::EvalArgs& args, VmWorkspace& workspace) {
  workspace.Reserve(program, args.item_count);
  Execution(program, args, workspace).Run();
}

}  // namespace calcjit::vm
