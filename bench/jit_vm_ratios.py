#!/usr/bin/env python3
"""JIT time / VM time from one interleaved calcjit_bench run (issue 27's runs U7-U10).

    taskset -c 0 build/bench/calcjit_bench --benchmark_filter='...' \\
        --benchmark_repetitions=110 --benchmark_enable_random_interleaving=true \\
        --benchmark_min_time=0.5 --benchmark_format=json --benchmark_out=run.json
    bench/jit_vm_ratios.py run.json

Prints, as Markdown tables (docs/PERFORMANCE.md), per case and item count:
the JIT's median over the VM's, each taken over its own repetitions; then the
median of the paired ratios JIT k-th / VM k-th repetition. With random
interleaving each benchmark's repetitions are spread over the whole run, so
its k-th ran at about the same point of it as the other's k-th: under a load
that changes phase (another process on the other core), pairs compare like
with like where separate medians may compare different phases. Then, per
backend, the worst repetition as a multiple of its benchmark's median and how
many were beyond 1.5x (an engine stuck on a slow path would show there).
Ratios above 1 are in bold.
"""
import argparse
import collections
import json
import statistics

SIZES = ("100", "2000", "10000")
LABELS = {
    "BM_Sum10": "sum10",
    "BM_Qux": "qux",
    "BM_Ranking": "example set (`ranking.calc`)",
    "BM_RankingLike30": "`ranking_like_30.calc`",
    "BM_Large": "large set",
    "BM_Statistics": "statistics",
}
for kernel in ("exp", "log", "log1p", "sigmoid", "tanh"):
    LABELS["BM_Kernel/transcendental/" + kernel] = f"`y = {kernel}(x)`"


def cell(ratio):
    if ratio is None:
        return ""
    text = f"{ratio:.3f}"
    return f"**{text}**" if ratio > 1 else text


def table(title, ratios):
    print(f"\n{title}\n")
    print("| set | 100 | 2,000 | 10,000 |\n|---|--:|--:|--:|")
    cases = [c for c in LABELS if c in ratios] + sorted(c for c in ratios if c not in LABELS)
    for case in cases:
        row = [cell(ratios[case].get(n)) for n in SIZES]
        print(f"| {LABELS.get(case, case)} | " + " | ".join(row) + " |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json", help="calcjit_bench JSON output")
    args = parser.parse_args()
    runs = collections.defaultdict(dict)  # "case/backend/n" -> {repetition: cpu time}
    for b in json.load(open(args.json))["benchmarks"]:
        if b.get("run_type") == "iteration" and not b.get("error_occurred"):
            runs[b["run_name"]][b.get("repetition_index", 0)] = b["cpu_time"]

    separate = collections.defaultdict(dict)
    paired = collections.defaultdict(dict)
    for name, jit in runs.items():
        case, backend, n = name.rsplit("/", 2)
        vm = runs.get(f"{case}/vm/{n}")
        if backend != "jit" or not vm:
            continue
        separate[case][n] = statistics.median(jit.values()) / statistics.median(vm.values())
        both = sorted(set(jit) & set(vm))
        paired[case][n] = statistics.median(jit[k] / vm[k] for k in both)
    table("JIT / VM, medians taken separately:", separate)
    table("JIT / VM, median of the paired ratios (k-th repetition against k-th):", paired)

    print()
    for backend in ("vm", "jit"):
        worst, where, beyond, total = 0.0, "", 0, 0
        for name, times in runs.items():
            if name.rsplit("/", 2)[1] != backend:
                continue
            median = statistics.median(times.values())
            beyond += sum(t > 1.5 * median for t in times.values())
            total += len(times)
            if max(times.values()) / median > worst:
                worst, where = max(times.values()) / median, name
        print(f"{backend}: worst repetition {worst:.2f}x its median ({where}); "
              f"{beyond} of {total} beyond 1.5x")


if __name__ == "__main__":
    main()
