"""Group keys: consecutive runs of equal ids are one query (as `calcjit eval --group-by`)."""

import numpy as np


def query_offsets(group):
    """The query boundaries of a group key: an int64 array [0, s1, s2, ..., n].

    Each run of consecutive equal values of `group` (any 1-D array-like: ints,
    strings, ...) is one query; query k is the items offsets[k]:offsets[k+1].
    An id that comes back later starts a new query. Missing ids (NaN, None,
    NaT, pd.NA) equal each other, as empty cells do for `calcjit eval --group-by`.
    """
    keys = np.asarray(group)
    if keys.ndim != 1:
        raise _error(f"group must be 1-D (one id per item), got shape {keys.shape}", "group")
    n = keys.shape[0]
    if n == 0:
        return np.zeros(1, dtype=np.int64)
    differ = np.asarray(keys[1:] != keys[:-1], dtype=bool)
    missing = _missing(keys)
    if missing is not None:
        differ &= ~(missing[1:] & missing[:-1])
    changes = np.flatnonzero(differ) + 1
    return np.concatenate(([0], changes, [n])).astype(np.int64)


def _missing(keys):
    """Which ids are missing, or None when the dtype cannot hold a missing value."""
    if keys.dtype.kind in "fc":
        return np.isnan(keys)
    if keys.dtype.kind in "mM":
        return np.isnat(keys)
    if keys.dtype.kind == "O":
        try:
            import pandas as pd  # noqa: PLC0415 (optional)
        except ImportError:
            return np.array([k is None or (isinstance(k, float) and k != k) for k in keys])
        return np.asarray(pd.isna(keys), dtype=bool)
    return None


def query_starts(group):
    """The index of the first item of each query of a group key (len = number of queries).

    Query inputs are given one row per query; `column[query_starts(group)]`
    takes them from the first row of each query, as `calcjit eval` does.
    """
    return query_offsets(group)[:-1]


def _error(message, location=""):
    from . import _calcjit  # noqa: PLC0415 (the extension defines the class)

    error = _calcjit.Error(f"{location}: {message}" if location else message)
    error.kind = "user"
    error.location = location
    error.message = message
    return error
