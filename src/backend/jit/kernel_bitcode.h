// The kernels of src/math as LLVM bitcode (jit_kernels.cc compiled by clang 16
// at build time), embedded in the library.
#ifndef CALCJIT_BACKEND_JIT_KERNEL_BITCODE_H_
#define CALCJIT_BACKEND_JIT_KERNEL_BITCODE_H_

#include <string_view>

namespace calcjit::jit {

std::string_view KernelBitcode();

}  // namespace calcjit::jit

#endif  // CALCJIT_BACKEND_JIT_KERNEL_BITCODE_H_
