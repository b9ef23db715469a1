#!/usr/bin/python3
"""Expected raw scores for the hand-written LightGBM models (tests/model/data/lgb_*.txt).

LightGBM is not packaged for Debian here, so these models were written by
hand in its documented text format, and their expected outputs come from this
small evaluator, written straight from spec section 6.3 and LightGBM's
Tree::NumericalDecision / CategoricalDecision, independently of calcjit's C++
evaluators (it shares no code with them):

  lightgbm_cases.py DIR     writes DIR/lgb_NAME.cases for every DIR/lgb_NAME.txt

The rows pin every decision: each threshold's nearest float32 and its
neighbours, +-0, +-1e-35f and its neighbours, subnormals, huge values,
+-inf, NaN, and for categorical features negative, non-integer,
out-of-range and NaN categories.
"""

import glob
import math
import os
import struct
import sys

# LightGBM's kZeroThreshold is the float literal 1e-35f (include/LightGBM/meta.h).
ZERO_THRESHOLD = struct.unpack("f", struct.pack("f", 1e-35))[0]


def f32(value):
    """Rounds a Python float (binary64) to the nearest binary32."""
    return struct.unpack("f", struct.pack("f", value))[0]


def f32_bits(value):
    return struct.unpack("I", struct.pack("f", value))[0]


def from_bits(bits):
    return struct.unpack("f", struct.pack("I", bits & 0xFFFFFFFF))[0]


def next_up(x):
    """The next binary32 above x (x a binary32 value, not NaN or +inf)."""
    if x == 0:
        return from_bits(1)
    b = f32_bits(x)
    return from_bits(b + 1) if x > 0 else from_bits(b - 1)


def next_down(x):
    return -next_up(-x)


def parse(path):
    header, trees, tree = {}, [], None
    flags = set()
    with open(path) as f:
        lines = f.read().split("\n")
    for line in lines:
        if line == "end of trees":
            break
        if line.startswith("Tree="):
            tree = {}
            trees.append(tree)
            continue
        if not line or line == "tree":
            continue
        if "=" not in line:
            flags.add(line)
            continue
        key, value = line.split("=", 1)
        (tree if tree is not None else header)[key] = value
    return header, flags, trees


def numbers(text, kind):
    return [kind(token) for token in text.split()]


class Model:
    def __init__(self, path):
        header, flags, trees = parse(path)
        self.num_features = int(header["max_feature_idx"]) + 1
        self.classes = int(header.get("num_tree_per_iteration", header["num_class"]))
        self.average = "average_output" in flags
        self.trees = []
        for t in trees:
            leaves = int(t["num_leaves"])
            tree = {"leaf_value": numbers(t["leaf_value"], float), "leaves": leaves}
            if leaves > 1:
                tree.update({
                    "feature": numbers(t["split_feature"], int),
                    "threshold": numbers(t["threshold"], float),
                    "decision_type": numbers(t.get("decision_type", "0 " * (leaves - 1)), int),
                    "left": numbers(t["left_child"], int),
                    "right": numbers(t["right_child"], int),
                })
                if int(t.get("num_cat", "0")) > 0:
                    tree["cat_boundaries"] = numbers(t["cat_boundaries"], int)
                    tree["cat_threshold"] = numbers(t["cat_threshold"], int)
            self.trees.append(tree)

    def leaf(self, tree, row):
        if tree["leaves"] == 1:
            return tree["leaf_value"][0]
        node = 0
        while node >= 0:
            value = row[tree["feature"][node]]
            # The predictor drops |x| <= kZeroThreshold: such an input is 0.
            if not math.isnan(value) and abs(value) <= ZERO_THRESHOLD:
                value = 0.0
            kind = tree["decision_type"][node]
            if kind & 1:  # categorical
                go_left = False
                if math.isfinite(value) and math.trunc(value) >= 0:
                    category = math.trunc(value)
                    index = int(tree["threshold"][node])
                    begin = tree["cat_boundaries"][index]
                    end = tree["cat_boundaries"][index + 1]
                    if category < 32 * (end - begin):
                        word = tree["cat_threshold"][begin + category // 32]
                        go_left = bool((word >> (category % 32)) & 1)
            else:
                missing = (kind >> 2) & 3
                if math.isnan(value) and missing != 2:
                    value = 0.0
                if (missing == 1 and value == 0.0) or (missing == 2 and math.isnan(value)):
                    go_left = bool(kind & 2)
                else:
                    go_left = value <= tree["threshold"][node]
            node = tree["left"][node] if go_left else tree["right"][node]
        return tree["leaf_value"][~node]

    def raw_scores(self, row):
        sums = [0.0] * self.classes
        for i, tree in enumerate(self.trees):
            sums[i % self.classes] += self.leaf(tree, row)  # binary64, in tree order
        if self.average:
            iterations = len(self.trees) // self.classes
            sums = [s / iterations for s in sums]
        return [f32(s) for s in sums]

    def probe_values(self, feature):
        """Values of one feature that sit on and around its decisions."""
        values = {0.0, -0.0, ZERO_THRESHOLD, -ZERO_THRESHOLD, next_up(ZERO_THRESHOLD),
                  -next_up(ZERO_THRESHOLD), next_down(ZERO_THRESHOLD), from_bits(1),
                  -from_bits(1), 3.4028234663852886e38, -3.4028234663852886e38, 1e30,
                  math.inf, -math.inf, math.nan, 1.0, -1.0}
        for tree in self.trees:
            if tree["leaves"] == 1:
                continue
            for node, f in enumerate(tree["feature"]):
                if f != feature:
                    continue
                if tree["decision_type"][node] & 1:
                    values.update([-1.0, -0.5, 0.5, 1.0, 1.5, 2.0, 2.7, 3.0, 5.0, 7.0, 31.0,
                                   32.0, 33.0, 63.0, 64.0, 64.5, 65.0, 95.0, 96.0, 1e10, 3e9])
                    continue
                t = tree["threshold"][node]
                if math.isinf(f32(t)) or abs(t) > 3.4e38:
                    continue
                nearest = f32(t)
                values.update([nearest, next_up(nearest), next_down(nearest)])
        return sorted(values, key=lambda v: (math.isnan(v), v))


def write_cases(txt_path):
    model = Model(txt_path)
    base = [0.5, -0.25, 2.0, 40.0, -0.75, 100.0][:model.num_features]
    rows = [base[:], [math.nan] * model.num_features]
    for feature in range(model.num_features):
        for value in model.probe_values(feature):
            for variant in range(2):
                row = base[:] if variant == 0 else [math.nan] * model.num_features
                row[feature] = value
                rows.append(row)
    out_path = txt_path[:-4] + ".cases"
    with open(out_path, "w") as f:
        f.write("# %s: inputs and raw scores from tests/model/lightgbm_cases.py (spec 6.3), "
                "float32 bits\n" % os.path.basename(txt_path))
        for row in rows:
            row = [f32(v) for v in row]
            scores = model.raw_scores(row)
            f.write(" ".join("%08x" % f32_bits(v) for v in row) + " : " +
                    " ".join("%08x" % f32_bits(v) for v in scores) + "\n")


def main():
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "lgb_*.txt"))):
        write_cases(path)


if __name__ == "__main__":
    main()
