"""Zero items and zero queries for every input kind, backend and evaluator
(Engine, ServingEngine, DataFrames): a correct empty result, never a crash or
a false error. One query of 0 items checks its inputs as any query does (an
input without a default must be given); zero queries (group=[], a DataFrame
without rows) compute nothing and need no input. Also: many queries in one
call give the bits of one call per query on both evaluators."""

import numpy as np
import pandas as pd
import pytest

import calcjit
from conftest import assert_same_bits, random_inputs

BACKENDS = ["reference", "vm", "jit", "auto"]

# name: (text, scope, dimension, has a default); the input is x.
KINDS = {
    "item_scalar": ("input x; f = x * 2; g = rank(x);", "item", 0, False),
    "item_scalar_default": ("input x = 1.5; f = x * 2; g = rank(x);", "item", 0, True),
    "query_scalar": ("input x: query; f = x * 2 + batch_count(1); g = rank(f);", "query", 0,
                     False),
    "query_scalar_default": ("input x: query = 4; f = x * 2; g = rank(f);", "query", 0, True),
    "item_vector": ("input x: item[3]; f = norm(x); g = rank(f);", "item", 3, False),
    "query_vector": ("input x: query[3]; f = norm(x) + batch_count(1); g = rank(f);", "query", 3,
                     False),
}


def evaluators(text, backend):
    fs = calcjit.parse(text)
    return [fs.compile(backend=backend), calcjit.ServingEngine(fs, backend=backend)]


def no_items(scope, dimension, queries):
    """x for 0 items: an empty item array, or `queries` query rows (None: one value)."""
    if scope == "item":
        return np.zeros((0, dimension) if dimension else (0,), np.float32)
    if queries is None:
        return np.ones(dimension, np.float32) if dimension else np.float32(1)
    return np.ones((queries, dimension) if dimension else (queries,), np.float32)


def assert_empty(results):
    assert list(results) == ["f", "g"]
    for values in results.values():
        assert values.dtype == np.float32 and values.shape == (0,)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", list(KINDS))
def test_zero_items_and_zero_queries(kind, backend):
    text, scope, dimension, has_default = KINDS[kind]
    for target in evaluators(text, backend):
        # Nothing given: one query of 0 items needs x unless it has a default.
        if has_default:
            assert_empty(target.evaluate(n=0))
        else:
            with pytest.raises(calcjit.Error) as info:
                target.evaluate(n=0)
            assert info.value.location == "x"
            assert info.value.message == "input 'x' is not bound and has no default value"
        # Zero queries need nothing.
        assert_empty(target.evaluate(group=[]))
        assert_empty(target.evaluate(group=np.array([], dtype=np.int64), n=0))
        # x given for 0 items: one query; zero queries, with one value for
        # every query or none per query.
        assert_empty(target.evaluate({"x": no_items(scope, dimension, None)}, n=0))
        assert_empty(target.evaluate({"x": no_items(scope, dimension, None)}, group=[]))
        assert_empty(target.evaluate({"x": no_items(scope, dimension, 0)}, group=[]))
        # out= arrays of 0 floats.
        out = {"f": np.zeros(0, np.float32), "g": np.zeros(0, np.float32)}
        results = target.evaluate({"x": no_items(scope, dimension, None)}, n=0, out=out)
        assert results["f"] is out["f"] and results["g"] is out["g"]
        # Lengths are still checked: two query rows for zero queries, or an
        # item for none.
        if scope == "query":
            with pytest.raises(calcjit.Error) as info:
                target.evaluate({"x": no_items(scope, dimension, 2)}, group=[])
            assert info.value.location == "x" and "for 0 queries" in info.value.message
        with pytest.raises(calcjit.Error) as info:
            target.evaluate({"x": no_items(scope, dimension, None)}, group=[],
                            out={"f": np.zeros(1, np.float32)})
        assert info.value.message == "output 'f' needs 0 floats for 0 items in 0 queries, got 1"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", list(KINDS))
def test_dataframes_without_rows_are_zero_queries(kind, backend):
    text, scope, dimension, _ = KINDS[kind]
    columns = [f"x[{k}]" for k in range(dimension)] if dimension else ["x"]
    empty = pd.DataFrame({name: pd.Series([], dtype=np.float32) for name in columns + ["id"]})
    for target in evaluators(text, backend):
        for group_by in (None, "id"):
            frame = target.evaluate_dataframe(empty, group_by=group_by)
            assert list(frame.columns) == ["f", "g"] and len(frame) == 0
    # A needed input without a column is still an error, rows or not.
    if scope == "query" and not KINDS[kind][3]:
        with pytest.raises(calcjit.Error) as info:
            calcjit.parse(text).compile(backend=backend).evaluate_dataframe(empty[["id"]])
        assert info.value.location == "x"


@pytest.mark.parametrize("backend", BACKENDS)
def test_many_queries_equal_one_call_per_query_on_both_evaluators(ranking, backend):
    sizes = [0, 1, 7, 1025, 3]  # a query of 0 items too, given by offsets
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    n = int(offsets[-1])
    for target in (ranking.compile(backend=backend, outputs=["score", "relevance"]),
                   calcjit.ServingEngine(ranking, backend=backend, outputs=["score", "relevance"])):
        inputs = random_inputs(target.inputs, n=n, queries=len(sizes), seed=12)
        together = target._evaluate(inputs, None, offsets, None, True)
        for q, size in enumerate(sizes):
            begin = int(offsets[q])
            one = {}
            for info in target.inputs:
                values = inputs[info.name]
                one[info.name] = values[begin:begin + size] if info.scope == "item" else values[q]
            alone = target.evaluate(one, n=size)
            for name in target.outputs:
                assert_same_bits(together[name][begin:begin + size], alone[name], name)
