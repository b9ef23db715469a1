#!/bin/sh
# Instruction counts (valgrind --tool=callgrind) of the BM_Kernel/transcendental
# columns, per element, n = 2000, 20 runs inside MeasuredLoop
# (bench/transcendental_callgrind.cc). valgrind 3.19 does not run AVX-512
# code, hence the AVX2 and baseline paths only.
#
#   bench/transcendental_callgrind.sh [BUILD_DIR]     (default: build)
set -eu
build=${1:-build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-8s %-12s %10s\n' fn path instr_per_elem
for fn in exp log log1p sigmoid tanh; do
  for path in dd-avx2 vm-baseline vm-avx2 libmvec-8; do
    f="$out/$fn.$path"
    valgrind --tool=callgrind --callgrind-out-file="$f" --collect-atstart=no \
      --toggle-collect='*MeasuredLoop*' "$build/bench/calcjit_transcendental_callgrind" $fn $path 2000 20 >"$f.log" 2>&1 || { cat "$f.log"; exit 1; }
    t=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$f")
    awk -v a="$fn" -v b="$path" -v t="$t" 'BEGIN { printf "%-8s %-12s %10.2f\n", a, b, t / 20 / 2000 }'
  done
done
