// The hot loop of each AVX-512 fast path (math/transcendental_avx512.h), one
// vector of 16 floats per iteration, between llvm-mca region markers: compiled
// to assembly by bench/transcendental_mca.sh and fed to llvm-mca, which models
// the cycles per iteration (AVX-512 code cannot run under callgrind). Not part
// of the build.
#include "math/transcendental_avx512.h"

namespace av = calcjit::math::internal::avx512;

#define CALCJIT_MCA_LOOP(name, fast)                                             \
  CALCJIT_AVX512 void name(const float* x, float* out, unsigned* fail, long n) { \
    for (long i = 0; i < n; i += 16) {                                           \
      __asm__ volatile("# LLVM-MCA-BEGIN " #name);                               \
      const av::Fast16 r = fast(_mm512_loadu_ps(x + i));                         \
      _mm512_storeu_ps(out + i, r.value);                                        \
      fail[i] = r.fail;                                                          \
      __asm__ volatile("# LLVM-MCA-END");                                        \
    }                                                                            \
  }

CALCJIT_MCA_LOOP(exp, av::ExpFast16)
CALCJIT_MCA_LOOP(log, av::LogFast16)
CALCJIT_MCA_LOOP(log1p, av::Log1pFast16)
CALCJIT_MCA_LOOP(sigmoid, av::SigmoidFast16)
CALCJIT_MCA_LOOP(tanh, av::TanhFast16)
