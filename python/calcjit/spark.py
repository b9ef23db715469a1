"""Feature sets over Spark DataFrames (PySpark): offline feature generation at
scale (docs/SCALING.md, "A Spark cluster from Python").

    import calcjit, calcjit.spark
    fs = calcjit.read_file("examples/ranking/ranking.calc")
    features = calcjit.spark.evaluate(fs, log, group_by="query_id",
                                      outputs=["score"], keep=["query_id", "item_id"])
    features.write.parquet(...)        # a lazy Spark DataFrame

- Whole queries: a query is every row with one key. The rows are
  repartitioned by the key (hash partitioning puts a key's rows in one
  partition) and sorted within each partition by the key, then by their
  order in `df` (a row id taken before the shuffle, so that a query's items
  keep the log's order, as `calcjit eval --group-by` sees them). Each
  partition then arrives as a stream of Arrow record batches (`mapInArrow`);
  a query cut by a batch boundary is carried to the next batch, so every
  query is evaluated whole, in one call with all its items.
- Columns in place: each batch's float32 columns without nulls are read by
  calcjit straight from Arrow's buffers (calcjit._arrow); other numeric
  columns, and columns with nulls (NaN), are converted once.
- The set ships once: a FeatureSet travels as a broadcast variable (its
  pickle: binary protobuf plus its models' bytes), sent to each executor once;
  each Python worker process compiles it at its first batch and keeps the
  engine for later tasks and jobs (Spark reuses its Python workers).
  Given a path instead, each worker reads the set and its model files from its
  own file system (a missing file is then an error of the tasks, which Spark
  reports on the driver with calcjit's message).
- Failures: a task is a pure function of its partition; a task that fails is
  run again by Spark and its rows appear once.

strategy="grouped" evaluates each query in its own call of Spark's grouped
Arrow API (groupBy(key).applyInArrow) instead: the same bits, but a Python
call per query; docs/PERFORMANCE.md ("Spark") has both measured.

strategy="contiguous" skips the shuffle for a log whose queries are already
contiguous (each key's rows one run in `df`'s order: partition by partition,
then row by row, as a file read in splits): a first pass run by evaluate() finds
each partition's cuts and checks the precondition, and a query cut by a
partition boundary is evaluated whole by the partition holding its first row
(calcjit._spark_contiguous). Not the default: it needs that order (and the
same order in every job), and it runs jobs inside evaluate(). A log that is
not contiguous is a calcjit.Error, not a silent fallback to the shuffle, so
that the cost the caller asked to avoid is never paid without a word.
"""

import hashlib
import pickle

from . import _engines
from ._groups import _error, query_offsets

__all__ = ["evaluate", "compile_count"]

# The row id that keeps a query's items in the log's order through the shuffle.
_ORDER = "__calcjit_row"


def compile_count():
    """How many engines this Python process has compiled for shipped sets."""
    return _engines.compile_count()


def _load(payload):
    """The FeatureSet of a payload: a pickle, or ("path", path) read on this worker."""
    if isinstance(payload, tuple):
        from . import read_file  # noqa: PLC0415

        return read_file(payload[1])
    return pickle.loads(payload)


def _engine(shipped, digest, backend, outputs):
    return _engines.engine(shipped.value, digest, backend, outputs, load=_load)


def _concat(first, second):
    """Two record batches of the same schema as one (a copy of both)."""
    import pyarrow as pa  # noqa: PLC0415

    return pa.Table.from_batches([first, second]).combine_chunks().to_batches()[0]


def _evaluated(engine, batch, group_by, outputs, keep):
    from ._arrow import evaluate_arrow  # noqa: PLC0415

    return evaluate_arrow(engine, batch, group_by=group_by, outputs=outputs, keep=keep)


def _run_starting_with(keys, first_key):
    """How many leading entries of `keys` (a 1-D array) continue the run of
    `first_key` (equal keys, or both missing, as query_offsets decides)."""
    import numpy as np  # noqa: PLC0415

    joined = np.concatenate((np.array([first_key], dtype=keys.dtype), keys))
    return int(query_offsets(joined)[1]) - 1


def _whole_queries(engine, batches, group_by, outputs, keep):
    """Evaluates a stream of record batches whose queries are contiguous,
    batch by batch: a query cut by a batch boundary is carried to the next
    batch, so that every query is evaluated whole, in one call."""
    pending = None  # the rows of a query that may go on in the next batch
    for batch in batches:
        if batch.num_rows == 0:
            continue
        keys = batch.column(group_by).to_numpy(zero_copy_only=False)
        if pending is not None:
            last_key = pending.column(group_by).to_numpy(zero_copy_only=False)[-1]
            head = _run_starting_with(keys, last_key)
            pending = _concat(pending, batch.slice(0, head))
            if head == batch.num_rows:
                continue
            yield _evaluated(engine, pending, group_by, outputs, keep)
            pending = None
            batch = batch.slice(head)
            keys = keys[head:]
        offsets = query_offsets(keys)
        last_start = int(offsets[-2])
        if last_start > 0:
            yield _evaluated(engine, batch.slice(0, last_start), group_by, outputs, keep)
        pending = batch.slice(last_start)
    if pending is not None:
        yield _evaluated(engine, pending, group_by, outputs, keep)


def _sorted_partition(shipped, digest, backend, outputs, keep, group_by):
    """The mapInArrow function: a partition's record batches, sorted by key, in;
    the kept columns and the outputs, out, every query evaluated whole."""

    def run(batches):
        engine = _engine(shipped, digest, backend, outputs)
        yield from _whole_queries(engine, batches, group_by, outputs, keep)

    return run


def _grouped_query(shipped, digest, backend, outputs, keep):
    """The applyInArrow function: one query's rows (a pyarrow Table) in, its
    kept columns and outputs out."""

    def run(table):
        engine = _engine(shipped, digest, backend, outputs)
        table = table.sort_by(_ORDER)
        return _evaluated(engine, table, None, outputs, keep)

    return run


def _quoted(name):
    """A column name for Spark's parser (names such as item_emb[0] need backticks)."""
    return "`" + name.replace("`", "``") + "`"


def evaluate(feature_set, df, group_by, outputs=None, keep=(), *, backend="auto",
             partitions=None, strategy="sorted"):
    """Evaluates a feature set over a Spark DataFrame, one query per key.

    feature_set: a calcjit.FeatureSet (shipped to the executors with its
      models), or the path of a set file that every executor can read (its
      models are read there, from the file's folder).
    group_by: the query key column: all the rows with one key are one query
      (its query inputs come from its first row in `df`'s order).
    outputs: the outputs to compute (default: every output of the set).
    keep: columns copied to the result before the outputs (as --keep).
    backend: as FeatureSet.compile; each Python worker compiles once.
    partitions: how many partitions to spread the queries over (default: as
      many as `df` has, and at least Spark's default parallelism, so that
      every core gets a part); not with "contiguous", which keeps `df`'s.
    strategy: "sorted" (mapInArrow over partitions sorted by the key, the
      default), "grouped" (groupBy(key).applyInArrow, a call per query), or
      "contiguous" (no shuffle: the rows of each key are already one run in
      `df`'s order; checked by a first pass that runs now, a calcjit.Error if
      they are not).

    Returns a lazy Spark DataFrame: the kept columns, then one FloatType
    column per output. Inputs are columns named as the inputs (a vector input
    v: a column of arrays of d numbers, or columns v[0] .. v[d-1]); a null is
    NaN, as an empty CSV cell is; input columns should be FloatType (a
    DoubleType column is rounded to float32 from its double, which can differ
    from reading the same text as float32).
    """
    from pyspark.sql import DataFrame  # noqa: PLC0415
    from pyspark.sql import functions as F  # noqa: PLC0415
    from pyspark.sql.types import FloatType, StructField, StructType  # noqa: PLC0415

    from . import read_file  # noqa: PLC0415
    from ._calcjit import FeatureSet  # noqa: PLC0415

    if not isinstance(df, DataFrame):
        raise TypeError(f"expected a Spark DataFrame, got {type(df).__name__}")
    if isinstance(feature_set, FeatureSet):
        payload = pickle.dumps(feature_set)
        local_set = feature_set
    elif isinstance(feature_set, str):
        payload = ("path", feature_set)
        local_set = read_file(feature_set)  # checks the set on the driver too
    else:
        raise TypeError(f"expected a calcjit.FeatureSet or a path, got "
                        f"{type(feature_set).__name__}")
    if strategy not in ("sorted", "grouped", "contiguous"):
        raise ValueError(
            f"strategy must be 'sorted', 'grouped' or 'contiguous', not {strategy!r}")
    if strategy == "contiguous" and partitions is not None:
        raise ValueError("strategy='contiguous' evaluates the DataFrame's own partitions: "
                         "partitions must not be given")
    columns = list(df.columns)
    if group_by not in columns:
        raise _error(f"group_by column '{group_by}' is not in the DataFrame", group_by)
    keep = [keep] if isinstance(keep, str) else list(keep)
    for name in keep:
        if name not in columns:
            raise _error(f"keep column '{name}' is not in the DataFrame", name)
    names = list(local_set.outputs)
    if outputs is not None:
        outputs = [outputs] if isinstance(outputs, str) else list(outputs)
        for name in outputs:
            if name not in names:
                raise _error(f"unknown output '{name}': the set does not define it", name)
        names = outputs
    # Checks the options on the driver, and gives the inputs the outputs need.
    engine = local_set.compile(backend=backend, outputs=names)
    wanted = set(keep) | {group_by}
    for info in engine.inputs:
        wanted.add(info.name)
        if info.is_vector:
            wanted.update(f"{info.name}[{k}]" for k in range(info.dimension))
    selected = [F.col(_quoted(c)) for c in columns if c in wanted]
    digest = hashlib.sha256(pickle.dumps(payload)).hexdigest()
    shipped = df.sparkSession.sparkContext.broadcast(payload)
    out_schema = StructType([df.schema[name] for name in keep] +
                            [StructField(name, FloatType(), True) for name in names])
    if strategy == "contiguous":
        from . import _spark_contiguous as contiguous  # noqa: PLC0415

        rows = df.select(*selected)
        plan = contiguous.plan(rows, group_by)
        shipped_plan = df.sparkSession.sparkContext.broadcast(plan)
        return rows.mapInArrow(
            contiguous.partition_function(
                shipped_plan, _whole_queries,
                lambda: _engine(shipped, digest, backend, tuple(names)),
                group_by, tuple(names), tuple(keep)),
            out_schema)
    rows = df.select(*selected, F.monotonically_increasing_id().alias(_ORDER))
    if strategy == "grouped":
        return rows.groupBy(F.col(_quoted(group_by))).applyInArrow(
            _grouped_query(shipped, digest, backend, tuple(names), tuple(keep)), out_schema)
    count = partitions if partitions is not None else max(
        df.rdd.getNumPartitions(), df.sparkSession.sparkContext.defaultParallelism)
    rows = rows.repartition(count, F.col(_quoted(group_by))).sortWithinPartitions(
        F.col(_quoted(group_by)), F.col(_ORDER))
    return rows.mapInArrow(
        _sorted_partition(shipped, digest, backend, tuple(names), tuple(keep), group_by),
        out_schema)
