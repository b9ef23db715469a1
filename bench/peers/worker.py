"""A runner in another interpreter, driven by peers.py over a pipe.

XGBoost 3.4.1 needs Python 3.12 (its own venv), so its runner lives in a
process of that interpreter. The driver writes one JSON request per line on
stdin and reads one JSON answer per line on stdout:

  {"op": "prepare", "key": K, "runner": NAME, "model": PATH, "rows": PATH, "cache": DIR}
        -> {"version": ..., "prepare_s": wall seconds}
  {"op": "time", "key": K, "reps": N}
        -> {"cpu": [seconds per call], "wall": [...]}
  {"op": "save", "key": K, "path": PATH}   (the last outputs, numpy .npy)
        -> {}
  an error -> {"error": message}

The rows come as a raw float32 file with their shape in its name's sidecar
(PATH.shape: "rows features"). Timing is time.process_time per call (every
thread of this process), as the driver times its own runners.
"""

import json
import pathlib
import sys
import time
import traceback

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from runners import RUNNERS  # noqa: E402
from timing import time_calls  # noqa: E402


def read_rows(path):
    shape = tuple(int(v) for v in pathlib.Path(path + ".shape").read_text().split())
    return np.fromfile(path, dtype=np.float32).reshape(shape)


def serve(requests, answer):
    runners = {}
    for line in requests:
        request = json.loads(line)
        try:
            op = request["op"]
            if op == "prepare":
                start = time.perf_counter()
                runner = RUNNERS[request["runner"]](request["model"], read_rows(request["rows"]),
                                                    request["cache"])
                runner.prepare()
                runner.run()
                runners[request["key"]] = runner
                answer({"version": runner.version, "prepare_s": time.perf_counter() - start})
            elif op == "time":
                cpu, wall = time_calls(runners[request["key"]].run, request["reps"])
                answer({"cpu": cpu, "wall": wall})
            elif op == "save":
                np.save(request["path"], runners[request["key"]].outputs())
                answer({})
            else:
                answer({"error": "unknown op %r" % op})
        except Exception:  # noqa: BLE001: every failure goes back to the driver
            answer({"error": traceback.format_exc()})


def main():
    def answer(message):
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    serve(sys.stdin, answer)


if __name__ == "__main__":
    main()
