#!/usr/bin/env python3
"""Trains LightGBM models and writes them with LightGBM's own raw scores.

Run with the reference venv's interpreter (requirements/reference.txt:
lightgbm 4.7.0, numpy; CMake's CALCJIT_REFERENCE_PYTHON):

  make_lightgbm_models.py committed DIR   the committed parity data (DIR/lgb4_*)
  make_lightgbm_models.py hand DIR        the outputs of the hand-written models
                                          (DIR/lgb_*.txt), from LightGBM itself
  make_lightgbm_models.py fresh DIR SEED  a few random models, for the test-time check

Each model NAME is written as NAME.txt (save_model) and NAME.cases: the rows
and LightGBM's outputs as float32 bits, one row per line:

  <feature bits, 8 hex digits each> : <output bits, one per class>

An output is LightGBM's predict(rows, raw_score=True), computed in float64,
rounded once to float32. For a model with average_output (boosting rf) it is
that raw score divided by the number of iterations in float64: LightGBM's
predict(raw_score=True) returns the sum of the trees before averaging, and
its predict() averages in float64 before its transform (GBDT::Predict); the
contract (section 6.3) and calcjit give the averaged score (docs/MODELS.md).

A LightGBM file carries no best iteration: save_model writes the best
iteration's trees by default, and a Booster loaded from the file predicts
with every tree in it, as calcjit does (the cases lgb4_best_iteration and
lgb4_all_iterations show both ways of saving).

The rows pin every decision: for every threshold t, the float32 values
nearest to t on both sides and their neighbours; rows all NaN, +-0, +-1e-35f
and its neighbours (LightGBM's zero threshold), subnormal, huge and infinite;
and for categorical features negative, non-integer, huge and NaN codes and
codes beyond every bitset.
"""

import os
import sys
import warnings

import lightgbm as lgb
import numpy as np

warnings.filterwarnings("ignore")

F32 = np.float32
F32_MAX = np.finfo(np.float32).max
TINY = F32(1e-35)  # LightGBM's kZeroThreshold as a float32
SPECIAL_VALUES = [
    0.0, -0.0, TINY, -TINY, np.nextafter(TINY, F32(1)), np.nextafter(-TINY, F32(-1)),
    np.nextafter(TINY, F32(0)), 1e-45, -1e-45, 1.1754942e-38, F32_MAX, -F32_MAX, 1e30, -1e30,
    1.0, -1.0, np.inf, -np.inf,
]
CATEGORY_PROBES = [
    -1.0, -0.5, -0.0, 0.0, 0.5, 0.999, 1.0, 1.5, 2.0, 3.0, 7.0, 31.0, 32.0, 33.5, 63.0, 64.0,
    255.0, 1000.0, 2147483520.0, 2147483648.0, 3e9, 4294967296.0, 1e30, -1e30, -3e9,
    np.inf, -np.inf, np.nan, float(TINY),
]


def bits(value):
    return "%08x" % np.array([value], dtype=np.float32).view(np.uint32)[0]


def nodes(booster):
    """Every split of every tree, as LightGBM itself parsed them."""
    stack = [tree["tree_structure"] for tree in booster.dump_model()["tree_info"]]
    while stack:
        node = stack.pop()
        if "split_feature" in node:
            yield node
            stack.extend((node["left_child"], node["right_child"]))


def float32_around(t):
    """The float32 values at and next to a float64 threshold t."""
    near = F32(t)
    out = {near, np.nextafter(near, F32(-np.inf)), np.nextafter(near, F32(np.inf))}
    return [v for v in out if np.isfinite(v)]


def probe_rows(booster, base_rows, categorical, rng):
    num_features = base_rows.shape[1]
    rows = [r.copy() for r in base_rows]

    def with_value(feature, value):
        row = base_rows[rng.integers(len(base_rows))].copy()
        row[feature] = value
        rows.append(row)

    for node in nodes(booster):
        feature = node["split_feature"]
        if node["decision_type"] == "==":
            categories = [int(c) for c in str(node["threshold"]).split("||")]
            # A few of the set's categories, its largest, and their neighbours.
            chosen = set(rng.choice(categories, min(4, len(categories)), replace=False))
            for category in chosen | {max(categories)}:
                for value in (category, category + 0.5, category + 1):
                    with_value(feature, value)
        else:
            for value in float32_around(node["threshold"]):
                with_value(feature, value)
    rows.append(np.full(num_features, np.nan, dtype=np.float32))
    for value in SPECIAL_VALUES:
        rows.append(np.full(num_features, value, dtype=np.float32))
        for feature in range(num_features):
            with_value(feature, value)
    for feature in categorical:
        for value in CATEGORY_PROBES:
            for _ in range(2):
                with_value(feature, value)
    return np.array(rows, dtype=np.float32)


def raw_scores(booster, rows):
    """LightGBM's raw scores of the rows (float64 inputs equal to the float32
    rows), averaged in float64 for average_output models, rounded to float32."""
    raw = np.asarray(booster.predict(rows.astype(np.float64), raw_score=True), dtype=np.float64)
    raw = raw.reshape(len(rows), -1)
    note = "predict(raw_score=True)"
    if "\naverage_output\n" in booster.model_to_string():
        raw = raw / np.float64(booster.current_iteration())
        note += " / iterations (average_output)"
    return raw.astype(np.float32), note


def write_cases(path, name, booster, rows):
    out, note = raw_scores(booster, rows)
    with open(path, "w") as f:
        f.write("# %s.txt: inputs and LightGBM %s %s in float64, rounded to float32, as bits\n"
                % (name, lgb.__version__, note))
        for row, scores in zip(rows, out):
            f.write(" ".join(bits(v) for v in row) + " : " + " ".join(bits(v) for v in scores)
                    + "\n")


def write_model(directory, name, booster, rows, num_iteration=None):
    path = os.path.join(directory, name + ".txt")
    booster.save_model(path, num_iteration=num_iteration)
    # Outputs of the file as LightGBM reads it back, not of the booster in memory.
    loaded = lgb.Booster(model_file=path)
    write_cases(os.path.join(directory, name + ".cases"), name, loaded, rows)
    return name + ".txt"


def numeric_data(rng, n, num_features, nan_rate=0.0, zero_rate=0.0):
    x = rng.standard_normal((n, num_features)).astype(np.float32)
    x[:, 0] = np.round(x[:, 0] * 4) / 4  # repeated values: ties at thresholds
    if zero_rate > 0:
        x[rng.random(x.shape) < zero_rate] = 0.0
    if nan_rate > 0:
        x[rng.random(x.shape) < nan_rate] = np.nan
    return x


def target(x, rng):
    x0 = np.nan_to_num(x, nan=0.5)
    c = [x0[:, i % x.shape[1]] for i in range(4)]
    return c[0] * 2 + np.sin(3 * c[1]) + c[2] * c[3] + 0.1 * rng.standard_normal(len(x))


def labels(kind, y, rng):
    if kind == "binary":
        return (y > np.median(y)).astype(np.float64)
    if kind == "rank":
        return np.clip(np.round(y - y.min()), 0, 4).astype(np.float64)
    if isinstance(kind, int):
        return np.digitize(y, np.quantile(y, np.linspace(0, 1, kind + 1)[1:-1])).astype(float)
    return y


def base_params(rng, objective, num_leaves):
    return {"objective": objective, "num_leaves": num_leaves, "learning_rate": 0.3,
            "min_data_in_leaf": 5, "num_threads": 1, "deterministic": True, "verbose": -1,
            "seed": int(rng.integers(1 << 30))}


def train_numeric(directory, name, rng, objective="regression", rounds=8, num_leaves=8,
                  num_features=5, nan_rate=0.1, zero_rate=0.0, n=400, label=None, groups=None,
                  extra=None, probes=50):
    x = numeric_data(rng, n, num_features, nan_rate, zero_rate)
    y = labels(label, target(x, rng), rng)
    params = base_params(rng, objective, num_leaves)
    params.update(extra or {})
    data = lgb.Dataset(x, y, group=[n // groups] * groups if groups else None)
    booster = lgb.train(params, data, rounds)
    rows = probe_rows(booster, x[:probes], [], rng)
    return write_model(directory, name, booster, rows)


def train_categorical(directory, name, rng, objective="regression", rounds=8, num_leaves=12,
                      many=300, few=3, n=1500, extra=None, label=None):
    x = numeric_data(rng, n, 4, nan_rate=0.05)
    x[:, 1] = rng.integers(0, many, n)  # many categories
    x[:, 3] = rng.integers(0, few, n)   # few categories (one-hot splits)
    x[rng.random(n) < 0.05, 1] = np.nan
    effect = np.sin(np.nan_to_num(x[:, 1]) * 0.37) * 2 + (x[:, 3] == 1)
    y = labels(label, np.nan_to_num(x[:, 0]) + effect + 0.1 * rng.standard_normal(n), rng)
    params = base_params(rng, objective, num_leaves)
    params.update({"max_cat_to_onehot": 4, "min_data_per_group": 5, "cat_smooth": 1.0,
                   "max_cat_threshold": 64})
    params.update(extra or {})
    data = lgb.Dataset(x, y, categorical_feature=[1, 3])
    booster = lgb.train(params, data, rounds)
    rows = probe_rows(booster, x[:60], [1, 3], rng)
    return write_model(directory, name, booster, rows)


def train_early_stopped(directory, rng):
    """One booster trained past its best iteration, saved both ways."""
    x = numeric_data(rng, 600, 4, nan_rate=0.1)
    y = target(x, rng) + rng.standard_normal(600)
    train = lgb.Dataset(x[:400], y[:400])
    valid = lgb.Dataset(x[400:], y[400:], reference=train)
    params = base_params(rng, "regression", 8)
    params["learning_rate"] = 0.5
    booster = lgb.train(params, train, 200, valid_sets=[valid], keep_training_booster=True,
                        callbacks=[lgb.early_stopping(3, verbose=False)])
    assert booster.best_iteration < booster.current_iteration()
    rows = probe_rows(booster, x[:50], [], rng)
    write_model(directory, "lgb4_best_iteration", booster, rows)  # the default: best only
    write_model(directory, "lgb4_all_iterations", booster, rows, num_iteration=-1)


def linear_tree(directory, rng):
    """A linear-tree model (no cases: calcjit refuses it, reader_test checks how),
    in DIR/refused/, apart from the models every test loads."""
    x = numeric_data(rng, 300, 3)
    params = base_params(rng, "regression", 4)
    params["linear_tree"] = True
    booster = lgb.train(params, lgb.Dataset(x, target(x, rng)), 2)
    os.makedirs(os.path.join(directory, "refused"), exist_ok=True)
    booster.save_model(os.path.join(directory, "refused", "lgb4_linear_tree.txt"))


def committed(directory):
    rng = np.random.default_rng(20261205)
    train_numeric(directory, "lgb4_regression_nan", rng, nan_rate=0.2)
    train_numeric(directory, "lgb4_missing_none", rng, nan_rate=0.2,
                  extra={"use_missing": False})
    train_numeric(directory, "lgb4_zero_as_missing", rng, nan_rate=0.1, zero_rate=0.2,
                  extra={"zero_as_missing": True})
    train_numeric(directory, "lgb4_binary", rng, objective="binary", label="binary")
    train_numeric(directory, "lgb4_multiclass", rng, objective="multiclass", label=4, rounds=5,
                  extra={"num_class": 4})
    train_numeric(directory, "lgb4_lambdarank", rng, objective="lambdarank", label="rank",
                  groups=20)
    train_numeric(directory, "lgb4_rf", rng, rounds=5,
                  extra={"boosting": "rf", "bagging_fraction": 0.7, "bagging_freq": 1,
                         "feature_fraction": 0.8})
    train_categorical(directory, "lgb4_categorical", rng)
    train_categorical(directory, "lgb4_categorical_multiclass", rng, objective="multiclass",
                      label=3, rounds=3, extra={"num_class": 3})
    train_early_stopped(directory, rng)
    linear_tree(directory, rng)


def hand(directory):
    """LightGBM's outputs for the hand-written models, on the rows of their
    committed cases (written for calcjit's first LightGBM reader from the
    format's documentation; LightGBM confirmed every committed bit)."""
    for name in sorted(os.listdir(directory)):
        if not (name.startswith("lgb_") and name.endswith(".txt")):
            continue
        base = os.path.join(directory, name[:-4])
        rows = []
        with open(base + ".cases") as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    rows.append([int(t, 16) for t in line.split(":")[0].split()])
        rows = np.array(rows, dtype=np.uint32).view(np.float32)
        write_cases(base + ".cases", name[:-4], lgb.Booster(model_file=base + ".txt"), rows)
        print(name)


def fresh(directory, seed):
    """A few models the project has never seen: random objective, missing
    handling, shape and data."""
    rng = np.random.default_rng(seed)
    names = []
    for i in range(3):
        choice = int(rng.integers(6))
        extra = {}
        objective, label = "regression", None
        if choice == 1:
            extra = {"use_missing": False}
        elif choice == 2:
            extra = {"zero_as_missing": True}
        elif choice == 3:
            objective, label = "binary", "binary"
        elif choice == 4:
            objective, label, extra = "multiclass", 3, {"num_class": 3}
        elif choice == 5:
            extra = {"boosting": "rf", "bagging_fraction": 0.6, "bagging_freq": 1}
        names.append(train_numeric(
            directory, "fresh_lgb4_%d_%s" % (i, objective), rng, objective=objective,
            rounds=int(rng.integers(2, 10)), num_leaves=int(rng.integers(2, 32)),
            num_features=int(rng.integers(1, 8)), nan_rate=float(rng.choice([0.0, 0.1, 0.4])),
            zero_rate=float(rng.choice([0.0, 0.2])), label=label, extra=extra, probes=30))
    names.append(train_categorical(directory, "fresh_lgb4_categorical", rng,
                                   rounds=int(rng.integers(2, 6)),
                                   many=int(rng.integers(5, 400)), n=800))
    return names


def main():
    mode, directory = sys.argv[1], sys.argv[2]
    os.makedirs(directory, exist_ok=True)
    if mode == "committed":
        committed(directory)
    elif mode == "hand":
        hand(directory)
    elif mode == "fresh":
        for name in fresh(directory, int(sys.argv[3])):
            print(name)
    else:
        sys.exit("unknown mode " + mode)


if __name__ == "__main__":
    main()
