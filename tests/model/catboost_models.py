"""CatBoost models and CatBoost's own outputs, for the parity tests (spec 6.5).

Run with the reference venv's Python (catboost 1.2.10, scripts/setup.sh;
CMake's ${CALCJIT_REFERENCE_PYTHON}):

  catboost_models.py committed DIR     the committed parity data (tests/model/data/catboost_*)
  catboost_models.py fresh TOOL        models the project has never seen, trained with a
                                       random seed (printed; CALCJIT_MODEL_SEED=N reruns
                                       one), each checked with TOOL (calcjit_model_parity)
                                       as JSON and as .cbm: the CTest model_parity_catboost

Each model NAME is written as NAME.json (save_model(..., format="json")) or
NAME.cbm with NAME.cases: the rows and CatBoost's
predict(prediction_type="RawFormulaVal", thread_count=1), rounded once to
float32, as bits, one row per line:

  <feature bits, 8 hex digits each> : <output bits, one per dimension>

The rows pin every decision: each border of each feature, its float32
neighbours and a value between it and the next border; NaN, +-0, +-inf,
subnormals and +-FLT_MAX in every feature, and rows of them; rows of the
training data. The training data has NaN in some features (so the model has
features of every nan_value_treatment: AsIs where training saw no NaN, AsFalse
for nan_mode Min, AsTrue for Max), infinities, ties at borders, a feature of
adjacent float32 values (adjacent borders) and one of subnormals.

The hand-made models (handmade_*) are JSON files written here, loaded by
CatBoost itself, whose outputs are CatBoost's for what it read: they pin what
trained models cannot reach (a border of +-inf, a border text that rounds
twice, a sum of +0 scaled by a negative scale with no bias).
"""

import json
import os
import random
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
import pandas as pd
import catboost

warnings.filterwarnings("ignore")

F32 = np.float32
SPECIALS = [np.nan, 0.0, -0.0, np.inf, -np.inf, 1e-45, -1e-45, 2.8e-45, 1.1754942e-38,
            -1.1754942e-38, 3.4028235e38, -3.4028235e38, 1.0, -1.0, 0.5]


def bits(value):
    return "%08x" % np.array([value], dtype=F32).view(np.uint32)[0]


def next_up(x):
    return np.nextafter(F32(x), F32(np.inf))


def next_down(x):
    return np.nextafter(F32(x), F32(-np.inf))


def probe_rows(model, base_rows, rng, limit):
    """Rows on and around every border, special values, and `base_rows`."""
    num_features = base_rows.shape[1]
    probes = []
    borders = model.get_borders()
    for j in range(num_features):
        borders_j = [F32(b) for b in borders.get(j, [])]
        for i, b in enumerate(borders_j):
            values = [b, next_down(b), next_up(b)]
            if i + 1 < len(borders_j):
                between = F32((np.float64(b) + np.float64(borders_j[i + 1])) / 2)
                if b < between < borders_j[i + 1]:
                    values.append(between)
            for value in values:
                row = base_rows[rng.integers(len(base_rows))].copy()
                row[j] = value
                probes.append(row)
    rows = [r.copy() for r in base_rows]
    for value in SPECIALS:
        rows.append(np.full(num_features, value, dtype=F32))
        for j in range(num_features):
            row = base_rows[rng.integers(len(base_rows))].copy()
            row[j] = value
            rows.append(row)
    if len(rows) + len(probes) > limit:
        keep = rng.choice(len(probes), max(limit - len(rows), 0), replace=False)
        probes = [probes[i] for i in sorted(keep)]
    return np.array(rows + probes, dtype=F32)


def raw_formula_val(model, rows):
    """CatBoost's RawFormulaVal as float64, [rows, dimensions]."""
    out = model.predict(rows, prediction_type="RawFormulaVal", thread_count=1)
    return np.asarray(out, dtype=np.float64).reshape(len(rows), -1)


def write_cases(path, rows, outputs, what):
    with open(path, "w") as f:
        f.write("# %s: inputs and CatBoost %s predict(prediction_type=\"RawFormulaVal\") "
                "rounded to float32, as bits\n" % (what, catboost.__version__))
        for row, out in zip(rows, outputs.astype(F32)):
            f.write(" ".join(bits(v) for v in row) + " : " + " ".join(bits(v) for v in out) + "\n")


def make_data(rng, n, num_features, nan_features, nan_rate=0.15, inf_rate=0.0):
    x = rng.standard_normal((n, num_features)).astype(F32)
    x[:, 0] = np.round(x[:, 0] * 4) / 4  # ties at borders
    if num_features >= 3:  # adjacent float32 values: adjacent borders
        x[:, 2] = (np.array(1.0, F32).view(np.uint32) + rng.integers(0, 8, n)).astype(
            np.uint32).view(F32)
    if num_features >= 4:  # subnormals and signed zeros
        x[:, 3] = rng.integers(-4, 5, n).astype(F32) * F32(1e-45)
        x[rng.random(n) < 0.2, 3] = -0.0
    for j in nan_features:
        x[rng.random(n) < nan_rate, j] = np.nan
    if num_features >= 2 and inf_rate > 0:  # CatBoost then writes no JSON (a border of -inf)
        x[rng.random(n) < inf_rate, 1] = np.inf
        x[rng.random(n) < inf_rate, 1] = -np.inf
    return x


def target(x, rng):
    z = np.nan_to_num(x.astype(np.float64), nan=0.3, posinf=3.0, neginf=-3.0)
    c = [z[:, j % x.shape[1]] for j in range(4)]
    y = 2 * c[0] + np.sin(3 * c[1]) + (c[2] - 1) * 1e6 + c[0] * c[1]
    return y + 0.1 * rng.standard_normal(len(x))


def train(rng, loss, depth, iterations, num_features=5, n=400, nan_mode="Min",
          per_feature_nan=None, names=False, grow_policy="SymmetricTree", extra=None,
          nan_features=None, infinities=None):
    """A model trained on fresh data, and the data."""
    if nan_features is None:
        nan_features = [j for j in range(1, num_features) if rng.random() < 0.6]
    x = make_data(rng, n, num_features, nan_features,
                  inf_rate=float(rng.choice([0.0, 0.02])) if infinities is None else infinities)
    y = target(x, rng)
    params = dict(loss_function=loss, depth=int(depth), iterations=int(iterations),
                  thread_count=1, verbose=0, random_seed=int(rng.integers(1 << 30)),
                  nan_mode=nan_mode, border_count=int(rng.choice([16, 64, 254])),
                  allow_writing_files=False, grow_policy=grow_policy)
    if per_feature_nan:
        params["per_float_feature_quantization"] = per_feature_nan
    if grow_policy == "Lossguide":
        params["max_leaves"] = int(rng.integers(4, 32))
    params.update(extra or {})
    group_id = None
    if loss == "MultiClass":
        classes = params.pop("classes", 3)
        y = np.digitize(y, np.quantile(y, np.linspace(0, 1, classes + 1)[1:-1]))
    elif loss == "Logloss":
        y = (y > np.median(y)).astype(int)
    elif loss == "MultiRMSE":
        y = np.stack([y, -0.5 * y + np.nan_to_num(x[:, 0])], axis=1)
    elif loss in ("YetiRank", "QuerySoftMax", "PairLogit", "QueryRMSE"):
        y = np.clip(np.round((y - y.min()) / (y.std() + 1e-9)), 0, 4)
        if loss == "QuerySoftMax":
            y = (y >= 2).astype(np.float64)
        group_id = np.repeat(np.arange(n // 10), 10)[:n]
    frame = x
    if names:
        frame = pd.DataFrame(x, columns=["price", "clicks", "age", "tiny", "score", "f6", "f7",
                                         "f8"][:num_features])
    pool = catboost.Pool(frame, y, group_id=group_id)
    model = catboost.CatBoost(params)
    model.fit(pool)
    return model, x


def frame_of(model, rows):
    names = model.feature_names_
    if names and not all(n.isdigit() for n in names):
        return pd.DataFrame(rows, columns=names)
    return rows


def case(directory, name, rng, model, x, formats, limit):
    """Writes the model in `formats` (json, cbm) and its cases. The .cbm
    CatBoost writes must give its float64 outputs exactly when CatBoost loads
    it back (its JSON loader rounds some leaf values an ulp off, so the JSON
    is left to calcjit; docs/MODELS.md). CatBoost cannot write a model with
    an infinite border (trained on infinities) as JSON: such a model is
    written as .cbm only."""
    rows = probe_rows(model, x[:60], rng, limit)
    outputs_rows = frame_of(model, rows)
    outputs = raw_formula_val(model, outputs_rows)
    cbm = os.path.join(directory, name + ".tmp.cbm")
    model.save_model(cbm)
    again = catboost.CatBoost()
    again.load_model(cbm)
    assert np.array_equal(raw_formula_val(again, rows), outputs, equal_nan=True), name
    files = []
    for fmt in formats:
        path = os.path.join(directory, name + "." + fmt)
        if fmt == "json":
            try:
                model.save_model(path, format="json")
            except catboost.CatBoostError as error:
                if "invalid float value" not in str(error) or "cbm" not in formats:
                    raise
                continue
        else:
            os.replace(cbm, path)
        files.append(path)
    if os.path.exists(cbm):
        os.remove(cbm)
    write_cases(os.path.join(directory, name + ".cases"), rows, outputs,
                os.path.basename(files[0]))
    return files


# --- hand-made models: what training does not reach --------------------------

def handmade_edges():
    """Three features: f0 AsTrue with a border of +inf (1e300 read as float64,
    then float32) and a finite border; f1 AsFalse with a border of -inf;
    f2 AsIs with a border whose decimal lies just above the midpoint of 1 and
    the next float32 (the nearest float64 is that midpoint, which rounds to
    1); a depth-0 tree; scale -1 and every bias 0, so a sum of +0 stays -0."""
    text = """{
  "features_info": {"float_features": [
    {"borders": [0.5, 1e300], "feature_id": "", "feature_index": 0, "flat_feature_index": 0,
     "has_nans": true, "nan_value_treatment": "AsTrue"},
    {"borders": [-1e300, -0.25], "feature_id": "", "feature_index": 1, "flat_feature_index": 1,
     "has_nans": true, "nan_value_treatment": "AsFalse"},
    {"borders": [1.0000000596046447754], "feature_id": "", "feature_index": 2,
     "flat_feature_index": 2, "has_nans": false, "nan_value_treatment": "AsIs"}]},
  "oblivious_trees": [
    {"leaf_values": [0.5, -0.5, 0.25, -0.25], "leaf_weights": [1, 1, 1, 1],
     "splits": [{"border": 1e300, "float_feature_index": 0, "split_index": 1,
                 "split_type": "FloatFeature"},
                {"border": -1e300, "float_feature_index": 1, "split_index": 2,
                 "split_type": "FloatFeature"}]},
    {"leaf_values": [-0.5, 0.5, -0.25, 0.25], "leaf_weights": [1, 1, 1, 1],
     "splits": [{"border": 0.5, "float_feature_index": 0, "split_index": 0,
                 "split_type": "FloatFeature"},
                {"border": 1.0000000596046447754, "float_feature_index": 2, "split_index": 4,
                 "split_type": "FloatFeature"}]},
    {"leaf_values": [-0.0], "leaf_weights": [1], "splits": []},
    {"leaf_values": [0, 0], "leaf_weights": [1, 1],
     "splits": [{"border": -0.25, "float_feature_index": 1, "split_index": 3,
                 "split_type": "FloatFeature"}]}],
  "scale_and_bias": [-1, [0]]
}
"""
    edges = [np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, 1.0, 1.0000001, 3.4028235e38,
             -3.4028235e38, -0.25, 1e-45]
    rows = np.array([[a, b, c] for a in edges for b in edges[:7] for c in edges[5:8]], dtype=F32)
    return text, rows


def handmade_nonsymmetric():
    """A non-symmetric tree of two output dimensions with biases, AsTrue and
    AsFalse at the same border, the root's left a leaf."""
    text = """{
  "features_info": {"float_features": [
    {"borders": [-1, 0.75], "feature_id": "price", "feature_index": 0, "flat_feature_index": 0,
     "has_nans": true, "nan_value_treatment": "AsTrue"},
    {"borders": [2.5], "feature_id": "clicks", "feature_index": 1, "flat_feature_index": 1,
     "has_nans": true, "nan_value_treatment": "AsFalse"}]},
  "trees": [
    {"left": {"value": [1.5, -2], "weight": 3},
     "right": {"left": {"value": [0.125, 4], "weight": 1},
               "right": {"left": {"value": [-8, 0.5], "weight": 1},
                         "right": {"value": [16, -0.25], "weight": 1},
                         "split": {"border": -1, "float_feature_index": 0, "split_index": 0,
                                   "split_type": "FloatFeature"}},
               "split": {"border": 2.5, "float_feature_index": 1, "split_index": 2,
                         "split_type": "FloatFeature"}},
     "split": {"border": 0.75, "float_feature_index": 0, "split_index": 1,
               "split_type": "FloatFeature"}},
    {"value": [0.0625, 0.03125], "weight": 7}],
  "scale_and_bias": [0.5, [0.25, -1]]
}
"""
    edges = [np.nan, np.inf, -np.inf, 0.0, -0.0, -1.0, 0.75, 2.5, next_up(0.75), next_down(-1.0),
             3.0, -3.4028235e38]
    rows = np.array([[a, b] for a in edges for b in edges], dtype=F32)
    return text, rows


def write_handmade(directory, name, text, rows):
    path = os.path.join(directory, name + ".json")
    with open(path, "w") as f:
        f.write(text)
    model = catboost.CatBoost()
    model.load_model(path, format="json")
    # Only numbers CatBoost's JSON loader reads exactly (short binary
    # fractions), so its outputs are the file's.
    expected = [v for t in json.loads(text).get("oblivious_trees", []) for v in t["leaf_values"]]
    if expected:
        assert np.array_equal(np.asarray(model.get_leaf_values()), np.array(expected)), name
    write_cases(os.path.join(directory, name + ".cases"), rows,
                raw_formula_val(model, frame_of(model, rows)), name + ".json")


# --- the committed data and the fresh check ----------------------------------

def refused(directory):
    """Models of other features than float ones, which calcjit refuses
    (tests/model/catboost_reader_test.cc checks the messages): no cases."""
    rng = np.random.default_rng(7)
    n = 80
    a = rng.standard_normal(n)
    params = dict(iterations=2, depth=2, verbose=0, thread_count=1, random_seed=1,
                  allow_writing_files=False)
    kinds = {"x": 0, "y": 1, "z": 2, "w": 3}
    frame = pd.DataFrame({"a": a, "c": [list(kinds)[i % 4] for i in range(n)]})
    label = 0.1 * a + 3 * (frame.c == "x")
    for name, one_hot in (("onehot", 10), ("ctr", 1)):
        m = catboost.CatBoostRegressor(cat_features=["c"], one_hot_max_size=one_hot, **params)
        m.fit(frame, label)
        path = os.path.join(directory, "catboost_refused_%s.json" % name)
        m.save_model(path, format="json")
        m.save_model(os.path.join(directory, "catboost_refused_%s.cbm" % name))
        with open(path) as f:  # the trees use the categorical feature
            assert ("ctr_data" if name == "ctr" else "OneHotFeature") in f.read(), name
    text = pd.DataFrame({"a": a, "t": ["red shoes", "blue hat", "red hat", "shoes"] * (n // 4)})
    m = catboost.CatBoostClassifier(text_features=["t"], **params)
    m.fit(text, (a > 0).astype(int))
    m.save_model(os.path.join(directory, "catboost_refused_text.cbm"))
    embedding = pd.DataFrame({"a": a, "e": [rng.standard_normal(3) for _ in range(n)]})
    m = catboost.CatBoostClassifier(**params)
    m.fit(catboost.Pool(embedding, (a > 0).astype(int), embedding_features=["e"]))
    m.save_model(os.path.join(directory, "catboost_refused_embedding.cbm"))


def committed(directory):
    """The trained models as JSON or .cbm, three of them both ways (the
    parity test reads the JSON; catboost_reader_test checks that the .cbm
    reads as the same ensemble), the hand-made ones as JSON, and the refused
    models."""
    rng = np.random.default_rng(20261204)
    limit = 260
    both = ["json", "cbm"]
    m, x = train(rng, "RMSE", 4, 8, nan_mode="Min", infinities=0.0)
    case(directory, "catboost_rmse", rng, m, x, both, limit)
    m, x = train(rng, "Logloss", 5, 5, nan_mode="Max", names=True, infinities=0.0)
    case(directory, "catboost_logloss_named", rng, m, x, ["cbm"], limit)
    m, x = train(rng, "MultiClass", 3, 4, num_features=4, extra={"classes": 3},
                 per_feature_nan="1:nan_mode=Max", infinities=0.0)
    case(directory, "catboost_multiclass", rng, m, x, both, limit)
    m, x = train(rng, "YetiRank", 4, 6, nan_mode="Max", infinities=0.0)
    case(directory, "catboost_yetirank", rng, m, x, ["json"], limit)
    m, x = train(rng, "MultiRMSE", 3, 4, num_features=4, grow_policy="Depthwise",
                 infinities=0.0)
    case(directory, "catboost_multirmse_depthwise", rng, m, x, both, limit)
    m, x = train(rng, "RMSE", 6, 4, num_features=4, grow_policy="Lossguide", nan_mode="Max",
                 infinities=0.0)
    case(directory, "catboost_lossguide", rng, m, x, ["cbm"], limit)
    m, x = train(rng, "RMSE", 4, 6, num_features=4, infinities=0.0)
    m.set_scale_and_bias(-0.75, [0.125])
    case(directory, "catboost_scale_bias", rng, m, x, ["json"], limit)
    # Trained on infinities: a border of -inf, which CatBoost's JSON cannot hold.
    m, x = train(rng, "Logloss", 4, 5, num_features=4, nan_mode="Max", infinities=0.1)
    assert any(np.isinf(b) for bs in m.get_borders().values() for b in bs)
    case(directory, "catboost_infinite_border", rng, m, x, ["cbm"], limit)
    write_handmade(directory, "catboost_handmade_edges", *handmade_edges())
    write_handmade(directory, "catboost_handmade_nonsymmetric", *handmade_nonsymmetric())
    refused(directory)


def fresh_models(directory, rng):
    """(name, files) of a few models nobody has seen: every objective, depths
    4 to 10, 1 to 2,000 trees, every nan_value_treatment, names or none."""
    def nan_mode():
        return str(rng.choice(["Min", "Max"]))

    def mixed():  # one feature of the other treatment
        return "%d:nan_mode=%s" % (rng.integers(1, 4), rng.choice(["Min", "Max"]))

    def names():
        return bool(rng.random() < 0.5)

    def fmt():  # every model both ways
        return ["json", "cbm"]

    specs = [
        ("one_tree", dict(loss="RMSE", depth=rng.integers(4, 11), iterations=1,
                          nan_mode=nan_mode())),
        ("rmse", dict(loss="RMSE", depth=rng.integers(4, 9), iterations=rng.integers(1, 200),
                      nan_mode=nan_mode(), per_feature_nan=mixed())),
        ("logloss", dict(loss="Logloss", depth=rng.integers(4, 11),
                         iterations=rng.integers(1, 25), nan_mode=nan_mode())),
        ("multiclass", dict(loss="MultiClass", depth=rng.integers(4, 7),
                            iterations=rng.integers(2, 40), nan_mode=nan_mode(),
                            extra={"classes": int(rng.integers(3, 6))})),
        ("multirmse", dict(loss="MultiRMSE", depth=rng.integers(4, 7),
                           iterations=rng.integers(2, 40), nan_mode=nan_mode())),
        ("ranking", dict(loss=str(rng.choice(["YetiRank", "QuerySoftMax",
                                              "PairLogit", "QueryRMSE"])),
                         depth=rng.integers(4, 9), iterations=rng.integers(5, 100),
                         nan_mode=nan_mode())),
        ("many_trees", dict(loss="RMSE", depth=int(rng.integers(4, 7)),
                            iterations=rng.integers(1500, 2001), nan_mode=nan_mode(), n=200)),
        ("deep", dict(loss=str(rng.choice(["RMSE", "Logloss"])), depth=10,
                      iterations=rng.integers(2, 12), nan_mode=nan_mode(), n=300)),
        ("nonsymmetric", dict(loss=str(rng.choice(["RMSE", "MultiRMSE", "MultiClass"])),
                              depth=rng.integers(4, 9), iterations=rng.integers(2, 40),
                              grow_policy=str(rng.choice(["Depthwise", "Lossguide"])),
                              nan_mode=nan_mode())),
    ]
    out = []
    for name, spec in specs:
        num_features = int(rng.integers(4, 9))
        model, x = train(rng, num_features=num_features, names=names(), **spec)
        if rng.random() < 0.4:  # scale and bias; all-zero biases with a negative scale too
            dims = model.get_scale_and_bias()[1]
            dims = len(dims) if isinstance(dims, list) else 1
            scale = float(rng.choice([-1.0, -0.3, 0.7, 2.5]))
            bias = [0.0] * dims if rng.random() < 0.5 else list(rng.normal(size=dims))
            model.set_scale_and_bias(scale, bias if dims > 1 else bias[0])
        out.append((name, case(directory, name, rng, model, x, fmt(), limit=1500)))
    return out


def fresh(tool):
    seed = int(os.environ.get("CALCJIT_MODEL_SEED", random.SystemRandom().randrange(1 << 31)))
    print("seed", seed, "(CALCJIT_MODEL_SEED=%d reruns it)" % seed, flush=True)
    start = time.time()
    failures = 0
    checked = 0
    with tempfile.TemporaryDirectory() as directory:
        for name, files in fresh_models(directory, np.random.default_rng(seed)):
            for path in files:
                result = subprocess.run([tool, path, os.path.join(directory, name + ".cases")],
                                        capture_output=True, text=True, timeout=120)
                sys.stdout.write(result.stdout.replace(directory + "/", ""))
                checked += 1
                if result.returncode != 0:
                    failures += 1
                    sys.stdout.write(result.stderr.replace(directory + "/", ""))
    print("%d model files in %.1f s" % (checked, time.time() - start))
    if failures:
        sys.exit("%d of %d fresh CatBoost model files differ from CatBoost (seed %d)"
                 % (failures, checked, seed))


def main():
    mode = sys.argv[1]
    if mode == "committed":
        os.makedirs(sys.argv[2], exist_ok=True)
        committed(sys.argv[2])
    elif mode == "fresh":
        fresh(sys.argv[2])
    else:
        sys.exit("unknown mode " + mode)


if __name__ == "__main__":
    main()
