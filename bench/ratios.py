#!/usr/bin/env python3
"""Ratios between the modes of one calcjit_bench run, from its JSON output.

    build/bench/calcjit_bench --benchmark_repetitions=5 --benchmark_format=json > run.json
    bench/ratios.py run.json            # or: ... | bench/ratios.py

Prints, per case and item count, the time per item of every mode (the median
of the repetitions when there are several, CPU time unless --real), then
<mode>/manual and <mode>/native for every backend (the loops built with the
project's flags and for the host) and evaluated/<mode> for the backends other
than the reference interpreter, as a Markdown table (docs/PERFORMANCE.md);
then the preparation benchmarks (BM_Parse, BM_Prepare, BM_Reload,
BM_Recompile: no item count) in milliseconds of wall time per call (the JIT
compiles on several threads), each compile time also as a multiple of the
reference interpreter's. calcjit_bench prints the same tables to
stderr at the end of a run.
"""
import argparse
import json
import sys

UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json", nargs="?", help="calcjit_bench JSON output (default: stdin)")
    parser.add_argument("--real", action="store_true", help="use real (wall) time, not CPU time")
    args = parser.parse_args()
    data = json.load(open(args.json) if args.json else sys.stdin)
    field = "real_time" if args.real else "cpu_time"

    times = {}  # (case, n) -> {mode: ns per evaluation}
    order = []
    medians = set()
    preparation = {}  # benchmark name -> ns per call
    preparation_medians = set()
    for b in data["benchmarks"]:
        if b.get("error_occurred"):
            continue
        is_median = b.get("run_type") == "aggregate" and b.get("aggregate_name") == "median"
        if b.get("run_type") == "aggregate" and not is_median:
            continue
        name = b.get("run_name", b["name"])  # BM_Qux/manual/2000
        parts = name.split("/")
        if parts[0] in ("BM_Parse", "BM_Prepare", "BM_Reload", "BM_Recompile"):
            if is_median or name not in preparation_medians:
                preparation[name] = b["real_time"] * UNIT_NS[b["time_unit"]]
            if is_median:
                preparation_medians.add(name)
            continue
        if len(parts) != 3 or not parts[0].startswith("BM_") or not parts[2].isdigit():
            continue
        case, mode, n = parts[0][3:], parts[1], int(parts[2])
        key = (case, n)
        if key not in times:
            times[key] = {}
            order.append(key)
        if is_median or (key, mode) not in medians:
            times[key][mode] = b[field] * UNIT_NS[b["time_unit"]]
        if is_median:
            medians.add((key, mode))

    modes = []
    for key in order:
        for mode in times[key]:
            if mode not in modes:
                modes.append(mode)
    known = ["manual", "native", "evaluated", "vm", "jit"]
    modes.sort(key=lambda m: known.index(m) if m in known else 99)
    loops = [m for m in modes if m in ("manual", "native")]
    backends = [m for m in modes if m not in loops]
    faster = [m for m in backends if m != "evaluated"]

    header = ["case", "n"] + [f"{m} ns/item" for m in modes]
    header += [f"{m}/{loop}" for loop in loops for m in backends]
    header += [f"evaluated/{m}" for m in faster]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for case, n in order:
        t = times[(case, n)]
        row = [case, str(n)]
        row += [f"{t[m] / n:.3f}" if m in t else "-" for m in modes]
        row += [f"{t[m] / t[loop]:.2f}x" if m in t and loop in t else "-"
                for loop in loops for m in backends]
        row += [f"{t['evaluated'] / t[m]:.1f}x" if m in t and "evaluated" in t else "-"
                for m in faster]
        print("| " + " | ".join(row) + " |")

    if preparation:
        print()
        print("| benchmark | ms per call | x evaluated |")
        print("|---|---|---|")
        for name, ns in preparation.items():
            ratio = "-"
            if name.startswith("BM_Prepare/"):
                reference = preparation.get(name.rsplit("/", 1)[0] + "/evaluated")
                if reference:
                    ratio = f"{ns / reference:.1f}x"
            print(f"| {name} | {ns / 1e6:.3f} | {ratio} |")


if __name__ == "__main__":
    main()
