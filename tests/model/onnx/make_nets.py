#!/usr/bin/python3
"""Generates the ONNX test nets of tests/model/onnx/data and their cases.

    /usr/bin/python3 tests/model/onnx/make_nets.py          # rewrite data/
    /usr/bin/python3 tests/model/onnx/make_nets.py --check  # regenerate in memory, compare

For each net: NAME.onnx (exported by torch.onnx.export, or built with
onnx.helper; every one passes onnx.checker) and NAME.cases: its description
as `calcjit check` prints it, then items (ordinary inputs, then rows with NaN,
+-inf, +-0, subnormals and huge values) with the output bits the contract
fixes, computed by contract_eval.py (numpy float32 in the contract's order,
Sigmoid and Tanh correctly rounded). On the ordinary rows the script also
checks PyTorch's outputs (the exported module itself, and a PyTorch
interpretation of every graph) against those bits within
contract_eval.drift_bound, and prints the largest differences.

data/hostile/: files the reader must refuse, with the location and message
expected (hostile.txt: file, location substring, message substring).

Everything is seeded: a second run writes the same bytes (--check verifies).
"""

import io
import os
import sys

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import contract_eval  # noqa: E402

F32 = np.float32
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
HOSTILE = os.path.join(DATA, "hostile")

# Inputs a special row draws from (besides ordinary values).
SPECIALS = np.array(
    [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -1e-40, 1.4e-45, -1.4e-45, 1e-38, 3e38, -3e38,
     1e30, -1e30, 88.0, -104.0, 1e-7],
    dtype=F32,
)


# --- Building nets -----------------------------------------------------------

def export_torch(module, features, opset, keep_initializers=False):
    torch.manual_seed(0)
    module.eval()
    f = io.BytesIO()
    torch.onnx.export(
        module, torch.zeros(2, features), f, opset_version=opset, input_names=["x"],
        output_names=["y"], dynamic_axes={"x": {0: "N"}, "y": {0: "N"}},
        keep_initializers_as_inputs=keep_initializers,
    )
    return onnx.load_from_string(f.getvalue())


def seeded_module(seed, build):
    torch.manual_seed(seed)
    return build()


def tensor(name, array, raw=True):
    array = np.asarray(array, dtype=F32)
    if raw:
        return numpy_helper.from_array(array, name)
    return helper.make_tensor(name, TensorProto.FLOAT, array.shape, array.flatten().tolist())


def rows(name, width, batch="N"):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, [batch, width])


def make_model(nodes, inputs, outputs, initializers, opset, name="net"):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="make_nets.py")
    model.ir_version = 7 if opset <= 14 else 8
    return model


def weights(rng, *shape, scale=None):
    scale = scale if scale is not None else 1.0 / np.sqrt(shape[0])
    return (rng.standard_normal(shape) * scale).astype(F32)


def net_matmul_add():
    rng = np.random.default_rng(7)
    inits = [tensor("w1", weights(rng, 13, 7)), tensor("b1", weights(rng, 7, scale=0.5)),
             tensor("w2", weights(rng, 7, 5)), tensor("b2", weights(rng, 1, 5, scale=0.5))]
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h1"], name="mm1"),
        helper.make_node("Add", ["h1", "b1"], ["h2"], name="bias1"),
        helper.make_node("Relu", ["h2"], ["h3"], name="relu1"),
        helper.make_node("MatMul", ["h3", "w2"], ["h4"], name="mm2"),
        helper.make_node("Add", ["b2", "h4"], ["h5"], name="bias2"),  # constant first
        helper.make_node("LeakyRelu", ["h5"], ["y"], name="leaky", alpha=0.05),
    ]
    return make_model(nodes, [rows("x", 13)], [rows("y", 5)], inits, 9)


def net_gemm_forms():
    rng = np.random.default_rng(8)
    inits = [tensor("w1", weights(rng, 6, 9), raw=False), tensor("c1", [0.25], raw=False),
             tensor("w2", weights(rng, 4, 9), raw=False), tensor("b2", weights(rng, 4)),
             tensor("b3", weights(rng, 1, 4))]
    nodes = [
        helper.make_node("Flatten", ["x"], ["f"], axis=-1),
        helper.make_node("Identity", ["f"], ["i"]),
        helper.make_node("Gemm", ["i", "w1", "c1"], ["g1"], name="scalar_bias"),
        helper.make_node("Relu", ["g1"], ["r1"]),
        helper.make_node("Gemm", ["r1", "w2"], ["g2"], name="no_bias", transB=1, alpha=1.0),
        helper.make_node("Add", ["g2", "b2"], ["a1"]),
        helper.make_node("Add", ["a1", "b3"], ["a2"], name="second_add"),
        helper.make_node("Sigmoid", ["a2"], ["s"]),
        helper.make_node("Identity", ["s"], ["y"]),
    ]
    return make_model(nodes, [rows("x", 6)], [rows("y", 4)], inits, 11)


def net_input_first():
    rng = np.random.default_rng(9)
    inits = [tensor("b0", weights(rng, 3)), tensor("w", weights(rng, 2, 3)),
             tensor("c", weights(rng, 1, 2))]
    nodes = [
        helper.make_node("Add", ["x", "b0"], ["a"]),
        helper.make_node("Tanh", ["a"], ["t"]),
        helper.make_node("Relu", ["t"], ["r"]),
        helper.make_node("Gemm", ["r", "w", "c"], ["y"], transB=1),
    ]
    return make_model(nodes, [rows("x", 3)], [rows("y", 2)], inits, 15)


def net_identity_only():
    nodes = [helper.make_node("Identity", ["x"], ["y"])]
    return make_model(nodes, [rows("x", 4)], [rows("y", 4)], [], 14)


def net_single_feature():
    rng = np.random.default_rng(10)
    inits = [tensor("w1", weights(rng, 1, 3)), tensor("c1", weights(rng, 3)),
             tensor("w2", weights(rng, 3, 1)), tensor("c2", np.array(0.5, dtype=F32))]
    nodes = [
        helper.make_node("Gemm", ["x", "w1", "c1"], ["h"]),
        helper.make_node("Relu", ["h"], ["r"]),
        helper.make_node("Gemm", ["r", "w2", "c2"], ["y"]),
    ]
    return make_model(nodes, [rows("x", 1)], [rows("y", 1)], inits, 16)


def net_wide_outputs():
    rng = np.random.default_rng(11)
    inits = [tensor("w1", weights(rng, 40, 9)), tensor("c1", weights(rng, 40)),
             tensor("w2", weights(rng, 40, 17)), tensor("c2", weights(rng, 17))]
    nodes = [
        helper.make_node("Gemm", ["x", "w1", "c1"], ["h"], transB=1),
        helper.make_node("Relu", ["h"], ["r"]),
        helper.make_node("Gemm", ["r", "w2", "c2"], ["y"]),
    ]
    return make_model(nodes, [rows("x", 9)], [rows("y", 17)], inits, 13)


def nets():
    """(name, ModelProto, the torch module it was exported from or None, m)."""
    L = torch.nn
    out = []
    ranking = seeded_module(1, lambda: L.Sequential(L.Linear(64, 128), L.ReLU(), L.Linear(128, 64),
                                                     L.ReLU(), L.Linear(64, 1)))
    out.append(("ranking_mlp", export_torch(ranking, 64, 13), ranking, 64))
    two = seeded_module(2, lambda: L.Sequential(L.Linear(10, 16), L.ReLU(), L.Linear(16, 2)))
    out.append(("two_outputs", export_torch(two, 10, 11), two, 10))
    acts = seeded_module(3, lambda: L.Sequential(
        L.Linear(12, 24), L.LeakyReLU(0.2), L.Linear(24, 16), L.Sigmoid(), L.Linear(16, 8),
        L.Tanh(), L.Linear(8, 3)))
    out.append(("activations", export_torch(acts, 12, 17), acts, 12))
    flat = seeded_module(4, lambda: L.Sequential(L.Flatten(), L.Linear(6, 4, bias=False),
                                                  L.Sigmoid()))
    out.append(("torch_flatten_matmul", export_torch(flat, 6, 12), flat, 6))
    for opset in range(9, 18):
        small = seeded_module(100 + opset, lambda: L.Sequential(L.Linear(5, 7), L.Tanh(),
                                                                L.Linear(7, 2)))
        out.append((f"opset{opset}", export_torch(small, 5, opset, keep_initializers=opset == 9),
                    small, 5))
    out.append(("matmul_add", net_matmul_add(), None, 13))
    out.append(("gemm_forms", net_gemm_forms(), None, 6))
    out.append(("input_first", net_input_first(), None, 3))
    out.append(("identity_only", net_identity_only(), None, 4))
    out.append(("single_feature", net_single_feature(), None, 1))
    out.append(("wide_outputs", net_wide_outputs(), None, 9))
    return out


# --- What calcjit check prints, from the graph -------------------------------

def describe(model, features):
    graph = model.graph
    constants = {t.name: t for t in graph.initializer}
    parameters = 0
    text = f"onnx: {features}"
    previous = None
    linear_without_bias = False
    for node in graph.node:
        for name in node.input:
            if name in constants:
                parameters += int(np.prod(constants[name].dims)) if constants[name].dims else 1
        op = node.op_type
        if op in ("Gemm", "MatMul"):
            w = constants[node.input[1]]
            trans = any(a.name == "transB" and a.i == 1 for a in node.attribute)
            text += f" -> {w.dims[0] if trans else w.dims[1]}"
            linear_without_bias = not (op == "Gemm" and len(node.input) > 2 and node.input[2])
        elif op == "Add":
            if not (previous in ("Gemm", "MatMul") and linear_without_bias):
                text += " +bias"
            linear_without_bias = False
        elif op == "LeakyRelu":
            alpha = next((a.f for a in node.attribute if a.name == "alpha"), F32(0.01))
            text += f" leaky_relu({np.format_float_positional(F32(alpha), trim='-')})"
        elif op in ("Relu", "Sigmoid", "Tanh"):
            text += " " + op.lower()
        if op not in ("Identity", "Flatten"):
            previous = op
    if previous is None:
        text += " (identity)"
    return text + f", {parameters:,} parameter{'s' if parameters != 1 else ''}"


# --- Inputs, expected bits, PyTorch parity -----------------------------------

def make_inputs(rng, features, ordinary, special):
    x = (rng.standard_normal((ordinary + special, features)) * 2).astype(F32)
    for i in range(ordinary, ordinary + special):
        picks = rng.random(features) < 0.3
        x[i, picks] = rng.choice(SPECIALS, size=int(picks.sum()))
    # Fixed rows at the end: all zeros, all -0, all NaN, all +inf.
    fixed = np.array([[0.0] * features, [-0.0] * features, [np.nan] * features,
                      [np.inf] * features], dtype=F32)
    return np.concatenate([x, fixed]).astype(F32), ordinary


def hex_words(values):
    return " ".join(f"{b:08x}" for b in np.asarray(values, dtype=F32).view(np.uint32))


def cases_text(name, model, features, x, expected):
    lines = [f"# {name}: generated by tests/model/onnx/make_nets.py; do not edit.",
             f"model {name}.onnx",
             f"description {describe(model, features)}",
             f"features {features}",
             f"outputs {expected.shape[1]}",
             f"items {x.shape[0]}"]
    for row, out in zip(x, expected):
        lines.append(hex_words(row) + " | " + hex_words(out))
    return "\n".join(lines) + "\n"


def torch_parity(name, model, module, x_plain, expected_plain, report):
    bound = contract_eval.drift_bound(model, x_plain)
    candidates = [("graph", contract_eval.evaluate_torch(model, x_plain))]
    if module is not None:
        with torch.inference_mode():
            candidates.append(("module", module(torch.from_numpy(x_plain)).numpy()))
    for label, got in candidates:
        diff = np.abs(got.astype(np.float64) - expected_plain.astype(np.float64))
        if not np.all(diff <= bound):
            worst = np.unravel_index(np.argmax(diff - bound), diff.shape)
            raise SystemExit(f"{name}: PyTorch ({label}) differs by {diff[worst]:.3g} at {worst}, "
                             f"beyond the bound {bound[worst]:.3g}")
        # In float32 ulps of each output column's largest magnitude: the
        # rounding at the output's scale (a plain ulp count means nothing for
        # outputs near 0, where any two summation orders cancel differently).
        scale = np.spacing(np.max(np.abs(expected_plain), axis=0).astype(F32)).astype(np.float64)
        report.append((name, label, float(np.max(diff / scale)),
                       float(np.max(diff / np.maximum(bound, 1e-300))),
                       float(np.mean(diff == 0))))


# --- Hostile files -----------------------------------------------------------

def valid_base(opset=13):
    """x [N, 4] -> Gemm(w [3, 4], transB=1, c [3]) -> Relu -> y [N, 3]."""
    rng = np.random.default_rng(99)
    inits = [tensor("w", weights(rng, 3, 4)), tensor("c", weights(rng, 3))]
    nodes = [helper.make_node("Gemm", ["x", "w", "c"], ["h"], name="fc", transB=1),
             helper.make_node("Relu", ["h"], ["y"], name="act")]
    return make_model(nodes, [rows("x", 4)], [rows("y", 3)], inits, opset)


def hostile_models():
    """(file, location substring, message substring, ModelProto or bytes)."""
    out = []

    def case(name, where, message, build):
        model = valid_base()
        result = build(model)
        out.append((name, where, message, model if result is None else result))

    def set_node(index, node):
        def build(model):
            model.graph.node[index].CopyFrom(node)
        return build

    case("unsupported_op.onnx", "graph.node[1] (Softmax 'act')", "operator 'Softmax' is not supported",
         set_node(1, helper.make_node("Softmax", ["h"], ["y"], name="act")))
    case("custom_domain.onnx", "graph.node[1] (Relu 'act')", "of domain 'com.example' is not supported",
         set_node(1, helper.make_node("Relu", ["h"], ["y"], name="act", domain="com.example")))
    case("gemm_trans_a.onnx", "graph.node[0] (Gemm 'fc')", "transA = 1 is not supported",
         set_node(0, helper.make_node("Gemm", ["x", "w", "c"], ["h"], name="fc", transA=1, transB=1)))
    case("gemm_alpha.onnx", "graph.node[0] (Gemm 'fc')", "only alpha = beta = 1 is supported",
         set_node(0, helper.make_node("Gemm", ["x", "w", "c"], ["h"], name="fc", transB=1, alpha=0.5)))
    case("gemm_attribute_type.onnx", "graph.node[0] (Gemm 'fc')",
         "attribute 'transB' must be of type INT; it is FLOAT",
         set_node(0, helper.make_node("Gemm", ["x", "w", "c"], ["h"], name="fc", transB=1.0)))
    case("relu_attribute.onnx", "graph.node[1] (Relu 'act')", "Relu takes no attributes; it has 'alpha'",
         set_node(1, helper.make_node("Relu", ["h"], ["y"], name="act", alpha=0.5)))
    case("flatten_axis0.onnx", "graph.node[1] (Flatten)", "Flatten with axis = 0 is not supported",
         set_node(1, helper.make_node("Flatten", ["h"], ["y"], axis=0)))

    def input_type(elem, shape):
        def build(model):
            model.graph.input[0].CopyFrom(helper.make_tensor_value_info("x", elem, shape))
        return build

    case("input_double.onnx", "graph.input[0] 'x'", "the graph input is DOUBLE; only FLOAT",
         input_type(TensorProto.DOUBLE, ["N", 4]))
    case("input_rank3.onnx", "graph.input[0] 'x'", "has shape [N, 1, 4]; it must be [N, m] (rank 2)",
         input_type(TensorProto.FLOAT, ["N", 1, 4]))
    case("input_fixed_batch.onnx", "graph.input[0] 'x'", "first dimension is fixed at 1; it must be symbolic",
         input_type(TensorProto.FLOAT, [1, 4]))
    case("input_huge.onnx", "graph.input[0] 'x'", "the input has 100000 features; a net needs 1 to 65,536",
         input_type(TensorProto.FLOAT, ["N", 100000]))

    def output_type(elem, shape):
        def build(model):
            model.graph.output[0].CopyFrom(helper.make_tensor_value_info("y", elem, shape))
        return build

    case("output_int64.onnx", "graph.output[0] 'y'", "the graph output is INT64",
         output_type(TensorProto.INT64, ["N", 3]))
    case("output_wrong_width.onnx", "graph.output[0] 'y'", "declared [N, 5] but the nodes compute [N, 3]",
         output_type(TensorProto.FLOAT, ["N", 5]))

    def replace_initializer(index, new):
        def build(model):
            model.graph.initializer[index].CopyFrom(new)
        return build

    rng = np.random.default_rng(5)
    case("weight_inner_mismatch.onnx", "graph.node[0] (Gemm 'fc')",
         "so it needs 5 inputs, but the value it multiplies has 4",
         replace_initializer(0, tensor("w", weights(rng, 3, 5))))
    case("bias_wrong_shape.onnx", "graph.node[0] (Gemm 'fc')", "C 'c' has shape [4]; it must broadcast",
         replace_initializer(1, tensor("c", weights(rng, 4))))
    case("weight_double.onnx", "graph.initializer[0] 'w'", "the initializer is DOUBLE; only FLOAT",
         replace_initializer(0, numpy_helper.from_array(weights(rng, 3, 4).astype(np.float64), "w")))
    case("weight_int64.onnx", "graph.initializer[0] 'w'", "the initializer is INT64",
         replace_initializer(0, numpy_helper.from_array(np.ones((3, 4), dtype=np.int64), "w")))
    raw_short = tensor("w", weights(rng, 3, 4))
    raw_short.raw_data = raw_short.raw_data[:40]
    case("raw_data_short.onnx", "graph.initializer[0] 'w'", "raw_data has 40 bytes; dims [3, 4] need 48",
         replace_initializer(0, raw_short))
    def huge_dims(model):  # declared, not stored: 2^32 weights for a 65,536-wide input
        model.graph.input[0].CopyFrom(rows("x", 65536))
        model.graph.initializer[0].CopyFrom(
            TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[65536, 65536]))
    case("huge_dims.onnx", "graph.initializer[0] 'w'", "exceed the limit of 16,777,216 parameters",
         huge_dims)
    external = tensor("w", weights(rng, 3, 4))
    external.ClearField("raw_data")
    external.data_location = TensorProto.EXTERNAL
    entry = external.external_data.add()
    entry.key, entry.value = "location", "weights.bin"
    case("external_data.onnx", "graph.initializer[0] 'w'",
         "keeps its data in an external file in 'weights.bin'", replace_initializer(0, external))

    def branch(model):  # the Relu reads the input, not the Gemm's output
        model.graph.node[1].input[0] = "x"
    case("branch.onnx", "graph.node[1] (Relu 'act')", "reads 'x' is the graph input; only a chain", branch)

    def dangling(model):
        model.graph.node[1].input[0] = "nowhere"
    case("dangling.onnx", "graph.node[1] (Relu 'act')", "'nowhere' is not defined", dangling)

    def reused(model):  # two nodes produce 'h'
        model.graph.node[1].output[0] = "h"
    case("reused_value.onnx", "graph.node[1] (Relu 'act')", "output 'h' is already defined", reused)

    def cycle(model):  # the nodes in the wrong order: the Relu reads 'h' before the Gemm makes it
        nodes = list(model.graph.node)
        del model.graph.node[:]
        model.graph.node.extend([nodes[1], nodes[0]])
    case("cycle.onnx", "graph.node[0] (Relu 'act')", "which comes later: the graph has a cycle", cycle)

    def self_loop(model):
        model.graph.node[1].input[0] = "y"
    case("self_loop.onnx", "graph.node[1] (Relu 'act')", "which comes later: the graph has a cycle",
         self_loop)

    def add_computed(model):
        model.graph.node[1].CopyFrom(helper.make_node("Add", ["h", "x"], ["y"], name="act"))
    case("add_computed.onnx", "graph.node[1] (Add 'act')", "input B must be an initializer (a constant)",
         add_computed)

    def second_input(model):
        model.graph.input.append(rows("mask", 4))
    case("two_inputs.onnx", "graph.input[1] 'mask'", "a second graph input", second_input)

    def second_output(model):
        model.graph.output.append(rows("h", 3))
    case("two_outputs.onnx", "graph.output", "the graph has 2 outputs", second_output)

    def output_early(model):
        model.graph.output[0].name = "h"
    case("output_not_last.onnx", "graph.output[0] 'h'", "but the chain goes on to 'y'", output_early)

    def opset(version):
        def build(model):
            model.opset_import[0].version = version
        return build

    case("opset8.onnx", "opset_import[0]", "opset 8 is not supported (9 to 17)", opset(8))
    case("opset18.onnx", "opset_import[0]", "opset 18 is not supported (9 to 17)", opset(18))

    def gemm_without_c_opset9(model):
        model.opset_import[0].version = 9
        del model.graph.node[0].input[2]
    case("gemm_no_c_opset9.onnx", "graph.node[0] (Gemm 'fc')", "Gemm before opset 11 needs input C",
         gemm_without_c_opset9)

    def matmul_vector(model):
        model.graph.node[0].CopyFrom(helper.make_node("MatMul", ["x", "v"], ["h"], name="mm"))
        model.graph.initializer.append(tensor("v", weights(rng, 4)))
        model.graph.output[0].CopyFrom(rows("y", 3))
    case("matmul_vector.onnx", "graph.node[0] (MatMul 'mm')", "it must be a matrix [4, K]", matmul_vector)

    def leaky_unknown_attribute(model):
        model.graph.node[1].CopyFrom(
            helper.make_node("LeakyRelu", ["h"], ["y"], name="act", alpha=0.1, beta=2.0))
    case("leaky_unknown_attribute.onnx", "graph.node[1] (LeakyRelu 'act')",
         "attribute 'beta' is not supported for LeakyRelu (only alpha)", leaky_unknown_attribute)

    def sparse(model):
        values = tensor("sv", [1.0])
        indices = numpy_helper.from_array(np.array([0], dtype=np.int64), "si")
        model.graph.sparse_initializer.append(helper.make_sparse_tensor(values, indices, [3]))
    case("sparse_initializer.onnx", "graph.sparse_initializer[0]", "sparse initializers are not supported",
         sparse)

    # Bytes that are not a well-formed model.
    good = valid_base().SerializeToString()
    out.append(("truncated.onnx", "byte ", "malformed ONNX file: truncated", good[: len(good) - 7]))
    out.append(("text_format.onnx", "byte ", "the file looks like text; calcjit reads binary .onnx",
                str(valid_base()).encode()))
    out.append(("empty.onnx", "empty.onnx", "empty file", b""))
    return out


# --- Main --------------------------------------------------------------------

def generate():
    """{relative path: bytes} of every data file, and the parity report."""
    files = {}
    report = []
    stats = {}
    for index, (name, model, module, features) in enumerate(nets()):
        onnx.checker.check_model(model)
        rng = np.random.default_rng(1000 + index)
        ordinary = 24 if features >= 32 else 48
        x, plain = make_inputs(rng, features, ordinary, special=13)
        expected, excluded = contract_eval.evaluate(model, x, stats)
        if excluded.any():
            raise SystemExit(f"{name}: mpmath is missing; near-midpoint cases cannot be decided")
        torch_parity(name, model, module, x[:plain], expected[:plain], report)
        files[f"{name}.onnx"] = model.SerializeToString()
        files[f"{name}.cases"] = cases_text(name, model, features, x, expected).encode()
    manifest = ["# file<TAB>location substring<TAB>message substring; make_nets.py writes it."]
    for name, where, message, model in hostile_models():
        files[f"hostile/{name}"] = model if isinstance(model, bytes) else model.SerializeToString()
        manifest.append(f"{name}\t{where}\t{message}")
    files["hostile/hostile.txt"] = ("\n".join(manifest) + "\n").encode()
    return files, report, stats


def main():
    check = "--check" in sys.argv[1:]
    files, report, stats = generate()
    if check:
        stale = [p for p, data in files.items()
                 if not os.path.exists(os.path.join(DATA, p))
                 or open(os.path.join(DATA, p), "rb").read() != data]
        if stale:
            raise SystemExit("stale: " + ", ".join(stale) + "; run tests/model/onnx/make_nets.py")
        print(f"{len(files)} files up to date")
        return
    os.makedirs(HOSTILE, exist_ok=True)
    for path, data in files.items():
        with open(os.path.join(DATA, path), "wb") as f:
            f.write(data)
    print(f"wrote {len(files)} files to {DATA}")
    print(f"Sigmoid/Tanh values near a float32 midpoint, decided with mpmath: "
          f"{stats.get('near_midpoint', 0)}")
    print("PyTorch against the contract's bits on ordinary inputs:")
    print(f"{'net':24} {'torch':7} {'max ulps at scale':>18} {'max diff/bound':>15} "
          f"{'bit-equal':>10}")
    for name, label, ulps, ratio, equal in report:
        print(f"{name:24} {label:7} {ulps:18.2f} {ratio:15.4f} {equal:10.1%}")


if __name__ == "__main__":
    main()
