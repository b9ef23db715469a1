#!/usr/bin/python3
"""Parity on models the project has never seen (run by CTest).

Trains a few small XGBoost models with a random seed (make_models.py fresh),
then runs calcjit_model_parity on each: both evaluators must give exactly
XGBoost's margins. The seed is printed; CALCJIT_MODEL_SEED=N reruns one.

  fresh_parity.py PATH/TO/calcjit_model_parity
"""

import os
import random
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    tool = sys.argv[1]
    seed = int(os.environ.get("CALCJIT_MODEL_SEED", random.SystemRandom().randrange(1 << 31)))
    print("seed", seed, "(CALCJIT_MODEL_SEED=%d reruns it)" % seed, flush=True)
    start = time.time()
    with tempfile.TemporaryDirectory() as directory:
        names = subprocess.run(
            ["/usr/bin/python3", os.path.join(HERE, "make_models.py"), "fresh", directory,
             str(seed)], check=True, capture_output=True, text=True, timeout=90).stdout.split()
        failures = 0
        for name in names:
            base = os.path.join(directory, name)
            result = subprocess.run([tool, base + ".json", base + ".cases"], capture_output=True,
                                    text=True, timeout=30)
            sys.stdout.write(result.stdout.replace(directory + "/", ""))
            if result.returncode != 0:
                failures += 1
                sys.stdout.write(result.stderr)
    print("%d models in %.1f s" % (len(names), time.time() - start))
    if failures:
        sys.exit("%d of %d fresh models differ from XGBoost (seed %d)" % (failures, len(names), seed))


if __name__ == "__main__":
    main()
