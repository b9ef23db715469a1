"""The Spark side of bench/spark_bench.sh (docs/PERFORMANCE.md, "Spark"):
generates the log, or evaluates it with calcjit.spark on PySpark.

  python bench/spark_bench.py generate LOG.csv ROWS
  python bench/spark_bench.py pyspark SET LOG.csv OUT_DIR [sorted|grouped|contiguous] [MASTER]

The log: ~100 items per query, query_id,item_id,a,b,c,d,e,boost (the inputs
of bench/spark_tree.calc: XGBoost's reg_squarederror model over a..e), one
cell in ten empty (missing)."""

import os
import sys
import time

import numpy as np


def generate(path, rows, seed=11):
    rng = np.random.default_rng(seed)
    chunk = 1_000_000
    with open(path, "w") as out:
        out.write("query_id,item_id,a,b,c,d,e,boost\n")
        for start in range(0, rows, chunk):
            n = min(chunk, rows - start)
            index = np.arange(start, start + n)
            query = index // 100 + 1
            values = (rng.normal(size=(n, 5)) * 2).astype(np.float32)
            boost = np.float32(0.25) * (query % 7).astype(np.float32)
            cells = np.char.mod("%.7g", values)
            cells[rng.random(size=(n, 5)) < 0.1] = ""
            columns = [query.astype(str), index.astype(str), *cells.T, np.char.mod("%g", boost)]
            lines = columns[0]
            for column in columns[1:]:
                lines = np.char.add(np.char.add(lines, ","), column)
            out.write("\n".join(lines.tolist()))
            out.write("\n")


def pyspark(set_path, log, out_dir, strategy="sorted", master="local[2]"):
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession
    from pyspark.sql import types as T

    import calcjit
    import calcjit.spark

    spark = (SparkSession.builder.master(master).appName("calcjit-spark-bench")
             .config("spark.ui.enabled", "false").config("spark.driver.memory", "4g")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    fields = [T.StructField("query_id", T.LongType()), T.StructField("item_id", T.LongType())]
    fields += [T.StructField(name, T.FloatType()) for name in ("a", "b", "c", "d", "e", "boost")]
    start = time.perf_counter()
    df = spark.read.csv(log, header=True, schema=T.StructType(fields))
    features = calcjit.spark.evaluate(calcjit.read_file(set_path), df, group_by="query_id",
                                      outputs=["margin", "score"], keep=["query_id", "item_id"],
                                      strategy=strategy)
    features.write.mode("overwrite").csv(out_dir, header=True)
    seconds = time.perf_counter() - start
    rows = spark.read.csv(out_dir, header=True).count()
    print(f"\npyspark {strategy} {master}: {rows} rows in {seconds:.1f} s: "
          f"{rows / seconds:.0f} rows/s", flush=True)
    spark.stop()


if __name__ == "__main__":
    if sys.argv[1] == "generate":
        generate(sys.argv[2], int(sys.argv[3]))
    else:
        pyspark(*sys.argv[2:])
