#!/usr/bin/python3
"""Trains the bundled ranker, examples/ranking/ranker/ranker.ubj, on the example set.

    cmake --build build --target calcjit_make_items_csv calcjit_python
    PYTHONPATH=build/python /usr/bin/python3 examples/ranking/ranker/train_ranker.py build

`calcjit demo` (scripts/demo.sh) ranks its generated query with this model on
top of the example set's features. Debian's python3 with its XGBoost 1.7.4
trains it, on data made the way the demo makes its query:

1. calcjit_make_items_csv writes QUERIES generated queries of ITEMS items
   (the example set's inputs, seeds 1000 + query id);
2. calcjit evaluates the example set (examples/ranking/ranking.calc) over
   them, query by query, into its 304 features;
3. each item gets a relevance grade 0-3: its quartile, within its query, of a
   hidden utility that a buyer would plausibly act on (conversion history,
   rating, delivery, price against the query's median) plus noise. The data
   are generated, so no real clicks exist; the grade makes a model whose
   trees split on many features, as a production ranker's do;
4. XGBoost trains rank:ndcg trees of depth 6 (hist, seed 1) on every
   feature of the set but the set's own `score`, and saves them as UBJSON.

The model's feature names are the set's feature names, so the demo calls it
as `model(ranker)[0]`: each model feature binds to the set's feature of that
name. The output is bit-for-bit XGBoost's margin on every calcjit backend.
"""

import os
import subprocess
import sys
import tempfile

import numpy as np
import pandas as pd
import xgboost as xgb

import calcjit

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
QUERIES, ITEMS, TREES, DEPTH = 60, 200, 300, 6


def grades(inputs, query_ids, rng):
    conversion = (inputs["orders_30d"] + 1) / (inputs["impressions_30d"] + 20)
    rating = np.nan_to_num(inputs["rating"].to_numpy(dtype=float), nan=3.5)
    delivery = np.nan_to_num(inputs["delivery_days"].to_numpy(dtype=float), nan=7)
    price = inputs["price"].to_numpy(dtype=float)
    median = pd.Series(price).groupby(query_ids).transform("median").to_numpy()
    utility = (np.log(conversion.to_numpy(dtype=float)) + 0.6 * rating - 0.15 * delivery
               - 0.8 * np.log(price / median) + 0.5 * rng.standard_normal(len(price)))
    ranks = pd.Series(utility).groupby(query_ids).rank(pct=True).to_numpy()
    return np.minimum((ranks * 4).astype(int), 3)


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
    with tempfile.TemporaryDirectory() as tmp:
        csv = os.path.join(tmp, "items.csv")
        with open(csv, "w") as out:
            subprocess.run([os.path.join(build, "examples", "calcjit_make_items_csv"),
                            os.path.join(ROOT, "examples", "ranking", "ranking.calc"),
                            "--queries", str(QUERIES), "--items", str(ITEMS)],
                           stdout=out, check=True)
        inputs = pd.read_csv(csv)
    feature_set = calcjit.read_file(os.path.join(ROOT, "examples", "ranking", "ranking.calc"))
    features = feature_set.evaluate_dataframe(inputs, group_by="query_id")
    names = [n for n in feature_set.outputs if n != "score"]
    x = features[names].to_numpy(dtype=np.float32)
    query_ids = inputs["query_id"].to_numpy()
    y = grades(inputs, query_ids, np.random.default_rng(5))
    matrix = xgb.DMatrix(x, y, missing=np.nan, feature_names=names)
    matrix.set_group(np.unique(query_ids, return_counts=True)[1])
    params = {"objective": "rank:ndcg", "eta": 0.1, "max_depth": DEPTH, "tree_method": "hist",
              "nthread": 2, "seed": 1, "subsample": 0.8}
    booster = xgb.train(params, matrix, TREES)
    path = os.path.join(HERE, "ranker.ubj")
    booster.save_model(path + ".part.ubj")  # the name picks UBJSON
    os.replace(path + ".part.ubj", path)
    used = len(booster.get_score(importance_type="weight"))
    print("wrote %s: %d trees of depth %d over %d features (%d used), %d bytes"
          % (path, TREES, DEPTH, len(names), used, os.path.getsize(path)))


if __name__ == "__main__":
    main()
