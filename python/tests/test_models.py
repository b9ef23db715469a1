"""Models inside feature sets from Python: a model XGBoost itself trains here,
its margins compared bit for bit with XGBoost's own predict(output_margin=True)
on every backend; models by bytes, by model root, on their own; pickling ships
a set with its models; bad models and bad arguments raise."""

import pickle
import re

import numpy as np
import pytest

import calcjit
from conftest import SOURCE_DIR

xgboost = pytest.importorskip("xgboost")

FEATURES = ["price", "rating", "eta"]


@pytest.fixture(scope="module")
def booster_file(tmp_path_factory):
    rng = np.random.default_rng(11)
    x = rng.normal(size=(400, 3)).astype(np.float32)
    x[rng.random(x.shape) < 0.1] = np.nan
    y = (np.nan_to_num(x[:, 0]) - 0.5 * np.nan_to_num(x[:, 1]) > 0).astype(np.float32)
    train = xgboost.DMatrix(x, label=y, feature_names=FEATURES)
    booster = xgboost.train({"objective": "binary:logistic", "max_depth": 4, "nthread": 1,
                             "base_score": 0.3}, train, num_boost_round=12)
    folder = tmp_path_factory.mktemp("models")
    path = folder / "ranker.json"
    booster.save_model(str(path))
    return booster, path


def items(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3)).astype(np.float32) * 2
    x[rng.random(x.shape) < 0.15] = np.nan
    x[0, 0] = -0.0
    return x


def xgboost_margins(booster, x):
    matrix = xgboost.DMatrix(x, feature_names=FEATURES)
    return booster.predict(matrix, output_margin=True).astype(np.float32)


def same_bits(a, b):
    return np.array_equal(np.asarray(a, np.float32).view(np.uint32),
                          np.asarray(b, np.float32).view(np.uint32))


def test_margins_are_xgboosts_own_bits_on_every_backend(booster_file):
    booster, path = booster_file
    text = 'model ranker = xgboost("ranker.json");\nscore = model(ranker)[0];\n' \
           'boosted = 2 * model(ranker, price, rating, eta)[0];\n'
    fs = calcjit.parse(text, model_root=path.parent)
    x = items(1001, 3)  # not a multiple of any vector width or block
    expected = xgboost_margins(booster, x)
    inputs = {name: x[:, j] for j, name in enumerate(FEATURES)}
    for backend in calcjit.available_backends():
        out = fs.compile(backend=backend).evaluate(inputs)
        assert same_bits(out["score"], expected), backend
        assert same_bits(out["boosted"], np.float32(2) * expected), backend


def test_a_model_on_its_own(booster_file):
    booster, path = booster_file
    fs = calcjit.from_model(path)
    assert [i.name for i in fs.inputs] == FEATURES
    assert fs.outputs == ["margin"]
    x = items(64, 5)
    out = fs.compile().evaluate({name: x[:, j] for j, name in enumerate(FEATURES)})
    assert same_bits(out["margin"], xgboost_margins(booster, x))
    same = calcjit.from_model(path.read_bytes(), "xgboost")
    assert same.outputs == ["margin"]


def test_models_by_bytes_and_what_the_set_declares(booster_file):
    _, path = booster_file
    text = 'model ranker = xgboost("anywhere/ranker.json");\nscore = model(ranker)[0];\n'
    fs = calcjit.parse(text, models={"ranker": path.read_bytes()})
    (declared,) = fs.models
    assert declared["name"] == "ranker"
    assert declared["format"] == "xgboost"
    assert declared["features"] == 3 and declared["outputs"] == 1
    assert declared["feature_names"] == FEATURES
    assert "12 trees" in declared["description"]


def test_pickling_ships_the_models_with_the_set(booster_file, tmp_path):
    booster, path = booster_file
    set_file = tmp_path / "set.calc"
    (tmp_path / "ranker.json").write_bytes(path.read_bytes())
    set_file.write_text('model ranker = xgboost("ranker.json");\nscore = model(ranker)[0];\n')
    fs = calcjit.read_file(set_file)
    (tmp_path / "ranker.json").unlink()  # the copy needs no file
    copy = pickle.loads(pickle.dumps(fs))
    x = items(100, 9)
    out = copy.compile().evaluate({name: x[:, j] for j, name in enumerate(FEATURES)})
    assert same_bits(out["score"], xgboost_margins(booster, x))


def test_bad_models_and_bad_arguments(booster_file, tmp_path):
    _, path = booster_file
    text = 'model ranker = xgboost("ranker.json");\nscore = model(ranker)[0];\n'
    with pytest.raises(calcjit.Error, match="no model root"):
        calcjit.parse(text)
    with pytest.raises(calcjit.Error, match="ranker.json"):
        calcjit.parse(text, models={"ranker": b"{not json"})
    with pytest.raises(calcjit.Error, match="outside the model root"):
        calcjit.parse('model r = xgboost("../x.json");\ns = model(r)[0];\n', model_root=tmp_path)
    with pytest.raises(TypeError, match="models"):
        calcjit.parse(text, models=[path.read_bytes()])
    with pytest.raises(TypeError, match="models\\['ranker'\\]"):
        calcjit.parse(text, models={"ranker": "not bytes"})
    with pytest.raises(TypeError, match="model_root"):
        calcjit.parse(text, model_root=3)
    with pytest.raises(ValueError, match="format"):
        calcjit.from_model(b"bytes of no model format")
    with pytest.raises(calcjit.Error, match="unknown model format"):
        calcjit.from_model(path, "sklearn")


def test_bytes_name_their_format_by_content(booster_file):
    booster, path = booster_file
    fs = calcjit.from_model(path.read_bytes())
    x = items(10, 3)
    out = fs.compile().evaluate({name: x[:, j] for j, name in enumerate(FEATURES)})
    assert same_bits(out["margin"], xgboost_margins(booster, x))


def test_model_formats_are_the_tables_rows():
    table = (SOURCE_DIR / "include" / "calcjit" / "model_formats.def").read_text()
    rows = re.findall(r'^CALCJIT_MODEL_FORMAT\(\w+, \d+, "\w+", "(\w+)"', table, re.M)
    assert rows and calcjit.model_formats() == rows
