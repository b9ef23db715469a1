// The seed formulas' hand-written loops (bench/manual_loops.h), built with
// the project's flags (`baseline`) and for the host (`native`).
#ifndef CALCJIT_BENCH_MANUAL_H_
#define CALCJIT_BENCH_MANUAL_H_

#include <cstddef>
#include <span>

namespace calcjit::bench {

namespace baseline {
void Qux(std::span<const float* const> inputs, float* out, std::size_t n);
void Sum10(std::span<const float* const> inputs, float* out, std::size_t n);
}  // namespace baseline

namespace native {
void Qux(std::span<const float* const> inputs, float* out, std::size_t n);
void Sum10(std::span<const float* const> inputs, float* out, std::size_t n);
}  // namespace native

}  // namespace calcjit::bench

#endif  // CALCJIT_BENCH_MANUAL_H_
