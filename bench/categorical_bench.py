"""calcjit's tree evaluator on categorical models against their own libraries.

    $CALCJIT_REFERENCE_VENV/bin/python bench/categorical_bench.py [--models DIR] [--rounds 5]

(scripts/reference_paths.sh prints the venv: Debian's python3 with lightgbm
4.7.0 and numpy 2.2; XGBoost is Debian's 1.7.4, imported as bench/peers does.)
One generated data set: 8,000 training rows and 2,000 query rows of 32
features, features 0-3 categorical (as float codes: 20 categories each for 0
and 1, 200 for 2 and 3, say a brand), the others standard normal, 2% NaN
everywhere. Two models of 500 trees, trained
once into DIR (default build/bench-categorical; a later run reuses them):

  xgboost   XGBoost 1.7.4, depth 8, hist, enable_categorical, partition
            splits (max_cat_to_onehot 1): sets of categories per split
  lightgbm  LightGBM 4.7.0, 255 leaves, depth 8, categorical_feature 0-3

Timed on the 2,000 query rows (one query), one thread, the CPU time of this
thread per query (time.thread_time), the median over `rounds` rounds of 15
repetitions, the runners alternating within each round:

  calcjit   Engine.evaluate of calcjit.from_model(the file's bytes), default
            backend and tier, on the feature columns, into preallocated
            buffers
  xgboost   Booster.inplace_predict(rows, predict_type="margin") on a
            DMatrix-free float32 array (its categorical features declared
            in the booster)
  lightgbm  Booster.predict(rows, raw_score=True, num_threads=1)

Before timing, calcjit's outputs are checked bit for bit: against XGBoost's
float32 margins, and against LightGBM's float64 raw scores rounded once to
float32. ns per tree-row is time / (2,000 rows x 500 trees).
"""

import argparse
import json
import os
import pathlib
import statistics
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench" / "peers"))
sys.path.insert(0, str(ROOT / "build" / "python"))

FEATURES = 32
CATEGORICAL = 4
CATEGORIES = [20, 20, 200, 200]
TREES = 500
ROWS = 2000
REPETITIONS = 15


def make_rows(seed, n):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, FEATURES)).astype(np.float32)
    for j, count in enumerate(CATEGORIES):
        x[:, j] = rng.integers(0, count, n).astype(np.float32)
    x[rng.random(x.shape) < 0.02] = np.nan
    return x


def make_target(x, seed):
    rng = np.random.default_rng(seed)
    z = np.nan_to_num(x.astype(np.float64), nan=0.0)
    return ((z[:, 0] % 3) + np.sin(z[:, 1]) + 2 * z[:, 4] + z[:, 5] * (z[:, 2] % 7 > 3)
            + 0.5 * ((z[:, 3] * 37) % 11 > 5)
            + 0.1 * rng.standard_normal(len(x)))


def write_atomically(path, save):
    partial = str(path) + ".part"
    save(partial)
    os.replace(partial, path)


def train(directory):
    from runners import import_debian_xgboost

    x = make_rows(7, 8000)
    y = make_target(x, 8)
    xgb_path = directory / "xgboost-categorical-500x8.json"
    if not xgb_path.exists():
        xgb = import_debian_xgboost()
        types = ["c"] * CATEGORICAL + ["q"] * (FEATURES - CATEGORICAL)
        data = xgb.DMatrix(x, y, missing=np.nan, feature_types=types, enable_categorical=True)
        booster = xgb.train({"objective": "reg:squarederror", "eta": 0.05, "max_depth": 8,
                             "tree_method": "hist", "max_cat_to_onehot": 1, "nthread": 2,
                             "seed": 1, "subsample": 0.5}, data, TREES)
        write_atomically(xgb_path, lambda p: booster.save_model(p + ".json") or
                         os.replace(p + ".json", p))
    lgb_path = directory / "lightgbm-categorical-500x8.txt"
    if not lgb_path.exists():
        import lightgbm
        data = lightgbm.Dataset(x, y, categorical_feature=list(range(CATEGORICAL)))
        booster = lightgbm.train({"objective": "regression", "learning_rate": 0.05,
                                  "num_leaves": 255, "max_depth": 8, "num_threads": 2,
                                  "seed": 1, "bagging_fraction": 0.5, "bagging_freq": 1,
                                  "min_data_in_leaf": 5, "verbose": -1}, data, TREES)
        write_atomically(lgb_path, lambda p: booster.save_model(p))
    return xgb_path, lgb_path


def cpu_time(call):
    start = time.thread_time()
    call()
    return time.thread_time() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=str(ROOT / "build" / "bench-categorical"))
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    directory = pathlib.Path(args.models)
    directory.mkdir(parents=True, exist_ok=True)
    xgb_path, lgb_path = train(directory)

    import calcjit
    import lightgbm
    from runners import import_debian_xgboost
    xgb = import_debian_xgboost()

    rows = make_rows(11, ROWS)
    xgb_booster = xgb.Booster(model_file=str(xgb_path))
    xgb_booster.set_param({"nthread": 1})
    lgb_booster = lightgbm.Booster(model_file=str(lgb_path))
    peers = {
        "xgboost": (xgb_path, lambda: xgb_booster.inplace_predict(rows, predict_type="margin"),
                    lambda got: got.astype(np.float32)),
        "lightgbm": (lgb_path, lambda: lgb_booster.predict(rows, raw_score=True, num_threads=1),
                     lambda got: got.astype(np.float32)),
    }
    for name, (path, predict, as_float32) in peers.items():
        features = calcjit.from_model(path.read_bytes())
        engine = features.compile()
        columns = {i.name: np.ascontiguousarray(rows[:, j]) for j, i in enumerate(features.inputs)}
        out = {o: np.empty(ROWS, np.float32) for o in features.outputs}
        engine.evaluate(columns, out=out)
        want = as_float32(np.asarray(predict()).reshape(ROWS))
        got = out[features.outputs[0]]
        differ = int(np.count_nonzero(got.view(np.uint32) != want.view(np.uint32)))
        if differ:
            sys.exit("%s: calcjit differs from the library on %d of %d rows" % (name, differ, ROWS))
        timings = {"calcjit": [], name: []}
        for _ in range(args.rounds):
            timings["calcjit"].append(statistics.mean(
                cpu_time(lambda: engine.evaluate(columns, out=out)) for _ in range(REPETITIONS)))
            timings[name].append(statistics.mean(cpu_time(predict) for _ in range(REPETITIONS)))
        ours = statistics.median(timings["calcjit"])
        theirs = statistics.median(timings[name])
        description = features.models[0]["description"]
        print(json.dumps({
            "model": path.name, "bit-exact rows": ROWS,
            "calcjit ns/tree-row": round(ours / ROWS / TREES * 1e9, 2),
            "calcjit ms/query": round(ours * 1e3, 3),
            name + " ns/tree-row": round(theirs / ROWS / TREES * 1e9, 2),
            name + " / calcjit": round(theirs / ours, 1),
            "backend": "%s, %s" % (engine.backend, engine.isa),
            "plan": description[description.find("evaluator"):]}))


if __name__ == "__main__":
    main()
