"""Evaluation: the same bits as the CLI and as every other backend, many
queries at once, zero-copy outputs, and the GIL released while evaluating."""

import os
import signal
import sys
import threading
import time

import numpy as np
import pytest

import calcjit
from conftest import (ITEMS, RANKING, assert_same_bits, csv_columns, inputs_from_columns,
                      random_inputs, run_cli)


@pytest.mark.parametrize("backend", calcjit.available_backends())
@pytest.mark.parametrize("grouped", [True, False])
def test_bit_for_bit_with_the_cli(ranking, items, tmp_path, backend, grouped):
    """Every output of the example set over items.csv, against `calcjit eval`."""
    columns, offsets = items
    out_csv = tmp_path / "out.csv"
    group_args = ["--group-by", "query_id"] if grouped else []
    run_cli("eval", RANKING, "--input", ITEMS, "--output", out_csv, "--backend", backend,
            *group_args)
    expected = csv_columns(out_csv)

    engine = ranking.compile(backend=backend)
    starts = offsets[:-1] if grouped else np.array([0])
    inputs = inputs_from_columns(engine.inputs, columns, starts)
    group = columns["query_id"] if grouped else None
    results = engine.evaluate(inputs, group=group)

    assert list(results) == ranking.outputs == list(expected)
    for name, values in results.items():
        assert values.dtype == np.float32 and values.shape == (len(columns["price"]),)
        nan = np.isnan(expected[name])  # the CLI prints every NaN as "nan"
        assert np.array_equal(np.isnan(values), nan), name
        assert_same_bits(values[~nan], expected[name][~nan], name)


def test_every_backend_gives_the_same_bits(ranking):
    inputs = random_inputs(ranking.inputs, n=3000, queries=4, seed=7)
    group = np.repeat([10, 11, 12, 13], [1, 999, 1500, 500])
    reference = ranking.compile(backend="reference").evaluate(inputs, group=group)
    for backend in calcjit.available_backends():
        engine = ranking.compile(backend=backend)
        results = engine.evaluate(inputs, group=group)
        for name in ranking.outputs:
            assert_same_bits(results[name], reference[name], f"{engine.backend}: {name}")


def test_group_equals_one_call_per_query(ranking):
    engine = ranking.compile(backend="vm")
    sizes = [5, 1, 40, 17]
    n = sum(sizes)
    inputs = random_inputs(engine.inputs, n=n, queries=len(sizes), seed=3)
    group = np.repeat(np.array(["a", "b", "a", "c"]), sizes)  # "a" again: a new query
    assert list(calcjit.query_offsets(group)) == [0, 5, 6, 46, 63]
    together = engine.evaluate(inputs, group=group)
    begin = 0
    for q, size in enumerate(sizes):
        one = {}
        for info in engine.inputs:
            values = inputs[info.name]
            one[info.name] = values[begin:begin + size] if info.scope == "item" else values[q]
        alone = engine.evaluate(one)
        for name in engine.outputs:
            assert_same_bits(together[name][begin:begin + size], alone[name], name)
        begin += size


def test_group_keys():
    assert list(calcjit.query_offsets([])) == [0]
    assert list(calcjit.query_offsets([5])) == [0, 1]
    assert list(calcjit.query_offsets([1, 1, 2, 1, 1])) == [0, 2, 3, 5]
    # Missing ids equal each other, as empty cells in `calcjit eval --group-by`.
    assert list(calcjit.query_offsets([np.nan, np.nan, 1.0, np.nan])) == [0, 2, 3, 4]
    assert list(calcjit.query_offsets(np.array(["a", None, None, "b"], dtype=object))) == [
        0, 1, 3, 4]
    assert list(calcjit.query_starts(["x", "x", "y"])) == [0, 2]
    with pytest.raises(calcjit.Error):
        calcjit.query_offsets(np.zeros((2, 2)))


def test_query_inputs_one_for_all_queries(ranking):
    engine = ranking.compile(backend="vm", outputs=["score"])
    inputs = random_inputs(engine.inputs, n=30, queries=3, seed=4)
    group = np.repeat([1, 2, 3], 10)
    per_query = {k: (v if v.shape[0] == 30 else v[[0, 0, 0]]) for k, v in inputs.items()}
    shared = {k: (v if v.shape[0] == 30 else v[0]) for k, v in inputs.items()}
    assert_same_bits(engine.evaluate(shared, group=group)["score"],
                     engine.evaluate(per_query, group=group)["score"])


def test_outputs_are_written_in_place_and_inputs_read_in_place():
    fs = calcjit.parse("input a; input b; s = a + b; r = rank(a);")
    engine = fs.compile(backend="vm")
    a = np.arange(6, dtype=np.float32)
    b = np.ones(6, dtype=np.float32)
    s = np.full(6, -1, dtype=np.float32)
    out = engine.evaluate({"a": a, "b": b}, out={"s": s}, copy=False)
    assert out["s"] is s
    np.testing.assert_array_equal(s, a + 1)
    assert out["r"].dtype == np.float32 and out["r"].flags.c_contiguous
    np.testing.assert_array_equal(out["r"], [6, 5, 4, 3, 2, 1])
    # The engine sees the caller's memory itself: it finds that an output
    # would overwrite the input (a copy would not overlap).
    with pytest.raises(calcjit.Error, match="shares memory with input 'a'"):
        engine.evaluate({"a": a, "b": b}, out={"s": a})
    both = np.zeros(12, dtype=np.float32)
    with pytest.raises(calcjit.Error, match="shares memory"):
        engine.evaluate({"a": both[:6], "b": b}, out={"s": both[3:9]})


def test_conversions_happen_once_and_give_the_same_bits():
    fs = calcjit.parse("input a; input v: item[2]; s = a * 3 + dot(v, v);")
    engine = fs.compile()
    a64 = np.linspace(0, 1, 11)  # float64: converted by rounding to nearest
    v = np.arange(44, dtype=np.float32).reshape(11, 4)[:, ::2]  # not contiguous
    converted = engine.evaluate({"a": a64, "v": v})["s"]
    exact = engine.evaluate({"a": a64.astype(np.float32), "v": np.ascontiguousarray(v)},
                            copy=False)["s"]
    assert_same_bits(converted, exact)
    listed = engine.evaluate({"a": list(a64), "v": v.tolist()})["s"]
    assert_same_bits(listed, exact)


def test_defaults_and_item_count():
    fs = calcjit.parse("input q: query = 2; input x = 1; y = x * q + batch_count(1);")
    engine = fs.compile()
    np.testing.assert_array_equal(engine.evaluate(n=3)["y"], [5, 5, 5])
    np.testing.assert_array_equal(engine.evaluate({"q": 10}, n=2)["y"], [12, 12])
    np.testing.assert_array_equal(
        engine.evaluate({"q": [1, 2]}, group=[7, 7, 8])["y"], [3, 3, 3])


def test_empty_batches(ranking):
    engine = ranking.compile(outputs=["score"])
    inputs = random_inputs(engine.inputs, n=0, queries=1, seed=1)
    assert engine.evaluate(inputs)["score"].shape == (0,)
    no_queries = random_inputs(engine.inputs, n=0, queries=0, seed=1)
    assert engine.evaluate(no_queries, group=np.array([], dtype=int))["score"].shape == (0,)


def test_threads_evaluate_at_once(ranking):
    engine = ranking.compile(outputs=["score", "relevance"])
    data = [random_inputs(engine.inputs, n=500, queries=1, seed=s) for s in range(8)]
    expected = [engine.evaluate(d) for d in data]
    failures = []

    def work(k):
        for _ in range(20):
            got = engine.evaluate(data[k])
            for name in engine.outputs:
                if not np.array_equal(got[name].view(np.uint32),
                                      expected[k][name].view(np.uint32)):
                    failures.append((k, name))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_the_gil_is_released_while_evaluating(ranking):
    """Another Python thread runs while a long evaluation is in native code:
    with the GIL held it could not run at all between the call's start and end."""
    engine = ranking.compile(backend="reference")
    n, queries = 60000, 3
    inputs = random_inputs(engine.inputs, n=n, queries=queries, seed=5)
    group = np.repeat(np.arange(queries), n // queries)
    window = {}
    done = threading.Event()

    def evaluate():
        window["begin"] = time.perf_counter()
        engine.evaluate(inputs, group=group)
        window["end"] = time.perf_counter()
        done.set()

    ticks = []
    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(0.001)
    try:
        worker = threading.Thread(target=evaluate)
        worker.start()
        while not done.is_set():
            ticks.append(time.perf_counter())
        worker.join()
    finally:
        sys.setswitchinterval(old_interval)
    begin, end = window["begin"] + 0.02, window["end"] - 0.02
    assert end - begin > 0.02, "the evaluation was too short to tell"
    inside = sum(1 for t in ticks if begin < t < end)
    assert inside > 100, f"the main thread ran {inside} times during the evaluation"


def test_ctrl_c_interrupts_a_long_call(ranking):
    """Between queries the call lets Python handle signals: SIGINT raises
    KeyboardInterrupt instead of waiting for every query to finish."""
    engine = ranking.compile(backend="reference")
    queries = 4000
    inputs = random_inputs(engine.inputs, n=queries * 20, queries=queries, seed=6)
    group = np.repeat(np.arange(queries), 20)
    begin = time.perf_counter()
    engine.evaluate(inputs, group=group)
    whole = time.perf_counter() - begin
    if whole < 0.4:
        pytest.skip(f"the call takes {whole:.2f} s: too short to interrupt reliably")
    timer = threading.Timer(0.1, lambda: os.kill(os.getpid(), signal.SIGINT))
    begin = time.perf_counter()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        engine.evaluate(inputs, group=group)
        time.sleep(5)  # if the call finished first, the signal arrives here
    interrupted = time.perf_counter() - begin
    timer.join()
    assert interrupted < 0.75 * whole, (interrupted, whole)
    assert engine.evaluate(inputs, group=group)["score"].shape == (queries * 20,)
