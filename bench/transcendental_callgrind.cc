// calcjit_transcendental_callgrind FUNCTION PATH N ITERATIONS: runs one
// column of BM_Kernel/transcendental (bench/transcendental_bench.h) ITERATIONS
// times inside MeasuredLoop, for instruction counts that do not depend on the
// machine's load:
//
//   valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*MeasuredLoop*'
//            build/bench/calcjit_transcendental_callgrind exp vm-avx2 2000 100
//
// (valgrind 3.19 does not run AVX-512 code: vm-baseline, vm-avx2, libmvec-8,
// and dd-avx2, the double-double kernel before the fast path, vectorized for
// AVX2.)
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/transcendental_bench.h"

namespace {

// Out of line, so that --toggle-collect sees its entry and exit.
[[gnu::noinline]] float MeasuredLoop(calcjit::bench::TranscendentalColumn column,
                                     const std::vector<float>& x, std::vector<float>& out,
                                     long iterations) {
  float sum = 0.0f;
  for (long r = 0; r < iterations; ++r) {
    column(x.data(), out.data(), x.size());
    sum += out[static_cast<std::size_t>(r) % out.size()];
  }
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: calcjit_transcendental_callgrind FUNCTION PATH N ITERATIONS\n");
    return 2;
  }
  const calcjit::bench::TranscendentalColumn column =
      calcjit::bench::FindTranscendentalColumn(argv[1], argv[2]);
  if (column == nullptr) {
    std::fprintf(stderr, "calcjit_transcendental_callgrind: %s/%s is not available here\n", argv[1],
                 argv[2]);
    return 1;
  }
  const std::size_t n = std::strtoul(argv[3], nullptr, 10);
  const long iterations = std::strtol(argv[4], nullptr, 10);
  const std::vector<float> x = calcjit::bench::TranscendentalInput(argv[1], n);
  std::vector<float> out(n);
  const float sum = MeasuredLoop(column, x, out, iterations);
  std::printf("%s %s n=%zu: %ld iterations measured (checksum %g)\n", argv[1], argv[2], n,
              iterations, static_cast<double>(sum));
  return 0;
}
