#!/usr/bin/env bash
# The runtime's tests under sanitizers, in a build directory of their own:
#   scripts/sanitize.sh asan   AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/)
#   scripts/sanitize.sh tsan   ThreadSanitizer (build-tsan/)
# Runs the engine, many-query and binding, pipeline, serving (the reload
# stress test), shadow, JIT, shared statistics and C API tests, and the model
# loaders: model files beneath the root (with the race that swaps folders
# for links), set files, models in sets; and the tree evaluators (every form
# and tier against the reference, one prepared model shared by threads).
# LLVM itself (Debian's libLLVM-16.so) and the code it generates are not
# instrumented; ThreadSanitizer sees the library's own threads and atomics.
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:?usage: scripts/sanitize.sh asan|tsan}
case "$kind" in
  asan) sanitizers=address,undefined ;;
  tsan) sanitizers=thread ;;
  *) echo "unknown sanitizer '$kind' (asan or tsan)" >&2; exit 2 ;;
esac
./scripts/setup.sh
dir=build-$kind
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCALCJIT_SANITIZE="$sanitizers" -DCALCJIT_BUILD_BENCHMARKS=OFF -DCALCJIT_BUILD_TOOLS=OFF >/dev/null
tests=(engine_test queries_test pipeline_test serving_test shadow_test jit_test bad_calls_test
       shared_statistics_test model_files_test models_test model_test)
if [ -f tests/capi/CMakeLists.txt ]; then tests+=(capi_test capi_bad_calls_test capi_arrow_test); fi
cmake --build "$dir" -j"$(nproc)" --target "${tests[@]}"
export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
ctest --test-dir "$dir" --output-on-failure -j"$(nproc)" \
  -R '^(Backends/EngineTest|SharedStatisticsTest|.*EmptyCalls|.*ManyQueries|.*BindingRules|SessionQueries|PipelineTest|Serving|ShadowTest|JitTest|capi|bad_calls_(cpp|c)$|Methods/ModelFilesTest|SetFileTest|ModelPathTest|ModelsTest|BlockEvaluatorTest|BitvectorFormTest|.*TreeFormsTest|.*RandomEnsembleTest)'
