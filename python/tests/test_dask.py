"""calcjit.dask on a real distributed.LocalCluster of 2 worker processes: the
same bits as `calcjit eval --group-by` on the same rows, queries cut by
partition boundaries made whole again, one compile per worker process, and a
worker killed mid-job retried by Dask without wrong or duplicated rows."""

import os
import pathlib
import signal
import time

import numpy as np
import pandas as pd
import pytest

import calcjit
from conftest import CLI, MODEL_DATA, RANKING, model_cases, run_cli

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
import calcjit.dask  # noqa: E402 (after the skips)

KEEP = ["query_id", "item_id"]


def make_log(inputs, sizes, seed):
    """A generated log: one row per item, queries of the given sizes (query
    inputs repeated on every row of their query), some NaN cells."""
    rng = np.random.default_rng(seed)
    n = sum(sizes)
    query_id = np.repeat(np.arange(1, len(sizes) + 1), sizes)
    columns = {"query_id": query_id, "item_id": np.arange(1, n + 1)}
    for info in inputs:
        width = info.dimension if info.is_vector else 1
        rows = n if info.scope == "item" else len(sizes)
        values = rng.lognormal(1.0, 1.5, size=(rows, width)).astype(np.float32)
        values[rng.random(values.shape) < 0.08] = np.nan
        values[rng.random(values.shape) < 0.05] *= -1
        if info.scope == "query":
            values = np.repeat(values, sizes, axis=0)
        names = [f"{info.name}[{k}]" for k in range(width)] if info.is_vector else [info.name]
        for k, name in enumerate(names):
            columns[name] = values[:, k]
    return pd.DataFrame(columns)


def write_csv(frame, path):
    """The log as a CSV file `calcjit eval` reads to the same float32 values:
    repr of the float64 of each float32 is exact enough to round back to it."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(",".join(frame.columns) + "\n")
        cells = []
        for name in frame.columns:
            values = frame[name].to_numpy()
            if values.dtype == np.float32:
                cells.append(["" if v != v else repr(v) for v in values.astype(np.float64).tolist()])
            else:
                cells.append([str(v) for v in values.tolist()])
        for row in zip(*cells):
            f.write(",".join(row) + "\n")


def read_cli_output(path):
    """The CLI's CSV (%.9g values, which name their float32 exactly)."""
    frame = pd.read_csv(path, float_precision="round_trip", keep_default_na=False,
                        na_values=["nan"])
    return frame


def assert_same_as_cli(result, expected, outputs):
    assert list(result.columns) == KEEP + outputs
    assert len(result) == len(expected)
    for name in KEEP:
        np.testing.assert_array_equal(result[name].to_numpy(), expected[name].to_numpy())
    for name in outputs:
        got = result[name].to_numpy()
        want = expected[name].to_numpy(dtype=np.float64).astype(np.float32)
        assert got.dtype == np.float32, name
        nan = np.isnan(want)
        np.testing.assert_array_equal(np.isnan(got), nan, err_msg=name)
        differ = np.flatnonzero(got[~nan].view(np.uint32) != want[~nan].view(np.uint32))
        assert differ.size == 0, f"{name}: {differ.size} values differ"


def slow_partition(frame, seconds):
    """Holds a partition for a while, so that a worker can be killed mid-job."""
    time.sleep(seconds)
    return frame


@pytest.fixture(scope="module")
def client():
    # The workers import this module (slow_partition) and calcjit from PYTHONPATH.
    here = str(pathlib.Path(__file__).resolve().parent)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (os.environ.get("PYTHONPATH"), here) if p)
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=40)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    """~3,000 rows in queries of 1 to 150 items and one of 700 (it spans
    several partitions), with the CLI's output for them."""
    ranking = calcjit.read_file(RANKING)
    rng = np.random.default_rng(17)
    sizes = [int(s) for s in rng.integers(1, 150, size=30)]
    sizes.insert(12, 700)
    frame = make_log(ranking.inputs, sizes, seed=5)
    folder = tmp_path_factory.mktemp("dask")
    write_csv(frame, folder / "log.csv")
    run_cli("eval", RANKING, "--input", folder / "log.csv", "--output", folder / "out.csv",
            "--group-by", "query_id", "--keep", ",".join(KEEP), "--threads", "1")
    return ranking, frame, read_cli_output(folder / "out.csv")


def test_the_same_bits_as_the_cli_with_queries_cut_by_partitions(client, log):
    ranking, frame, expected = log
    ddf = dd.from_pandas(frame, npartitions=9, sort=False)
    # The partitions cut queries (the test would prove nothing otherwise).
    firsts = [p.query_id.iloc[0] for p in ddf.to_delayed() for p in [p.compute()]]
    lasts = [p.query_id.iloc[-1] for p in ddf.to_delayed() for p in [p.compute()]]
    assert any(a == b for a, b in zip(lasts, firsts[1:]))
    outputs = list(ranking.outputs)
    result = calcjit.dask.evaluate(ranking, ddf, group_by="query_id", keep=KEEP).compute()
    assert_same_as_cli(result, expected, outputs)
    np.testing.assert_array_equal(result.index.to_numpy(), frame.index.to_numpy())
    # Without the re-cut, the queries cut in two are two queries: other bits.
    split = calcjit.dask.evaluate(ranking, ddf, group_by="query_id", outputs=["score"],
                                  regroup=False).compute()
    assert (split.score.to_numpy().view(np.uint32)
            != expected.score.to_numpy(dtype=np.float64).astype(np.float32).view(np.uint32)).any()

    # Two configurations so far (every output; score alone), each compiled at
    # most once per worker process; a second job with the same set, backend
    # and outputs compiles nothing new.
    counts = client.run(calcjit.dask.compile_count)
    assert len(counts) == 2
    assert all(count <= 2 for count in counts.values()), counts
    assert sum(counts.values()) >= 2
    again = calcjit.dask.evaluate(ranking, ddf, group_by="query_id", keep=KEEP).compute()
    assert_same_as_cli(again, expected, outputs)
    assert client.run(calcjit.dask.compile_count) == counts


def test_a_few_outputs_and_partitions_already_on_query_boundaries(client, log):
    ranking, frame, expected = log
    # One partition per 4 queries: every boundary is a query boundary.
    starts = np.flatnonzero(np.diff(frame.query_id.to_numpy(), prepend=-1))
    pieces = [frame.iloc[a:b] for a, b in zip(starts[::4], list(starts[4::4]) + [len(frame)])]
    ddf = dd.from_delayed([dask.delayed(p) for p in pieces], meta=frame.iloc[:0])
    outputs = ["score", "relevance"]
    result = calcjit.dask.evaluate(ranking, ddf, group_by="query_id", outputs=outputs,
                                   keep=KEEP, backend="vm").compute()
    assert_same_as_cli(result, expected[KEEP + outputs], outputs)


def test_a_worker_killed_mid_job_is_retried_without_wrong_or_duplicated_rows(client, log):
    ranking, frame, expected = log
    ddf = dd.from_pandas(frame, npartitions=12, sort=False)
    ddf = ddf.map_partitions(slow_partition, 0.5, meta=ddf._meta)
    outputs = ["score", "conversion_prob"]
    job = client.compute(calcjit.dask.evaluate(ranking, ddf, group_by="query_id",
                                               outputs=outputs, keep=KEEP))
    pids = client.run(os.getpid)
    victim = None
    deadline = time.monotonic() + 60
    while victim is None and time.monotonic() < deadline:
        for address, keys in client.processing().items():
            if any("_evaluate_partition" in str(k) for k in keys):
                victim = address
                break
        time.sleep(0.05)
    assert victim is not None, "no partition was ever being evaluated"
    assert not job.done()
    os.kill(pids[victim], signal.SIGKILL)
    result = job.result(timeout=90)
    assert_same_as_cli(result, expected[KEEP + outputs], outputs)
    assert not result.item_id.duplicated().any()
    # The nanny started a new worker process in place of the killed one.
    assert pids[victim] not in client.run(os.getpid).values()


def test_a_set_with_a_catboost_model(client):
    """A CatBoost model's bytes travel with the set to the workers: CatBoost
    1.2.10's own RawFormulaVal bits (tests/model/data/catboost_multiclass)."""
    rows, expected = model_cases("catboost_multiclass")
    fs = calcjit.parse('model m = catboost("m.json");\nc0 = model(m)[0];\nc2 = model(m)[2];\n',
                       models={"m": (MODEL_DATA / "catboost_multiclass.json").read_bytes()})
    frame = pd.DataFrame({"f%d" % j: rows[:, j] for j in range(rows.shape[1])})
    frame.insert(0, "query_id", np.arange(len(frame)) // 7)
    ddf = dd.from_pandas(frame, npartitions=3, sort=False)
    result = calcjit.dask.evaluate(fs, ddf, group_by="query_id", keep=["query_id"]).compute()
    for name, k in (("c0", 0), ("c2", 2)):
        got = result[name].to_numpy()
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got.view(np.uint32), expected[:, k].view(np.uint32))


def test_errors_name_the_column():
    ranking = calcjit.read_file(RANKING)
    ddf = dd.from_pandas(pd.DataFrame({"q": [1, 1]}), npartitions=1)
    with pytest.raises(calcjit.Error, match="group_by column 'query_id'"):
        calcjit.dask.evaluate(ranking, ddf, group_by="query_id")
    with pytest.raises(calcjit.Error, match="unknown output 'nope'"):
        calcjit.dask.evaluate(ranking, ddf, group_by="q", outputs=["nope"])


def test_queries_over_many_partitions_and_empty_partitions_are_made_whole(client):
    fs = calcjit.parse("input x; input w: query = 1; r = rank(x); m = batch_mean(x) * w;")
    rng = np.random.default_rng(3)
    sizes = [1, 5, 50, 2, 3, 1, 1, 9]
    keys = np.repeat(["a", "b", "c", "a", "d", "e", "f", "g"], sizes)  # 'a' comes back: a new query
    frame = pd.DataFrame({"k": keys, "x": rng.random(len(keys)).astype(np.float32),
                          "w": np.repeat(rng.random(len(sizes)).astype(np.float32), sizes)})
    cuts = [0, 0, 3, 3, 4, 10, 20, 20, 30, 59, 60, 61, 64, 66, 66, len(frame), len(frame)]
    pieces = [frame.iloc[a:b] for a, b in zip(cuts, cuts[1:])]
    ddf = dd.from_delayed([dask.delayed(p) for p in pieces], meta=frame.iloc[:0])
    result = calcjit.dask.evaluate(fs, ddf, group_by="k", keep=["k"]).compute()
    expected = fs.evaluate_dataframe(frame, group_by="k")
    assert list(result.k) == list(frame.k)
    for name in ("r", "m"):
        np.testing.assert_array_equal(result[name].to_numpy().view(np.uint32),
                                      expected[name].to_numpy().view(np.uint32), err_msg=name)
