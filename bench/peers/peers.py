"""calcjit's tree evaluation side by side with every peer, in one run.

    . scripts/reference_paths.sh
    $CALCJIT_REFERENCE_VENV/bin/python bench/peers/peers.py --build build \\
        [--mode full|ci] [--json peers.json] [--skip lleaves,onnxruntime] [--rounds 3]

One generated data set trains three models of each family (models.py: XGBoost
100 trees of depth 6, 500 of depth 8, 1,000 loss-guided of 64 leaves; their
LightGBM and CatBoost counterparts), into BUILD/bench-peers (reused by later
runs). Each model is evaluated on the same 2,000 rows (one query), one
thread, by every peer that reads its format (runners.py) and by calcjit's
Python module (BUILD/python) on the VM and the JIT:

  XGBoost models   xgboost (Debian's 1.7.4), xgboost3 (3.4.1, in its venv,
                   worker.py), treelite, onnxruntime, calcjit-vm, calcjit-jit,
                   native (hand-written C++ built -march=native: the limit)
  LightGBM models  lightgbm, lleaves, treelite, onnxruntime, calcjit-vm/jit
  CatBoost models  catboost, calcjit-vm, calcjit-jit

Every runner's outputs are checked against the model's own library before
timing (check.py: bit-exact where the library's semantics allow, else within
its own rounding, the rule and reason printed); a failed check fails the run.
Times are CPU time of the runner's process per query (every thread), the
median over `rounds` rounds of `reps` calls; within a round the runners of a
model take turns, so they see the same load on a shared machine. ns per
tree-row = time / (rows x trees); "x calcjit" = the runner's time / calcjit's
(the faster of VM and JIT): above 1, calcjit is faster.

Compiling peers (lleaves, treelite + tl2cgen, the ONNX conversion) prepare
their artifacts once in a child process bounded by --compile-limit seconds
(lleaves took over 35 minutes on the 1,000-tree model of a loaded machine);
a runner over the bound is left out of that model's table, said so.
--mode ci trains three small models of the same shapes and runs each runner
once: the ctest `bench_peers` (label peers).
"""

import argparse
import json
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import check  # noqa: E402
import models  # noqa: E402
from runners import RUNNERS  # noqa: E402
from timing import time_calls  # noqa: E402

ROOT = HERE.parents[1]
FAMILY_RUNNERS = {
    "xgboost": ["xgboost", "xgboost3", "treelite", "onnxruntime", "calcjit-vm", "calcjit-jit",
                "native"],
    "lightgbm": ["lightgbm", "lleaves", "treelite", "onnxruntime", "calcjit-vm", "calcjit-jit"],
    "catboost": ["catboost", "calcjit-vm", "calcjit-jit"],
}
# Runners whose preparation compiles (or converts) and is cached: bounded in a child.
COMPILING = {"lleaves", "treelite", "onnxruntime"}


class Local:
    """A runner in this process."""

    def __init__(self, name, model, rows, cache):
        self.runner = RUNNERS[name](model, rows, cache)

    def prepare(self):
        start = time.perf_counter()
        self.runner.prepare()
        self.runner.run()
        return self.runner.version, time.perf_counter() - start

    def time(self, reps):
        return time_calls(self.runner.run, reps)

    def outputs(self, _):
        return self.runner.outputs()


class Worker:
    """A process speaking worker.py's protocol (XGBoost 3.4.1's venv, the native binary)."""

    def __init__(self, command):
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True)

    def ask(self, **request):
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("worker %s ended" % self.process.args)
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(answer["error"])
        return answer

    def close(self):
        try:
            self.process.stdin.close()
        except BrokenPipeError:  # it ended already: its failure was reported
            pass
        self.process.wait(timeout=30)


class Remote:
    """A runner in a worker process."""

    def __init__(self, worker, runner, key, model, rows_path, cache):
        self.worker, self.key = worker, key
        self.request = dict(runner=runner, key=key, model=str(model), rows=str(rows_path),
                            cache=str(cache))

    def prepare(self):
        answer = self.worker.ask(op="prepare", **self.request)
        return answer["version"], answer["prepare_s"]

    def time(self, reps):
        answer = self.worker.ask(op="time", key=self.key, reps=reps)
        return answer["cpu"], answer["wall"]

    def outputs(self, scratch):
        path = str(scratch / ("%s.npy" % self.key.replace("/", "_")))
        self.worker.ask(op="save", key=self.key, path=path)
        return np.load(path)


def prebuild(name, model, rows_path, cache, limit):
    """Runs a compiling runner's prepare in a child process, within `limit`
    seconds, so that its cached artifact is ready; None if it is, else why not."""
    code = ("import sys, numpy as np; sys.path.insert(0, %r); from runners import RUNNERS; "
            "from worker import read_rows; "
            "RUNNERS[%r](%r, read_rows(%r), %r).prepare()"
            % (str(HERE), name, str(model), str(rows_path), str(cache)))
    start = time.perf_counter()
    try:
        subprocess.run([sys.executable, "-c", code], check=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return "its preparation took over %d s (--compile-limit)" % limit
    except subprocess.CalledProcessError as error:
        return "its preparation failed (exit %d)" % error.returncode
    print("  %s prepared in %.1f s" % (name, time.perf_counter() - start), flush=True)
    return None


def machine_load():
    """The load average now: the machine is shared, so every run says it."""
    return "load average %s" % " ".join(pathlib.Path("/proc/loadavg").read_text().split()[:3])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=str(ROOT / "build"))
    parser.add_argument("--mode", choices=sorted(models.SIZES), default="full")
    parser.add_argument("--models", help="the models' folder (default BUILD/bench-peers)")
    parser.add_argument("--json", help="write every time and check here")
    parser.add_argument("--skip", action="append", default=[],
                        help="runners to leave out, comma-separated (e.g. lleaves)")
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--rounds", type=int)
    parser.add_argument("--reps", type=int)
    parser.add_argument("--compile-limit", type=int)
    parser.add_argument("--export-java", metavar="DIR",
                        help="train, then write the JMH benchmark's data to DIR (the "
                             "middle model, the rows, XGBoost's margins) and time nothing")
    parser.add_argument("--xgboost3-python", default=os.environ.get("CALCJIT_XGBOOST3_PYTHON"),
                        help="XGBoost 3.4.1's interpreter (default: $CALCJIT_XGBOOST3_VENV's)")
    args = parser.parse_args()
    ci = args.mode == "ci"
    rounds = args.rounds or (1 if ci else 3)
    reps = args.reps or (3 if ci else 10)
    compile_limit = args.compile_limit or (120 if ci else 900)
    skip = {s for group in args.skip for s in group.split(",") if s}
    unknown = skip - {r for family in FAMILY_RUNNERS.values() for r in family}
    if unknown:
        parser.error("unknown runners to skip: %s" % ", ".join(sorted(unknown)))

    build = pathlib.Path(args.build).resolve()
    sys.path.insert(0, str(build / "python"))
    directory = pathlib.Path(args.models or build / "bench-peers")
    cache = directory / "cache"
    scratch = directory / "scratch"
    for d in (cache, scratch):
        d.mkdir(parents=True, exist_ok=True)

    trained = models.train(directory, args.mode, log=lambda s: print(s, flush=True))
    rows = models.query(args.rows)
    if args.export_java:
        export_java(pathlib.Path(args.export_java), trained, rows)
        return
    rows_path = scratch / "rows.f32"
    rows.tofile(rows_path)
    pathlib.Path(str(rows_path) + ".shape").write_text("%d %d" % rows.shape)

    workers = {}

    def worker(name):
        if name not in workers:
            if name == "xgboost3":
                python = args.xgboost3_python or os.path.join(
                    os.environ.get("CALCJIT_XGBOOST3_VENV", ""), "bin", "python")
                workers[name] = Worker([python, str(HERE / "worker.py")])
            else:
                workers[name] = Worker([str(build / "bench" / "peers" / "calcjit_peers_native")])
        return workers[name]

    print("%s, %d rows per query, 1 thread, %s, %s" % (args.mode, args.rows, platform.node(),
                                                     machine_load()), flush=True)
    tables = []
    failures = []
    for size, trees, paths in trained:
        for family, model in paths.items():
            title = "%s %s" % (family, size)
            print("\n%s (%s)" % (title, model.name), flush=True)
            handles = {}
            notes = {}
            for name in FAMILY_RUNNERS[family]:
                if name in skip:
                    continue
                key = "%s/%s" % (title, name)
                try:
                    if name in COMPILING:
                        why = prebuild(name, model, rows_path, cache, compile_limit)
                        if why:
                            notes[name] = why
                            print("  %s left out: %s" % (name, why), flush=True)
                            continue
                    if name == "xgboost3":
                        handle = Remote(worker(name), "xgboost", key, model, rows_path, cache)
                    elif name == "native":
                        handle = Remote(worker(name), "native", key, model, rows_path, cache)
                    else:
                        handle = Local(name, model, rows, cache)
                    version, prepare_s = handle.prepare()
                except Exception as error:  # noqa: BLE001: reported, and fails the run
                    failures.append("%s: %s failed: %s" % (title, name, error))
                    print("  %s failed: %s" % (name, error), flush=True)
                    continue
                handles[name] = dict(handle=handle, version=version, prepare_s=prepare_s,
                                     cpu=[], wall=[])
            reference_name = family
            if reference_name not in handles:
                failures.append("%s: no reference (%s) to check against" % (title, family))
                continue
            reference = handles[reference_name]["handle"].outputs(scratch)
            for name, h in handles.items():
                ok, detail = check.agree(name, family, h["handle"].outputs(scratch), reference,
                                         trees)
                h["check"] = ("ok: " if ok else "FAILED: ") + detail
                if not ok:
                    failures.append("%s: %s's outputs: %s" % (title, name, detail))
            for r in range(rounds):
                order = list(handles)
                order = order[r % len(order):] + order[:r % len(order)]
                for name in order:
                    cpu, wall = handles[name]["handle"].time(reps)
                    handles[name]["cpu"] += cpu
                    handles[name]["wall"] += wall
            tables.append(report(title, model.name, trees, args.rows, handles, notes))

    for w in workers.values():
        w.close()
    print("\n%s, after the run" % machine_load())
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(dict(
            mode=args.mode, rows=args.rows, rounds=rounds, reps=reps, machine=platform.node(),
            load_after=machine_load(), tables=tables, failures=failures), indent=1))
    if failures:
        print("\n%d FAILURES:\n  %s" % (len(failures), "\n  ".join(failures)))
        sys.exit(1)
    print("every output checked: %d models" % len(tables))


def export_java(directory, trained, rows):
    """bench/peers/jmh.sh's data: the middle size's XGBoost model (500 trees of
    depth 8 in full mode), the query's rows (row-major float32) and XGBoost
    1.7.4's margins for them (float32), which the JMH benchmark checks every
    runner's outputs against before timing."""
    size, trees, paths = trained[len(trained) // 2]
    directory.mkdir(parents=True, exist_ok=True)
    margins = Local("xgboost", paths["xgboost"], rows, directory)
    margins.prepare()
    (directory / "model.json").write_bytes(paths["xgboost"].read_bytes())
    rows.tofile(directory / "rows.f32")
    np.asarray(margins.outputs(None), dtype=np.float32).tofile(directory / "margins.f32")
    (directory / "shape.txt").write_text("%d %d %d %s\n" % (rows.shape + (trees, size)))
    print("wrote %s: XGBoost %s, %d x %d rows" % (directory, size, *rows.shape))


def report(title, file_name, trees, rows, handles, notes):
    medians = {name: statistics.median(h["cpu"]) for name, h in handles.items()}
    calcjit = [medians[n] for n in ("calcjit-vm", "calcjit-jit") if n in medians]
    best = min(calcjit) if calcjit else None
    print("| runner | version | ns/tree-row | ms/query | x calcjit | prepare s | outputs |")
    print("|---|---|--:|--:|--:|--:|---|")
    lines = []
    for name, h in sorted(handles.items(), key=lambda item: medians[item[0]]):
        median = medians[name]
        ratio = median / best if best else float("nan")
        print("| %s | %s | %.2f | %.3f | %.2f | %.2f | %s |"
              % (name, h["version"], median * 1e9 / (rows * trees), median * 1e3, ratio,
                 h["prepare_s"], h["check"]), flush=True)
        lines.append(dict(runner=name, version=h["version"], cpu=h["cpu"], wall=h["wall"],
                          median_s=median, ns_per_tree_row=median * 1e9 / (rows * trees),
                          ratio_to_calcjit=ratio, prepare_s=h["prepare_s"], check=h["check"]))
    for name, why in notes.items():
        print("| %s | | | | | | left out: %s |" % (name, why))
    return dict(model=title, file=file_name, trees=trees, runners=lines, left_out=notes)


if __name__ == "__main__":
    main()
