"""ServingEngine: evaluate, reload (also while other threads evaluate), stats, shadow."""

import threading

import numpy as np
import pandas as pd
import pytest

import calcjit
from conftest import ITEMS, assert_same_bits, random_inputs

V1 = "input a; input q: query = 1; s = a * q; r = rank(a);"
V2 = "input a; input q: query = 1; s = a * q + 1; r = rank(a);"
V3 = "input a; t = a - 1;"  # another schema


def test_evaluate_equals_an_engine(ranking):
    serving = calcjit.ServingEngine(ranking, backend="vm", outputs=["score", "relevance"])
    engine = ranking.compile(backend="vm", outputs=["score", "relevance"])
    inputs = random_inputs(engine.inputs, n=400, queries=2, seed=11)
    group = np.repeat([1, 2], 200)
    served = serving.evaluate(inputs, group=group)
    compiled = engine.evaluate(inputs, group=group)
    assert serving.outputs == ["score", "relevance"] == list(served)
    for name in served:
        assert_same_bits(served[name], compiled[name], name)
    stats = serving.stats()
    assert (stats.version, stats.evaluations, stats.items, stats.errors) == (1, 2, 400, 0)
    assert stats.backend == "vm" and stats.vm_compile_ms > 0
    frame = serving.evaluate_dataframe(pd.read_csv(ITEMS, float_precision="round_trip"),
                                       group_by="query_id")
    assert list(frame.columns) == ["score", "relevance"] and len(frame) == 120


def test_reload_from_text_and_sets():
    serving = calcjit.ServingEngine(V1)
    assert serving.version == 1 and serving.stats().parse_ms > 0
    a = np.array([3, 1, 2], np.float32)
    np.testing.assert_array_equal(serving.evaluate({"a": a, "q": 2})["s"], [6, 2, 4])
    assert serving.reload(V2) == 2
    np.testing.assert_array_equal(serving.evaluate({"a": a, "q": 2})["s"], [7, 3, 5])
    assert serving.reload(calcjit.parse(V3)) == 3
    assert serving.outputs == ["t"] and [i.name for i in serving.inputs] == ["a"]
    np.testing.assert_array_equal(serving.evaluate({"a": a})["t"], [2, 0, 1])
    assert serving.reload(calcjit.parse(V1).serialize("pb")) == 4  # bytes: protobuf
    with pytest.raises(calcjit.Error) as info:
        serving.reload("input a; s = a +;")
    assert info.value.location == "1:17"
    assert serving.version == 4  # the current version keeps serving
    assert serving.stats().version == 4
    with pytest.raises(calcjit.Error) as info:
        serving.evaluate({"a": a, "typo": a})
    assert info.value.location == "typo"
    assert serving.stats().errors == 0  # refused before the engine saw it
    with pytest.raises(calcjit.Error):
        serving.evaluate({"q": 2}, n=3)  # a is missing
    assert serving.stats().errors == 1


def test_reload_while_threads_evaluate():
    serving = calcjit.ServingEngine(V1, backend="vm")
    a = np.arange(1000, dtype=np.float32)
    stop = threading.Event()
    seen, failures = set(), []

    def work():
        while not stop.is_set():
            s = serving.evaluate({"a": a, "q": 1})["s"]
            if np.array_equal(s, a):
                seen.add(1)
            elif np.array_equal(s, a + 1):
                seen.add(2)
            else:
                failures.append(s)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for k in range(20):
        serving.reload(V2 if k % 2 == 0 else V1)
    stop.set()
    for t in threads:
        t.join()
    assert failures == [] and serving.version == 21
    assert seen  # (both when the threads were scheduled during the reloads)


def test_auto_tiers_to_the_faster_tier():
    if not calcjit.is_backend_available("jit"):
        pytest.skip("no JIT in this build")
    serving = calcjit.ServingEngine(V1)
    serving.wait_for_jit()
    stats = serving.stats()
    assert not stats.jit_pending and stats.jit_compile_ms > 0
    # Tier choice: the VM and the JIT timed once the JIT compiled; the faster serves.
    tiers = stats.tiers
    assert isinstance(tiers, calcjit.TierMeasurement)
    assert tiers.measured, tiers.note
    assert tiers.items == 1000  # no traffic yet: the default batch
    assert tiers.vm_ns_per_item > 0 and tiers.jit_ns_per_item > 0
    assert stats.backend == tiers.chosen
    assert (tiers.chosen == "jit") == (tiers.jit_ns_per_item < tiers.vm_ns_per_item)
    assert "per item at 1,000 items" in tiers.note and tiers.chosen in repr(tiers)


def test_shadow_against_the_reference(ranking):
    serving = calcjit.ServingEngine(ranking, outputs=["score"])
    serving.set_shadow(1.0, backend="reference")
    inputs = random_inputs(serving.inputs, n=300, queries=3, seed=2)
    serving.evaluate(inputs, group=np.repeat([1, 2, 3], 100))
    serving.drain_shadow()
    stats = serving.stats()
    assert stats.shadow_evaluations + stats.shadow_dropped == 3
    assert stats.mismatches == 0 and serving.mismatches() == []


def test_shadow_with_a_candidate_set():
    serving = calcjit.ServingEngine(V1, backend="vm")
    serving.set_shadow(1.0, candidate=calcjit.parse(V2), max_recorded=2)
    serving.evaluate({"a": np.array([1, 2, 3], np.float32), "q": 1})
    serving.drain_shadow()
    mismatches = serving.mismatches()
    assert serving.stats().mismatches == 3 and len(mismatches) == 2
    m = mismatches[0]
    assert (m.version, m.output, m.item, m.served, m.shadow) == (1, "s", 0, 1.0, 2.0)
    assert (m.served_bits, m.shadow_bits) == (0x3F800000, 0x40000000)
    assert str(m) == "s[0]: served 0x3F800000, shadow 0x40000000 (version 1)"
    serving.set_shadow(0)
    with pytest.raises(calcjit.Error):
        serving.set_shadow(2.0)
