"""Arrow tables as inputs (pyarrow.Table, pyarrow.RecordBatch, polars.DataFrame):
float32 columns without nulls are read in place (their buffer's address is the
one bound; the call runs with copy=False, so nothing else was copied either),
other columns are converted once with nulls as NaN, the result is the same kind
of table, and the bits are those of `calcjit eval` and of numpy arrays. Runs in
the reference venv (scripts/setup.sh), which has pyarrow and polars."""

import numpy as np
import pytest

import calcjit
import calcjit._arrow
from conftest import ITEMS, RANKING, assert_same_bits, csv_columns, run_cli

pa = pytest.importorskip("pyarrow")
pl = pytest.importorskip("polars")
import pyarrow.csv  # noqa: E402

SET = """\
input x; input y;
input e: item[2];
input u: query[2];
s = x * 2 + y + dot(e, u);
r = rank(x);
"""


@pytest.fixture(scope="module")
def engine():
    return calcjit.parse(SET).compile(outputs=["s", "r"])


def table(n=6, y=None):
    rng = np.random.default_rng(1)
    x = rng.normal(size=n).astype(np.float32)
    e = pa.FixedSizeListArray.from_arrays(pa.array(rng.normal(size=2 * n).astype(np.float32)), 2)
    return pa.table({"q": np.repeat(np.arange(n // 3), 3)[:n], "x": x,
                     "y": np.ones(n, np.float32) if y is None else y, "e": e, "u": e})


def numpy_result(engine, t):
    offsets = calcjit.query_offsets(t.column("q").to_numpy())
    e = np.asarray(t.column("e").combine_chunks().flatten(), np.float32).reshape(-1, 2)
    y = t.column("y").to_numpy(zero_copy_only=False).astype(np.float32)
    return engine.evaluate({"x": t.column("x").to_numpy(), "y": np.where(np.isnan(y), np.nan, y),
                            "e": e, "u": e[offsets[:-1]]}, group=t.column("q").to_numpy())


def address(array):
    return array.__array_interface__["data"][0]


def test_float32_without_nulls_is_read_in_place(engine):
    t = table(9).slice(3)  # an offset into the buffers too
    inputs = calcjit._arrow.arrow_inputs(engine, t)
    x, copied = inputs["x"]
    assert not copied
    chunk = t.column("x").chunk(0)
    assert address(x) == chunk.buffers()[1].address + 4 * chunk.offset
    e, copied = inputs["e"]
    assert not copied and e.shape == (6, 2)
    child = t.column("e").chunk(0).values
    assert address(e) == child.buffers()[1].address + 4 * (child.offset + 2 * chunk.offset)
    assert not x.flags.writeable
    # evaluate_arrow binds with copy=False: an array the engine could not read
    # in place would be refused, not copied.
    out = calcjit.evaluate_arrow(engine, t, group_by="q")
    expected = numpy_result(engine, t)
    for name in ("s", "r"):
        assert_same_bits(out.column(name).to_numpy(), expected[name], name)


def test_polars_float32_without_nulls_is_read_in_place(engine):
    frame = pl.from_arrow(table(6))
    x, copied = calcjit._arrow.arrow_inputs(engine, frame.to_arrow())["x"]
    assert not copied
    assert address(x) == frame["x"].to_arrow().buffers()[1].address
    out = calcjit.evaluate_dataframe(engine, frame, group_by="q")
    assert isinstance(out, pl.DataFrame) and out.columns == ["s", "r"]
    expected = numpy_result(engine, table(6))
    assert_same_bits(out["s"].to_numpy(), expected["s"], "s")


def test_nulls_and_other_types_are_converted_once_nulls_as_nan(engine):
    y = pa.array([1.5, None, 3.0, 4.0, None, 6.0], pa.float32())
    t = table(6, y=y)
    inputs = calcjit._arrow.arrow_inputs(engine, t)
    values, copied = inputs["y"]
    assert copied and np.isnan(values[[1, 4]]).all() and values[0] == np.float32(1.5)
    out = calcjit.evaluate_arrow(engine, t, group_by="q", keep=["q"])
    assert out.column_names == ["q", "s", "r"]
    assert np.isnan(out.column("s").to_numpy()[[1, 4]]).all()
    for column in (pa.array([1, 2, 3, 4, 5, 6], pa.int64()),
                   pa.array([1.0, 2, 3, 4, 5, 6], pa.float64()),
                   pa.array([True, False] * 3)):
        t2 = table(6, y=column)
        values, copied = calcjit._arrow.arrow_inputs(engine, t2)["y"]
        assert copied and values.dtype == np.float32
        assert_same_bits(calcjit.evaluate_arrow(engine, t2, group_by="q").column("s").to_numpy(),
                         numpy_result(engine, t2)["s"])
    with pytest.raises(calcjit.Error, match="beyond the float32 range"):
        calcjit.evaluate_arrow(engine, table(6, y=pa.array([1e39] * 6)), group_by="q")
    with pytest.raises(calcjit.Error, match="format 'u'"):
        calcjit.evaluate_arrow(engine, table(6, y=pa.array(["a"] * 6)), group_by="q")


def test_batches_chunks_lists_and_vector_columns(engine):
    t = table(6)
    batch = t.to_batches()[0]
    out = calcjit.evaluate_arrow(engine, batch, group_by="q")
    assert isinstance(out, pa.RecordBatch)
    expected = numpy_result(engine, t)
    assert_same_bits(out.column("s").to_numpy(), expected["s"])
    chunked = pa.concat_tables([t.slice(0, 3), t.slice(3)])
    assert chunked.column("x").num_chunks == 2
    assert_same_bits(calcjit.evaluate_arrow(engine, chunked, group_by="q").column("s").to_numpy(),
                     expected["s"])
    e = t.column("e").combine_chunks()
    as_list = t.set_column(t.column_names.index("e"), "e", e.cast(pa.list_(pa.float32())))
    assert_same_bits(calcjit.evaluate_arrow(engine, as_list, group_by="q").column("s").to_numpy(),
                     expected["s"])
    flat = np.asarray(e.flatten()).reshape(-1, 2)
    as_columns = t.drop_columns(["e"]).append_column("e[0]", pa.array(flat[:, 0])) \
        .append_column("e[1]", pa.array(flat[:, 1]))
    assert_same_bits(
        calcjit.evaluate_arrow(engine, as_columns, group_by="q").column("s").to_numpy(),
        expected["s"])


def test_the_example_set_from_an_arrow_csv_has_the_bits_of_calcjit_eval(tmp_path):
    fs = calcjit.read_file(RANKING)
    header = ITEMS.read_text().split("\n", 1)[0].split(",")
    types = {name: pa.float32() for name in header if name != "query_text"}
    types["query_id"] = pa.int64()
    items = pyarrow.csv.read_csv(ITEMS, convert_options=pyarrow.csv.ConvertOptions(
        column_types=types))
    out = calcjit.evaluate_arrow(fs, items, group_by="query_id", outputs=["score"],
                                 keep=["query_id"])
    run_cli("eval", RANKING, "--input", ITEMS, "--output", tmp_path / "cli.csv", "--group-by",
            "query_id", "--outputs", "score")
    assert_same_bits(out.column("score").to_numpy(), csv_columns(tmp_path / "cli.csv")["score"])


def test_the_user_guide_arrow_blocks_run(capsys):
    """docs/PYTHON.md's blocks marked `python arrow` (they need pyarrow and polars)."""
    import re

    from conftest import SOURCE_DIR

    text = (SOURCE_DIR / "docs" / "PYTHON.md").read_text()
    blocks = re.findall(r"```python arrow\n(.*?)```", text, re.S)
    assert blocks
    for k, block in enumerate(blocks):
        exec(compile(block, f"docs/PYTHON.md (python arrow block {k + 1})", "exec"), {})
    printed = capsys.readouterr().out
    assert "pyarrow.Table" in printed and "shape: (3, 1)" in printed
