"""calcjit: search-ranking feature sets, compiled, with the same bits in every backend.

    import calcjit
    fs = calcjit.read_file("examples/ranking/ranking.calc")
    engine = fs.compile(backend="auto", outputs=["score"])
    out = engine.evaluate({"price": prices, ...})      # dict of float32 arrays
    frame = engine.evaluate_dataframe(df, group_by="query_id")

docs/PYTHON.md is the user guide.
"""

from ._calcjit import (  # noqa: F401 (re-exported)
    Diagnostic,
    Engine,
    Error,
    FeatureSet,
    Input,
    Mismatch,
    ServingEngine,
    VersionStats,
    is_backend_available,
    is_isa_supported,
)
from ._calcjit import __version__  # noqa: F401
from ._groups import query_offsets, query_starts
from ._pandas import evaluate_dataframe as _evaluate_dataframe

BACKENDS = ("reference", "vm", "jit", "auto")

__all__ = [
    "BACKENDS", "Diagnostic", "Engine", "Error", "FeatureSet", "Input", "Mismatch",
    "ServingEngine", "VersionStats", "available_backends", "evaluate_dataframe",
    "from_model", "is_backend_available", "is_isa_supported", "parse", "query_offsets", "query_starts",
    "read_file", "__version__",
]


def read_file(path, format=None, *, model_root=None,
              allow_any_model_path: bool = False) -> FeatureSet:
    """Reads and checks a set from a file (.calc, .json, .pb or .binpb, or `format`),
    and the models it declares (from the file's folder unless `model_root` is given).

    Raises calcjit.Error with the location of every problem ('file:line:column').
    """
    return FeatureSet.read_file(path, format, model_root=model_root,
                                allow_any_model_path=allow_any_model_path)


def parse(data, format=None, *, model_root=None, models=None,
          allow_any_model_path: bool = False) -> FeatureSet:
    """Parses and checks a set: str in the text syntax (or JSON with format='json'),
    or bytes (binary protobuf unless `format` says otherwise). Its models come from
    `models` (a dict of model name to bytes) or from files under `model_root`."""
    return FeatureSet.parse(data, format, model_root=model_root, models=models,
                            allow_any_model_path=allow_any_model_path)


def from_model(model, format: "str | None" = None) -> FeatureSet:
    """A trained model on its own as a set (load a model and infer): `model` is a
    path (format from the extension unless given) or bytes with `format` one of
    'xgboost', 'lightgbm', 'onnx'."""
    return FeatureSet.from_model(model, format)


def available_backends() -> "list[str]":
    """The backends this build and machine can run, by name."""
    return [b for b in BACKENDS if is_backend_available(b)]


def _evaluate(self, inputs=None, *, group=None, n=None, out=None, copy=True):
    """Evaluates the outputs over a batch of items, or over many queries at once.

    inputs: a dict from input names to arrays. An item scalar is an array of n
      values, an item vector of dimension d an (n, d) array; a query scalar is
      a number, a query vector a (d,) array, or with `group` one row per query:
      (q,) and (q, d). An input left out (or None) takes its declared default.
    group: one id per item; each run of consecutive equal ids is one query
      (aggregates such as rank or zscore are computed within it). Without it
      the items are one query.
    n: the item count, when no item input is given.
    out: a dict from output names to float32 arrays of n values to write into
      (never converted); the other outputs are allocated.
    copy: True converts, once, an input that is not a C-contiguous, aligned
      float32 numpy array; False raises calcjit.Error for it instead.

    Returns a dict from output names to float32 arrays of n values (item k of
    query j at offsets[j] + k, as in the inputs). The GIL is released while
    the native code runs. Raises calcjit.Error naming the input at fault.
    """
    offsets = None
    if group is not None:
        offsets = query_offsets(group)
        if n is not None and n != offsets[-1]:
            raise Error(f"n={n} but group has {offsets[-1]} ids")
    return self._evaluate(inputs, n, offsets, out, copy)


def _evaluate_dataframe_method(self, df, group_by=None, outputs=None):
    """Evaluates over the rows of a pandas DataFrame; returns a DataFrame of the
    outputs (float32 columns, the same index). group_by: a column name or one id
    per row (runs of consecutive equal ids are queries); query inputs are taken
    from the first row of each query. outputs: the columns to return."""
    return _evaluate_dataframe(self, df, group_by=group_by, outputs=outputs)


# Attached here, declared in _calcjit.pyi (so mypy sees an assignment to a method).
Engine.evaluate = _evaluate  # type: ignore[assignment]
Engine.evaluate_dataframe = _evaluate_dataframe_method  # type: ignore[assignment]
ServingEngine.evaluate = _evaluate  # type: ignore[assignment]
ServingEngine.evaluate_dataframe = _evaluate_dataframe_method  # type: ignore[assignment]


def _set_evaluate_dataframe(self, df, group_by=None, outputs=None, backend="auto"):
    """Compiles the set for `outputs` (default: all) on `backend`, then evaluates
    the DataFrame as Engine.evaluate_dataframe does."""
    if isinstance(outputs, str):
        outputs = [outputs]
    engine = self.compile(backend=backend, outputs=outputs)
    return _evaluate_dataframe(engine, df, group_by=group_by)


FeatureSet.evaluate_dataframe = _set_evaluate_dataframe  # type: ignore[assignment]


def evaluate_dataframe(target, df, group_by=None, outputs=None):
    """Evaluates a FeatureSet (compiled with backend 'auto'), an Engine or a
    ServingEngine over a DataFrame; see Engine.evaluate_dataframe."""
    return target.evaluate_dataframe(df, group_by=group_by, outputs=outputs)
