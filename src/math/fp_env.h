// The floating-point environment an evaluation runs in (spec section 1):
// round to nearest even, subnormals kept (no FTZ, no DAZ), exceptions masked,
// whatever the calling thread had set; the caller's settings come back when
// the scope ends. A JVM or a Python extension may well have set FTZ/DAZ or
// unmasked an exception, so every entry point that computes takes one.
#ifndef CALCJIT_MATH_FP_ENV_H_
#define CALCJIT_MATH_FP_ENV_H_

#if defined(__x86_64__) || defined(_M_X64)
#include <xmmintrin.h>
#else
#include <cfenv>
#endif

namespace calcjit::math {

#if defined(__x86_64__) || defined(_M_X64)

class ScopedFpEnv {
 public:
  // MXCSR: all six exceptions masked (bits 7-12), round to nearest (bits
  // 13-14 = 0), FTZ (bit 15) and DAZ (bit 6) off. Bits 0-5 are sticky flags.
  static constexpr unsigned kRequired = 0x1F80u;
  static constexpr unsigned kFlagBits = 0x3Fu;

  ScopedFpEnv() : saved_(_mm_getcsr()) {
    changed_ = (saved_ & ~kFlagBits) != kRequired;
    if (changed_) _mm_setcsr(kRequired | (saved_ & kFlagBits));
  }
  ~ScopedFpEnv() {
    if (changed_) _mm_setcsr(saved_);
  }
  ScopedFpEnv(const ScopedFpEnv&) = delete;
  ScopedFpEnv& operator=(const ScopedFpEnv&) = delete;

 private:
  unsigned saved_;
  bool changed_;
};

#else

class ScopedFpEnv {
 public:
  ScopedFpEnv() {
    std::fegetenv(&saved_);
    std::fesetenv(FE_DFL_ENV);
  }
  ~ScopedFpEnv() { std::fesetenv(&saved_); }
  ScopedFpEnv(const ScopedFpEnv&) = delete;
  ScopedFpEnv& operator=(const ScopedFpEnv&) = delete;

 private:
  std::fenv_t saved_;
};

#endif

}  // namespace calcjit::math

#endif  // CALCJIT_MATH_FP_ENV_H_
