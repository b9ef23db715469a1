#!/usr/bin/python3
"""Fresh random nets at test time, against the contract and against PyTorch.

    fresh_nets_test.py ONNX_EVAL_TOOL [--seed S] [--nets N]

Each round draws a net (depth, widths, activations, biases, opset 9..17, and
whether PyTorch exports it or onnx.helper builds it as MatMul + Add), writes
it to a temporary .onnx file, draws inputs (ordinary ones and rows with NaN,
+-inf, +-0, subnormals and huge values) and runs onnx_eval_tool, which checks
that every tier of the block evaluator agrees with the reference bit for bit.
This script then checks the reference's bits against contract_eval.py (the
independent numpy evaluator of spec 6.4) and PyTorch's outputs on the
ordinary rows against contract_eval.drift_bound. The seed is drawn from the
clock unless given, and printed, so a failure can be replayed. About 10 s.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import contract_eval  # noqa: E402

F32 = np.float32
SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -1e-40, 1.4e-45, 3e38, -3e38,
                     1e20, -50.0], dtype=F32)


def random_torch_net(rng, features):
    L = torch.nn
    layers = []
    width = features
    for _ in range(int(rng.integers(1, 5))):
        out = int(rng.integers(1, 70))
        layers.append(L.Linear(width, out, bias=bool(rng.integers(0, 4) > 0)))
        width = out
        kind = int(rng.integers(0, 5))
        if kind == 0:
            layers.append(L.ReLU())
        elif kind == 1:
            layers.append(L.LeakyReLU(float(rng.uniform(0.001, 0.5))))
        elif kind == 2:
            layers.append(L.Sigmoid())
        elif kind == 3:
            layers.append(L.Tanh())
    torch.manual_seed(int(rng.integers(0, 2**31)))
    for layer in layers:
        if isinstance(layer, L.Linear):
            layer.reset_parameters()
    return L.Sequential(*layers).eval()


def export(module, features, opset):
    with tempfile.TemporaryFile() as f:
        torch.onnx.export(module, torch.zeros(2, features), f, opset_version=opset,
                          input_names=["x"], output_names=["y"],
                          dynamic_axes={"x": {0: "N"}, "y": {0: "N"}})
        f.seek(0)
        return onnx.load_from_string(f.read())


def random_helper_net(rng, features, opset):
    """MatMul + Add layers, some Adds with the constant first, Identity."""
    nodes, inits = [], []
    width, value = features, "x"
    for layer in range(int(rng.integers(1, 4))):
        out = int(rng.integers(1, 40))
        w = (rng.standard_normal((width, out)) / np.sqrt(width)).astype(F32)
        b = rng.standard_normal((1, out) if rng.integers(0, 2) else (out,)).astype(F32)
        inits += [numpy_helper.from_array(w, f"w{layer}"), numpy_helper.from_array(b, f"b{layer}")]
        nodes.append(helper.make_node("MatMul", [value, f"w{layer}"], [f"m{layer}"]))
        pair = [f"m{layer}", f"b{layer}"] if rng.integers(0, 2) else [f"b{layer}", f"m{layer}"]
        nodes.append(helper.make_node("Add", pair, [f"a{layer}"]))
        op = ["Relu", "Sigmoid", "Tanh", "Identity"][int(rng.integers(0, 4))]
        nodes.append(helper.make_node(op, [f"a{layer}"], [f"h{layer}"]))
        width, value = out, f"h{layer}"
    nodes.append(helper.make_node("Identity", [value], ["y"]))
    graph = helper.make_graph(
        nodes, "fresh", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", features])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", width])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 7
    return model


def inputs(rng, features):
    plain = int(rng.integers(1, 60))
    special = int(rng.integers(0, 20))
    x = (rng.standard_normal((plain + special, features)) * 3).astype(F32)
    for i in range(plain, plain + special):
        picks = rng.random(features) < 0.3
        x[i, picks] = rng.choice(SPECIALS, size=int(picks.sum()))
    return x, plain


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tool")
    parser.add_argument("--seed", type=int, default=int(time.time()) % 100000)
    parser.add_argument("--nets", type=int, default=16)
    args = parser.parse_args()
    print(f"seed {args.seed} (replay: fresh_nets_test.py TOOL --seed {args.seed})")
    rng = np.random.default_rng(args.seed)
    torch.set_num_threads(1)
    worst_ratio = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(args.nets):
            features = int(rng.integers(1, 80))
            opset = int(rng.integers(9, 18))
            module = None
            if rng.integers(0, 3) > 0:
                module = random_torch_net(rng, features)
                model = export(module, features, opset)
            else:
                model = random_helper_net(rng, features, opset)
            onnx.checker.check_model(model)
            x, plain = inputs(rng, features)
            model_path = os.path.join(tmp, f"net{round_}.onnx")
            in_path = os.path.join(tmp, "in.f32")
            out_path = os.path.join(tmp, "out.f32")
            onnx.save(model, model_path)
            x.tofile(in_path)
            run = subprocess.run([args.tool, model_path, in_path, out_path], capture_output=True,
                                 text=True)
            label = f"round {round_} (opset {opset}, {features} features)"
            if run.returncode != 0:
                raise SystemExit(f"{label}: onnx_eval_tool exited {run.returncode}: {run.stderr}")
            got = np.fromfile(out_path, dtype=F32).reshape(x.shape[0], -1)
            expected, excluded = contract_eval.evaluate(model, x)
            mismatch = (got.view(np.uint32) != expected.view(np.uint32)) & ~excluded
            if mismatch.any():
                i, j = np.argwhere(mismatch)[0]
                raise SystemExit(f"{label}: item {i} output {j}: calcjit {got[i, j]!r} "
                                 f"({got.view(np.uint32)[i, j]:08x}), contract "
                                 f"{expected[i, j]!r} ({expected.view(np.uint32)[i, j]:08x})")
            if excluded.any():
                print(f"{label}: {int(excluded.sum())} outputs excluded (no mpmath)")
            bound = contract_eval.drift_bound(model, x[:plain])
            theirs = [contract_eval.evaluate_torch(model, x[:plain])]
            if module is not None:
                with torch.inference_mode():
                    theirs.append(module(torch.from_numpy(x[:plain])).numpy())
            for other in theirs:
                diff = np.abs(other.astype(np.float64) - got[:plain].astype(np.float64))
                if not np.all(diff <= bound):
                    raise SystemExit(f"{label}: PyTorch differs beyond the bound "
                                     f"({np.max(diff - bound):.3g} over)")
                worst_ratio = max(worst_ratio, float(np.max(diff / np.maximum(bound, 1e-300))))
            print(f"{label}: {run.stdout.strip()}: bits equal on {x.shape[0]} items")
    print(f"ok; PyTorch within {worst_ratio:.3f} of the drift bound at worst")


if __name__ == "__main__":
    main()
