"""The formulas docs/MODELS.md gives for each library's predict(), checked
against the library itself: models trained by XGBoost 1.7.4 and 3.4.1 and
LightGBM 4.7.0 in their own interpreters (tests/model/library_probabilities.py),
their predict() outputs compared with calcjit's formulas over the margins and
raw scores, on every backend. Margins and raw scores are bit for bit the
libraries' (the parity tests); a probability goes through exp, where the
libraries call the C library's expf or exp and calcjit its own correctly
rounded EXP, so these tests state how often the bits agree and by how much
they may differ, which is what the table of docs/MODELS.md says."""

import os
import pathlib
import subprocess

import numpy as np
import pytest

import calcjit
from conftest import SOURCE_DIR

SCRIPT = SOURCE_DIR / "tests" / "model" / "library_probabilities.py"

# The formulas of docs/MODELS.md, as the text syntax writes them. XGBoost's
# softmax adds the exponentials in float64 and rounds the sum once; the sum
# below gets the same float32 with float32 operations: each addition's
# rounding error recovered exactly (Knuth's TwoSum) and added back at the end.
SOFTMAX4 = """
mx = max(max(model(m)[0], model(m)[1]), max(model(m)[2], model(m)[3]));
e0 = exp(model(m)[0] - mx);
e1 = exp(model(m)[1] - mx);
e2 = exp(model(m)[2] - mx);
e3 = exp(model(m)[3] - mx);
s1 = e0 + e1;
c1 = (e0 - (s1 - (s1 - e0))) + (e1 - (s1 - e0));
s2 = s1 + e2;
c2 = (s1 - (s2 - (s2 - s1))) + (e2 - (s2 - s1));
s3 = s2 + e3;
c3 = (s2 - (s3 - (s3 - s2))) + (e3 - (s3 - s2));
total = s3 + ((c1 + c2) + c3);
p0 = e0 / total;
p1 = e1 / total;
p2 = e2 / total;
p3 = e3 / total;
"""
FORMULAS = {
    "binary:logistic": ("p = 1 / (1 + exp(-model(m)[0]));\n", ["p"]),
    "multi:softprob": (SOFTMAX4, ["p0", "p1", "p2", "p3"]),
    "count:poisson": ("p = exp(model(m)[0]);\n", ["p"]),
    "binary": ("p = 1 / (1 + exp(-model(m)[0]));\n", ["p"]),
    "multiclass": (SOFTMAX4, ["p0", "p1", "p2", "p3"]),
    "regression": ("p = model(m)[0];\n", ["p"]),
}


def ulps(a, b):
    """The distance of float32 arrays in units in the last place."""
    def ordered(v):
        bits = v.astype(np.float32).view(np.int32).astype(np.int64)
        return np.where(bits < 0, -(bits & 0x7FFFFFFF), bits)
    return np.abs(ordered(a) - ordered(b))


def library_outputs(python, library, tmp_path):
    if not python or not pathlib.Path(python).exists():
        pytest.fail(f"{python} is missing: run scripts/setup.sh (it builds the reference venvs)")
    listing = subprocess.run([python, str(SCRIPT), library, str(tmp_path), "20261206"],
                             check=True, capture_output=True, text=True, timeout=300).stdout
    for line in listing.splitlines():
        name, objective = line.split()
        base = tmp_path / name.rsplit(".", 1)[0]
        yield (tmp_path / name, objective, np.load(str(base) + ".rows.npy"),
               np.load(str(base) + ".predict.npy"))


def compare(python, library, tmp_path):
    """Per model and backend: (objective, share of equal bits, largest distance
    in ulps, largest distance over the item's largest score magnitude)."""
    results = {}
    for model, objective, rows, predicted in library_outputs(python, library, tmp_path):
        text, outputs = FORMULAS[objective]
        fs = calcjit.parse(f'model m = {library}("{model.name}");\n{text}',
                           model_root=model.parent)
        expected = predicted.astype(np.float32).reshape(len(rows), -1)
        scores = np.abs(calcjit.from_model(model).predict(rows).reshape(len(rows), -1))
        for backend in calcjit.available_backends():
            out = fs.compile(backend=backend, outputs=outputs).evaluate(rows)
            got = np.column_stack([out[name] for name in outputs])
            distance = ulps(got, expected)
            scaled = distance / np.maximum(scores.max(axis=1, keepdims=True), 1)
            results[(model.stem, backend)] = (objective, float(np.mean(distance == 0)),
                                              int(distance.max()), float(scaled.max()))
    for key, value in sorted(results.items()):
        print(library, key, value)
    return results


@pytest.mark.parametrize("python", ["/usr/bin/python3", "CALCJIT_XGBOOST3_PYTHON"])
def test_xgboost_probabilities_are_its_float32_arithmetic(python, tmp_path):
    """1 / (1 + exp(-margin)) is XGBoost's own float32 sigmoid, and the
    softmax and exp of its other objectives likewise; they differ from
    predict() only where the C library's expf is not correctly rounded: on
    fewer than 1 item in 1,000, by one ulp (two for a softmax, where an
    exponential enters the sum and the quotient)."""
    python = os.environ.get(python, python)
    for (_, backend), (objective, equal, worst, _) in compare(python, "xgboost",
                                                              tmp_path).items():
        assert equal >= 0.999, (objective, backend, equal)
        assert worst <= (2 if objective == "multi:softprob" else 1), (objective, backend, worst)


def test_lightgbm_scores_and_probabilities(tmp_path):
    """A regression model's predict() (and an rf model's, averaged) is its raw
    score, so rounded to float32 it is calcjit's output bit for bit; a binary
    or multiclass probability is LightGBM's float64 sigmoid or softmax of the
    float64 score, which float32 formulas over the rounded score approach but
    cannot always reach."""
    python = os.environ.get("CALCJIT_REFERENCE_PYTHON")
    for (model, backend), (objective, equal, worst, scaled) in compare(python, "lightgbm",
                                                                       tmp_path).items():
        if objective == "regression":
            assert equal == 1.0, (model, backend)
        else:
            # The rounding of the score to float32 dominates: the distance
            # grows with the score's magnitude (measured: at most 2.3 ulps per
            # unit of the item's largest |score|, at least 1).
            assert equal >= 0.25, (model, backend, equal)
            assert scaled <= 3, (model, backend, worst, scaled)
