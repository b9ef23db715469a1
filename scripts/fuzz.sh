#!/usr/bin/env bash
# The libFuzzer targets of tests/fuzz under ASan + UBSan (docs/FUZZING.md), in
# a clang 16 build directory of their own (build-fuzz/):
#   scripts/fuzz.sh build                 configure and build every target
#   scripts/fuzz.sh replay                run every seed and regression input once
#   scripts/fuzz.sh ci [seconds]          replay, then each target for `seconds`
#                                         (default 10) from its corpus: CI's bound
#   scripts/fuzz.sh run TARGET SECONDS [libFuzzer flags...]
#                                         one target (for two cores, run two
#                                         targets at once rather than -jobs)
#   scripts/fuzz.sh long HOURS [TARGET...]
#                                         every target (or those named) one after
#                                         another, HOURS in all, split evenly
# Each run prints "fuzz: TARGET: N executions in S s, C new inputs kept, 0 crashes"
# (C counts the working corpus, not the committed seeds the run also read).
# A crash leaves its input in build-fuzz/artifacts/TARGET/; fixed, it becomes
# a regression input in tests/fuzz/regressions/TARGET/ that replay runs.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build-fuzz
targets=(text_reader json_reader proto_reader csv_reader xgboost_reader xgboost_ubjson
         lightgbm_reader onnx_reader catboost_reader arrow_input differential tree_evaluator)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

build() {
  ./scripts/setup.sh
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-16 -DCMAKE_CXX_COMPILER=clang++-16 \
    -DCALCJIT_SANITIZE=fuzzer-no-link,address,undefined -DCALCJIT_FUZZ=ON \
    -DCALCJIT_BUILD_TESTS=OFF -DCALCJIT_BUILD_BENCHMARKS=OFF -DCALCJIT_BUILD_TOOLS=OFF \
    -DCALCJIT_BUILD_JAVA=OFF -DCALCJIT_BUILD_PYTHON=OFF >/dev/null
  cmake --build "$dir" -j"$(nproc)" --target "${targets[@]/%/_fuzzer}"
}

binary() { echo "$dir/tests/fuzz/$1_fuzzer"; }

# The committed inputs of a target that exist (seeds, regressions).
inputs_of() {
  local d
  for d in tests/fuzz/corpus/"$1" tests/fuzz/regressions/"$1"; do
    if [ -d "$d" ]; then echo "$d"; fi
  done
}

replay() {
  local t
  for t in "${targets[@]}"; do
    mapfile -t dirs < <(inputs_of "$t")
    if [ ${#dirs[@]} -eq 0 ]; then continue; fi
    echo "fuzz: replaying ${dirs[*]}"
    "$(binary "$t")" -runs=0 "${dirs[@]}" 2>"$dir/logs/$t.replay.log" ||
      { tail -50 "$dir/logs/$t.replay.log"; echo "fuzz: $t: a committed input fails" >&2; exit 1; }
  done
}

# run TARGET SECONDS [flags]: the working corpus (build-fuzz/corpus/TARGET,
# where new inputs go) first, the committed ones after it (only read).
run() {
  local t=$1 seconds=$2
  shift 2
  local work=$dir/corpus/$t artifacts=$dir/artifacts/$t/ log=$dir/logs/$t.log
  mkdir -p "$work" "$artifacts"
  mapfile -t dirs < <(inputs_of "$t")
  # Feature sets and tables up to 4 KiB (longer seeds, such as the
  # 2,000-level formula, still run whole); models up to their largest seed.
  local max_len=()
  case "$t" in *_reader | differential | tree_evaluator) max_len=(-max_len=4096) ;; esac
  case "$t" in xgboost_reader | xgboost_ubjson | lightgbm_reader | onnx_reader | catboost_reader) max_len=() ;; esac
  # The tree evaluator's bytes choose a model and its rows, and a generator
  # seeded by them makes the rest: longer inputs from the start (not
  # libFuzzer's slow growth from a few bytes) put more of it in the bytes.
  case "$t" in tree_evaluator) max_len+=(-len_control=0) ;; esac
  local status=0
  "$(binary "$t")" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 "${max_len[@]}" \
    -artifact_prefix="$artifacts" -print_final_stats=1 "$@" "$work" "${dirs[@]}" \
    >"$log" 2>&1 || status=$?
  local runs crashes corpus
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | awk '{s += $2} END {print s + 0}')
  crashes=$(find "$artifacts" -type f | wc -l)
  corpus=$(find "$work" -type f | wc -l)
  echo "fuzz: $t: $runs executions in $seconds s, $corpus new inputs kept, $crashes crashes"
  if [ "$status" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    grep -A40 -m1 'ERROR\|fuzz check failed\|runtime error' "$log" || tail -40 "$log"
    echo "fuzz: $t failed: inputs in $artifacts, log $log" >&2
    return 1
  fi
}

mkdir -p "$dir/logs"
case "${1:-}" in
  build) build ;;
  replay) replay ;;
  ci)
    build
    replay
    for t in "${targets[@]}"; do run "$t" "${2:-10}"; done
    ;;
  run)
    t=${2:?usage: scripts/fuzz.sh run TARGET SECONDS [flags]}
    seconds=${3:?usage: scripts/fuzz.sh run TARGET SECONDS [flags]}
    shift 3
    run "$t" "$seconds" "$@"
    ;;
  long)
    hours=${2:?usage: scripts/fuzz.sh long HOURS [TARGET...]}
    shift 2
    if [ $# -gt 0 ]; then targets=("$@"); fi
    build
    each=$(awk -v h="$hours" -v n=${#targets[@]} 'BEGIN {printf "%d", h * 3600 / n}')
    failed=0
    for t in "${targets[@]}"; do run "$t" "$each" || failed=1; done
    exit $failed
    ;;
  *)
    sed -n '2,17p' "$0" >&2
    exit 2
    ;;
esac
