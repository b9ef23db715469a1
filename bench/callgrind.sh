#!/bin/sh
# Instruction counts (valgrind --tool=callgrind) of the benchmark workloads:
# the instructions executed inside the timed body only (MeasuredLoop in
# calcjit_bench_callgrind), divided per evaluation and per item. Unlike the
# timings, these do not depend on the machine's load.
#
#   bench/callgrind.sh [BUILD_DIR]     (default: build)
#
# Modes the build cannot run are skipped. Valgrind's CPU has no AVX-512, so
# the counts are those of the AVX2 tier.
#
# Caveat: valgrind counts every iteration of a `rep stosb` as one instruction,
# and glibc's memset uses `rep stosb` for blocks of 2 KiB and more; so a
# memset of 8 KB counts 8,000 instructions (a few hundred cycles on the CPU).
# The memset column gives that part separately.
set -eu
build=${1:-build}
driver=$build/bench/calcjit_bench_callgrind
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

printf '%-8s %-10s %6s %6s %14s %12s %10s %14s\n' \
  case mode n evals instructions per_eval per_item memset_per_item
run() {  # CASE MODE N ITERATIONS
  file=$out/$1.$2.$3
  if ! valgrind --tool=callgrind --callgrind-out-file="$file" --collect-atstart=no \
      --toggle-collect='*MeasuredLoop*' "$driver" "$1" "$2" "$3" "$4" >"$file.log" 2>&1; then
    if grep -q 'not available' "$file.log"; then return 0; fi
    cat "$file.log" >&2
    exit 1
  fi
  total=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$file")
  memset=$(callgrind_annotate --inclusive=no --threshold=100 "$file" 2>/dev/null |
           awk '/memset/ { gsub(",", "", $1); sum += $1 } END { print sum + 0 }')
  awk -v c="$1" -v m="$2" -v n="$3" -v r="$4" -v t="$total" -v z="$memset" 'BEGIN {
    printf "%-8s %-10s %6d %6d %14d %12.0f %10.2f %14.2f\n", c, m, n, r, t, t / r, t / r / n,
           z / r / n }'
}
for case in Qux Sum10; do
  for mode in manual evaluated vm jit; do run "$case" "$mode" 2000 200; done
done
for mode in evaluated vm jit; do run Ranking "$mode" 2000 3; done
for mode in vm jit; do run RankingUnshared "$mode" 2000 3; done
for mode in vm jit; do run RankingLike30 "$mode" 2000 20; done
for case in Statistics StatisticsUnshared; do
  for mode in vm jit; do run "$case" "$mode" 2000 200; done
done
for mode in evaluated vm jit; do run Large "$mode" 2000 2; done
