"""Arrow tables in, Arrow tables out: pyarrow.Table, pyarrow.RecordBatch and
polars.DataFrame (docs/PYTHON.md, "Arrow and polars").

The binding rules are those of evaluate_dataframe and of `calcjit eval` on a
CSV file: an input `x` is the column `x`; a vector input `v` of dimension d is
the column `v` holding a fixed-size list of d numbers per row (a list column
of d numbers per row is cast to one), or the columns `v[0]` .. `v[d-1]`; a
query input takes its value from the first row of each query; an input
without a column takes its declared default.

Each column goes to calcjit through the Arrow C Data Interface (the
`__arrow_c_array__` PyCapsules) and calcjit's one Arrow reader (the C API's):
a float32 column without nulls (a fixed-size list of float32 for a vector) is
read in place, its buffer never copied. Every other numeric column is
converted once into a float32 array, a null becoming NaN (missing), as an
empty CSV cell does. Besides: a table column in several chunks is first
combined into one (a copy); a vector input given as d columns is stacked (a
copy); a query input is taken from the first row of each query (a small copy).
"""

import numpy as np

from ._groups import _error, query_offsets

__all__ = ["evaluate_arrow", "arrow_inputs", "is_arrow"]


def _pyarrow():
    try:
        import pyarrow  # noqa: PLC0415 (optional dependency)
    except ImportError:
        raise ImportError("Arrow tables need pyarrow (pip install pyarrow)") from None
    return pyarrow


def _polars_frame(data):
    """True for a polars.DataFrame (without importing polars when it is not loaded)."""
    import sys  # noqa: PLC0415

    polars = sys.modules.get("polars")
    return polars is not None and isinstance(data, polars.DataFrame)


def is_arrow(data):
    """Whether `data` is a table this module evaluates."""
    import sys  # noqa: PLC0415

    pa = sys.modules.get("pyarrow")
    if pa is not None and isinstance(data, (pa.Table, pa.RecordBatch)):
        return True
    return _polars_frame(data)


def _as_table(data):
    """(pyarrow Table or RecordBatch, kind): kind 'table', 'batch' or 'polars'."""
    pa = _pyarrow()
    if isinstance(data, pa.Table):
        return data, "table"
    if isinstance(data, pa.RecordBatch):
        return data, "batch"
    if _polars_frame(data):
        # Zero-copy for numeric columns (polars' memory is Arrow's).
        return data.to_arrow(), "polars"
    raise TypeError(f"expected a pyarrow.Table, pyarrow.RecordBatch or polars.DataFrame, "
                    f"got {type(data).__name__}")


def _column(table, name):
    """One pyarrow Array for a column: a table's single chunk as it is, several
    chunks combined (a copy), none an empty array."""
    column = table.column(name)
    if not hasattr(column, "num_chunks"):
        return column  # a RecordBatch's column is an Array
    if column.num_chunks == 1:
        return column.chunk(0)
    return column.combine_chunks()


def _floats(array, dimension, name):
    """(float32 ndarray, copied) through calcjit's Arrow reader."""
    from . import _calcjit  # noqa: PLC0415

    pa = _pyarrow()
    if dimension > 0 and (pa.types.is_list(array.type) or pa.types.is_large_list(array.type)):
        try:
            array = array.cast(pa.list_(array.type.value_type, dimension))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
            raise _error(f"column '{name}' must hold lists of {dimension} numbers "
                         f"(vector input of dimension {dimension}): {e}", name) from None
    schema_capsule, array_capsule = array.__arrow_c_array__()
    return _calcjit._arrow_floats(schema_capsule, array_capsule, dimension, name)


def _vector_columns(table, info):
    """(n, d) float32 for a vector input given as columns v[0] .. v[d-1], or None."""
    d = info.dimension
    names = [f"{info.name}[{k}]" for k in range(d)]
    present = [name in table.column_names for name in names]
    if not any(present):
        return None
    if not all(present):
        missing = names[present.index(False)]
        raise _error(f"column '{missing}' is missing (vector input '{info.name}' has "
                     f"dimension {d})", info.name)
    stacked = np.empty((table.num_rows, d), dtype=np.float32)
    for k, name in enumerate(names):
        stacked[:, k] = _floats(_column(table, name), 0, name)[0]
    return stacked


def arrow_inputs(target, table, starts=None):
    """The inputs of `target` from an Arrow table: {name: (float32 array, copied)}.

    `starts` (the first row of each query) picks the query inputs' rows; None
    leaves them one row per table row. Inputs without a column are left out
    (their defaults apply), or refused when they have no default."""
    inputs = {}
    columns = set(table.column_names)
    for info in target.inputs:
        if info.name in columns:
            values, copied = _floats(_column(table, info.name), info.dimension, info.name)
        elif info.is_vector:
            values, copied = _vector_columns(table, info), True
        else:
            values, copied = None, False
        if values is None:
            if info.default is None:
                raise _error(f"input '{info.name}' has no column in the table and no "
                             "default value", info.name)
            continue
        if info.scope == "query" and starts is not None:
            values, copied = np.ascontiguousarray(values[starts]), True
        inputs[info.name] = (values, copied)
    return inputs


def _offsets(table, group_by, n):
    if group_by is None:
        return np.array([0, n] if n > 0 else [0], dtype=np.int64)
    if isinstance(group_by, str):
        if group_by not in table.column_names:
            raise _error(f"group_by column '{group_by}' is not in the table", group_by)
        return query_offsets(_column(table, group_by).to_numpy(zero_copy_only=False))
    keys = np.asarray(group_by)
    if keys.shape != (n,):
        raise _error(f"group_by must be a column name or one id per row ({n}), "
                     f"got shape {keys.shape}", "group_by")
    return query_offsets(keys)


def evaluate_arrow(target, data, group_by=None, outputs=None, keep=None):
    """Evaluates `target` (an Engine or ServingEngine) over the rows of an Arrow
    table; returns the same kind of table (pyarrow.Table, pyarrow.RecordBatch
    or polars.DataFrame): the `keep` columns as they are, then one float32
    column per output (default: every output of target).

    group_by: None (the whole table is one query), a column name, or one id
    per row; each run of consecutive equal ids is one query."""
    pa = _pyarrow()
    table, kind = _as_table(data)
    names = list(table.column_names)
    duplicated = {name for name in names if names.count(name) > 1}
    if duplicated:
        dup = sorted(duplicated)[0]
        raise _error(f"column '{dup}' appears more than once in the table", dup)
    n = table.num_rows
    offsets = _offsets(table, group_by, n)
    wanted = list(target.outputs) if outputs is None else (
        [outputs] if isinstance(outputs, str) else list(outputs))
    for name in wanted:
        if name not in target.outputs:
            raise _error(f"unknown output '{name}': the engine does not compute it", name)
    kept = [] if keep is None else ([keep] if isinstance(keep, str) else list(keep))
    for name in kept:
        if name not in table.column_names:
            raise _error(f"keep column '{name}' is not in the table", name)
    inputs = {name: values for name, (values, _) in
              arrow_inputs(target, table, offsets[:-1]).items()}
    # copy=False: every array is already float32 the engine reads in place.
    results = target._evaluate(inputs, n, offsets, None, False)
    arrays = [_column(table, name) for name in kept] + [pa.array(results[name]) for name in wanted]
    columns = kept + wanted
    if kind == "batch":
        return pa.RecordBatch.from_arrays(arrays, names=columns)
    out = pa.Table.from_arrays(arrays, names=columns)
    if kind == "polars":
        import polars  # noqa: PLC0415

        return polars.from_arrow(out)
    return out
