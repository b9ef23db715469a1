"""Rows as input: engine.evaluate(X) and predict(X) on a 2-D array, the way
XGBoost's and LightGBM's predict() take their data.

Column j of X is the engine's input j (for a set made by calcjit.from_model,
the model's feature j), each an item scalar; row i is item i. A float32 X is
read as it is, in any layout: the columns of a Fortran-order array are read
in place, a C-order array is copied into columns by the runtime (the cost is
measured in docs/PERFORMANCE.md, "Rows as input"); its values are never
changed. Another dtype (float64, ints) is refused unless the call asks for a
conversion with copy=True: calcjit evaluates float32 inputs, and rounding a
float64 matrix silently would hide that a LightGBM model, which compares
float64 values, may route a value differently than it does on the float64
data (docs/MODELS.md).

predict(X) returns the outputs as XGBoost's predict() shapes them: (n,) for
one output, (n, k) for k; they are margins and raw scores, not probabilities
(docs/MODELS.md shows how to write each library's probability). A pandas
DataFrame binds its columns by name instead (evaluate_dataframe), category
columns by their codes, as XGBoost's enable_categorical does.
"""

import numpy as np

from ._groups import _error


def is_matrix(value):
    """Whether evaluate() was given a 2-D numpy array (rows) rather than a dict."""
    return isinstance(value, np.ndarray) and value.ndim == 2


def _float32(x, copy):
    """X as a float32 array the native code reads: the caller's own when it is
    one (aligned, native byte order, non-negative strides), else one copy of its
    values (a layout copy for float32; a conversion only with copy=True)."""
    if x.dtype == np.float32 and x.dtype.isnative:
        aligned = x.flags.aligned and all(s >= 0 and s % 4 == 0 for s in x.strides)
        return x if aligned else np.array(x, dtype=np.float32, order="C")
    if not copy:
        raise _error(f"X is a {x.dtype} matrix: calcjit evaluates float32 inputs; pass "
                     "X.astype(np.float32) (as XGBoost's predict converts float64), or "
                     "copy=True to convert it once (a LightGBM model compares float64 values, "
                     "so a value that float32 rounds may route differently than in LightGBM)",
                     "X")
    if x.dtype.kind not in "fiub":
        raise TypeError(f"X has dtype {x.dtype}: calcjit reads real numbers (float, int or bool)")
    converted = np.array(x, dtype=np.float32, order="C")
    overflow = np.isinf(converted) & np.isfinite(x)
    if overflow.any():
        index = tuple(int(i) for i in np.argwhere(overflow)[0])
        raise _error(f"X holds {x[index]!r} at {index}, beyond the float32 range: it would "
                     "become infinity (pass inf to mean infinity)", "X")
    return converted


def rows_of(x, copy):
    """X as the float32 matrix the native code binds (Engine._evaluate_rows)."""
    return _float32(x, copy)


def predict(target, x, copy=None):
    """target's outputs over the rows of X (a 2-D array, or a pandas DataFrame
    whose columns are bound by name): (n,) for one output, (n, k) for k."""
    names = list(target.outputs)
    if hasattr(x, "columns") and hasattr(x, "iloc"):  # a pandas DataFrame
        frame = target.evaluate_dataframe(x)
        results = {name: frame[name].to_numpy() for name in names}
    else:
        if not is_matrix(x):
            raise TypeError("predict(X): X must be a 2-D numpy array (rows of features) or a "
                            f"pandas DataFrame, not {type(x).__name__}")
        results = target.evaluate(x, copy=copy)
    if len(names) == 1:
        return results[names[0]]
    return np.column_stack([results[name] for name in names]).astype(np.float32, copy=False)


def set_predict(feature_set, x, backend="auto", copy=None):
    """A set's outputs over X, compiled once per backend and kept on the set."""
    engines = feature_set.__dict__.setdefault("_predict_engines", {})
    engine = engines.get(backend)
    if engine is None:
        engine = engines[backend] = feature_set.compile(backend=backend)
    return predict(engine, x, copy=copy)
