"""A model on its own from Python, as a data scientist calls it: predict(X) on
the rows of a 2-D array (C or Fortran order, strided views, float64 only when
asked) and on DataFrames (category columns by their codes), against the
libraries' own outputs on every backend: XGBoost 1.7.4 trained here, and the
committed and freshly trained models of XGBoost 3.4.1 (JSON and UBJSON) and
LightGBM 4.7.0, whose interpreters (the reference venvs of requirements/) are
not this one: their models and outputs come as files (make_models.py,
make_lightgbm_models.py)."""

import os
import pathlib
import random
import subprocess

import numpy as np
import pytest

import calcjit
from conftest import SOURCE_DIR

xgboost = pytest.importorskip("xgboost")
pd = pytest.importorskip("pandas")

MODEL_DATA = SOURCE_DIR / "tests" / "model" / "data"


def same_bits(a, b):
    a = np.asarray(a, np.float32)
    b = np.asarray(b, np.float32)
    return a.shape == b.shape and np.array_equal(a.view(np.uint32), b.view(np.uint32))


def read_cases(path):
    """Rows and the library's outputs of a committed .cases file."""
    rows, outputs = [], []
    for line in path.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        features, scores = line.split(" : ")
        rows.append([int(t, 16) for t in features.split()])
        outputs.append([int(t, 16) for t in scores.split()])
    as_float = lambda bits: np.array(bits, dtype=np.uint32).view(np.float32)  # noqa: E731
    return as_float(rows), as_float(outputs)


def check_cases(model_path, cases_path, backends=None):
    x, expected = read_cases(cases_path)
    fs = calcjit.from_model(model_path)
    if expected.shape[1] == 1:
        expected = expected[:, 0]
    for backend in backends or calcjit.available_backends():
        assert same_bits(fs.predict(x, backend=backend), expected), (model_path.name, backend)
        # Fortran order: the columns are read in place.
        assert same_bits(fs.predict(np.asfortranarray(x), backend=backend), expected)


@pytest.fixture(scope="module")
def booster():
    rng = np.random.default_rng(23)
    x = rng.normal(size=(300, 6)).astype(np.float32)
    x[rng.random(x.shape) < 0.1] = np.nan
    y = np.nan_to_num(x[:, 0]) * 2 - np.nan_to_num(x[:, 3]) + rng.normal(size=300)
    return xgboost.train({"max_depth": 4, "nthread": 1}, xgboost.DMatrix(x, y), 15), x


def test_predict_on_rows_in_every_layout(booster, tmp_path):
    model, x = booster
    path = tmp_path / "ranker.ubj"
    model.save_model(str(path))
    fs = calcjit.from_model(path)
    assert [i.name for i in fs.inputs] == ["f0", "f1", "f2", "f3", "f4", "f5"]
    wide = np.zeros((600, 9), np.float32)
    wide[::2, 2:8] = x
    layouts = {
        "C": x, "Fortran": np.asfortranarray(x), "rows of a wider array": wide[::2, 2:8],
        "reversed": x[::-1], "one row": x[:1], "no rows": x[:0],
    }
    for name, rows in layouts.items():
        expected = model.predict(xgboost.DMatrix(np.ascontiguousarray(rows)),
                                 output_margin=True) if len(rows) else np.zeros(0, np.float32)
        for backend in calcjit.available_backends():
            assert same_bits(fs.predict(rows, backend=backend), expected), (name, backend)
        engine = fs.compile(backend="vm")
        assert same_bits(engine.evaluate(rows)["margin"], expected), name
        assert same_bits(engine.predict(rows), expected), name


def test_float64_rows_are_converted_only_when_asked(booster, tmp_path):
    model, x = booster
    path = tmp_path / "ranker.json"
    model.save_model(str(path))
    fs = calcjit.from_model(path)
    with pytest.raises(calcjit.Error, match="X is a float64 matrix: calcjit evaluates float32"):
        fs.predict(x.astype(np.float64))
    with pytest.raises(calcjit.Error, match="X is a float64 matrix"):
        fs.compile().evaluate(x.astype(np.float64))
    expected = model.predict(xgboost.DMatrix(x), output_margin=True)
    assert same_bits(fs.predict(x.astype(np.float64), copy=True), expected)
    with pytest.raises(calcjit.Error, match="beyond the float32 range"):
        fs.predict(np.full((2, 6), 1e300), copy=True)
    with pytest.raises(calcjit.Error, match="the matrix has 5 columns but the engine has 6"):
        fs.predict(x[:, :5])
    with pytest.raises(TypeError, match="2-D numpy array"):
        fs.predict(x[0])
    with pytest.raises(calcjit.Error, match="n=3 but X has 300 rows"):
        fs.compile().evaluate(x, n=3)


def test_a_dict_still_converts_by_default(booster, tmp_path):
    model, x = booster
    path = tmp_path / "ranker.json"
    model.save_model(str(path))
    engine = calcjit.from_model(path).compile()
    columns = {f"f{j}": x[:, j].astype(np.float64) for j in range(6)}
    expected = model.predict(xgboost.DMatrix(x), output_margin=True)
    assert same_bits(engine.evaluate(columns)["margin"], expected)


def test_a_matrix_binds_item_scalars_only():
    fs = calcjit.parse("input q: query;\nf = a + q;\n")
    with pytest.raises(calcjit.Error, match="input 'q' is a query input: bind the inputs by name"):
        fs.compile().evaluate(np.zeros((3, 2), np.float32))


def test_dataframe_category_columns_are_their_codes(tmp_path):
    rng = np.random.default_rng(5)
    n = 400
    frame = pd.DataFrame({
        "price": rng.normal(size=n).astype(np.float32),
        "brand": pd.Categorical(rng.choice(["acme", "globex", "initech", "umbrella"], n)),
    })
    frame.loc[rng.random(n) < 0.1, "brand"] = np.nan
    y = frame["price"].to_numpy() + (frame["brand"].cat.codes.to_numpy() % 2)
    model = xgboost.train({"max_depth": 3, "nthread": 1, "max_cat_to_onehot": 1,
                           "tree_method": "hist"},
                          xgboost.DMatrix(frame, y, enable_categorical=True), 8)
    path = tmp_path / "brands.json"
    model.save_model(str(path))
    expected = model.predict(xgboost.DMatrix(frame, enable_categorical=True), output_margin=True)
    fs = calcjit.from_model(path)
    assert [i.name for i in fs.inputs] == ["price", "brand"]
    assert same_bits(fs.predict(frame), expected)
    assert same_bits(fs.evaluate_dataframe(frame)["margin"], expected)


def test_committed_models_of_xgboost3_and_lightgbm():
    for cases in sorted(MODEL_DATA.glob("xgb3_*.cases")) + sorted(MODEL_DATA.glob("lgb*.cases")):
        base = cases.with_suffix("")
        for extension in (".json", ".ubj", ".txt"):
            model = base.with_suffix(extension)
            if model.exists():
                check_cases(model, cases, backends=["vm", "auto"])


def reference_python(variable):
    python = os.environ.get(variable)
    if not python:
        pytest.fail(f"{variable} is not set (CTest sets it from cmake/ReferencePaths.cmake)")
    if not pathlib.Path(python).exists():
        pytest.fail(f"{python} is missing: run scripts/setup.sh (it builds the reference venvs)")
    return python


@pytest.mark.parametrize("variable,script", [
    ("CALCJIT_XGBOOST3_PYTHON", "make_models.py"),
    ("CALCJIT_REFERENCE_PYTHON", "make_lightgbm_models.py"),
])
def test_fresh_models_of_xgboost3_and_lightgbm(variable, script, tmp_path):
    """Models the project has never seen, trained by the library itself, loaded
    and predicted from Python on every backend."""
    python = reference_python(variable)
    seed = int(os.environ.get("CALCJIT_MODEL_SEED", random.SystemRandom().randrange(1 << 31)))
    print("seed", seed)
    names = subprocess.run(
        [python, str(SOURCE_DIR / "tests" / "model" / script), "fresh", str(tmp_path), str(seed)],
        check=True, capture_output=True, text=True, timeout=120).stdout.split()
    assert names
    for name in names:
        model = tmp_path / name
        check_cases(model, model.with_suffix(".cases"))


def test_implied_inputs_from_python():
    """Contract 6.1: model(m)[k] without inputs binds the model's feature names,
    f0, f1, ... for a file that names none."""
    fs = calcjit.parse('model ranker = xgboost("reg_squarederror.json");\n'
                       'score = model(ranker)[0];\n', model_root=MODEL_DATA)
    assert [i.name for i in fs.inputs] == ["f0", "f1", "f2", "f3", "f4"]
    x, expected = read_cases(MODEL_DATA / "reg_squarederror.cases")
    out = fs.compile().evaluate({f"f{j}": x[:, j] for j in range(5)})
    assert same_bits(out["score"], expected[:, 0])
