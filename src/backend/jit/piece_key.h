// The identity of a native piece's machine code: everything code generation
// reads (operators, operand structure, constant bits, which writes make NaN
// canonical, the names that appear in symbols), plus the target and the
// compiler version. Not the columns a piece reads or writes: those are
// bound at run time, so one piece's code serves every engine containing it.
#ifndef CALCJIT_BACKEND_JIT_PIECE_KEY_H_
#define CALCJIT_BACKEND_JIT_PIECE_KEY_H_

#include <string>
#include <string_view>

#include "backend/program/program.h"

namespace calcjit::jit {

std::string PieceKey(const program::Region& piece, std::string_view target);

}  // namespace calcjit::jit

#endif  // CALCJIT_BACKEND_JIT_PIECE_KEY_H_
