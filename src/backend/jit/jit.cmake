# Included by src/CMakeLists.txt (the generated sources must be made in the
# directory of the target that compiles them). The JIT backend: LLVM 16 (ORC LLJIT, the shared libLLVM), and the kernels of
# src/math compiled to LLVM bitcode by clang 16 with the project's
# floating-point flags, embedded in the library and inlined by the JIT.
find_package(LLVM 16 REQUIRED CONFIG HINTS /usr/lib/llvm-16/lib/cmake/llvm)
find_program(CALCJIT_CLANG clang++-16 HINTS ${LLVM_TOOLS_BINARY_DIR} REQUIRED)

set(bitcode ${CMAKE_CURRENT_BINARY_DIR}/backend/jit/jit_kernels.bc)
add_custom_command(
  OUTPUT ${bitcode}
  COMMAND ${CALCJIT_CLANG} -std=c++20 -O2 --target=x86_64-pc-linux-gnu
          -ffp-contract=off -fno-fast-math -fno-math-errno -fno-exceptions -fno-rtti
          # Scalar kernels: the JIT's loop vectorizer widens them across items,
          # and it cannot widen code that is already vector code.
          -fno-vectorize -fno-slp-vectorize -fno-unroll-loops
          -I${PROJECT_SOURCE_DIR}/src -MD -MF ${bitcode}.d
          -emit-llvm -c ${CMAKE_CURRENT_LIST_DIR}/jit_kernels.cc -o ${bitcode}
  DEPENDS ${CMAKE_CURRENT_LIST_DIR}/jit_kernels.cc
  DEPFILE ${bitcode}.d
  COMMENT "Compiling the math kernels to LLVM bitcode with clang 16"
  VERBATIM)
set(embedded ${CMAKE_CURRENT_BINARY_DIR}/backend/jit/kernel_bitcode.cc)
add_custom_command(
  OUTPUT ${embedded}
  COMMAND ${CMAKE_COMMAND} -DINPUT=${bitcode} -DOUTPUT=${embedded}
          -P ${CMAKE_CURRENT_LIST_DIR}/embed.cmake
  DEPENDS ${bitcode} ${CMAKE_CURRENT_LIST_DIR}/embed.cmake
  VERBATIM)

target_sources(calcjit PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/codegen.cc
  ${CMAKE_CURRENT_LIST_DIR}/compiler.cc
  ${CMAKE_CURRENT_LIST_DIR}/jit.cc
  ${CMAKE_CURRENT_LIST_DIR}/section_pages.cc
  ${CMAKE_CURRENT_LIST_DIR}/stages.cc
  ${CMAKE_CURRENT_LIST_DIR}/tail_blocks.cc
  ${CMAKE_CURRENT_LIST_DIR}/piece_key.cc
  ${CMAKE_CURRENT_LIST_DIR}/vector_kernel_symbols.cc
  ${embedded})
# The vector clones of the transcendental kernels (vector_kernels.h) are
# GCC's: clang makes no bodies for `omp declare simd`. A clang build (the
# fuzz build, docs/FUZZING.md) links this one file compiled by GCC, without
# instrumentation (the kernels only call the header-only src/math).
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  target_sources(calcjit PRIVATE ${CMAKE_CURRENT_LIST_DIR}/vector_kernels.cc)
  set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/vector_kernels.cc PROPERTIES
    COMPILE_OPTIONS "-fopenmp-simd")
else()
  find_program(CALCJIT_GXX NAMES g++-12 g++ REQUIRED)
  set(vector_kernels_object ${CMAKE_CURRENT_BINARY_DIR}/backend/jit/vector_kernels_gcc.o)
  add_custom_command(
    OUTPUT ${vector_kernels_object}
    # -Wno-psabi as every GCC target (cmake/CompilerFlags.cmake).
    COMMAND ${CALCJIT_GXX} -std=c++20 -O2 -fPIC -fopenmp-simd -Wno-psabi
            -ffp-contract=off -fno-fast-math -fno-math-errno
            -I${PROJECT_SOURCE_DIR}/src -I${PROJECT_SOURCE_DIR}/include
            -MD -MF ${vector_kernels_object}.d
            -c ${CMAKE_CURRENT_LIST_DIR}/vector_kernels.cc -o ${vector_kernels_object}
    DEPENDS ${CMAKE_CURRENT_LIST_DIR}/vector_kernels.cc
    DEPFILE ${vector_kernels_object}.d
    COMMENT "Compiling the JIT's vector kernels with GCC"
    VERBATIM)
  target_sources(calcjit PRIVATE ${vector_kernels_object})
endif()
target_include_directories(calcjit SYSTEM PRIVATE ${LLVM_INCLUDE_DIRS})
separate_arguments(llvm_definitions NATIVE_COMMAND ${LLVM_DEFINITIONS})
target_compile_definitions(calcjit PRIVATE ${llvm_definitions})
target_link_libraries(calcjit PRIVATE LLVM)
