#!/usr/bin/env bash
# `calcjit eval --threads 2` against `--threads 1` on a generated file
# (docs/PERFORMANCE.md, "eval --threads"). Not part of CI.
#   bench/eval_threads.sh [QUERIES] [ITEMS_PER_QUERY] [REPETITIONS]
# Prints, per run, wall and CPU (user + system) seconds, and checks that the
# two outputs are the same bytes. Needs ./scripts/build.sh calcjit_cli
# calcjit_make_items_csv.
set -euo pipefail
cd "$(dirname "$0")/.."
queries=${1:-1000}
items=${2:-200}
repetitions=${3:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
build/examples/calcjit_make_items_csv --queries "$queries" --items "$items" > "$work/log.csv"
echo "$(( queries * items )) rows, $(du -m "$work/log.csv" | cut -f1) MB"
for r in $(seq "$repetitions"); do
  for t in 1 2; do
    /usr/bin/time -f "threads $t: %e s wall, %U s user + %S s system" \
      build/cli/calcjit eval examples/ranking/ranking.calc --input "$work/log.csv" \
      --output - --group-by query_id --keep query_id,item_id --threads "$t" > "$work/out$t.csv"
  done
done
cmp "$work/out1.csv" "$work/out2.csv" && echo "same bytes: yes"
