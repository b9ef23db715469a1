#!/usr/bin/env python3
"""The JIT on a CPU with fewer instruction sets than the build machine's.

calcjit's tiers are chosen at run time, so one binary runs on CPUs with and
without AVX-512. Valgrind emulates a CPU without AVX-512 (its CPUID says so)
on any host: under it, the JIT must compile for the tier the CPU has, never
execute another tier's code (building the AVX-512 kernel table there was an
illegal instruction), and give the bits the VM gives natively. RANK too:
Highway's sort, which picks its own target, lost the items of equal values
on CPUs with AVX2 and without AVX-512 (math/rank_sort.h).

    smaller_cpu_test.py CALCJIT_CLI

Exit 77 (skipped) when valgrind is missing or emulates AVX-512 itself.
"""
import math
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

# Column calls (staged, one column kernel per block), a binary call,
# arithmetic around them, and ranks of columns with many ties.
SET = """input x;
input y;
e = exp(x) + log1p(y);
s = sigmoid(x * y) - tanh(x);
l = log(y) * pow(x, y);
r = rank(x);
t = rank(floor(y));
"""

EDGES = [0.0, -0.0, math.inf, -math.inf, math.nan, 1e-40, -1e-40, 88.7, -103.9, 1.0]


def rows(count):
    rng = random.Random(27)
    out = []
    for i in range(count):
        if i < len(EDGES) ** 2:
            x, y = EDGES[i % len(EDGES)], EDGES[i // len(EDGES)]
        else:
            x, y = rng.uniform(-20, 20), rng.uniform(0, 50)
        out.append((x, y))
    return out


def as_float32_text(v):
    # Exactly representable in float32, so the CSV reader's rounding is moot.
    return repr(struct.unpack("f", struct.pack("f", v))[0]) if math.isfinite(v) else str(v)


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, **kwargs)
    if result.returncode != 0:
        sys.exit(f"failed ({result.returncode}): {' '.join(command)}\n{result.stderr}")
    return result.stdout


def main():
    cli = sys.argv[1]
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        print("skipped: valgrind is not installed")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        set_path = os.path.join(tmp, "calls.calc")
        with open(set_path, "w") as f:
            f.write(SET)
        csv_path = os.path.join(tmp, "rows.csv")
        with open(csv_path, "w") as f:
            f.write("x,y\n")
            # 1,003 items: several 512-item blocks and a tail that is not a
            # multiple of any vector width.
            for x, y in rows(1003):
                f.write(f"{as_float32_text(x)},{as_float32_text(y)}\n")
        under_valgrind = [valgrind, "-q", "--error-exitcode=3"]
        assembly = run(under_valgrind + [cli, "dump", "--asm", set_path])
        if "zmm" in assembly:
            print("skipped: valgrind's CPU has AVX-512, so this host cannot test a smaller one")
            return 77
        native = os.path.join(tmp, "native_vm.csv")
        emulated = os.path.join(tmp, "emulated_jit.csv")
        eval_args = ["eval", set_path, "--input", csv_path]
        run([cli] + eval_args + ["--output", native, "--backend", "vm"])
        run(under_valgrind + [cli] + eval_args + ["--output", emulated, "--backend", "jit"])
        with open(native) as a, open(emulated) as b:
            expected, got = a.read(), b.read()
        if expected != got:
            for line, (want, have) in enumerate(zip(expected.splitlines(), got.splitlines())):
                if want != have:
                    sys.exit(f"line {line + 1}: the VM here gives {want!r}, the JIT on the "
                             f"smaller CPU {have!r}")
            sys.exit("the outputs differ in length")
        print(f"ok: the JIT without AVX-512 matches the VM on {expected.count(chr(10)) - 1} items")
    return 0


if __name__ == "__main__":
    sys.exit(main())
