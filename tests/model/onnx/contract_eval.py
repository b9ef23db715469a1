"""An evaluator of ONNX nets written from spec 6.4 alone, independent of the
C++ reader and evaluators: it interprets the graph node by node with numpy
float32 operations in the contract's order, and computes Sigmoid and Tanh
correctly rounded from an exact reference. The C++ library must give its bits.

Also: a PyTorch interpretation of the same graph, and a bound on how far two
correct float32 implementations that sum in different orders can drift apart,
for the parity with PyTorch (docs/MODELS_ONNX.md).
"""

import numpy as np
import onnx
from onnx import numpy_helper

F32 = np.float32
CANONICAL_NAN = 0x7FC00000
U = 2.0**-24  # unit roundoff of float32

try:
    import mpmath
except ImportError:  # then near-midpoint cases are excluded (see exact_unary)
    mpmath = None


# --- The contract's numerics -----------------------------------------------

def striped_dot(x, w):
    """y[:, j] = DOT(x[i, :], w[:, j]) per item: eight float32 stripes, stripe t
    adding x[k] * w[k][j] for k mod 8 = t in ascending k from +0, each product
    rounded (numpy rounds every ufunc result to float32; no FMA), then
    ((s0+s1)+(s2+s3))+((s4+s5)+(s6+s7))."""
    x = np.asarray(x, dtype=F32)
    w = np.asarray(w, dtype=F32)
    n, m = x.shape
    assert w.shape[0] == m
    s = np.zeros((8, n, w.shape[1]), dtype=F32)
    with np.errstate(all="ignore"):
        for k in range(m):
            product = x[:, k : k + 1] * w[k : k + 1, :]
            s[k % 8] = s[k % 8] + product
        return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))


def relu(x):
    # x if x > 0, NaN if NaN, else +0.
    return np.where((x > 0) | np.isnan(x), x, F32(0.0)).astype(F32)


def leaky_relu(x, alpha):
    # x if x >= 0 or NaN, else alpha * x (one float32 rounding).
    with np.errstate(all="ignore"):
        return np.where((x >= 0) | np.isnan(x), x, F32(alpha) * x).astype(F32)


def _round_mp_to_f32(value, near):
    """The float32 nearest to the mpmath number `value` (ties to even), given a
    float32 `near` that is one of the two candidates."""
    near = F32(near)
    below = near if mpmath.mpf(float(near)) <= value else np.nextafter(near, F32(-np.inf))
    above = np.nextafter(below, F32(np.inf))
    d_below = abs(value - mpmath.mpf(float(below)))
    d_above = abs(value - mpmath.mpf(float(above)))
    if d_below < d_above:
        return below
    if d_above < d_below:
        return above
    return below if (below.view(np.uint32) & 1) == 0 else above


def exact_unary(x, f64, mp_function, stats=None):
    """f correctly rounded to float32: f in float64 (a few float64 ulps off),
    then one rounding to float32, which is right unless the float64 value lies
    within 2^-20 float32 ulps of a midpoint between two float32 values; those
    rare inputs are recomputed with mpmath at 200 bits. Without mpmath they
    come back as None in a mask (excluded, and counted)."""
    x = np.asarray(x, dtype=F32)
    with np.errstate(all="ignore"):
        v = f64(x.astype(np.float64))
    r = v.astype(F32)
    finite = np.isfinite(r) & np.isfinite(v)
    # The float32 neighbour of r on v's side, and the midpoint between them
    # (exact in float64).
    toward = np.where(v >= r.astype(np.float64), F32(np.inf), F32(-np.inf)).astype(F32)
    neighbour = np.nextafter(r, toward)
    with np.errstate(all="ignore"):
        spacing = np.abs(neighbour.astype(np.float64) - r.astype(np.float64))
        midpoint = (neighbour.astype(np.float64) + r.astype(np.float64)) / 2
        close = finite & (np.abs(v - midpoint) <= spacing * 2.0**-20) & (v != r.astype(np.float64))
    excluded = np.zeros(x.shape, dtype=bool)
    for index in zip(*np.nonzero(close)):
        if mpmath is None:
            excluded[index] = True
            continue
        with mpmath.workprec(200):
            exact = mp_function(mpmath.mpf(float(x[index])))
            r[index] = _round_mp_to_f32(exact, r[index])
    if stats is not None:
        stats["near_midpoint"] = stats.get("near_midpoint", 0) + int(close.sum())
        stats["excluded"] = stats.get("excluded", 0) + int(excluded.sum())
    return r, excluded


def sigmoid(x, stats=None):
    return exact_unary(
        x, lambda d: 1.0 / (1.0 + np.exp(-d)), lambda t: 1 / (1 + mpmath.exp(-t)), stats
    )


def tanh(x, stats=None):
    return exact_unary(x, np.tanh, mpmath.tanh if mpmath else None, stats)


# --- Reading the graph (with onnx's own Python API) ------------------------

def _attributes(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def _graph_pieces(model):
    graph = model.graph
    constants = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    inputs = [i.name for i in graph.input if i.name not in constants]
    assert len(inputs) == 1 and len(graph.output) == 1
    return graph, constants, inputs[0], graph.output[0].name


def evaluate(model, x, stats=None):
    """The net's outputs [N, K] for inputs x [N, m] (float32), NaN canonical;
    and a mask [N, K] of outputs excluded because mpmath is missing."""
    graph, constants, input_name, output_name = _graph_pieces(model)
    values = {input_name: np.asarray(x, dtype=F32)}
    excluded = np.zeros(np.shape(x)[0], dtype=bool)

    def operand(name):
        return values[name] if name in values else constants[name].astype(F32)

    for node in graph.node:
        op = node.op_type
        attrs = _attributes(node)
        a = operand(node.input[0])
        with np.errstate(all="ignore"):
            if op == "Gemm":
                b = constants[node.input[1]].astype(F32)
                if attrs.get("transB", 0):
                    b = b.T
                y = striped_dot(a, b)
                if len(node.input) > 2 and node.input[2]:
                    y = (y + constants[node.input[2]].astype(F32)).astype(F32)
            elif op == "MatMul":
                y = striped_dot(a, constants[node.input[1]].astype(F32))
            elif op == "Add":
                y = (a + operand(node.input[1])).astype(F32)
            elif op == "Relu":
                y = relu(a)
            elif op == "LeakyRelu":
                y = leaky_relu(a, attrs.get("alpha", 0.01))
            elif op in ("Sigmoid", "Tanh"):
                y, mask = (sigmoid if op == "Sigmoid" else tanh)(a, stats)
                excluded |= mask.any(axis=1)
            elif op in ("Identity", "Flatten"):
                y = a
            else:
                raise ValueError("unsupported op " + op)
        values[node.output[0]] = np.ascontiguousarray(y, dtype=F32)
    out = values[output_name]
    bits = out.view(np.uint32).copy()
    bits[np.isnan(out)] = CANONICAL_NAN
    return bits.view(F32), np.repeat(excluded[:, None], out.shape[1], axis=1)


# --- PyTorch, and how far it may be from the contract's bits ---------------

def evaluate_torch(model, x):
    """The same graph with PyTorch's own CPU kernels (float32)."""
    import torch

    graph, constants, input_name, output_name = _graph_pieces(model)
    t = {k: torch.from_numpy(np.array(v, dtype=F32)) for k, v in constants.items()}
    values = {input_name: torch.from_numpy(np.asarray(x, dtype=F32))}
    operand = lambda name: values[name] if name in values else t[name]
    with torch.inference_mode():
        for node in graph.node:
            op, attrs, a = node.op_type, _attributes(node), operand(node.input[0])
            if op == "Gemm":
                b = t[node.input[1]]
                c = t[node.input[2]] if len(node.input) > 2 and node.input[2] else None
                weight = b if attrs.get("transB", 0) else b.T
                y = torch.nn.functional.linear(a, weight.contiguous())
                y = y + c if c is not None else y
            elif op == "MatMul":
                y = torch.matmul(a, t[node.input[1]])
            elif op == "Add":
                y = a + operand(node.input[1])
            elif op == "Relu":
                y = torch.relu(a)
            elif op == "LeakyRelu":
                y = torch.nn.functional.leaky_relu(a, attrs.get("alpha", 0.01))
            elif op == "Sigmoid":
                y = torch.sigmoid(a)
            elif op == "Tanh":
                y = torch.tanh(a)
            else:
                y = a
            values[node.output[0]] = y
        return values[output_name].numpy().astype(F32)


def drift_bound(model, x):
    """A bound, per output, on |contract - other| for any other float32
    implementation that computes each dot product in some order (with or
    without FMA) and each activation within 4 ulps, on finite inputs x.

    Propagated layer by layer in float64 from the contract's own values v:
    a dot product of length m summed in any order is within
    gamma_m * sum_k |x_k w_kj| of the exact one (gamma_m = m u / (1 - m u),
    u = 2^-24), so two orders differ by 2 gamma_m of it, plus what the inputs
    already differ by (e) times |w|; a bias add rounds once in each (2u|y|);
    Relu and LeakyRelu are 1- and max(1, |alpha|)-Lipschitz; Sigmoid is
    1/4-Lipschitz and Tanh 1-Lipschitz, and an activation may be 4 ulps
    (8u relative) off. The factor 1.01 covers the second-order terms."""
    graph, constants, input_name, output_name = _graph_pieces(model)
    v = {input_name: np.asarray(x, dtype=np.float64)}
    e = {input_name: np.zeros(np.shape(x), dtype=np.float64)}

    def operand(name):
        if name in v:
            return v[name], e[name]
        c = constants[name].astype(np.float64)
        return c, np.zeros_like(c)

    for node in graph.node:
        op, attrs = node.op_type, _attributes(node)
        a, ea = operand(node.input[0])
        if op in ("Gemm", "MatMul"):
            w = constants[node.input[1]].astype(np.float64)
            if op == "Gemm" and attrs.get("transB", 0):
                w = w.T
            m = w.shape[0]
            gamma = m * U / (1 - m * U)
            y = a @ w
            ey = ea @ np.abs(w) + 2 * gamma * ((np.abs(a) + ea) @ np.abs(w))
            if op == "Gemm" and len(node.input) > 2 and node.input[2]:
                y = y + constants[node.input[2]].astype(np.float64)
                ey = ey + 2 * U * np.abs(y)
        elif op == "Add":
            b, eb = operand(node.input[1])
            y = a + b
            ey = ea + eb + 2 * U * np.abs(y)
        elif op == "Relu":
            y, ey = np.maximum(a, 0), ea
        elif op == "LeakyRelu":
            alpha = attrs.get("alpha", 0.01)
            y = np.where(a >= 0, a, alpha * a)
            ey = max(1.0, abs(alpha)) * ea + 2 * U * np.abs(y)
        elif op == "Sigmoid":
            y = 1 / (1 + np.exp(-a))
            ey = 0.25 * ea + 8 * U * np.abs(y)
        elif op == "Tanh":
            y = np.tanh(a)
            ey = ea + 8 * U * np.abs(y)
        else:
            y, ey = a, ea
        v[node.output[0]], e[node.output[0]] = y, ey
    return 1.01 * e[output_name]


def ulp_distance(a, b):
    """|a - b| in float32 ulps (ordered integer distance), for finite values."""
    def ordered(x):
        i = np.asarray(x, dtype=F32).view(np.int32).astype(np.int64)
        return np.where(i < 0, -(i & 0x7FFFFFFF), i)

    return np.abs(ordered(a) - ordered(b))
