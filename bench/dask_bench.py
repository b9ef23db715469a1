#!/usr/bin/env python3
"""calcjit.dask on a distributed.LocalCluster: rows per second of the example
set over a generated log with 1 worker, then 2 (docs/PERFORMANCE.md, "Dask").
Not part of CI.

    PYTHONPATH=build/python /usr/bin/python3 bench/dask_bench.py [--rows 10000000]

The log (queries of 100 to 300 items, every input of the example set, some
NaN cells) is generated inside the workers a partition at a time and
persisted before the clock starts, so the time is calcjit.dask's: shipping
the set, compiling once per worker, re-cutting (none needed here: partitions
hold whole queries, the key column is read once), evaluating, and a checksum
of the output bits per partition (the outputs themselves stay on the workers).
The checksums of the two runs must agree: the same bits with 1 and 2 workers.
Besides wall time it prints the workers' busy time (task durations summed)
and CPU time: with 2 workers, busy / wall near 2 means they ran at once, and
busy well above CPU means they waited for a core (a machine shared with
other jobs), not for each other.
"""

import argparse
import pathlib
import time

import numpy as np
import pandas as pd

import calcjit
import calcjit.dask

SET = pathlib.Path(__file__).resolve().parents[1] / "examples" / "ranking" / "ranking.calc"
OUTPUTS = ["score", "relevance", "conversion_prob"]


def generate_partition(inputs, first_query, sizes, seed):
    """Whole queries: query ids from first_query, item ids unique."""
    rng = np.random.default_rng(seed)
    n = int(sum(sizes))
    columns = {"query_id": np.repeat(np.arange(first_query, first_query + len(sizes)), sizes),
               "item_id": np.arange(n, dtype=np.int64) + first_query * 1000}
    for name, scope, width in inputs:
        rows = n if scope == "item" else len(sizes)
        values = rng.lognormal(1.0, 1.2, size=(rows, width)).astype(np.float32)
        values[rng.random(values.shape) < 0.05] = np.nan
        if scope == "query":
            values = np.repeat(values, sizes, axis=0)
        for k in range(width):
            columns[name if width == 1 else f"{name}[{k}]"] = values[:, k]
    return pd.DataFrame(columns)


def checksum(frame):
    """Order-sensitive digest of the output bits and the row count."""
    total = np.uint64(len(frame))
    np.seterr(over="ignore")  # the digest wraps around on purpose
    for k, name in enumerate(OUTPUTS):
        bits = frame[name].to_numpy().view(np.uint32).astype(np.uint64)
        weights = np.arange(1, len(bits) + 1, dtype=np.uint64) * np.uint64(2 * k + 1)
        total = total + np.sum(bits * weights, dtype=np.uint64)
    return pd.DataFrame({"rows": [len(frame)], "digest": [total]})


def _cpu_seconds():
    """The CPU time (user + system) of the calling worker process so far."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run(workers, rows, partition_rows):
    import dask
    import dask.dataframe as dd
    import distributed

    feature_set = calcjit.read_file(SET)
    inputs = [(i.name, i.scope, i.dimension if i.is_vector else 1) for i in feature_set.inputs]
    rng = np.random.default_rng(2026)
    sizes = []
    while sum(sizes) < rows:
        sizes.append(int(rng.integers(100, 301)))
    sizes[-1] -= sum(sizes) - rows
    parts, first, current = [], 1, []
    for size in sizes:
        current.append(size)
        if sum(current) >= partition_rows:
            parts.append((first, current))
            first, current = first + len(current), []
    if current:
        parts.append((first, current))

    with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                  dashboard_address=None, silence_logs=40) as cluster, \
            distributed.Client(cluster) as client:
        meta = generate_partition(inputs, 1, [1], 0).iloc[:0]
        ddf = dd.from_delayed(
            [dask.delayed(generate_partition)(inputs, f, s, 7 + k)
             for k, (f, s) in enumerate(parts)], meta=meta)
        ddf = ddf.persist()
        distributed.wait(ddf)
        cpu_before = sum(client.run(_cpu_seconds).values())
        with distributed.get_task_stream(client) as stream:
            start = time.perf_counter()
            features = calcjit.dask.evaluate(feature_set, ddf, group_by="query_id",
                                             outputs=OUTPUTS, keep=["query_id", "item_id"])
            digests = features.map_partitions(checksum, meta={"rows": "i8", "digest": "u8"})
            result = digests.compute()
            seconds = time.perf_counter() - start
        # The workers' busy time: on a machine shared with other jobs, whether
        # the workers ran at once (busy / wall near the worker count) and how
        # long a partition took tell contention from a serial bottleneck.
        busy = sum(ss["stop"] - ss["start"] for task in stream.data
                   for ss in task["startstops"] if ss["action"] == "compute")
        cpu = sum(client.run(_cpu_seconds).values()) - cpu_before
        compiles = client.run(calcjit.dask.compile_count)
    assert int(result.rows.sum()) == rows
    return seconds, tuple(result.digest.tolist()), compiles, len(parts), busy, cpu


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--partition-rows", type=int, default=100_000)
    args = parser.parse_args()
    results = {}
    for workers in (1, 2):
        seconds, digest, compiles, partitions, busy, cpu = run(workers, args.rows,
                                                               args.partition_rows)
        results[workers] = (seconds, digest)
        print(f"{workers} worker(s): {args.rows} rows in {partitions} partitions, "
              f"{seconds:.2f} s, {args.rows / seconds / 1e6:.3f} M rows/s, "
              f"workers busy {busy:.2f} s ({busy / seconds:.2f} per second of wall time, "
              f"{busy / partitions * 1000:.0f} ms per partition), worker CPU {cpu:.2f} s, "
              f"compiles per worker {sorted(compiles.values())}", flush=True)
    print(f"2 workers / 1 worker: {results[1][0] / results[2][0]:.2f}x; same bits: "
          f"{'yes' if results[1][1] == results[2][1] else 'NO'}")


if __name__ == "__main__":
    main()
