"""The shared list of bad calls (tests/frontends/bad_calls.txt) through the
Python API: every line that names "python" has a handler here; the kind of
exception and the text its message must contain come from the file, so that
every frontend asserts the same thing."""

import numpy as np
import pytest

import calcjit
from conftest import SOURCE_DIR

S1 = "input x; f = x * 2; g = x + 1;"


def s1():
    return calcjit.parse(S1).compile(backend="vm")


def serve():
    return calcjit.ServingEngine(S1, backend="vm")


def astral_names():
    engine = calcjit.parse("input `x😀`; `𝑓` = `x😀` * 2;").compile(backend="vm", outputs=["𝑓"])
    result = engine.evaluate({"x😀": np.array([1, 2, 3], np.float32)})
    assert result["𝑓"].tolist() == [2, 4, 6]
    assert engine.inputs[0].name == "x😀"


def zero_queries():
    result = serve().evaluate(None, group=np.array([], np.int64))
    assert [len(result[name]) for name in ("f", "g")] == [0, 0]


def read_unknown_output():
    engine = s1()
    engine.evaluate({"x": np.ones(3, np.float32)})
    engine.evaluate({"x": np.ones(3, np.float32)}, out={"nope": np.zeros(3, np.float32)})


def reload_dropped_input():
    serving = serve()
    serving.reload("input y; f = y;")
    serving.evaluate({"x": np.ones(3, np.float32)})


def pandas_object_column():
    import pandas as pd
    s1().evaluate_dataframe(pd.DataFrame({"x": ["1", None, 3.0]}))


FILES = SOURCE_DIR / "tests" / "frontends" / "files"


def model_set(path):
    return f'model m = xgboost("{path}"); f = model(m, a)[0];'


HANDLERS = {
    "parse_syntax_error": lambda: calcjit.parse("f = ;"),
    "parse_nul_byte": lambda: calcjit.parse("f = a \0 b;"),
    "parse_invalid_utf8": lambda: calcjit.parse(b"f = a \xff b;", "calc"),
    "parse_bom": lambda: calcjit.parse("\ufefff = 1;"),
    "unknown_format": lambda: calcjit.parse("f = 1;", "xml"),
    "unknown_backend": lambda: calcjit.parse(S1).compile(backend="gpu"),
    "unknown_output_option": lambda: calcjit.parse(S1).compile(outputs=["nope"]),
    "null_output_option": lambda: calcjit.parse(S1).compile(outputs=[None]),
    "astral_names": astral_names,
    "astral_unknown_input": lambda: s1().evaluate({"x": np.ones(1), "😀": np.ones(1)}),
    "bind_unknown_input": lambda: s1().evaluate({"x": np.ones(1), "nope": np.ones(1)}),
    "bind_null_name": lambda: s1().evaluate({None: np.ones(1)}),
    "input_too_short": lambda: s1().evaluate({"x": np.ones(2, np.float32)}, n=3),
    "missing_input": lambda: s1().evaluate(None, n=3),
    "read_unknown_output": read_unknown_output,
    "zero_queries": zero_queries,
    "negative_item_count": lambda: s1().evaluate(None, n=-1),
    "wrong_argument_type": lambda: calcjit.parse(S1).compile(backend=3),
    "unexpected_keyword": lambda: calcjit.parse(S1).compile(backnd="vm"),
    "beyond_float32": lambda: s1().evaluate({"x": np.array([1, 1e39])}),
    "complex_input": lambda: s1().evaluate({"x": np.array([1 + 2j])}),
    "datetime_input": lambda: s1().evaluate({"x": np.array(["2026-01-01"], "datetime64[D]")}),
    "string_input": lambda: s1().evaluate({"x": np.array(["1.5"])}),
    "object_input": lambda: s1().evaluate({"x": np.array([1.0, None])}),
    "masked_input": lambda: s1().evaluate({"x": np.ma.masked_array([1.0, 2.0], mask=[0, 1])}),
    "pandas_object_column": pandas_object_column,
    "shadow_bad_fraction": lambda: serve().set_shadow(1.5),
    "shadow_needs_unread": lambda: serve().set_shadow(
        1, candidate=calcjit.parse("input x; input y; f = x * y;")),
    "reload_dropped_input": reload_dropped_input,
    "model_path_outside": lambda: calcjit.parse(model_set("../m.json"), model_root=FILES),
    "model_path_absolute": lambda: calcjit.parse(model_set("/etc/hostname"), model_root=FILES),
    "model_link_outside": lambda: calcjit.read_file(FILES / "link_outside.calc"),
    "model_not_regular": lambda: calcjit.parse(model_set("zero"), model_root="/dev"),
    "model_root_nul": lambda: calcjit.parse(model_set("m.json"), model_root=f"{FILES}\0x"),
    "models_key_nul": lambda: calcjit.parse(S1, models={"a\0b": b"{}"}),
    "models_key_surrogate": lambda: calcjit.parse(S1, models={"\ud800": b"{}"}),
    "set_file_device": lambda: calcjit.read_file(FILES / "zero.calc"),
    "set_file_location": lambda: calcjit.read_file(FILES / "syntax_error.calc"),
    "path_nul": lambda: calcjit.read_file(f"{FILES}/syntax_error.calc\0x"),
    "model_file_location": lambda: calcjit.from_model(FILES / "bad_model.json"),
    "model_file_device": lambda: calcjit.from_model("/dev/zero", "xgboost"),
    "count_beyond_64_bits": lambda: s1().evaluate(None, n=2**70),
    "option_beyond_32_bits": lambda: calcjit.parse(S1).compile(block_size=2**40),
}


def read_lines():
    lines = []
    path = SOURCE_DIR / "tests" / "frontends" / "bad_calls.txt"
    for text in path.read_text(encoding="utf-8").splitlines():
        if not text.strip() or text.startswith("#"):
            continue
        columns = [c.strip() for c in text.split("|")]
        assert len(columns) == 5, text
        lines.append((columns[0], columns[1], set(columns[2].split()), columns[3]))
    return lines


LINES = read_lines()


def test_every_handler_has_its_line():
    named = {id for id, _, frontends, _ in LINES if "python" in frontends}
    assert set(HANDLERS) == named


def is_kind(error, kind):
    if kind == "user":
        return isinstance(error, calcjit.Error) and error.kind == "user"
    if kind == "argument":
        return isinstance(error, (TypeError, ValueError))
    if kind == "type":
        return isinstance(error, TypeError)
    return False


@pytest.mark.parametrize("id, kind, contains",
                         [(i, k, c) for i, k, f, c in LINES if "python" in f])
def test_bad_call(id, kind, contains):
    assert id in HANDLERS, f"no Python handler for the bad call '{id}'"
    if kind == "ok":
        HANDLERS[id]()
        return
    with pytest.raises(Exception) as info:
        HANDLERS[id]()
    message = str(info.value)
    assert is_kind(info.value, kind), f"{id}: expected {kind}, got {info.type.__name__}: {message}"
    assert contains in message, f"{id}: '{message}' lacks '{contains}'"
    assert "incompatible function arguments" not in message
    assert "\0" not in message
