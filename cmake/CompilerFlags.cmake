# Flags every calcjit target is built with.
#
# The contract (spec/DSL.md section 1) fixes results bit for bit, so:
#  -ffp-contract=off  GCC contracts a*b+c into an FMA by default as soon as FMA
#                     is enabled (e.g. in a target("avx2,fma") function); that
#                     changes the rounding.
#  -fno-fast-math     stated explicitly so that a user's CXXFLAGS cannot sneak
#                     reassociation or flush-to-zero in.
#  -fno-math-errno    sqrt never needs to set errno; this lets sqrtf inline to
#                     sqrtss (and vectorize). It changes no result bit.
add_compile_options(
  -ffp-contract=off
  -fno-fast-math
  -fno-math-errno
)

if(CALCJIT_SANITIZE)
  add_compile_options(-fsanitize=${CALCJIT_SANITIZE} -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${CALCJIT_SANITIZE})
endif()

# Warnings for the project's own code (generated protobuf code is exempt; see
# proto/CMakeLists.txt).
set(CALCJIT_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
    -Wold-style-cast -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough
    -Wno-missing-field-initializers)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  # GCC 12 reports impossible overlaps in std::string concatenation at -O3
  # (GCC bug 105329, a false positive fixed in GCC 13). clang (the fuzz build)
  # has no such warning and would warn about the unknown option.
  list(APPEND CALCJIT_WARNINGS -Wno-restrict)
endif()
# The kernels pass 32- and 64-byte vectors (math/vector.h, aggregate.h)
# between always-inlined functions; GCC notes that such a call would have
# another ABI under AVX, which never matters for inlined calls.
list(APPEND CALCJIT_WARNINGS -Wno-psabi)

function(calcjit_target_defaults target)
  target_compile_options(${target} PRIVATE ${CALCJIT_WARNINGS})
endfunction()
