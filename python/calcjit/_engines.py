"""The worker side of calcjit.dask and calcjit.spark: one compiled engine per
worker process for each shipped set, backend and outputs.

A set travels as the bytes of its pickle (binary protobuf and its models'
bytes); the first task of a process that needs it compiles it, every later
task (and later job) of that process reuses it, keyed by the bytes' SHA-256.
"""

import pickle
import threading

_engines = {}
_engines_lock = threading.Lock()
_compiled = 0


def compile_count():
    """How many engines this process has compiled for shipped sets."""
    return _compiled


def engine(payload, digest, backend, outputs, load=pickle.loads):
    """The engine for a shipped set (`load(payload)` gives the FeatureSet): compiled
    at the first use in this process, then reused (a lock: a worker may run
    several threads)."""
    global _compiled
    key = (digest, backend, tuple(outputs))
    with _engines_lock:
        found = _engines.get(key)
        if found is None:
            feature_set = load(payload)
            found = feature_set.compile(backend=backend, outputs=list(outputs))
            _engines[key] = found
            _compiled += 1
        return found
