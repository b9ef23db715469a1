#!/usr/bin/python3
"""Parity on models the project has never seen (run by CTest).

Each generator trains a few small models with a random seed (make_models.py
fresh for XGBoost, make_lightgbm_models.py fresh for LightGBM), run by the
interpreter of the library version it tests; then calcjit_model_parity checks
each model file: both evaluators, every tier, must give exactly the library's
own outputs. The seed is printed; CALCJIT_MODEL_SEED=N reruns one.

  fresh_parity.py PATH/TO/calcjit_model_parity PYTHON SCRIPT [PYTHON SCRIPT ...]
"""

import os
import random
import subprocess
import sys
import tempfile
import time


def main():
    tool, generators = sys.argv[1], sys.argv[2:]
    if not generators or len(generators) % 2:
        sys.exit("usage: fresh_parity.py TOOL PYTHON SCRIPT [PYTHON SCRIPT ...]")
    seed = int(os.environ.get("CALCJIT_MODEL_SEED", random.SystemRandom().randrange(1 << 31)))
    print("seed", seed, "(CALCJIT_MODEL_SEED=%d reruns it)" % seed, flush=True)
    start = time.time()
    failures = count = 0
    for python, script in zip(generators[0::2], generators[1::2]):
        if not os.path.exists(python):
            sys.exit("%s is missing: run scripts/setup.sh (it builds the reference venvs)" % python)
        with tempfile.TemporaryDirectory() as directory:
            generated = subprocess.run([python, script, "fresh", directory, str(seed)],
                                       capture_output=True, text=True, timeout=120)
            if generated.returncode != 0:
                sys.exit("%s %s fresh failed:\n%s" % (python, script, generated.stderr))
            for name in generated.stdout.split():
                count += 1
                path = os.path.join(directory, name)
                cases = os.path.splitext(path)[0] + ".cases"
                result = subprocess.run([tool, path, cases], capture_output=True, text=True,
                                        timeout=30)
                sys.stdout.write(result.stdout.replace(directory + "/", ""))
                if result.returncode != 0:
                    failures += 1
                    sys.stdout.write(result.stderr)
    print("%d models in %.1f s" % (count, time.time() - start))
    if failures:
        sys.exit("%d of %d fresh models differ from their library (seed %d)" %
                 (failures, count, seed))


if __name__ == "__main__":
    main()
