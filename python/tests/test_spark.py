"""calcjit.spark on Spark itself (PySpark 4, local[2,3]: 2 task threads, a failed
task retried): the same bits as `calcjit eval` for the example set and a set with
an XGBoost model, queries cut by Arrow batch boundaries carried whole, a task
that fails on its first attempt retried without lost or duplicated rows, and a
model file missing on the executors reported on the driver. Runs in the
reference venv (scripts/setup.sh), which has pyspark and pyarrow."""

import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

import calcjit
import calcjit.spark
from conftest import RANKING, SOURCE_DIR, assert_same_bits, csv_columns, run_cli

pyspark = pytest.importorskip("pyspark")
from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import types as T  # noqa: E402

MAKE_ITEMS = pathlib.Path(os.environ.get(
    "CALCJIT_MAKE_ITEMS_CSV", SOURCE_DIR / "build" / "examples" / "calcjit_make_items_csv"))
MODEL = SOURCE_DIR / "tests" / "model" / "data" / "reg_squarederror.json"
TREE_SET = """\
model ranker = xgboost("reg_squarederror.json");
input a; input b; input c; input d; input e;
input boost: query = 0;
margin = model(ranker, a, b, c, d, e)[0];
score = margin + boost - rank(margin) / 100;
"""


@pytest.fixture(scope="module")
def spark():
    # The workers run this interpreter (the venv with pyarrow), not python3 on PATH.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (SparkSession.builder.master("local[2,3]")
               .appName("calcjit-test")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "3")
               # Small Arrow batches: many queries are cut by a batch boundary.
               .config("spark.sql.execution.arrow.maxRecordsPerBatch", "97")
               .config("spark.driver.memory", "1g")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def csv_schema(path, text_columns=("query_text",), id_columns=("query_id", "item_id")):
    """FloatType for the numbers (Spark parses them to the nearest float32, as
    `calcjit eval` does), LongType for ids, StringType for text."""
    header = pathlib.Path(path).read_text().split("\n", 1)[0].split(",")
    fields = []
    for name in header:
        kind = (T.StringType() if name in text_columns else
                T.LongType() if name in id_columns else T.FloatType())
        fields.append(T.StructField(name, kind, True))
    return T.StructType(fields)


def read_log(spark, path, partitions):
    df = spark.read.csv(str(path), header=True, schema=csv_schema(path), enforceSchema=True)
    return df.repartition(partitions)  # rows of a query scattered over partitions


def rows_by_key(frame_rows, keys, outputs):
    """{(query_id, item_id): [output values]} from collected rows."""
    return {tuple(row[k] for k in keys): [row[o] for o in outputs] for row in frame_rows}


def compare_with_cli(rows, cli_csv, keys, outputs, in_order=False):
    cli = csv_columns(cli_csv)
    expected_keys = list(zip(*(cli[k].astype(np.int64) for k in keys)))
    got = rows_by_key(rows, keys, outputs)
    if in_order:
        assert [tuple(row[k] for k in keys) for row in rows] == expected_keys, "order changed"
    assert len(rows) == len(expected_keys), "rows lost or duplicated"
    assert len(got) == len(expected_keys), "duplicated keys"
    for j, name in enumerate(outputs):
        actual = np.array([got[key][j] for key in expected_keys], dtype=np.float32)
        assert_same_bits(actual, cli[name], name)


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    folder = tmp_path_factory.mktemp("log")
    path = folder / "log.csv"
    with open(path, "w") as out:
        subprocess.run([str(MAKE_ITEMS), "--queries", "24", "--items", "45"], stdout=out, check=True)
    return path


def test_example_set_the_same_bits_as_calcjit_eval(spark, log, tmp_path):
    fs = calcjit.read_file(RANKING)
    outputs = ["score"] + list(fs.outputs)[::37]
    cli_out = tmp_path / "cli.csv"
    run_cli("eval", RANKING, "--input", log, "--output", cli_out, "--group-by", "query_id",
            "--keep", "query_id,item_id", "--outputs", *outputs)
    features = calcjit.spark.evaluate(fs, read_log(spark, log, 4), group_by="query_id",
                                      outputs=outputs, keep=["query_id", "item_id"])
    assert features.columns == ["query_id", "item_id", *outputs]
    compare_with_cli(features.collect(), cli_out, ["query_id", "item_id"], outputs)


def tree_log(path, queries=30, seed=5, sizes=None, ids=None):
    """A log for TREE_SET: five inputs with empty cells, a query input; the
    queries' sizes (default: 1 to 59 items) and ids (default: 1, 2, ...)."""
    rng = np.random.default_rng(seed)
    sizes = sizes or [int(rng.integers(1, 60)) for _ in range(queries)]
    ids = ids or list(range(1, len(sizes) + 1))
    lines = ["query_id,item_id,a,b,c,d,e,boost"]
    for q, (size, key) in enumerate(zip(sizes, ids)):
        boost = f"{rng.normal():.6g}"
        for i in range(size):
            cells = ["" if rng.random() < 0.1 else f"{rng.normal() * 2:.7g}" for _ in range(5)]
            lines.append(",".join([str(key), str(1000 * q + i), *cells, boost]))
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture()
def tree(tmp_path):
    shutil.copy(MODEL, tmp_path / MODEL.name)
    (tmp_path / "tree.calc").write_text(TREE_SET)
    tree_log(tmp_path / "tree.csv")
    run_cli("eval", tmp_path / "tree.calc", "--input", tmp_path / "tree.csv", "--output",
            tmp_path / "cli.csv", "--group-by", "query_id", "--keep", "query_id,item_id",
            "--outputs", "margin", "score")
    return tmp_path


def test_tree_model_set_the_same_bits_as_calcjit_eval_both_strategies(spark, tree):
    fs = calcjit.read_file(tree / "tree.calc")
    df = read_log(spark, tree / "tree.csv", 3)
    for strategy in ("sorted", "grouped"):
        features = calcjit.spark.evaluate(fs, df, group_by="query_id", outputs=["margin", "score"],
                                          keep=["query_id", "item_id"], strategy=strategy)
        compare_with_cli(features.collect(), tree / "cli.csv", ["query_id", "item_id"],
                         ["margin", "score"])


def test_a_task_failing_on_its_first_attempt_is_retried_without_lost_or_duplicated_rows(
        spark, tree):
    from pyspark import TaskContext

    def fail_first_attempt(batches):
        # In the same task as the evaluation (no shuffle between): the whole
        # task, calcjit's part included, runs again.
        context = TaskContext.get()
        for k, batch in enumerate(batches):
            if k == 1 and context.attemptNumber() == 0:
                raise RuntimeError("injected failure of a first attempt")
            yield batch

    fs = calcjit.read_file(tree / "tree.calc")
    features = calcjit.spark.evaluate(fs, read_log(spark, tree / "tree.csv", 3),
                                      group_by="query_id", outputs=["margin", "score"],
                                      keep=["query_id", "item_id"])
    failing = features.mapInArrow(fail_first_attempt, features.schema)
    compare_with_cli(failing.collect(), tree / "cli.csv", ["query_id", "item_id"],
                     ["margin", "score"])


def test_a_model_file_missing_on_the_executors_is_a_clear_error_on_the_driver(spark, tree):
    df = read_log(spark, tree / "tree.csv", 2)
    # The set is given by path: every executor reads it and its model there.
    features = calcjit.spark.evaluate(str(tree / "tree.calc"), df, group_by="query_id",
                                      outputs=["score"])
    (tree / MODEL.name).unlink()  # present on the driver, gone when the tasks run
    with pytest.raises(Exception) as raised:
        features.collect()
    message = str(raised.value)
    assert "calcjit.Error" in message and "reg_squarederror.json" in message, message[:2000]


def test_arguments_are_checked_on_the_driver(spark, tree):
    fs = calcjit.read_file(tree / "tree.calc")
    df = read_log(spark, tree / "tree.csv", 1)
    with pytest.raises(calcjit.Error, match="group_by column 'nope'"):
        calcjit.spark.evaluate(fs, df, group_by="nope")
    with pytest.raises(calcjit.Error, match="unknown output 'nope'"):
        calcjit.spark.evaluate(fs, df, group_by="query_id", outputs=["nope"])
    with pytest.raises(TypeError):
        calcjit.spark.evaluate(fs, df.toPandas(), group_by="query_id")


# strategy="contiguous": the log already has each query's rows in one run.
# Query sizes and the partitions they are cut into: a partition holding one
# whole query, empty partitions (one inside a query), queries crossing a
# boundary, and a query of 130 rows over five partitions.
CONTIGUOUS_SIZES = [5, 1, 40, 130, 7, 3, 60, 2, 25]
CONTIGUOUS_PARTITIONS = [5, 0, 21, 0, 30, 50, 0, 50, 40, 57, 20, 0]


def with_partitions(spark, path, sizes):
    """The CSV log's rows, in the file's order, cut into partitions of the
    given sizes (0: an empty partition)."""
    df = spark.read.csv(str(path), header=True, schema=csv_schema(path), enforceSchema=True)
    rows = df.coalesce(1).collect()
    assert sum(sizes) == len(rows)
    parts = []
    for size in sizes:
        parts.append(rows[sum(len(p) for p in parts):][:size])
    spread = spark.sparkContext.parallelize(range(len(parts)), len(parts))
    frame = spark.createDataFrame(spread.flatMap(lambda k: parts[k]), df.schema)
    assert frame.rdd.glom().map(len).collect() == sizes
    return frame


@pytest.fixture()
def contiguous(tmp_path):
    """A contiguous log (ids out of order) and calcjit eval's outputs for it."""
    shutil.copy(MODEL, tmp_path / MODEL.name)
    (tmp_path / "tree.calc").write_text(TREE_SET)
    tree_log(tmp_path / "log.csv", sizes=CONTIGUOUS_SIZES, ids=[7, 3, 9, 1, 8, 2, 6, 5, 4])
    run_cli("eval", tmp_path / "tree.calc", "--input", tmp_path / "log.csv", "--output",
            tmp_path / "cli.csv", "--group-by", "query_id", "--keep", "query_id,item_id",
            "--outputs", "margin", "score")
    return tmp_path


def evaluate_contiguous(df, folder):
    return calcjit.spark.evaluate(calcjit.read_file(folder / "tree.calc"), df,
                                  group_by="query_id", outputs=["margin", "score"],
                                  keep=["query_id", "item_id"], strategy="contiguous")


def test_contiguous_queries_across_partitions_the_same_bits_and_order_as_calcjit_eval(
        spark, contiguous):
    features = evaluate_contiguous(
        with_partitions(spark, contiguous / "log.csv", CONTIGUOUS_PARTITIONS), contiguous)
    compare_with_cli(features.collect(), contiguous / "cli.csv", ["query_id", "item_id"],
                     ["margin", "score"], in_order=True)


def test_contiguous_file_splits_of_a_sorted_log_the_same_bits_as_calcjit_eval(spark, tree):
    # A file read in splits of 1,500 bytes: queries of up to 59 rows of ~60
    # bytes cross split boundaries, some span three splits.
    spark.conf.set("spark.sql.files.maxPartitionBytes", "1500")
    try:
        df = spark.read.csv(str(tree / "tree.csv"), header=True,
                            schema=csv_schema(tree / "tree.csv"), enforceSchema=True)
        assert df.rdd.getNumPartitions() > 5
        features = evaluate_contiguous(df, tree)
        rows = features.collect()
    finally:
        spark.conf.unset("spark.sql.files.maxPartitionBytes")
    compare_with_cli(rows, tree / "cli.csv", ["query_id", "item_id"], ["margin", "score"],
                     in_order=True)


def test_contiguous_task_failing_on_its_first_attempt_is_retried_without_lost_or_duplicated_rows(
        spark, contiguous):
    from pyspark import TaskContext

    failed = contiguous / "failed"

    def fail_first_attempt(batches):
        # In the same task as the read and the evaluation (no shuffle): the
        # whole task runs again, after this attempt produced its rows.
        context = TaskContext.get()
        produced = 0
        for batch in batches:
            produced += batch.num_rows
            yield batch
        if produced and context.attemptNumber() == 0:
            failed.write_text("yes")
            raise RuntimeError("injected failure of a first attempt")

    features = evaluate_contiguous(
        with_partitions(spark, contiguous / "log.csv", CONTIGUOUS_PARTITIONS), contiguous)
    failing = features.mapInArrow(fail_first_attempt, features.schema)
    compare_with_cli(failing.collect(), contiguous / "cli.csv", ["query_id", "item_id"],
                     ["margin", "score"], in_order=True)
    assert failed.exists()


def test_a_log_that_is_not_contiguous_is_an_error_on_the_driver(spark, tmp_path):
    (tmp_path / "tree.calc").write_text(TREE_SET)
    shutil.copy(MODEL, tmp_path / MODEL.name)
    cases = {  # query ids, partition sizes: a key back in the same or a later partition
        "same": ([1, 2, 1], [10, 0, 20]),
        "later": ([4, 2, 3, 2], [5, 15, 10, 10]),
        "later, each partition in order": ([1, 2, 3, 1], [30, 10]),
    }
    for name, (ids, partitions) in cases.items():
        tree_log(tmp_path / f"{name}.csv", sizes=[10] * len(ids), ids=ids)
        df = with_partitions(spark, tmp_path / f"{name}.csv", partitions)
        with pytest.raises(calcjit.Error, match="not contiguous"):
            evaluate_contiguous(df, tmp_path)
    with pytest.raises(ValueError, match="partitions"):
        calcjit.spark.evaluate(calcjit.read_file(tmp_path / "tree.calc"), df, group_by="query_id",
                               strategy="contiguous", partitions=4)


def test_contiguous_a_frame_whose_order_changes_between_jobs_fails_the_job(spark, contiguous):
    import random

    from pyspark.sql import functions as F

    # Ids in order, so that the first pass is the only job before the
    # evaluation (no distinct count, which would see yet other rows).
    tree_log(contiguous / "sorted.csv", sizes=CONTIGUOUS_SIZES)
    # A nondeterministic filter: each job keeps other rows.
    keep_some = F.udf(lambda: random.random() < 0.8, T.BooleanType()).asNondeterministic()
    df = with_partitions(spark, contiguous / "sorted.csv", CONTIGUOUS_PARTITIONS)
    features = evaluate_contiguous(df.filter(keep_some()), contiguous)
    with pytest.raises(Exception, match="changed between the first pass and the evaluation"):
        features.collect()
