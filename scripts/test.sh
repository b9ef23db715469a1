#!/usr/bin/env bash
# Every test on a fresh Debian 12 machine: installs what is missing, builds
# everything, and runs the whole suite (unit, conformance, property, CLI and
# the sampled ulp checks of the math functions), then the runtime tests under
# sanitizers and every fuzz target for a bounded time.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
# The serving runtime, the JIT and the C API under AddressSanitizer + UBSan
# and under ThreadSanitizer (their own build directories; docs/SERVING.md).
./scripts/sanitize.sh asan
./scripts/sanitize.sh tsan
# Every libFuzzer target under ASan + UBSan (clang 16, build-fuzz/): the seed
# and regression inputs once, then 10 s per target (docs/FUZZING.md).
./scripts/fuzz.sh ci
