#!/usr/bin/python3
"""The ONNX block evaluator against PyTorch's CPU inference, one table, one run.

    /usr/bin/python3 bench/onnx_vs_torch.py build/bench/calcjit_onnx_bench [--rounds 3]

The net is the committed ranking MLP (tests/model/onnx/data/ranking_mlp.onnx,
64 -> 128 relu -> 64 relu -> 1, exported by torch.onnx.export); PyTorch runs
the same weights, rebuilt as a torch.nn.Sequential from the file's
initializers, on 2,000 items of standard normal features, with
torch.set_num_threads(1) and torch.inference_mode():

  pytorch          the module as it is (nn.Linear: addmm on the BLAS that
                   Debian's python3-torch is linked to)
  pytorch-onednn   torch.utils.mkldnn.to_mkldnn(module), i.e. oneDNN's
                   kernels; the timed call includes converting the input to
                   and the output from oneDNN's layout, as a caller would

The rounds alternate: calcjit_onnx_bench (Google Benchmark, 5 repetitions,
every mode), then PyTorch (5 repetitions of a timed loop per mode), so that
both see the same load on a shared machine. Every time is the CPU time of the
evaluating thread per query (time.thread_time for PyTorch, Google
Benchmark's CPU time for calcjit), the median over all repetitions of all
rounds; wall-clock medians are shown too. PyTorch's outputs are checked
against the contract's bits within contract_eval.drift_bound first.

The float32 peak: Zen 4 has two 256-bit FP multiply pipes and two 256-bit FP
add pipes (AVX-512 instructions use both halves), so without FMA a core does
16 multiplies and 16 adds per cycle: 32 FLOP/cycle. The clock comes from
BM_AddLatency (a dependent chain of adds, 3 cycles each on Zen 4); the table
gives both that nominal peak and BM_PeakMulAdd's measured rate.
"""

import argparse
import copy
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import onnx
import torch
import torch.utils.mkldnn
from onnx import numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "model", "onnx"))
import contract_eval  # noqa: E402

MODEL = os.path.join(ROOT, "tests", "model", "onnx", "data", "ranking_mlp.onnx")
ITEMS = 2000
FLOP_PER_CYCLE = 32  # 16 multiplies + 16 adds per cycle (see above)
ADD_LATENCY_CYCLES = 3


def torch_module(model):
    """The ONNX chain (Gemm transB=1 with C, Relu) as a torch.nn.Sequential."""
    constants = {t.name: np.array(numpy_helper.to_array(t)) for t in model.graph.initializer}
    layers = []
    for node in model.graph.node:
        if node.op_type == "Gemm":
            attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
            assert attrs.get("transB", 0) == 1
            w, b = constants[node.input[1]], constants[node.input[2]]
            linear = torch.nn.Linear(w.shape[1], w.shape[0])
            with torch.no_grad():
                linear.weight.copy_(torch.from_numpy(w))
                linear.bias.copy_(torch.from_numpy(b))
            layers.append(linear)
        elif node.op_type == "Relu":
            layers.append(torch.nn.ReLU())
        else:
            raise SystemExit("bench net: unexpected " + node.op_type)
    return torch.nn.Sequential(*layers).eval()


def time_torch(call, repetitions, min_seconds=0.3):
    """(CPU seconds, wall seconds) per call, one value per repetition."""
    for _ in range(3):
        call()
    cpu, wall = [], []
    for _ in range(repetitions):
        calls, c0, w0 = 0, time.thread_time(), time.perf_counter()
        while True:
            call()
            calls += 1
            if time.perf_counter() - w0 >= min_seconds and calls >= 5:
                break
        cpu.append((time.thread_time() - c0) / calls)
        wall.append((time.perf_counter() - w0) / calls)
    return cpu, wall


def run_calcjit(binary, repetitions):
    out = subprocess.run(
        [binary, f"--onnx_model={MODEL}", f"--onnx_items={ITEMS}",
         f"--benchmark_repetitions={repetitions}", "--benchmark_min_time=0.3",
         "--benchmark_format=json"],
        capture_output=True, text=True, check=True)
    results = {}
    for b in json.loads(out.stdout)["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        name = b["run_name"]
        entry = results.setdefault(name, {"cpu": [], "wall": [], "counters": []})
        scale = {"us": 1e-6, "ms": 1e-3, "ns": 1e-9}[b["time_unit"]]
        entry["cpu"].append(b["cpu_time"] * scale)
        entry["wall"].append(b["real_time"] * scale)
        entry["counters"].append(b)
    return results


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repetitions", type=int, default=5)
    args = parser.parse_args()

    torch.set_num_threads(1)
    model = onnx.load(MODEL)
    module = torch_module(model)
    # to_mkldnn replaces a Sequential's children in place: convert a copy.
    onednn = torch.utils.mkldnn.to_mkldnn(copy.deepcopy(module))
    x_np = np.random.default_rng(42).standard_normal((ITEMS, 64)).astype(np.float32)
    x = torch.from_numpy(x_np)

    # PyTorch computes this net: within float32 drift of the contract's bits.
    expected, _ = contract_eval.evaluate(model, x_np)
    bound = contract_eval.drift_bound(model, x_np)
    with torch.inference_mode():
        for label, got in [("pytorch", module(x).numpy()),
                           ("pytorch-onednn", onednn(x.to_mkldnn()).to_dense().numpy())]:
            diff = np.abs(got.astype(np.float64) - expected.astype(np.float64))
            if not np.all(diff <= bound):
                raise SystemExit(f"{label} is not computing the benchmark's net")

    modes = {}
    for _ in range(args.rounds):
        for name, entry in run_calcjit(args.binary, args.repetitions).items():
            mode = modes.setdefault(name, {"cpu": [], "wall": [], "counters": []})
            for key in mode:
                mode[key] += entry[key]
        with torch.inference_mode():
            for name, call in [("pytorch", lambda: module(x)),
                               ("pytorch-onednn", lambda: onednn(x.to_mkldnn()).to_dense())]:
                cpu, wall = time_torch(call, args.repetitions)
                mode = modes.setdefault(name, {"cpu": [], "wall": [], "counters": []})
                mode["cpu"] += cpu
                mode["wall"] += wall

    median = lambda values: statistics.median(values)
    adds_per_second = median([c["adds"] for c in modes["BM_AddLatency"]["counters"]])
    clock = ADD_LATENCY_CYCLES * adds_per_second
    nominal_peak = FLOP_PER_CYCLE * clock
    measured_peak = median([c["flops"] for c in modes["BM_PeakMulAdd"]["counters"]])
    multiply_adds = 64 * 128 + 128 * 64 + 64
    flop_per_query = 2.0 * multiply_adds * ITEMS

    print(f"clock (3 cycles per dependent add): {clock / 1e9:.2f} GHz; float32 peak without FMA "
          f"{FLOP_PER_CYCLE} FLOP/cycle = {nominal_peak / 1e9:.1f} GFLOP/s; "
          f"BM_PeakMulAdd measured {measured_peak / 1e9:.1f} GFLOP/s")
    print(f"net: onnx: 64 -> 128 relu -> 64 relu -> 1, {ITEMS} items, "
          f"{flop_per_query / 1e6:.1f} MFLOP per query; "
          f"{len(modes['pytorch']['cpu'])} repetitions per mode")
    order = [m for m in modes if m.startswith("BM_OnnxNet/")] + ["pytorch", "pytorch-onednn"]
    torch_cpu = median(modes["pytorch"]["cpu"])
    onednn_cpu = median(modes["pytorch-onednn"]["cpu"])
    header = ("| mode | CPU ms/query | wall ms/query | GFLOP/s | % of peak | % of measured peak "
              "| speed-up over pytorch | over pytorch-onednn |")
    print(header)
    print("|" + "---|" * 8)
    for name in order:
        cpu = median(modes[name]["cpu"])
        wall = median(modes[name]["wall"])
        rate = flop_per_query / cpu
        label = name.replace("BM_OnnxNet/", "").replace(f"/{ITEMS}", "")
        print(f"| {label} | {cpu * 1e3:.3f} | {wall * 1e3:.3f} | {rate / 1e9:.1f} | "
              f"{100 * rate / nominal_peak:.1f}% | {100 * rate / measured_peak:.1f}% | "
              f"{torch_cpu / cpu:.1f}x | {onednn_cpu / cpu:.2f}x |")
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
