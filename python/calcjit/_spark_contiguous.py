"""strategy="contiguous" of calcjit.spark.evaluate: a log whose queries are
already contiguous in the DataFrame's order (every row of a key in one run,
in partition order, then row order) is evaluated where it lies, without the
shuffle that repartitions and sorts it by the key.

1. A first pass (a job run by evaluate()): each partition's row count, first
   and last keys, the length of the run of its first key, its run count,
   whether its keys are in order, and the rows of that leading run (the part
   of a query that may have started in an earlier partition: about one query
   per partition). The driver links the partitions (a partition continues
   the query before it when its first key is the last key of the last
   non-empty partition before it) and checks that each key is one run: keys
   in order prove it; otherwise one more job counts the distinct keys, which
   must equal the runs. A log that is not contiguous is a calcjit.Error on
   the driver, never a wrong answer.
2. The evaluation (the returned lazy DataFrame): each partition drops its
   leading run when that run continues a query from an earlier partition,
   and evaluates the query it ends with together with the rows that query
   has in later partitions (their leading runs, shipped in a broadcast), so
   that every query is evaluated whole, exactly once, by the partition that
   holds its first row, and the rows keep the log's order. A task is a pure
   function of its partition and the broadcast: a retried task gives the
   same rows.

The first pass reads every column the set needs, not the key alone: a second
job that fetched the leading runs (stopping each task early) cost more than
the columns, on CSV (docs/PERFORMANCE.md, run SP2).

The DataFrame's order must be the same in each job (a file read is; a frame
that comes out of a shuffle without a sort may not be: cache it first). Each
evaluation task checks its partition's row count, first and last keys and run
count against the first pass and fails with a calcjit.Error when they differ.
"""

import itertools

from ._groups import _error, query_offsets

_SUMMARY = "pid int, rows long, lead long, runs long, ordered boolean, grouped boolean"


def _missing(key):
    return key is None or (isinstance(key, float) and key != key)


def _same_key(a, b):
    """Two keys continue one run (missing keys equal each other, as in query_offsets)."""
    if _missing(a) or _missing(b):
        return _missing(a) and _missing(b)
    return a == b


def _partition_id():
    from pyspark import TaskContext  # noqa: PLC0415

    return TaskContext.get().partitionId()


def _in_order(column):
    """Whether an Arrow key column is non-decreasing, without missing keys."""
    import pyarrow.compute as pc  # noqa: PLC0415

    if column.null_count or len(column) < 2:
        return column.null_count == 0 and not _missing(column[0].as_py())
    pairs = pc.greater_equal(column.slice(1), column.slice(0, len(column) - 1))
    return bool(pc.all(pairs).as_py())


class _Runs:
    """The runs of a partition's keys, batch by batch."""

    def __init__(self):
        self.rows = 0
        self.runs = 0
        self.lead = 0  # rows of the run of the first key
        self.lead_open = True
        self.ordered = True
        self.first = None
        self.last = None
        self.first_array = None  # the first key as a 1-row Arrow array (its type)
        self.last_array = None
        self.run_keys = []

    def add(self, column):
        """Adds a batch's key column (a non-empty Arrow array)."""
        keys = column.to_numpy(zero_copy_only=False)
        offsets = query_offsets(keys)
        head = column[0].as_py()
        continued = self.rows > 0 and _same_key(self.last, head)
        if self.rows == 0:
            self.first, self.first_array = head, column.slice(0, 1)
        if self.ordered:
            self.ordered = _in_order(column) and (
                self.rows == 0 or (not _missing(self.last) and self.last <= head))
        if self.lead_open:
            if self.rows == 0 or continued:
                self.lead += int(offsets[1])
                self.lead_open = int(offsets[1]) == len(keys)
            else:
                self.lead_open = False
        starts = offsets[1:-1] if continued else offsets[:-1]
        self.runs += len(starts)
        self.run_keys.append(keys[starts])
        self.rows += len(keys)
        self.last, self.last_array = column[len(column) - 1].as_py(), column.slice(len(column) - 1)

    def grouped(self):
        """Whether each key of the partition is one run."""
        if self.ordered:
            return True
        import numpy as np  # noqa: PLC0415
        import pandas as pd  # noqa: PLC0415

        return int(pd.Series(np.concatenate(self.run_keys)).nunique(dropna=False)) == self.runs


def _ipc(batches):
    """Record batches as the bytes of an Arrow IPC stream."""
    import pyarrow as pa  # noqa: PLC0415

    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, batches[0].schema) as writer:
        for batch in batches:
            writer.write_batch(batch)
    return sink.getvalue().to_pybytes()


def _summarize(group_by):
    """The first pass's mapInArrow function: a partition's rows in; one
    summary row out, with the rows of the partition's leading run as IPC bytes
    (none for an empty partition)."""

    def run(batches):
        import pyarrow as pa  # noqa: PLC0415

        runs = _Runs()
        head = []
        for batch in batches:
            if batch.num_rows:
                lead = runs.lead
                runs.add(batch.column(group_by))
                if runs.lead > lead:
                    head.append(batch.slice(0, runs.lead - lead))
        if runs.rows == 0:
            return
        yield pa.RecordBatch.from_arrays(
            [pa.array([_partition_id()], pa.int32()), pa.array([runs.rows], pa.int64()),
             pa.array([runs.lead], pa.int64()), pa.array([runs.runs], pa.int64()),
             pa.array([runs.ordered]), pa.array([runs.grouped()]), runs.first_array,
             runs.last_array, pa.array([_ipc(head)], pa.binary())],
            names=["pid", "rows", "lead", "runs", "ordered", "grouped", "first", "last", "head"])

    return run


def _not_contiguous(group_by, detail):
    return _error(f"strategy='contiguous': the rows of a key are not contiguous in the "
                  f"DataFrame's order ({detail}); strategy='sorted' (the default) shuffles "
                  f"the rows by the key first", group_by)


def plan(rows, group_by):
    """rows: the DataFrame to evaluate.

    Runs the first pass and returns {partition id: (rows, first key, last
    key, runs, rows to skip, [IPC bytes of the query's rows in later
    partitions])}, or raises a calcjit.Error when a key is in more than one
    run."""
    key_type = rows.schema[group_by].dataType.simpleString()
    schema = f"{_SUMMARY}, first {key_type}, last {key_type}, head binary"
    summaries = sorted(rows.mapInArrow(_summarize(group_by), schema).collect(),
                       key=lambda row: row.pid)
    continues = {}
    previous = None
    in_order = True
    for part in summaries:
        if not part.grouped:
            raise _not_contiguous(group_by, f"partition {part.pid} has a key in two runs")
        continues[part.pid] = previous is not None and _same_key(previous.last, part.first)
        in_order = in_order and part.ordered and (
            previous is None or (not _missing(previous.last) and previous.last <= part.first))
        previous = part
    queries = sum(part.runs for part in summaries) - sum(continues.values())
    if not in_order:
        from pyspark.sql import functions as F  # noqa: PLC0415

        key = F.col("`" + group_by.replace("`", "``") + "`")
        distinct = rows.select(key).distinct().count()
        if distinct != queries:
            raise _not_contiguous(group_by, f"{distinct} keys in {queries} runs")
    heads = {part.pid: part.head for part in summaries if continues[part.pid]}
    result = {}
    for k, part in enumerate(summaries):
        tails = []
        if not continues[part.pid] or part.lead < part.rows:
            # It holds the first row of its last query: the rows that query
            # has in the partitions after it come with it.
            for later in summaries[k + 1:]:
                if not continues[later.pid]:
                    break
                tails.append(heads[later.pid])
                if later.lead < later.rows:
                    break  # the query ends in this partition
        skip = part.lead if continues[part.pid] else 0
        result[part.pid] = (part.rows, part.first, part.last, part.runs, skip, tails)
    return result


def _read(data):
    import pyarrow as pa  # noqa: PLC0415

    with pa.ipc.open_stream(data) as reader:
        yield from reader


def _checked(batches, pid, expected, group_by):
    """The partition's batches, checked against its first pass summary when they end."""
    runs = _Runs()
    for batch in batches:
        if batch.num_rows:
            runs.add(batch.column(group_by))
        yield batch
    count, first, last, run_count = expected[:4]
    if (runs.rows, runs.runs) != (count, run_count) or (count and not (
            _same_key(runs.first, first) and _same_key(runs.last, last))):
        raise _error(f"strategy='contiguous': partition {pid} changed between the first pass "
                     f"and the evaluation ({count} rows in {run_count} runs from {first!r} to "
                     f"{last!r}, then {runs.rows} rows in {runs.runs} runs from "
                     f"{runs.first!r} to {runs.last!r}): the DataFrame's order must be the same "
                     f"in every job (cache it, or use strategy='sorted')", group_by)


def _skipping(batches, skip):
    """The batches without their first `skip` rows."""
    for batch in batches:
        if skip >= batch.num_rows:
            skip -= batch.num_rows
            continue
        yield batch.slice(skip) if skip else batch
        skip = 0


def partition_function(shipped_plan, whole_queries, engine_of, group_by, outputs, keep):
    """The evaluation's mapInArrow function."""

    def run(batches):
        pid = _partition_id()
        expected = shipped_plan.value.get(pid, (0, None, None, 0, 0, []))
        skip, tails = expected[4], expected[5]
        stream = _skipping(_checked(batches, pid, expected, group_by), skip)
        stream = itertools.chain(stream, *(_read(data) for data in tails))
        engine = engine_of()
        yield from whole_queries(engine, stream, group_by, outputs, keep)

    return run
