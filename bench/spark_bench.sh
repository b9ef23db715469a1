#!/usr/bin/env bash
# Spark against `calcjit eval --threads 2` on the same generated CSV log
# (docs/PERFORMANCE.md, "Spark"): rows per second of the whole job, reading
# the CSV and writing the outputs as CSV, each in local[2] (2 task threads).
# Not part of CI.
#   bench/spark_bench.sh [ROWS] [WORK_DIR]
# Needs ./scripts/build.sh calcjit_cli calcjit_python calcjit_jar calcjit_spark_example
# and scripts/setup.sh (the reference venv and the Maven repository).
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-10000000}
work=${2:-$(mktemp -d)}
mkdir -p "$work"
. scripts/reference_paths.sh
python=$CALCJIT_REFERENCE_VENV/bin/python
cp bench/spark_tree.calc "$work/tree.calc"
cp tests/model/data/reg_squarederror.json "$work/"
[ -f "$work/log.csv" ] || "$python" bench/spark_bench.py generate "$work/log.csv" "$rows"
echo "$(( $(wc -l < "$work/log.csv") - 1 )) rows, $(du -m "$work/log.csv" | cut -f1) MB; load: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -f "calcjit eval --threads 2: %e s wall, %U s user + %S s system" \
  build/cli/calcjit eval "$work/tree.calc" --input "$work/log.csv" --output "$work/eval.csv" \
  --group-by query_id --keep query_id,item_id --outputs margin,score --threads 2
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
for strategy in sorted contiguous; do  # with the shuffle, and without (the log is by query)
  PYTHONPATH=build/python /usr/bin/time -f "pyspark $strategy: %e s wall" \
    "$python" bench/spark_bench.py pyspark "$work/tree.calc" "$work/log.csv" "$work/pyspark" \
    $strategy
  echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
done
/usr/bin/time -f "java spark: %e s wall" build/java/spark_example.sh "$work/tree.calc" \
  "$work/log.csv" "$work/java" query_id margin,score query_id,item_id local[2]
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
