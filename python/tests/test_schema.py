"""Loading sets in every format and inspecting their schema."""

import pickle

import numpy as np
import pytest

import calcjit
from conftest import RANKING


def test_the_example_sets_schema(ranking):
    inputs = {i.name: i for i in ranking.inputs}
    assert len(ranking.inputs) == 38 and len(ranking.outputs) == 304
    assert ranking.inputs[0].name == "price"
    price = inputs["price"]
    assert (price.scope, price.dimension, price.default, price.declared) == ("item", 0, None, True)
    assert not price.is_vector
    emb = inputs["item_emb"]
    assert (emb.scope, emb.dimension, emb.is_vector) == ("item", 32, True)
    user = inputs["user_emb"]
    assert (user.scope, user.dimension) == ("query", 32)
    assert inputs["user_price_sensitivity"].default == 0.5
    assert np.isnan(inputs["user_price_pref"].default)
    assert inputs["query_hour"].scope == "query" and inputs["query_hour"].default == 12
    assert ranking.outputs[-1] == "reason_convenient" and "score" in ranking.outputs
    assert ranking.implicit_inputs == []
    assert repr(user) == "Input(name='user_emb', scope='query', dimension=32)"


def test_implicit_inputs():
    fs = calcjit.parse("input a; b = a + c; d = b * e + c;")
    assert fs.implicit_inputs == ["c", "e"]
    names = [(i.name, i.declared) for i in fs.inputs]
    assert names == [("a", True), ("c", False), ("e", False)]
    assert fs.outputs == ["b", "d"]


def test_an_engine_reads_what_its_outputs_need(ranking):
    engine = ranking.compile(outputs=["free_shipping"])
    assert engine.outputs == ["free_shipping"]
    assert [i.name for i in engine.inputs] == ["shipping_cost"]
    assert engine.set.outputs == ranking.outputs
    # Inputs of the set that these outputs do not need are accepted and ignored.
    out = engine.evaluate({"shipping_cost": [0, 1], "price": [1, 2]})
    np.testing.assert_array_equal(out["free_shipping"], [1, 0])


@pytest.mark.parametrize("format", ["calc", "json", "pb"])
def test_every_format_round_trips(ranking, tmp_path, format):
    data = ranking.serialize(format)
    assert isinstance(data, bytes if format == "pb" else str)
    again = calcjit.parse(data, format)
    assert again.to_text() == ranking.to_text()
    path = tmp_path / f"set.{format}"
    if format == "pb":
        path.write_bytes(data)
    else:
        path.write_text(data)
    assert calcjit.read_file(path).to_text() == ranking.to_text()
    assert calcjit.read_file(str(path), format=format).outputs == ranking.outputs


def test_parse_defaults_to_text_for_str_and_protobuf_for_bytes(ranking):
    assert calcjit.parse(RANKING.read_text()).outputs == ranking.outputs
    assert calcjit.parse(ranking.serialize("pb")).outputs == ranking.outputs
    assert calcjit.parse(RANKING.read_bytes(), "calc").outputs == ranking.outputs
    with pytest.raises(TypeError, match=r"parse\(\): data must be str .* or bytes, not int"):
        calcjit.parse(42)


def test_backends(ranking):
    assert calcjit.available_backends()[-1] == "auto"
    assert calcjit.is_backend_available("reference") and calcjit.is_backend_available("vm")
    for name in calcjit.available_backends():
        engine = ranking.compile(backend=name, outputs=["score"])
        assert engine.backend in ("reference", "vm", "jit")
        if name != "auto":
            assert engine.backend == name
            assert engine.backend_note == ""
    assert calcjit.is_isa_supported("x86-64")
    assert ranking.compile(outputs="score").outputs == ["score"]  # one name
    with pytest.raises(TypeError, match=r"compile\(\): outputs\[0\] must be a str, not int"):
        ranking.compile(outputs=[1])
    vm = ranking.compile(backend="vm", isa="x86-64", outputs=["score"])
    assert vm.isa == "x86-64"
    assert calcjit.__version__.count(".") == 2


def test_sets_and_engines_pickle(ranking):
    """For multiprocessing, joblib or Spark: a set pickles as protobuf, an engine
    as its set and options (and is compiled again when unpickled)."""
    again = pickle.loads(pickle.dumps(ranking))
    assert again.to_text() == ranking.to_text()
    engine = ranking.compile(backend="vm", outputs=["score"], isa="x86-64", block_size=256)
    copy = pickle.loads(pickle.dumps(engine))
    assert (copy.backend, copy.isa, copy.outputs) == ("vm", "x86-64", ["score"])
    inputs = {i.name: np.ones((3, i.dimension) if i.is_vector else 3, np.float32)
              if i.scope == "item" else np.ones(i.dimension or (), np.float32)
              for i in engine.inputs}
    assert (copy.evaluate(inputs)["score"].view(np.uint32)
            == engine.evaluate(inputs)["score"].view(np.uint32)).all()
    assert len(pickle.loads(pickle.dumps(ranking.compile())).outputs) == 304
