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
    TierMeasurement,
    VersionStats,
    is_backend_available,
    is_isa_supported,
)
from . import _calcjit
from ._calcjit import __version__  # noqa: F401
from . import _arguments as _args
from ._groups import _error, query_offsets, query_starts
from . import _matrix
from ._pandas import evaluate_dataframe as _evaluate_pandas
from ._arrow import evaluate_arrow as _evaluate_arrow, is_arrow as _is_arrow


def _evaluate_dataframe(target, df, group_by=None, outputs=None):
    """pandas in, pandas out; Arrow (pyarrow, polars) in, the same kind out."""
    if _is_arrow(df):
        return _evaluate_arrow(target, df, group_by=group_by, outputs=outputs)
    return _evaluate_pandas(target, df, group_by=group_by, outputs=outputs)

BACKENDS = ("reference", "vm", "jit", "auto")

__all__ = [
    "BACKENDS", "Diagnostic", "Engine", "Error", "FeatureSet", "Input", "Mismatch",
    "ServingEngine", "TierMeasurement", "VersionStats", "available_backends", "evaluate_arrow",
    "evaluate_dataframe",
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
    path or bytes; its format (one of model_formats()) comes from its content or
    extension unless given."""
    return FeatureSet.from_model(model, format)


def model_formats() -> "list[str]":
    """The model formats calcjit reads, by the names `format=` and the text syntax
    use ('xgboost', 'lightgbm', 'onnx', ...)."""
    return _calcjit.model_formats()


def available_backends() -> "list[str]":
    """The backends this build and machine can run, by name."""
    return [b for b in BACKENDS if is_backend_available(b)]


def _evaluate(self, inputs=None, *, group=None, n=None, out=None, copy=None):
    """Evaluates the outputs over a batch of items, or over many queries at once.

    inputs: a dict from input names to arrays. An item scalar is an array of n
      values, an item vector of dimension d an (n, d) array; a query scalar is
      a number, a query vector a (d,) array, or with `group` one row per query:
      (q,) and (q, d). An input left out (or None) takes its declared default.
      Or a 2-D numpy array X of rows: column j is the engine's input j (each
      an item scalar; for calcjit.from_model, the model's feature j), row i
      item i; float32 in any layout (C or Fortran order) is read as it is.
    group: one id per item; each run of consecutive equal ids is one query
      (aggregates such as rank or zscore are computed within it). Without it
      the items are one query.
    n: the item count, when no item input is given.
    out: a dict from output names to float32 arrays of n values to write into
      (never converted); the other outputs are allocated.
    copy: for a dict, True (the default) converts, once, an input that is not
      a C-contiguous, aligned float32 numpy array; False raises calcjit.Error
      for it instead. For X, only True converts another dtype (float64, ...);
      by default it is refused (docs/PYTHON.md, "Rows as input").

    Returns a dict from output names to float32 arrays of n values (item k of
    query j at offsets[j] + k, as in the inputs). The GIL is released while
    the native code runs. Raises calcjit.Error naming the input at fault.
    """
    if n is not None:
        n = _args.check_count("evaluate", "n", n)
    if copy is not None:
        _args.check_bool("evaluate", "copy", copy)
    offsets = None
    if group is not None:
        offsets = query_offsets(group)
        if n is not None and n != offsets[-1]:
            raise Error(f"n={n} but group has {offsets[-1]} ids")
    if _matrix.is_matrix(inputs):
        x = _matrix.rows_of(inputs, bool(copy))
        if n is not None and n != x.shape[0]:
            raise _error(f"n={n} but X has {x.shape[0]} rows", "n")
        if offsets is not None and offsets[-1] != x.shape[0]:
            raise _error(f"group has {offsets[-1]} ids but X has {x.shape[0]} rows", "group")
        return self._evaluate_rows(x, offsets, out)
    return self._evaluate(inputs, n, offsets, out, True if copy is None else copy)


def _evaluate_dataframe_method(self, df, group_by=None, outputs=None):
    """Evaluates over the rows of a pandas DataFrame; returns a DataFrame of the
    outputs (float32 columns, the same index). group_by: a column name or one id
    per row (runs of consecutive equal ids are queries); query inputs are taken
    from the first row of each query. outputs: the columns to return. A
    pyarrow.Table, pyarrow.RecordBatch or polars.DataFrame gives the same kind
    of table back (see calcjit.evaluate_arrow)."""
    return _evaluate_dataframe(self, df, group_by=group_by, outputs=outputs)


def _predict(self, X, *, copy=None):
    """The outputs over the rows of X, shaped as XGBoost's predict() shapes them:
    (n,) for one output, (n, k) for k (float32). X is a 2-D array whose column j
    is input j (see evaluate), or a pandas DataFrame (columns by name, category
    columns by their codes). Margins and raw scores, not probabilities:
    docs/MODELS.md says how to write each library's probability."""
    return _matrix.predict(self, X, copy=copy)


def _set_predict(self, X, *, backend="auto", copy=None):
    """Compiles the set for `backend` once (kept on the set), then predicts as
    Engine.predict: calcjit.from_model("ranker.ubj").predict(X)."""
    return _matrix.set_predict(self, X, backend=backend, copy=copy)


# Attached here, declared in _calcjit.pyi (so mypy sees an assignment to a method).
Engine.evaluate = _evaluate  # type: ignore[assignment]
Engine.predict = _predict  # type: ignore[assignment]
ServingEngine.predict = _predict  # type: ignore[assignment]
FeatureSet.predict = _set_predict  # type: ignore[assignment]
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


def evaluate_arrow(target, data, group_by=None, outputs=None, keep=None, backend="auto"):
    """Evaluates a FeatureSet (compiled for `outputs` on `backend`), an Engine or
    a ServingEngine over a pyarrow.Table, pyarrow.RecordBatch or polars.DataFrame;
    returns the same kind of table: the `keep` columns as they are, then a
    float32 column per output. float32 columns without nulls are read in place
    (no copy); other numeric columns are converted once, nulls becoming NaN.
    group_by: None (one query), a column name or one id per row."""
    if isinstance(target, FeatureSet):
        names = [outputs] if isinstance(outputs, str) else outputs
        target = target.compile(backend=backend, outputs=names)
    return _evaluate_arrow(target, data, group_by=group_by, outputs=outputs, keep=keep)


def evaluate_dataframe(target, df, group_by=None, outputs=None):
    """Evaluates a FeatureSet (compiled with backend 'auto'), an Engine or a
    ServingEngine over a DataFrame; see Engine.evaluate_dataframe."""
    return target.evaluate_dataframe(df, group_by=group_by, outputs=outputs)


# The public entry points check their arguments first (_arguments.py): a
# wrong type or value names the function and the argument.
_native_read_file = FeatureSet.read_file
_native_parse = FeatureSet.parse
_native_serialize = FeatureSet.serialize
_native_compile = FeatureSet.compile
_native_from_model = FeatureSet.from_model
_native_serving_init = ServingEngine.__init__
_native_reload = ServingEngine.reload
_native_set_shadow = ServingEngine.set_shadow
_native_is_backend_available = is_backend_available
_native_is_isa_supported = is_isa_supported


def _options(where, options):
    options = _args.check_engine_options(where, options)
    if options.get("disabled_passes", ()) is None:
        del options["disabled_passes"]
    return options


def _read_file_checked(path, format=None, *, model_root=None, allow_any_model_path=False):
    """Reads and checks a set from a file (.calc, .json, .pb or .binpb, or `format`),
    with its models (from the file's folder unless `model_root` is given)."""
    _args.check_path("read_file", "path", path)
    _args.check_optional_str("read_file", "format", format)
    if model_root is not None:
        _args.check_path("read_file", "model_root", model_root)
    _args.check_bool("read_file", "allow_any_model_path", allow_any_model_path)
    return _native_read_file(path, format, model_root=model_root,
                             allow_any_model_path=allow_any_model_path)


def _parse_checked(data, format=None, *, model_root=None, models=None,
                   allow_any_model_path=False):
    """Parses and checks a set: str (text, or JSON with format='json') or bytes; its
    models from `models` (model name to bytes) or files under `model_root`."""
    _args.check_set_data("parse", "data", data)
    _args.check_optional_str("parse", "format", format)
    if model_root is not None:
        _args.check_path("parse", "model_root", model_root)
    _args.check_bool("parse", "allow_any_model_path", allow_any_model_path)
    return _native_parse(data, format, model_root=model_root, models=models,
                         allow_any_model_path=allow_any_model_path)


def _from_model_checked(model, format=None):
    """A trained model on its own as a set: `model` is a path or bytes; its format
    (one of model_formats()) comes from its content or extension unless given."""
    if not isinstance(model, bytes):
        _args.check_path("from_model", "model", model)
    _args.check_optional_str("from_model", "format", format)
    return _native_from_model(model, format)


def _serialize_checked(self, format):
    """The set as 'calc' text or 'json' (str), or 'pb' binary protobuf (bytes)."""
    return _native_serialize(self, _args.check_str("serialize", "format", format))


def _compile_checked(self, **options):
    """Compiles the set: backend ('auto', 'vm', 'jit', 'reference'), outputs (default:
    every definition), isa, disabled_passes, block_size, jit_node_limit, jit_parallel,
    jit_piece_nodes, reuse_compiled (keyword arguments)."""
    return _native_compile(self, **_options("compile", options))


def _serving_init_checked(self, set, format=None, **options):
    """Serves a FeatureSet, or a set given as str/bytes; keyword arguments as compile()."""
    if not isinstance(set, FeatureSet):
        _args.check_set_data("ServingEngine", "set", set)
    _args.check_optional_str("ServingEngine", "format", format)
    _native_serving_init(self, set, format, **_options("ServingEngine", options))


def _reload_checked(self, set, format=None):
    """Checks and compiles a new version, then swaps it in; returns its number."""
    if not isinstance(set, FeatureSet):
        _args.check_set_data("reload", "set", set)
    _args.check_optional_str("reload", "format", format)
    return _native_reload(self, set, format)


def _set_shadow_checked(self, fraction, *, backend="reference", candidate=None, max_recorded=32):
    """Also computes a fraction (0 to 1) of evaluations with another backend, or a
    candidate set, and compares them bit for bit. 0 stops it."""
    _args.check_fraction("set_shadow", "fraction", fraction)
    _args.check_str("set_shadow", "backend", backend)
    if candidate is not None and not isinstance(candidate, FeatureSet):
        raise TypeError("set_shadow(): candidate must be a FeatureSet or None, "
                        f"not {type(candidate).__name__}")
    _args.check_count("set_shadow", "max_recorded", max_recorded)
    _native_set_shadow(self, fraction, backend=backend, candidate=candidate,
                       max_recorded=max_recorded)


def is_backend_available(backend):  # type: ignore[no-redef]  # noqa: F811 (the checked version)
    """Whether this build and machine can run the backend ('reference', 'vm', 'jit', 'auto')."""
    return _native_is_backend_available(_args.check_str("is_backend_available", "backend",
                                                        backend))


def is_isa_supported(name):  # type: ignore[no-redef]  # noqa: F811 (the checked version)
    """Whether this CPU runs the instruction set ('auto', 'x86-64', 'avx2', 'avx512')."""
    return _native_is_isa_supported(_args.check_str("is_isa_supported", "name", name))


FeatureSet.read_file = staticmethod(_read_file_checked)  # type: ignore[assignment]
FeatureSet.parse = staticmethod(_parse_checked)  # type: ignore[assignment]
FeatureSet.from_model = staticmethod(_from_model_checked)  # type: ignore[assignment]
FeatureSet.serialize = _serialize_checked  # type: ignore[assignment]
FeatureSet.compile = _compile_checked  # type: ignore[assignment]
ServingEngine.__init__ = _serving_init_checked  # type: ignore[assignment]
ServingEngine.reload = _reload_checked  # type: ignore[assignment]
ServingEngine.set_shadow = _set_shadow_checked  # type: ignore[assignment]
