#!/bin/sh
# Modeled cycles per 16 floats (llvm-mca-16, from Debian's llvm-16, which
# llvm-16-dev brings; default -mcpu=icelake-server) of the
# AVX-512 fast path's hot loop (bench/transcendental_mca.cc) and of glibc's
# libmvec _ZGVeN16v_<fn>f (its AVX-512 code, disassembled from libmvec.so up
# to the first ret; sigmoid: expf, one add and one vdivps, as the benchmark's
# libmvec-16 sigmoid). The figure is the busier of the two 512-bit ports
# (0 and 5) per iteration: both codes are bound by it. The rare branches of
# the fast path (NaN, tiny results, special inputs, the fallback) are removed
# from a copy of the header: the common path is modeled.
#
#   bench/transcendental_mca.sh [MCPU]   (an Intel model with AVX-512:
#                                         the columns read are ports 0 and 5)
set -eu
cpu=${1:-icelake-server}
mca=$(command -v llvm-mca-16 || command -v llvm-mca)
src=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mkdir -p "$out/inc/math"
sed -E 's/if \((rare|any_irregular|maybe_tiny|any_small)\)/if (false \&\& \1)/;
        s/if \(__builtin_expect\(fail == 0, 1\)\) return f.value;/return f.value;/' \
  "$src/src/math/transcendental_avx512.h" >"$out/inc/math/transcendental_avx512.h"
g++ -std=c++20 -O2 -ffp-contract=off -I"$out/inc" -I"$src/src" -S -o "$out/ours.s" \
  "$src/bench/transcendental_mca.cc"
# The busiest of ports 0 and 5 per iteration, per region.
pressure() {
  "$mca" -mcpu="$cpu" "$1" 2>/dev/null | awk '
    /^Resource pressure per iteration:/ { getline; getline; p = ($3 > $8 ? $3 : $8); print p }'
}
lib=$(ldconfig -p | sed -n 's/.*libmvec\.so\.1 .*=> //p' | head -1)
# The AVX-512 implementation behind each IFUNC: the address the resolver
# loads when AVX-512 is usable is the one that begins with the zmm prologue.
mvec() {
  objdump -d --no-show-raw-insn "$lib" | awk -v sym="<_ZGVeN16v_$1f@@" '
    index($0, sym) && /^[0-9a-f]+ </ { go = 1; next }
    go && /lea .*# [0-9a-f]+ </ { sub(/.*# /, ""); sub(/ <.*/, ""); print }
    go && /ret/ { exit }' | while read -r addr; do
    objdump -d --no-show-raw-insn --start-address=0x$addr --stop-address=$((0x$addr + 4000)) \
      "$lib" | awk 'NR > 7' | sed -n '1,/ret/p' | sed -E 's/^ *[0-9a-f]+:\t//; s/ *#.*$//' |
      grep -vE '^(j[a-z]+|call|ret|push|pop)|%rsp|%rbp' >"$out/cand.s" || true
    if grep -q zmm "$out/cand.s" && [ "$(grep -c . "$out/cand.s")" -gt 10 ]; then
      cat "$out/cand.s"
      return
    fi
  done
}
regions=$("$mca" -mcpu="$cpu" "$out/ours.s" 2>/dev/null | sed -n 's/^\[[0-9]*\] Code Region - //p')
ours=$(pressure "$out/ours.s")
printf '%-8s %12s %12s %8s\n' fn fast-path libmvec-16 ratio
i=1
for fn in $regions; do
  o=$(echo "$ours" | sed -n "${i}p")
  if [ "$fn" = sigmoid ]; then
    { echo 'vxorps %zmm30, %zmm0, %zmm0'; mvec exp; echo 'vaddps %zmm31, %zmm1, %zmm1';
      echo 'vdivps %zmm1, %zmm31, %zmm0'; } >"$out/m.s"
  else
    mvec "$fn" >"$out/m.s"
  fi
  m=$(pressure "$out/m.s")
  awk -v f="$fn" -v o="$o" -v m="$m" 'BEGIN { printf "%-8s %12.2f %12.2f %7.2fx\n", f, o, m, o / m }'
  i=$((i + 1))
done
