#!/usr/bin/env python3
"""bench/jit_vm_ratios.py on a made-up run: separate and paired medians.

More of the JIT's repetitions than of the VM's ran in a slow phase, so the
separate medians put the JIT behind while four pairs of five have it 10% ahead.

    jit_vm_ratios_test.py
"""
import json
import os
import subprocess
import sys
import tempfile

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "bench", "jit_vm_ratios.py")


def iteration(name, repetition, time):
    return {"run_name": name, "run_type": "iteration", "repetition_index": repetition,
            "cpu_time": time}


def run_script(benchmarks):
    """The script's output on a run of these benchmark entries."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"benchmarks": benchmarks}, f)
    try:
        return subprocess.run([sys.executable, SCRIPT, f.name], check=True, capture_output=True,
                              text=True).stdout
    finally:
        os.unlink(f.name)


def main():
    # The JIT's repetitions 2-4 and the VM's 3-4 ran while the other core was
    # busy (3x slower); the VM's repetition 2 just before that started.
    jit = [0.9, 0.9, 2.7, 2.7, 2.7]
    vm = [1.0, 1.0, 1.0, 3.0, 3.0]
    benchmarks = []
    for k in range(5):
        benchmarks.append(iteration("BM_Large/jit/10000", k, jit[k]))
        benchmarks.append(iteration("BM_Large/vm/10000", k, vm[k]))
    out = run_script(benchmarks)
    separate, paired = out.split("median of the paired ratios")
    # Separate: 2.7 / 1.0; paired: median(0.9, 0.9, 2.7, 0.9, 0.9).
    assert "| large set |  |  | **2.700** |" in separate, out
    assert "| large set |  |  | 0.900 |" in paired, out
    # A ratio above 1 is bold.
    benchmarks = [iteration("BM_Qux/jit/100", 0, 1.2), iteration("BM_Qux/vm/100", 0, 1.0)]
    out = run_script(benchmarks)
    assert "| qux | **1.200** |  |  |" in out, out
    assert "jit: worst repetition 1.00x its median" in out, out
    print("ok")


if __name__ == "__main__":
    main()
