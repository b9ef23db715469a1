"""Errors: calcjit.Error with the location and message of every problem; wrong
dtypes, shapes and lengths are clear errors, never crashes or silent copies."""

import os
import re
import signal

import numpy as np
import pytest

import calcjit


def error_of(call, *args, **kwargs):
    with pytest.raises(calcjit.Error) as info:
        call(*args, **kwargs)
    return info.value


def test_error_is_a_value_error_with_attributes():
    e = error_of(calcjit.parse, "input x;\ny = x +;\n")
    assert isinstance(e, ValueError)
    assert e.kind == "user"
    assert e.location == "2:8"
    assert e.message == "expected an expression, found ';'"
    assert str(e) == "2:8: expected an expression, found ';'"
    assert [(d.location, d.message) for d in e.diagnostics] == [("2:8", e.message)]
    # Raised from Python, the attributes have their defaults.
    assert calcjit.Error("x").location == "" and calcjit.Error("x").kind == "user"


def test_every_problem_is_reported():
    e = error_of(calcjit.parse, "a = b + 1;\nb = a * 2;\nc = 1;\nc = 2;\n")
    messages = [str(d) for d in e.diagnostics]
    assert len(messages) == 2, messages
    assert any("cycle: 'a' -> 'b' -> 'a'" in m for m in messages)
    assert any(m.startswith("4:1: ") and "'c'" in m for m in messages)
    assert str(e).splitlines() == messages


def test_locations_in_each_format(tmp_path):
    e = error_of(calcjit.parse, '{"features": [{"name": "x", "expression": '
                                '{"binary": {"op": "ADD"}}}]}', "json")
    assert e.location == "features[0].expression.binary.op"
    e = error_of(calcjit.parse, b"\x0a\xff\xff")  # bytes: binary protobuf
    assert e.location == "byte 1"
    path = tmp_path / "bad.calc"
    path.write_text("input x;\n\ny = x * ;\n")
    e = error_of(calcjit.read_file, path)
    assert e.location == f"{path}:3:9"
    e = error_of(calcjit.read_file, tmp_path / "missing.calc")
    assert e.kind == "runtime" and "cannot open" in e.message


def test_bad_arguments(ranking):
    assert "unknown backend 'gpu'" in str(error_of(ranking.compile, backend="gpu"))
    assert error_of(ranking.compile, outputs=["nope"]).location == "nope"
    assert "unknown format" in str(error_of(calcjit.parse, "x = 1;", "yaml"))
    assert "unknown isa" in str(error_of(ranking.compile, isa="sparc"))


@pytest.fixture(scope="module")
def engine():
    fs = calcjit.parse("input a; input v: item[2]; input q: query; input w: query[3];\n"
                       "s = a * q + dot(v, v) + norm(w);")
    return fs.compile(backend="vm")


def good(n=4):
    return {"a": np.zeros(n, np.float32), "v": np.zeros((n, 2), np.float32),
            "q": np.float32(1), "w": np.zeros(3, np.float32)}


@pytest.mark.parametrize("change, location, text", [
    ({"q": None}, "q", "input 'q' is not bound and has no default value"),
    # The lengths are the runtime's rules, with its messages (n from the first item input).
    ({"a": np.zeros(3, np.float32)}, "v",
     "input 'v' needs 6 floats for 3 items (an item vector of dimension 2), got 8"),
    ({"v": np.zeros((3, 2), np.float32)}, "v",
     "input 'v' needs 8 floats for 4 items (an item vector of dimension 2), got 6"),
    # The dimensions of an array are Python's to check.
    ({"a": np.zeros((4, 1), np.float32)}, "a", "got shape (4, 1)"),
    ({"v": np.zeros((4, 3), np.float32)}, "v", "expected shape (4, 2) for 4 items"),
    ({"v": np.zeros(8, np.float32)}, "v", "item vector of dimension 2"),
    ({"q": [1, 2]}, "q", "input 'q' needs 1 float (a query scalar), got 2"),
    ({"q": np.zeros((1, 1), np.float32)}, "q", "expected a number (every query) or shape (1,)"),
    ({"w": np.zeros(2, np.float32)}, "w", "query vector of dimension 3"),
    ({"w": np.zeros((2, 3), np.float32)}, "w", "input 'w' needs 3 floats (a query vector of "
     "dimension 3), got 6"),
    ({"typo": np.zeros(4)}, "typo", "unknown input 'typo'"),
])
def test_wrong_inputs(engine, change, location, text):
    inputs = good()
    inputs.update(change)
    e = error_of(engine.evaluate, inputs)
    assert e.location == location
    assert text in str(e)


def test_copy_false_refuses_what_it_would_have_to_convert(engine):
    inputs = good()
    engine.evaluate(inputs, copy=False)
    for name, bad, what in [
        ("a", np.zeros(4), "float64 array"),
        ("a", [0.0] * 4, "Python list"),
        ("v", np.zeros((4, 4), np.float32)[:, ::2], "non-contiguous float32 array"),
        ("a", np.zeros(4, np.dtype(">f4")), ">f4 array"),
        ("a", np.frombuffer(bytes(17), np.float32, 4, offset=1), "unaligned float32 array"),
    ]:
        e = error_of(engine.evaluate, {**inputs, name: bad}, copy=False)
        assert e.location == name and what in str(e) and "copy=False" in str(e), str(e)
        engine.evaluate({**inputs, name: bad})  # copy=True converts it


def test_wrong_outputs(engine):
    inputs = good()
    for out, text in [
        ({"s": np.zeros(4)}, "output 's' is a float64 array"),
        ({"s": np.zeros(3, np.float32)}, "output 's' needs 4 floats for 4 items, got 3"),
        ({"s": np.zeros((4, 1), np.float32)}, "must have shape (4,)"),
        ({"s": np.zeros(8, np.float32)[::2]}, "non-contiguous"),
        ({"t": np.zeros(4, np.float32)}, "unknown output 't'"),
        ({"s": inputs["a"]}, "shares memory with input 'a'"),
    ]:
        e = error_of(engine.evaluate, inputs, out=out)
        assert text in str(e), str(e)
    read_only = np.zeros(4, np.float32)
    read_only.flags.writeable = False
    assert "read-only" in str(error_of(engine.evaluate, inputs, out={"s": read_only}))


@pytest.mark.parametrize("value, text", [
    (np.array(["x"] * 4), "dtype <U1 (strings)"),
    ([object()] * 4, "dtype object (Python objects)"),
    (np.ones(4, np.complex64), "dtype complex64 (complex numbers)"),
    (np.zeros(4, "datetime64[s]"), "dtype datetime64[s] (datetimes)"),
    (np.zeros(4, "timedelta64[s]"), "dtype timedelta64[s] (durations)"),
])
def test_values_that_are_not_real_numbers_are_a_type_error(engine, value, text):
    inputs = good()
    inputs["a"] = value
    with pytest.raises(TypeError, match=r"input 'a' has " + re.escape(text)):
        engine.evaluate(inputs)


def test_wrong_calls(engine):
    with pytest.raises(TypeError, match="mapping"):
        engine.evaluate([1, 2])
    assert "cannot tell the number of items" in str(error_of(engine.evaluate, {"q": 1}))
    inputs = good()
    e = error_of(engine.evaluate, inputs, group=[1, 1, 2])
    assert e.location == "a" and "for 3 items" in str(e)
    e = error_of(engine.evaluate, inputs, group=np.zeros((2, 2)))
    assert e.location == "group"
    with pytest.raises(TypeError):
        engine.evaluate(inputs, copy="no", n="four")


def test_errors_of_many_queries_name_the_input():
    engine = calcjit.parse("input a; input q: query; s = a / q;").compile()
    e = error_of(engine.evaluate, {"a": np.ones(5, np.float32), "q": [1, 2]}, group=[1, 1, 2, 3, 3])
    assert e.location == "q"
    assert e.message == ("input 'q' needs 3 floats for 3 queries (one per query) or 1 (the same "
                         "for every query), got 2")
    e = error_of(engine.evaluate, {"a": np.ones(5, np.float32)}, group=[1, 1, 2, 3, 3])
    assert e.location == "q"
    assert e.message == "input 'q' is not bound and has no default value"


def test_an_error_leaves_the_engine_usable(engine):
    error_of(engine.evaluate, {**good(), "a": np.zeros(3, np.float32)})
    assert engine.evaluate(good())["s"].shape == (4,)


def test_a_size_too_large_for_memory_is_a_memory_error():
    engine = calcjit.parse("input x = 1; f = x * 2;").compile(backend="vm")
    with pytest.raises(MemoryError):
        engine.evaluate(None, n=10**15)


def test_model_files_that_are_no_files_are_refused_at_once(tmp_path):
    # A FIFO no one writes would block a read forever, /dev/zero never ends:
    # both are refused before a byte is read (an alarm fails the test instead
    # of hanging it).
    fifo = tmp_path / "model.json"
    os.mkfifo(fifo)
    signal.signal(signal.SIGALRM, lambda *_: pytest.fail("from_model waited on a FIFO"))
    signal.alarm(10)
    try:
        for path in (fifo, "/dev/zero", tmp_path):
            with pytest.raises(calcjit.Error, match="not a regular file"):
                calcjit.from_model(path, "xgboost")
    finally:
        signal.alarm(0)


def test_paths_and_roots_are_never_cut_at_a_nul(tmp_path):
    (tmp_path / "s.calc").write_text("f = 1;")
    with pytest.raises(ValueError, match="NUL"):
        calcjit.read_file(f"{tmp_path}/s.calc\0.json")
    with pytest.raises(ValueError, match="NUL"):
        calcjit.read_file(tmp_path / "s.calc", model_root=f"{tmp_path}\0/elsewhere")
    with pytest.raises(ValueError, match="NUL"):
        calcjit.from_model(f"{tmp_path}/m.json\0x")
    # bytes paths are file-system bytes, as in os.open.
    assert calcjit.read_file(os.fsencode(tmp_path / "s.calc")).outputs == ["f"]
