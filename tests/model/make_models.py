#!/usr/bin/python3
"""Trains XGBoost models and writes them with XGBoost's own margins.

Run with the interpreter of the XGBoost version to test: Debian's
/usr/bin/python3 (python3-xgboost 1.7.4, numpy, pandas), or the venv of
requirements/xgboost3.txt (xgboost-cpu 3.4.1; CMake's CALCJIT_XGBOOST3_PYTHON):

  make_models.py committed DIR       the committed parity data (tests/model/data);
                                     XGBoost 3.x models are named xgb3_*
  make_models.py fresh DIR SEED      a few random models, for the test-time check
  make_models.py bench DIR           the three benchmark models (bench/, not committed)

Each model NAME is written as NAME.json and/or NAME.ubj (save_model, JSON or
UBJSON by the extension, as XGBoost decides) and, except for bench,
NAME.cases: the rows and XGBoost's predict(..., output_margin=True) margins
as float32 bits, one row per line:

  <feature bits, 8 hex digits each> : <margin bits, one per output group>

The rows are chosen to pin every decision: for every threshold t of every
tree, the threshold's feature at t, nextafter(t, -inf) and nextafter(t, +inf);
rows all NaN, +0, -0, subnormal and huge; and for categorical features
negative, non-integer, out-of-range and NaN categories. (XGBoost refuses
infinite inputs, so those are left to the unit tests.)
"""

import json
import os
import sys
import warnings

import numpy as np
import pandas as pd
import xgboost as xgb

warnings.filterwarnings("ignore")

F32_MAX = np.float32(3.4028235e38)
SPECIAL_VALUES = [
    0.0, -0.0, 1e-45, -1e-45, 1.1754942e-38, -1.1754942e-38, 1.17549435e-38,
    F32_MAX, -F32_MAX, 1e30, -1e30, 1.0, -1.0,
]
CATEGORY_PROBES = [
    -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 1.5, 2.7, 3.0, 3.999, 5.0, 7.0, 31.0, 32.0, 33.5, 1000.0,
    16777215.0, 16777216.0, 3e9, 1e30, -1e30, float("nan"),
]


def bits(value):
    return "%08x" % np.array([value], dtype=np.float32).view(np.uint32)[0]


def thresholds(model_json):
    """(feature, float32 threshold) of every numerical split."""
    out = set()
    for tree in model_json["learner"]["gradient_booster"]["model"]["trees"]:
        types = tree.get("split_type", [0] * len(tree["left_children"]))
        for i, left in enumerate(tree["left_children"]):
            if left != -1 and types[i] == 0:
                out.add((tree["split_indices"][i], float(np.float32(tree["split_conditions"][i]))))
    return sorted(out)


def probe_rows(model_json, base_rows, categorical, rng):
    """Rows that sit on and around every decision of the model."""
    num_features = base_rows.shape[1]
    rows = [r.copy() for r in base_rows]
    for feature, t in thresholds(model_json):
        t32 = np.float32(t)
        for value in (t32, np.nextafter(t32, np.float32(-np.inf)),
                      np.nextafter(t32, np.float32(np.inf))):
            row = base_rows[rng.integers(len(base_rows))].copy()
            row[feature] = value
            rows.append(row)
    rows.append(np.full(num_features, np.nan, dtype=np.float32))
    for value in SPECIAL_VALUES:
        rows.append(np.full(num_features, value, dtype=np.float32))
        for feature in range(num_features):
            row = base_rows[rng.integers(len(base_rows))].copy()
            row[feature] = value
            rows.append(row)
    for feature in categorical:
        for value in CATEGORY_PROBES:
            for _ in range(2):
                row = base_rows[rng.integers(len(base_rows))].copy()
                row[feature] = value
                rows.append(row)
    return np.array(rows, dtype=np.float32)


def margins(booster, rows, feature_names, feature_types):
    """XGBoost's margins, by DMatrix predict, checked against inplace_predict."""
    kwargs = {}
    if feature_types is not None:
        kwargs = dict(feature_names=feature_names, feature_types=feature_types,
                      enable_categorical=True)
    elif feature_names is not None:
        kwargs = dict(feature_names=feature_names)
    matrix = xgb.DMatrix(rows, missing=np.nan, **kwargs)
    by_matrix = np.asarray(booster.predict(matrix, output_margin=True), dtype=np.float32)
    if feature_types is None and feature_names is None:
        inplace = np.asarray(booster.inplace_predict(rows, predict_type="margin"), dtype=np.float32)
        assert np.array_equal(by_matrix.view(np.uint32), inplace.view(np.uint32)), \
            "DMatrix and inplace_predict margins differ"
    return by_matrix.reshape(len(rows), -1)


XGBOOST_MAJOR = int(xgb.__version__.split(".")[0])


def write_model(directory, name, booster, rows, feature_names=None, feature_types=None,
                extensions=(".json",)):
    for extension in extensions:
        booster.save_model(os.path.join(directory, name + extension))
    model_json = json.loads(booster.save_raw("json"))
    out = margins(booster, rows, feature_names, feature_types)
    with open(os.path.join(directory, name + ".cases"), "w") as f:
        f.write("# %s%s: inputs and XGBoost %s predict(output_margin=True), float32 bits\n"
                % (name, " ".join(extensions), xgb.__version__))
        for row, margin in zip(rows, out):
            f.write(" ".join(bits(v) for v in row) + " : " + " ".join(bits(v) for v in margin) +
                    "\n")
    return model_json


def numeric_data(rng, n, num_features, nan_rate=0.0):
    x = rng.standard_normal((n, num_features)).astype(np.float32)
    # A few repeated values make ties at thresholds likely.
    x[:, 0] = np.round(x[:, 0] * 4) / 4
    if nan_rate > 0:
        x[rng.random(x.shape) < nan_rate] = np.nan
    return x


def target(x, rng):
    x0 = np.nan_to_num(x, nan=0.5)
    c = [x0[:, i % x.shape[1]] for i in range(4)]
    return c[0] * 2 + np.sin(3 * c[1]) + c[2] * c[3] + 0.1 * rng.standard_normal(len(x))


def train_numeric(directory, name, rng, objective, rounds=10, depth=4, num_features=5,
                  nan_rate=0.1, n=400, extra=None, label=None, groups=None, probes=60,
                  extensions=(".json",)):
    x = numeric_data(rng, n, num_features, nan_rate)
    y = target(x, rng)
    if label == "binary":
        y = (y > np.median(y)).astype(np.float32)
    elif label == "count":
        y = rng.poisson(np.exp(np.clip(y, -2, 2) / 2)).astype(np.float32)
    elif label == "positive":
        y = np.exp(np.clip(y, -3, 3) / 3).astype(np.float32)
    elif label == "rank":
        y = np.clip(np.round(y - y.min()), 0, 4).astype(np.float32)
    elif label == "targets":  # two regression targets, one tree per target
        y = np.stack([y, np.cos(np.nan_to_num(x[:, 0])) * 3 - 1], axis=1).astype(np.float32)
    elif isinstance(label, int):
        y = (np.digitize(y, np.quantile(y, np.linspace(0, 1, label + 1)[1:-1]))).astype(np.float32)
    params = {"objective": objective, "max_depth": depth, "eta": 0.3, "tree_method": "hist",
              "nthread": 1, "seed": int(rng.integers(1 << 30))}
    params.update(extra or {})
    matrix = xgb.DMatrix(x, y, missing=np.nan)
    if groups:
        matrix.set_group([n // groups] * groups)
    booster = xgb.train(params, matrix, rounds)
    model_json = json.loads(booster.save_raw("json"))
    rows = probe_rows(model_json, x[:probes], [], rng)
    return write_model(directory, name, booster, rows, extensions=extensions)


def train_categorical(directory, name, rng, objective="reg:squarederror", rounds=8, depth=4,
                      onehot=1, num_class=None, n=500, num_categories=(6, 40),
                      extensions=(".json",)):
    frame = pd.DataFrame({
        "price": rng.standard_normal(n).astype(np.float32),
        "brand": pd.Categorical(rng.integers(0, num_categories[0], n)),
        "clicks": np.round(rng.standard_normal(n) * 3).astype(np.float32),
        "shop": pd.Categorical(rng.integers(0, num_categories[1], n)),
    })
    codes = np.stack([frame["price"].values, frame["brand"].cat.codes.values.astype(np.float32),
                      frame["clicks"].values,
                      frame["shop"].cat.codes.values.astype(np.float32)], axis=1)
    y = (frame["price"].values + (codes[:, 1] % 3) + np.sin(codes[:, 3]) +
         0.1 * rng.standard_normal(n))
    missing = rng.random(n) < 0.1
    frame.loc[missing, "brand"] = np.nan
    codes[missing, 1] = np.nan
    params = {"objective": objective, "max_depth": depth, "eta": 0.3, "tree_method": "hist",
              "max_cat_to_onehot": onehot, "nthread": 1, "seed": int(rng.integers(1 << 30))}
    if num_class:
        params["num_class"] = num_class
        y = np.digitize(y, np.quantile(y, np.linspace(0, 1, num_class + 1)[1:-1]))
    booster = xgb.train(params, xgb.DMatrix(frame, y, enable_categorical=True), rounds)
    model_json = json.loads(booster.save_raw("json"))
    rows = probe_rows(model_json, codes[:50], [1, 3], rng)
    return write_model(directory, name, booster, rows, feature_names=list(frame.columns),
                       feature_types=["q", "c", "q", "c"], extensions=extensions)


def committed(directory):
    if XGBOOST_MAJOR >= 3:
        return committed_xgboost3(directory)
    rng = np.random.default_rng(20261201)
    train_numeric(directory, "reg_squarederror", rng, "reg:squarederror")
    train_numeric(directory, "binary_logistic", rng, "binary:logistic", label="binary",
                  extensions=(".json", ".ubj"))
    train_numeric(directory, "binary_logistic_base03", rng, "binary:logistic", label="binary",
                  extra={"base_score": 0.3})
    train_numeric(directory, "binary_logitraw_base08", rng, "binary:logitraw", label="binary",
                  rounds=6, extra={"base_score": 0.8})
    train_numeric(directory, "reg_logistic", rng, "reg:logistic", label="binary", rounds=6)
    train_numeric(directory, "rank_pairwise", rng, "rank:pairwise", label="rank", groups=20)
    train_numeric(directory, "rank_ndcg", rng, "rank:ndcg", label="rank", groups=20, rounds=6)
    train_numeric(directory, "multi_softprob", rng, "multi:softprob", label=4, rounds=5, depth=3,
                  extra={"num_class": 4}, extensions=(".json", ".ubj"))
    train_numeric(directory, "multi_softmax", rng, "multi:softmax", label=3, rounds=4, depth=3,
                  extra={"num_class": 3})
    train_numeric(directory, "count_poisson_base2", rng, "count:poisson", label="count",
                  extra={"base_score": 2.0})
    train_numeric(directory, "reg_gamma", rng, "reg:gamma", label="positive", rounds=6)
    train_numeric(directory, "reg_tweedie_base15", rng, "reg:tweedie", label="positive", rounds=6,
                  extra={"base_score": 1.5})
    train_numeric(directory, "reg_pseudohuber_base07", rng, "reg:pseudohubererror", rounds=6,
                  extra={"base_score": 0.7})
    train_numeric(directory, "reg_absoluteerror", rng, "reg:absoluteerror", rounds=6)
    train_numeric(directory, "nan_heavy", rng, "reg:squarederror", nan_rate=0.6, rounds=10)
    train_numeric(directory, "exact_pruned", rng, "reg:squarederror", rounds=8,
                  extra={"tree_method": "exact", "gamma": 2.0, "max_depth": 5})
    train_numeric(directory, "lossguide", rng, "reg:squarederror", rounds=5, depth=0,
                  extra={"grow_policy": "lossguide", "max_leaves": 24})
    train_categorical(directory, "categorical_partition", rng, extensions=(".json", ".ubj"))
    train_categorical(directory, "categorical_onehot", rng, onehot=64, rounds=6)
    train_categorical(directory, "categorical_softprob", rng, objective="multi:softprob",
                      num_class=3, rounds=3, depth=3)
    # Added with XGBoost 3.x support (after the others, so that they keep
    # their random draws): two targets, a boosted random forest, a base score
    # where glibc's logf is not correctly rounded (docs/MODELS.md).
    train_numeric(directory, "multi_target", rng, "reg:squarederror", label="targets", rounds=4,
                  depth=3)
    train_numeric(directory, "random_forest", rng, "reg:squarederror", rounds=3, depth=3,
                  extra={"num_parallel_tree": 3, "subsample": 0.6, "colsample_bynode": 0.6})
    train_numeric(directory, "binary_logistic_logf", rng, "binary:logistic", label="binary",
                  rounds=3, extra={"base_score": 0.4743731259841009})


def committed_xgboost3(directory):
    """XGBoost 3.x: the same kinds of model, saved as JSON and UBJSON (its
    default), with the base scores 3.x estimates from the labels (one per class
    or target)."""
    rng = np.random.default_rng(20261204)
    both = (".json", ".ubj")
    train_numeric(directory, "xgb3_reg_squarederror", rng, "reg:squarederror", extensions=both)
    train_numeric(directory, "xgb3_binary_logistic", rng, "binary:logistic", label="binary",
                  extensions=both)
    train_numeric(directory, "xgb3_reg_logistic", rng, "reg:logistic", label="binary", rounds=4,
                  extensions=(".ubj",))
    train_numeric(directory, "xgb3_rank_pairwise", rng, "rank:pairwise", label="rank", groups=20,
                  extensions=both)
    train_numeric(directory, "xgb3_rank_ndcg", rng, "rank:ndcg", label="rank", groups=20,
                  rounds=6, extensions=both)
    train_numeric(directory, "xgb3_multi_softprob", rng, "multi:softprob", label=4, rounds=4,
                  depth=3, extra={"num_class": 4}, extensions=both)
    train_numeric(directory, "xgb3_multi_target", rng, "reg:squarederror", label="targets",
                  rounds=4, depth=3, extensions=(".ubj",))
    train_numeric(directory, "xgb3_count_poisson", rng, "count:poisson", label="count", rounds=5,
                  extensions=(".ubj",))
    train_numeric(directory, "xgb3_reg_gamma", rng, "reg:gamma", label="positive", rounds=5,
                  extensions=(".json",))
    train_numeric(directory, "xgb3_nan_heavy", rng, "reg:squarederror", nan_rate=0.6, rounds=6,
                  extensions=(".ubj",))
    train_numeric(directory, "xgb3_random_forest", rng, "reg:squarederror", rounds=3, depth=3,
                  extra={"num_parallel_tree": 3, "subsample": 0.6, "colsample_bynode": 0.6},
                  extensions=(".ubj",))
    train_categorical(directory, "xgb3_categorical_partition", rng, extensions=both)
    train_categorical(directory, "xgb3_categorical_onehot", rng, onehot=64, rounds=5,
                      extensions=(".ubj",))
    train_categorical(directory, "xgb3_categorical_softprob", rng, objective="multi:softprob",
                      num_class=3, rounds=3, depth=3, extensions=(".ubj",))


def fresh(directory, seed):
    """A few models the project has never seen: random objective, shape, data and
    file format (JSON or UBJSON)."""
    rng = np.random.default_rng(seed)
    choices = [
        ("reg:squarederror", None, {}), ("binary:logistic", "binary", {}),
        ("binary:logistic", "binary", {"base_score": float(rng.uniform(0.05, 0.95))}),
        ("count:poisson", "count", {"base_score": float(rng.uniform(0.2, 5))}),
        ("multi:softprob", 3, {"num_class": 3}), ("rank:pairwise", "rank", {}),
        ("rank:ndcg", "rank", {}), ("reg:gamma", "positive", {}),
        ("reg:squarederror", "targets", {}),
    ]
    prefix = "fresh_xgb%d_" % XGBOOST_MAJOR
    names = []
    for i in range(4):
        objective, label, extra = choices[rng.integers(len(choices))]
        extra = dict(extra)
        if rng.random() < 0.3:
            extra.update({"grow_policy": "lossguide", "max_leaves": int(rng.integers(4, 32))})
        name = "%s%d_%s" % (prefix, i, objective.replace(":", "_"))
        extension = str(rng.choice([".json", ".ubj"]))
        train_numeric(directory, name, rng, objective, rounds=int(rng.integers(3, 12)),
                      depth=int(rng.integers(1, 7)), num_features=int(rng.integers(1, 9)),
                      nan_rate=float(rng.choice([0.0, 0.1, 0.5])), label=label, extra=extra,
                      groups=10 if label == "rank" else None, probes=30,
                      extensions=(extension,))
        names.append(name + extension)
    name = prefix + "categorical"
    extension = str(rng.choice([".json", ".ubj"]))
    train_categorical(directory, name, rng, onehot=int(rng.choice([1, 4, 64])),
                      rounds=int(rng.integers(2, 8)), depth=int(rng.integers(2, 6)),
                      extensions=(extension,))
    names.append(name + extension)
    return names


def bench(directory):
    """The benchmark models: 100 trees of depth 6, 500 of depth 8, 1,000 of 64 leaves."""
    rng = np.random.default_rng(7)
    n, num_features = 8000, 32
    x = numeric_data(rng, n, num_features, nan_rate=0.02)
    y = target(x, rng) + np.nansum(x[:, 4:], axis=1) * 0.05
    matrix = xgb.DMatrix(x, y, missing=np.nan)
    specs = [
        ("bench_100x6", 100, {"max_depth": 6}),
        ("bench_500x8", 500, {"max_depth": 8}),
        ("bench_1000x64leaves", 1000, {"grow_policy": "lossguide", "max_leaves": 64,
                                       "max_depth": 0, "max_bin": 64}),
    ]
    for name, rounds, extra in specs:
        path = os.path.join(directory, name + ".json")
        if os.path.exists(path):
            continue
        params = {"objective": "reg:squarederror", "eta": 0.05, "tree_method": "hist",
                  "nthread": os.cpu_count() or 1, "seed": 1, "subsample": 0.5}
        params.update(extra)
        rows = matrix if rounds < 1000 else xgb.DMatrix(x[:5000], y[:5000], missing=np.nan)
        xgb.train(params, rows, rounds).save_model(path + ".part.json")  # the name picks JSON
        os.replace(path + ".part.json", path)
    x[:2000].tofile(os.path.join(directory, "bench_rows.f32"))


def main():
    mode, directory = sys.argv[1], sys.argv[2]
    os.makedirs(directory, exist_ok=True)
    if mode == "committed":
        committed(directory)
    elif mode == "fresh":
        for name in fresh(directory, int(sys.argv[3])):
            print(name)
    elif mode == "bench":
        bench(directory)
    else:
        sys.exit("unknown mode " + mode)


if __name__ == "__main__":
    main()
