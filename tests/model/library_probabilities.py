#!/usr/bin/env python3
"""What each library's predict() returns, beside the model and the rows, for
the formulas docs/MODELS.md gives (python/tests/test_model_probabilities.py
checks them). Run with the interpreter of the library version:

  library_probabilities.py xgboost DIR SEED    (Debian's python3: XGBoost 1.7.4;
                                                the xgboost3 venv: 3.4.1)
  library_probabilities.py lightgbm DIR SEED   (the reference venv: LightGBM 4.7.0)

For each model NAME it writes NAME.json or NAME.txt, NAME.rows.npy (float32
rows) and NAME.predict.npy (predict(rows) as the library returns it: float32
for XGBoost, float64 for LightGBM), and prints NAME and its objective.
"""

import os
import sys
import warnings

import numpy as np

warnings.filterwarnings("ignore")


def data(rng, n=3000, features=5):
    x = rng.standard_normal((n, features)).astype(np.float32)
    x[rng.random(x.shape) < 0.05] = np.nan
    x0 = np.nan_to_num(x)
    score = 3 * x0[:, 0] - 2 * x0[:, 1] + np.sin(4 * x0[:, 2]) + rng.standard_normal(n)
    return x, score


def save(directory, name, rows, predicted):
    np.save(os.path.join(directory, name + ".rows.npy"), rows)
    np.save(os.path.join(directory, name + ".predict.npy"), predicted)


def xgboost_models(directory, rng):
    import xgboost as xgb

    x, score = data(rng)
    specs = [
        ("xgb_binary_logistic", "binary:logistic", (score > 0).astype(np.float32), {}),
        ("xgb_multi_softprob", "multi:softprob", np.digitize(score, [-2, 0, 2]).astype(np.float32),
         {"num_class": 4}),
        ("xgb_count_poisson", "count:poisson", np.round(np.exp(np.clip(score, -3, 3) / 2)), {}),
    ]
    for name, objective, label, extra in specs:
        params = {"objective": objective, "max_depth": 5, "eta": 0.3, "nthread": 1,
                  "seed": int(rng.integers(1 << 30))}
        params.update(extra)
        booster = xgb.train(params, xgb.DMatrix(x, label), 20)
        booster.save_model(os.path.join(directory, name + ".json"))
        # Rows spread wide, so that probabilities near 0 and 1 are covered too.
        rows = (rng.standard_normal((4000, x.shape[1])) * 2).astype(np.float32)
        save(directory, name, rows, booster.predict(xgb.DMatrix(rows)).astype(np.float32))
        print(name + ".json", objective)


def lightgbm_models(directory, rng):
    import lightgbm as lgb

    x, score = data(rng)
    base = {"num_leaves": 15, "learning_rate": 0.3, "num_threads": 1, "verbose": -1,
            "deterministic": True, "min_data_in_leaf": 5}
    specs = [
        ("lgb_binary", {"objective": "binary"}, (score > 0).astype(float)),
        ("lgb_multiclass", {"objective": "multiclass", "num_class": 4},
         np.digitize(score, [-2, 0, 2]).astype(float)),
        ("lgb_regression", {"objective": "regression"}, score),
        ("lgb_rf_regression", {"objective": "regression", "boosting": "rf",
                               "bagging_fraction": 0.7, "bagging_freq": 1}, score),
    ]
    for name, extra, label in specs:
        params = dict(base, seed=int(rng.integers(1 << 30)), **extra)
        booster = lgb.train(params, lgb.Dataset(x, label), 20)
        path = os.path.join(directory, name + ".txt")
        booster.save_model(path)
        rows = (rng.standard_normal((4000, x.shape[1])) * 2).astype(np.float32)
        predicted = lgb.Booster(model_file=path).predict(rows.astype(np.float64))
        save(directory, name, rows, np.asarray(predicted, dtype=np.float64))
        print(name + ".txt", extra["objective"])


def main():
    library, directory, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
    os.makedirs(directory, exist_ok=True)
    rng = np.random.default_rng(seed)
    {"xgboost": xgboost_models, "lightgbm": lightgbm_models}[library](directory, rng)


if __name__ == "__main__":
    main()
