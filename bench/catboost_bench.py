"""calcjit's tree evaluator against CatBoost's own applier, one table, one run.

    $CALCJIT_REFERENCE_VENV/bin/python bench/catboost_bench.py [--models DIR] [--rounds 3]

(scripts/reference_paths.sh prints the venv: Debian's python3 with catboost
1.2.10 and numpy 2.2.) The calcjit side runs in Debian's /usr/bin/python3
with Debian's numpy, the interpreter calcjit's Python module (build/python)
is built and tested for, in a process this script starts for each round
(`--calcjit-side`): it reads the same models and rows from DIR, times
calcjit and writes its outputs and times back. (The module also reads numpy
2's arrays: bench/peers imports it in the venv itself.)

The models are trained once into DIR (default build/bench-catboost; a later
run reuses them) on 8,000 rows of 32 standard normal features with 2% NaN:
oblivious trees (CatBoost's default) of depth 6 and 8, a 3-class MultiClass
model, and Lossguide trees of up to 64 leaves. Each model is written as .cbm
and timed on the same 2,000 other rows (one query), one thread:

  catboost predict  model.predict(rows, prediction_type="RawFormulaVal",
                    thread_count=1) on the float32 row-major array, as a
                    caller would (it builds CatBoost's pool, then applies)
  catboost pool     the same on a catboost.Pool built beforehand (the
                    applier's binarization and tree walk, less the copy)
  calcjit           Engine.evaluate of calcjit.from_model(the .cbm bytes),
                    default backend and tier, on the feature columns, into
                    preallocated output buffers

CatBoost's C API calcer (libcatboostmodel) is not in the wheel (its
_catboost.so exports only the Python module), so it is not timed.

Every time is the CPU time of this thread per query (time.thread_time), the
median over `rounds` rounds of 15 repetitions, the three alternating within
each round so that they see the same load on a shared machine. ns per
tree-row is time / (2,000 rows x the file's trees). calcjit's outputs are
checked against CatBoost's RawFormulaVal, rounded once to float32, bit for
bit, before timing. Load: catboost.CatBoost().load_model(.cbm) against
calcjit.from_model(bytes) (read, check, lay out, hash) plus compile, median
of 5.
"""

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
ROWS = 2000
FEATURES = 32
REPETITIONS = 15

# name: (loss, depth, iterations, extra parameters)
MODELS = {
    "oblivious_500x6": ("RMSE", 6, 500, {}),
    "oblivious_500x8": ("RMSE", 8, 500, {}),
    "oblivious_2000x6": ("RMSE", 6, 2000, {}),
    "multiclass3_300x6": ("MultiClass", 6, 300, {}),
    "lossguide_300x64leaves": ("RMSE", 10, 300, {"grow_policy": "Lossguide", "max_leaves": 64}),
}


def data(seed, n):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, FEATURES)).astype(np.float32)
    x[rng.random(x.shape) < 0.02] = np.nan
    z = np.nan_to_num(x.astype(np.float64))
    y = 2 * z[:, 0] + np.sin(3 * z[:, 1]) + z[:, 2] * z[:, 3] + 0.05 * z[:, 4:].sum(axis=1)
    return x, y


def cpu_time(run):
    start = time.thread_time()
    run()
    return time.thread_time() - start


def calcjit_side(directory, repetitions):
    """In Debian's python3: times calcjit on every model, prints JSON."""
    sys.path.insert(0, str(ROOT / "build" / "python"))
    import calcjit

    rows = np.fromfile(directory / "rows.f32", dtype=np.float32).reshape(ROWS, FEATURES)
    columns = {"f%d" % j: np.ascontiguousarray(rows[:, j]) for j in range(FEATURES)}
    report = {}
    for name in MODELS:
        data_bytes = (directory / (name + ".cbm")).read_bytes()
        load = [cpu_time(lambda: calcjit.from_model(data_bytes).compile()) for _ in range(5)]
        fs = calcjit.from_model(data_bytes)
        engine = fs.compile()
        out = {o: np.empty(ROWS, np.float32) for o in fs.outputs}
        times = [cpu_time(lambda: engine.evaluate(columns, out=out)) for _ in range(repetitions)]
        np.stack([out[o] for o in fs.outputs], axis=1).tofile(directory / (name + ".calcjit.f32"))
        report[name] = dict(times=times, load=load, outputs=len(fs.outputs),
                            backend=engine.backend, isa=engine.isa)
    print(json.dumps(report))


def train(directory):
    import catboost

    x, y = data(7, 8000)
    for name, (loss, depth, iterations, extra) in MODELS.items():
        path = directory / (name + ".cbm")
        if path.exists():
            continue
        label = y
        if loss == "MultiClass":
            label = np.digitize(y, np.quantile(y, [1 / 3, 2 / 3]))
        model = catboost.CatBoost(dict(loss_function=loss, depth=depth, iterations=iterations,
                                       learning_rate=0.05, random_seed=1, verbose=0,
                                       allow_writing_files=False, **extra))
        print("training", name, flush=True)
        model.fit(x, label)
        model.save_model(str(path) + ".part", format="cbm")
        os.replace(str(path) + ".part", path)


def measure(directory, rounds):
    import catboost

    rows, _ = data(11, ROWS)
    rows.tofile(directory / "rows.f32")
    models = {}
    for name in MODELS:
        model = catboost.CatBoost()
        model.load_model(str(directory / (name + ".cbm")))
        models[name] = (model, catboost.Pool(rows))
    times = {name: {"catboost predict": [], "catboost pool": [], "calcjit": []} for name in MODELS}
    calcjit_report = None
    for _ in range(rounds):
        for name, (model, pool) in models.items():
            runs = {
                "catboost predict": lambda: model.predict(rows, prediction_type="RawFormulaVal",
                                                          thread_count=1),
                "catboost pool": lambda: model.predict(pool, prediction_type="RawFormulaVal",
                                                       thread_count=1),
            }
            for _ in range(REPETITIONS):
                for what, run in runs.items():
                    times[name][what].append(cpu_time(run))
        done = subprocess.run(["/usr/bin/python3", __file__, "--calcjit-side", str(directory)],
                              check=True, capture_output=True, text=True)
        calcjit_report = json.loads(done.stdout)
        for name in MODELS:
            times[name]["calcjit"] += calcjit_report[name]["times"]
    table = []
    for name, (model, _) in models.items():
        expected = np.asarray(model.predict(rows, prediction_type="RawFormulaVal", thread_count=1),
                              dtype=np.float64).reshape(ROWS, -1).astype(np.float32)
        got = np.fromfile(directory / (name + ".calcjit.f32"), dtype=np.float32)
        if not np.array_equal(got.reshape(expected.shape).view(np.uint32),
                              expected.view(np.uint32)):
            sys.exit("%s: calcjit's outputs differ from CatBoost's RawFormulaVal" % name)
        path = str(directory / (name + ".cbm"))
        load = [cpu_time(lambda: catboost.CatBoost().load_model(path)) for _ in range(5)]
        report = calcjit_report[name]
        table.append((name, model.tree_count_, report["outputs"], report["backend"],
                      report["isa"], {w: statistics.median(t) for w, t in times[name].items()},
                      statistics.median(load), statistics.median(report["load"])))
    return table


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default=str(ROOT / "build" / "bench-catboost"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calcjit-side", metavar="DIR")
    args = parser.parse_args()
    if args.calcjit_side:
        calcjit_side(pathlib.Path(args.calcjit_side), REPETITIONS)
        return
    import catboost

    directory = pathlib.Path(args.models)
    directory.mkdir(parents=True, exist_ok=True)
    train(directory)
    table = measure(directory, args.rounds)
    print("\n%d rows per query, 1 thread, CPU time per query, median of %d x %d; ns per "
          "tree-row = time / (rows x trees); catboost %s; calcjit outputs equal CatBoost's "
          "RawFormulaVal bit for bit" % (ROWS, args.rounds, REPETITIONS, catboost.__version__))
    print("\n| model | trees | outputs | calcjit ns/tree-row | catboost predict | catboost pool "
          "| predict / calcjit | pool / calcjit | calcjit us/query | catboost load ms "
          "| calcjit load+compile ms | calcjit backend, tier |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for name, trees, outputs, backend, isa, m, load_cb, load_cj in table:
        per = lambda s: s * 1e9 / (ROWS * trees)  # noqa: E731
        print("| %s | %d | %d | %.2f | %.2f | %.2f | %.1fx | %.1fx | %.0f | %.1f | %.1f | %s, %s |"
              % (name, trees, outputs, per(m["calcjit"]), per(m["catboost predict"]),
                 per(m["catboost pool"]), m["catboost predict"] / m["calcjit"],
                 m["catboost pool"] / m["calcjit"], m["calcjit"] * 1e6, load_cb * 1e3,
                 load_cj * 1e3, backend, isa))


if __name__ == "__main__":
    main()
