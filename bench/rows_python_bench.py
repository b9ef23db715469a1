#!/usr/bin/python3
"""predict(X) on a 2,000 x 40 float32 matrix against the same evaluation from
columns (a dict of 40 arrays), from Python, interleaved (docs/PERFORMANCE.md,
"Rows as input"):

  PYTHONPATH=build/python python3 bench/rows_python_bench.py

Two workloads, as bench/rows_bench.cc: a tree model (100 trees of depth 6
over the 40 features, random splits, written by that benchmark's generator's
rules here in Python) and the sum of the 40 inputs. Prints the median time of
each way and the ratio to columns; the bits are checked equal first.
"""

import json
import statistics
import time

import numpy as np

import calcjit

ROWS, FEATURES = 2000, 40


def random_model(trees, depth, rng):
    nodes = (2 << depth) - 1
    tree_list = []
    for _ in range(trees):
        leaf = np.arange(nodes) >= nodes // 2
        tree_list.append({
            "left_children": [-1 if leaf[i] else 2 * i + 1 for i in range(nodes)],
            "right_children": [-1 if leaf[i] else 2 * i + 2 for i in range(nodes)],
            "split_indices": [0 if leaf[i] else int(rng.integers(FEATURES)) for i in range(nodes)],
            "split_conditions": [float(np.float32(rng.normal() * (0.1 if leaf[i] else 1)))
                                 for i in range(nodes)],
            "default_left": [0] * nodes, "split_type": [0] * nodes, "categories": [],
            "categories_nodes": [], "categories_segments": [], "categories_sizes": [],
            "tree_param": {"num_deleted": "0", "num_feature": str(FEATURES),
                           "num_nodes": str(nodes), "size_leaf_vector": "1"}})
    return json.dumps({"learner": {
        "feature_names": [], "feature_types": [],
        "gradient_booster": {"model": {"gbtree_model_param": {"num_trees": str(trees)},
                                       "tree_info": [0] * trees, "trees": tree_list},
                             "name": "gbtree"},
        "learner_model_param": {"base_score": "5E-1", "num_class": "0",
                                "num_feature": str(FEATURES), "num_target": "1"},
        "objective": {"name": "reg:squarederror"}}, "version": [2, 1, 0]}).encode()


def main():
    rng = np.random.default_rng(40)
    x = rng.normal(size=(ROWS, FEATURES)).astype(np.float32)
    fortran = np.asfortranarray(x)
    columns = {f"f{j}": np.ascontiguousarray(x[:, j]) for j in range(FEATURES)}
    sets = {
        "tree model (100 x depth 6)": calcjit.from_model(random_model(100, 6, rng), "xgboost"),
        "sum of 40 inputs": calcjit.parse(
            "s = " + " + ".join(f"f{j}" for j in range(FEATURES)) + ";\n"),
    }
    for name, fs in sets.items():
        engine = fs.compile(backend="jit")
        out = engine.outputs[0]
        ways = {
            "columns (dict)": lambda: engine.evaluate(columns)[out],
            "predict(X), C order": lambda: engine.predict(x),
            "predict(X), Fortran order": lambda: engine.predict(fortran),
        }
        reference = ways["columns (dict)"]().view(np.uint32)
        for way in ways.values():
            assert np.array_equal(way().view(np.uint32), reference)
        times = {way: [] for way in ways}
        for _ in range(300):
            for way, call in ways.items():  # interleaved: the machine's noise hits all alike
                start = time.perf_counter()
                call()
                times[way].append(time.perf_counter() - start)
        base = statistics.median(times["columns (dict)"])
        print(name)
        for way, samples in times.items():
            median = statistics.median(samples)
            print("  %-28s %8.1f us  %.2fx" % (way, median * 1e6, median / base))


if __name__ == "__main__":
    main()
