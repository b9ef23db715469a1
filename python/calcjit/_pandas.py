"""pandas DataFrames in, DataFrames of features out.

The binding rules are those of `calcjit eval` on a CSV file (docs/CLI.md):
an input `x` is the column `x`; a vector input `v` of dimension d is the
columns `v[0]` .. `v[d-1]`, or one column `v` whose cells are sequences of d
numbers; a query input takes its value from the first row of each query; an
input without a column takes its declared default (an error without one);
columns the set does not read are ignored; a DataFrame without rows is zero
queries (nothing is computed; every output column is empty).

Missing values (None, NaN, pd.NA, NaT is refused with its column) are NaN, as
an empty cell is NaN in a CSV file: the set's formulas decide what NaN means.
A pandas category column is its codes (a missing value NaN), as XGBoost's
enable_categorical reads it. Columns of complex numbers, datetimes, strings or
Python objects are a TypeError, never converted; values beyond the float32
range are refused as the CLI refuses them.
"""

import numpy as np

from ._groups import _error, query_offsets


# Real numbers: float, int, unsigned, bool (numpy's and pandas' nullable ones).
_NUMBER_KINDS = "fiub"


def _float32(series):
    """A column as float32, or float64 (the engine checks its range as it
    converts); missing values (None, pd.NA) become NaN. A category column is
    its codes (the position of each value in its categories; missing: NaN), as
    XGBoost's enable_categorical and LightGBM read a pandas category."""
    if series.dtype == np.float32:
        return series.to_numpy()
    if series.dtype.name == "category":
        codes = series.cat.codes.to_numpy().astype(np.float32)
        codes[codes < 0] = np.nan
        return codes
    if series.dtype.kind not in _NUMBER_KINDS:
        raise TypeError(f"column '{series.name}' has dtype {series.dtype}: calcjit reads "
                        "columns of real numbers (float, int or bool); convert it first, e.g. "
                        f"df['{series.name}'].astype('float32')")
    try:
        return series.to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError) as e:
        raise _error(f"column '{series.name}' ({series.dtype}) cannot be read as numbers: {e}",
                     str(series.name)) from None


def _vector(df, info):
    """An (n, d) float32 array for a vector input, or None when it has no column."""
    d = info.dimension
    if info.name in df.columns:
        cells = df[info.name].to_numpy()
        if len(cells) == 0:
            return np.zeros((0, d), dtype=np.float32)
        try:
            values = np.array([np.asarray(c, dtype=np.float64) for c in cells], dtype=np.float64)
        except (TypeError, ValueError) as e:
            raise _error(f"column '{info.name}' must hold sequences of {d} numbers: {e}",
                         info.name) from None
        if values.ndim != 2 or values.shape[1] != d:
            raise _error(f"column '{info.name}' must hold sequences of {d} numbers "
                         f"(vector input of dimension {d}), got shape {values.shape[1:]}", info.name)
        return values
    names = [f"{info.name}[{k}]" for k in range(d)]
    present = [name in df.columns for name in names]
    if not any(present):
        return None
    if not all(present):
        missing = names[present.index(False)]
        raise _error(f"column '{missing}' is missing (vector input '{info.name}' has "
                     f"dimension {d})", info.name)
    return np.ascontiguousarray(np.column_stack([_float32(df[name]) for name in names])
                                .reshape(len(df), d), dtype=np.float64)


def evaluate_dataframe(target, df, group_by=None, outputs=None):
    """Evaluates `target` (an Engine or ServingEngine) over the rows of `df`.

    group_by: None (the whole DataFrame is one query), a column name, or an
    array of ids (one per row); each run of consecutive equal ids is one query.
    outputs: the output columns to return (default: every output of target).
    Returns a DataFrame of float32 columns with the index of `df`.
    """
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"expected a pandas DataFrame, got {type(df).__name__}")
    if df.columns.has_duplicates:
        dup = df.columns[df.columns.duplicated()][0]
        raise _error(f"column '{dup}' appears more than once in the DataFrame", str(dup))
    n = len(df)
    if group_by is None:
        # The whole DataFrame is one query; without rows, zero queries.
        offsets = np.array([0, n] if n > 0 else [0], dtype=np.int64)
    elif isinstance(group_by, str):
        if group_by not in df.columns:
            raise _error(f"group_by column '{group_by}' is not in the DataFrame", group_by)
        offsets = query_offsets(df[group_by].to_numpy())
    else:
        keys = np.asarray(group_by)
        if keys.shape != (n,):
            raise _error(f"group_by must be a column name or one id per row ({n}), "
                         f"got shape {keys.shape}", "group_by")
        offsets = query_offsets(keys)
    starts = offsets[:-1]

    inputs = {}
    for info in target.inputs:
        if info.is_vector:
            values = _vector(df, info)
        elif info.name in df.columns:
            values = _float32(df[info.name])
        else:
            values = None
        if values is None:
            if info.default is None:
                raise _error(f"input '{info.name}' has no column in the DataFrame and no "
                             "default value", info.name)
            continue  # the default applies
        if info.scope == "query":
            values = np.ascontiguousarray(values[starts])
        inputs[info.name] = values

    names = list(target.outputs) if outputs is None else (
        [outputs] if isinstance(outputs, str) else list(outputs))
    for name in names:
        if name not in target.outputs:
            raise _error(f"unknown output '{name}': the engine does not compute it", name)
    results = target._evaluate(inputs, n, offsets, None, True)
    return pd.DataFrame({name: results[name] for name in names}, index=df.index)
