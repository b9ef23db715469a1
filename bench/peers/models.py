"""The data set and the models of the peers' benchmark, trained once into a folder.

One generated regression data set (32 standard normal features, 2% NaN, a
target of a few features' interactions plus noise; the recipe of
tests/model/make_models.py's benchmark models) trains, for each size, an
XGBoost model (Debian's XGBoost 1.7.4), its LightGBM counterpart and its
CatBoost counterpart (the reference venv's). The query is 2,000 other rows
of the same distribution. Every file is written under a temporary name and
renamed, so an interrupted run leaves no model that looks whole, and a later
run reuses what is there (a model's file name carries its size and the mode).
"""

import os
import pathlib

import numpy as np

FEATURES = 32

# mode -> [(size name, trees, XGBoost parameters, LightGBM parameters,
#           CatBoost parameters)], the three families trained alike per size.
SIZES = {
    "full": [
        ("100x6", 100, {"max_depth": 6}, {"num_leaves": 64, "max_depth": 6}, {"depth": 6}),
        ("500x8", 500, {"max_depth": 8}, {"num_leaves": 256, "max_depth": 8}, {"depth": 8}),
        ("1000x64leaves", 1000,
         {"grow_policy": "lossguide", "max_leaves": 64, "max_depth": 0, "max_bin": 64},
         {"num_leaves": 64, "max_depth": -1},
         {"grow_policy": "Lossguide", "max_leaves": 64, "depth": 16}),
    ],
    # The ctest (label peers): the same three shapes, small, in seconds.
    "ci": [
        ("10x4", 10, {"max_depth": 4}, {"num_leaves": 16, "max_depth": 4}, {"depth": 4}),
        ("20x6", 20, {"max_depth": 6}, {"num_leaves": 64, "max_depth": 6}, {"depth": 6}),
        ("20x16leaves", 20,
         {"grow_policy": "lossguide", "max_leaves": 16, "max_depth": 0, "max_bin": 64},
         {"num_leaves": 16, "max_depth": -1},
         {"grow_policy": "Lossguide", "max_leaves": 16, "depth": 10}),
    ],
}
TRAIN_ROWS = {"full": 8000, "ci": 2000}


def rows(seed, n):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, FEATURES)).astype(np.float32)
    # A few repeated values make ties at thresholds likely.
    x[:, 0] = np.round(x[:, 0] * 4) / 4
    x[rng.random(x.shape) < 0.02] = np.nan
    return x


def target(x, seed):
    rng = np.random.default_rng(seed)
    z = np.nan_to_num(x.astype(np.float64), nan=0.5)
    return (2 * z[:, 0] + np.sin(3 * z[:, 1]) + z[:, 2] * z[:, 3] + 0.05 * z[:, 4:].sum(axis=1)
            + 0.1 * rng.standard_normal(len(x)))


def query(n):
    """The query's rows: float32, row-major, n x FEATURES."""
    return rows(11, n)


def _write(path, save):
    partial = str(path) + ".part"
    save(partial)
    os.replace(partial, path)


def train(directory, mode, log=print):
    """Trains what is missing; returns [(size, trees, {family: model path})]."""
    from runners import import_debian_xgboost

    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    x = rows(7, TRAIN_ROWS[mode])
    y = target(x, 8)
    out = []
    for size, trees, xgb_params, lgb_params, cb_params in SIZES[mode]:
        paths = {
            "xgboost": directory / ("%s-xgboost-%s.json" % (mode, size)),
            "lightgbm": directory / ("%s-lightgbm-%s.txt" % (mode, size)),
            "catboost": directory / ("%s-catboost-%s.cbm" % (mode, size)),
        }
        if not paths["xgboost"].exists():
            log("training XGBoost %s" % size)
            xgb = import_debian_xgboost()
            params = {"objective": "reg:squarederror", "eta": 0.05, "tree_method": "hist",
                      "nthread": 2, "seed": 1, "subsample": 0.5, **xgb_params}
            booster = xgb.train(params, xgb.DMatrix(x, y, missing=np.nan), trees)
            # XGBoost picks the format by the name's extension.
            _write(paths["xgboost"], lambda p: booster.save_model(p + ".json") or
                   os.replace(p + ".json", p))
        if not paths["lightgbm"].exists():
            log("training LightGBM %s" % size)
            import lightgbm
            params = {"objective": "regression", "learning_rate": 0.05, "num_threads": 2,
                      "seed": 1, "bagging_fraction": 0.5, "bagging_freq": 1,
                      "min_data_in_leaf": 5, "verbose": -1, **lgb_params}
            booster = lightgbm.train(params, lightgbm.Dataset(x, y), trees)
            _write(paths["lightgbm"], lambda p: booster.save_model(p))
        if not paths["catboost"].exists():
            log("training CatBoost %s" % size)
            import catboost
            model = catboost.CatBoost(dict(loss_function="RMSE", iterations=trees,
                                           learning_rate=0.05, random_seed=1, verbose=0,
                                           thread_count=2, allow_writing_files=False,
                                           **cb_params))
            model.fit(x, y)
            _write(paths["catboost"], lambda p: model.save_model(p, format="cbm"))
        out.append((size, trees, paths))
    return out
