# Writes INPUT (a binary file) into OUTPUT as a C++ byte array behind
# calcjit::jit::KernelBitcode(). Run at build time: cmake -DINPUT=.. -DOUTPUT=.. -P embed.cmake
file(READ "${INPUT}" bytes HEX)
string(LENGTH "${bytes}" length)
math(EXPR size "${length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," array "${bytes}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" array "${array}")
file(WRITE "${OUTPUT}" "// Generated from jit_kernels.cc by src/backend/jit/embed.cmake: do not edit.
#include \"backend/jit/kernel_bitcode.h\"

namespace calcjit::jit {
namespace {
alignas(16) const unsigned char kBitcode[] = {
${array}
};
}  // namespace

std::string_view KernelBitcode() {
  return std::string_view(reinterpret_cast<const char*>(kBitcode), ${size});
}

}  // namespace calcjit::jit
")
