"""Feature sets over Dask DataFrames: offline feature generation at scale.

    import calcjit, calcjit.dask
    fs = calcjit.read_file("examples/ranking/ranking.calc")
    features = calcjit.dask.evaluate(fs, ddf, group_by="query_id",
                                     outputs=["score"], keep=["query_id", "item_id"])
    features.to_parquet(...)          # or .compute(), ...

Each partition is evaluated as `calcjit eval --group-by` evaluates a CSV file
(docs/PYTHON.md, "Dask"): each run of consecutive equal group keys is one
query, so a query cut by a partition boundary is first made whole again (its
rows move to the partition where it starts). The set travels to the workers
once, as the bytes of its pickle (with its models) in one graph key, and each
worker process compiles it once and keeps the engine, keyed by the bytes'
SHA-256, the backend and the outputs, for later partitions and later jobs.
"""

import hashlib
import pickle

import numpy as np

from . import _engines
from ._groups import _error, query_offsets

__all__ = ["evaluate", "compile_count"]


def compile_count():
    """How many engines this process has compiled for calcjit.dask and
    calcjit.spark (each set, backend and outputs once)."""
    return _engines.compile_count()


def _evaluate_partition(frame, payload, digest, backend, outputs, keep, group_by):
    """One partition of whole queries: the kept columns, then the outputs."""
    import pandas as pd

    from ._pandas import evaluate_dataframe

    engine = _engines.engine(payload, digest, backend, outputs)
    features = evaluate_dataframe(engine, frame, group_by=group_by)
    columns = {name: frame[name] for name in keep}
    columns.update({name: features[name] for name in outputs})
    return pd.DataFrame(columns, index=frame.index)


def _same_key(a, b):
    """Two group keys continue one run (missing keys equal each other, as in
    query_offsets)."""
    return bool(query_offsets(np.array([a, b], dtype=object)).size == 2)


def _summary(frame, group_by):
    """What re-cutting needs to know of a partition: its row count, its first
    and last key, and how many rows the run of its first key spans."""
    n = len(frame)
    if n == 0:
        return n, None, None, 0
    offsets = query_offsets(frame[group_by].to_numpy())
    return n, frame[group_by].iloc[0], frame[group_by].iloc[-1], int(offsets[1])


def _head(frame, rows):
    return frame.iloc[:rows]


def _cut(frame, drop, *continuations):
    """A partition without its first `drop` rows (the end of a query that
    started before it), followed by the rest of its last query from the
    partitions after it."""
    import pandas as pd

    parts = [frame.iloc[drop:], *continuations]
    return pd.concat(parts) if len(parts) > 1 else parts[0]


def _regroup(ddf, group_by):
    """The partitions re-cut so that no query spans two; returned unchanged
    when none does. Reads the group column of every partition once to find
    the boundaries (cheap next to evaluating, and exact)."""
    import dask
    import dask.dataframe as dd

    parts = ddf.to_delayed()
    summaries = dask.compute(*[dask.delayed(_summary)(p, group_by) for p in parts])
    # A partition continues the query before it when its first key equals the
    # last key of the last non-empty partition before it.
    continues = [False] * len(parts)
    previous_last = None
    seen = False
    for i, (n, first, last, _) in enumerate(summaries):
        if n == 0:
            continue
        continues[i] = seen and _same_key(previous_last, first)
        previous_last, seen = last, True
    if not any(continues):
        return ddf
    pieces = []
    for i, (n, first, last, lead) in enumerate(summaries):
        if n == 0 or (continues[i] and lead == n):
            continue  # empty, or wholly inside a query that started earlier
        drop = lead if continues[i] else 0
        continuations = []
        for j in range(i + 1, len(parts)):
            n_j, _, _, lead_j = summaries[j]
            if n_j == 0:
                continue
            if not continues[j]:
                break
            continuations.append(dask.delayed(_head)(parts[j], lead_j))
            if lead_j < n_j:
                break  # the query ends inside partition j
        pieces.append(dask.delayed(_cut)(parts[i], drop, *continuations))
    if not pieces:
        return ddf
    return dd.from_delayed(pieces, meta=ddf._meta, verify_meta=False)


def evaluate(feature_set, ddf, group_by, outputs=None, keep=(), backend="auto", regroup=True):
    """Evaluates a FeatureSet over a Dask DataFrame, partition by partition.

    group_by: the group key column; each run of consecutive equal keys is one
      query (its query inputs come from its first row), as `calcjit eval
      --group-by`. The rows of a query must be consecutive in the frame (sort
      or shuffle by the key first if they are not).
    outputs: the outputs to compute (default: every output of the set).
    keep: input columns copied to the result before the outputs (as --keep).
    backend: as FeatureSet.compile; each worker process compiles once.
    regroup: re-cut the partitions where a query spans two or more (reads the
      key column once); False trusts the partitions to end on query
      boundaries (e.g. after set_index on the key).

    Returns a lazy Dask DataFrame: the kept columns, then one float32 column
    per output, with the index of `ddf`. Its values are bit for bit those of
    `calcjit eval` and of Engine.evaluate_dataframe on the same rows.
    """
    import dask
    import dask.dataframe as dd
    import pandas as pd

    from ._calcjit import FeatureSet

    if not isinstance(feature_set, FeatureSet):
        raise TypeError(f"expected a calcjit.FeatureSet, got {type(feature_set).__name__}")
    if not isinstance(ddf, dd.DataFrame):
        raise TypeError(f"expected a dask DataFrame, got {type(ddf).__name__}")
    if group_by not in ddf.columns:
        raise _error(f"group_by column '{group_by}' is not in the DataFrame", group_by)
    keep = [keep] if isinstance(keep, str) else list(keep)
    for name in keep:
        if name not in ddf.columns:
            raise _error(f"keep column '{name}' is not in the DataFrame", name)
    names = list(feature_set.outputs)
    if outputs is not None:
        outputs = [outputs] if isinstance(outputs, str) else list(outputs)
        for name in outputs:
            if name not in names:
                raise _error(f"unknown output '{name}': the set does not define it", name)
        names = outputs
    # Compiling here checks the options before any worker starts (and gives
    # the result's columns); workers compile their own from the bytes.
    feature_set.compile(backend=backend, outputs=names)

    payload = pickle.dumps(feature_set)
    digest = hashlib.sha256(payload).hexdigest()
    # One graph key holds the bytes: the scheduler sends them to each worker
    # once, however many partitions it evaluates.
    shipped = dask.delayed(payload, name=f"calcjit-set-{digest}")
    frame = _regroup(ddf, group_by) if regroup else ddf
    meta = pd.DataFrame({**{name: ddf._meta[name] for name in keep},
                         **{name: np.zeros(0, dtype=np.float32) for name in names}},
                        index=ddf._meta.index)
    return frame.map_partitions(_evaluate_partition, shipped, digest, backend, tuple(names),
                                tuple(keep), group_by, meta=meta, align_dataframes=False)
