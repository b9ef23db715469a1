// BM_Kernel/transcendental/<fn>/<path>/<n>: the correctly rounded EXP, LOG,
// LOG1P, SIGMOID and TANH of src/math against glibc's libmvec (not correctly
// rounded), on columns of n = 100, 2,000 and 10,000 floats in each function's
// usual range. <path> is one of
//   vm-baseline, vm-avx2, vm-avx512  the VM's kernel of that tier, called on the column
//   vm, jit                          the engine (ISA auto) evaluating `y = fn(x)`
//   libmvec-8, libmvec-16            _ZGVdN8v_<fn>f / _ZGVeN16v_<fn>f over the column
//                                    (sigmoid: 1 / (1 + expf(-x)) with the vector expf)
// (tiers and libmvec variants only where the CPU has them). After the run a
// table of ns per element and of the ratios to the widest libmvec variant goes
// to stderr (docs/PERFORMANCE.md, "Correctly rounded transcendentals").
#ifndef CALCJIT_BENCH_TRANSCENDENTAL_BENCH_H_
#define CALCJIT_BENCH_TRANSCENDENTAL_BENCH_H_

#include <benchmark/benchmark.h>

#include <cstddef>
#include <string>
#include <vector>

namespace calcjit::bench {

// For the instruction counts (bench/transcendental_callgrind.cc): the column
// function of `path` (dd-avx2, dd-avx512, vm-*, libmvec-8, libmvec-16)
// for `function` (exp, log, log1p, sigmoid, tanh), or nullptr; and the input
// column the benchmarks use.
using TranscendentalColumn = void (*)(const float* x, float* out, std::size_t n);
TranscendentalColumn FindTranscendentalColumn(const std::string& function, const std::string& path);
std::vector<float> TranscendentalInput(const std::string& function, std::size_t n);

void RegisterTranscendentalBenchmarks();

// Collects the runs of these benchmarks (others are ignored) ...
void RecordTranscendentalRuns(const std::vector<benchmark::BenchmarkReporter::Run>& runs);
// ... and prints their table to stderr (nothing if none ran).
void PrintTranscendentalTable();

}  // namespace calcjit::bench

#endif  // CALCJIT_BENCH_TRANSCENDENTAL_BENCH_H_
