"""CatBoost models from Python (spec 6.5), through the format table with no
CatBoost-specific code: a model on its own from a .cbm or JSON path or from
bytes, a set declaring catboost("...") with models={...} bytes or a model
root, on every backend; the outputs are CatBoost 1.2.10's own RawFormulaVal
bits, recorded beside the committed models (tests/model/data/catboost_*.cases,
written by tests/model/catboost_models.py). catboost itself is not needed."""

import numpy as np
import pytest

import calcjit
from conftest import MODEL_DATA, model_cases

DATA = MODEL_DATA
cases = model_cases


def same_bits(a, b):
    return np.array_equal(np.asarray(a, np.float32).view(np.uint32),
                          np.asarray(b, np.float32).view(np.uint32))


def test_catboost_is_a_model_format():
    assert "catboost" in calcjit.model_formats()


@pytest.mark.parametrize("file", ["catboost_rmse.cbm", "catboost_rmse.json",
                                  "catboost_lossguide.cbm", "catboost_logloss_named.cbm"])
def test_a_model_on_its_own_by_path_and_by_bytes(file):
    rows, expected = cases(file.rsplit(".", 1)[0])
    for fs in (calcjit.from_model(DATA / file), calcjit.from_model((DATA / file).read_bytes()),
               calcjit.from_model((DATA / file).read_bytes(), "catboost")):
        assert fs.outputs == ["raw_formula_val"]
        names = [i.name for i in fs.inputs]
        if file.startswith("catboost_logloss_named"):
            assert names == ["price", "clicks", "age", "tiny", "score"]
        else:
            assert names == ["f%d" % j for j in range(rows.shape[1])]
        out = fs.compile().evaluate({name: rows[:, j] for j, name in enumerate(names)})
        assert same_bits(out["raw_formula_val"], expected[:, 0]), file


def test_several_dimensions_are_several_outputs():
    rows, expected = cases("catboost_multiclass")
    fs = calcjit.from_model(DATA / "catboost_multiclass.json")
    assert fs.outputs == ["raw_formula_val_0", "raw_formula_val_1", "raw_formula_val_2"]
    out = fs.compile().evaluate({"f%d" % j: rows[:, j] for j in range(rows.shape[1])})
    for k in range(3):
        assert same_bits(out["raw_formula_val_%d" % k], expected[:, k])


def test_a_set_with_models_by_bytes_or_root_on_every_backend():
    rows, expected = cases("catboost_multirmse_depthwise")
    text = ('model m = catboost("catboost_multirmse_depthwise.cbm");\n'
            'first = model(m)[0];\nsecond = model(m, f0, f1, f2, f3)[1];\n'
            'both = first + second;\n')
    inputs = {"f%d" % j: rows[:, j] for j in range(rows.shape[1])}
    by_bytes = calcjit.parse(text, models={
        "m": (DATA / "catboost_multirmse_depthwise.cbm").read_bytes()})
    by_root = calcjit.parse(text, model_root=DATA)
    (declared,) = by_root.models
    assert declared["format"] == "catboost"
    assert declared["features"] == 4 and declared["outputs"] == 2
    assert declared["description"].startswith("catboost: ")
    for fs in (by_bytes, by_root):
        for backend in calcjit.available_backends():
            out = fs.compile(backend=backend).evaluate(inputs)
            assert same_bits(out["first"], expected[:, 0]), backend
            assert same_bits(out["second"], expected[:, 1]), backend
            assert same_bits(out["both"], expected[:, 0] + expected[:, 1]), backend


def test_refused_models_raise_with_why():
    with pytest.raises(calcjit.Error, match="categorical features"):
        calcjit.from_model(DATA / "catboost_refused_onehot.cbm")
    with pytest.raises(calcjit.Error, match="text features"):
        calcjit.parse('model m = catboost("t.cbm");\ns = model(m)[0];\n',
                      models={"m": (DATA / "catboost_refused_text.cbm").read_bytes()})
    broken = (DATA / "catboost_rmse.cbm").read_bytes()[:100]
    with pytest.raises(calcjit.Error, match="x.cbm"):
        calcjit.parse('model m = catboost("x.cbm");\ns = model(m)[0];\n', models={"m": broken})

