"""Shared fixtures: the example set and its data, read exactly as `calcjit eval` reads them."""

import csv
import os
import pathlib
import subprocess
from fractions import Fraction

import numpy as np
import pytest

import calcjit

SOURCE_DIR = pathlib.Path(
    os.environ.get("CALCJIT_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
CLI = pathlib.Path(os.environ.get("CALCJIT_CLI", SOURCE_DIR / "build" / "cli" / "calcjit"))
RANKING = SOURCE_DIR / "examples" / "ranking" / "ranking.calc"
ITEMS = SOURCE_DIR / "examples" / "ranking" / "items.csv"
MODEL_DATA = SOURCE_DIR / "tests" / "model" / "data"


def parse_float32(text):
    """A CSV cell as `calcjit eval` reads it: the nearest float32 to the decimal
    (not the float32 nearest to the nearest double, which can differ by one ulp),
    empty as NaN, nan/inf/infinity in any case with an optional sign."""
    cell = text.strip(" \t")
    if cell == "":
        return np.float32(np.nan)
    if cell.lower().lstrip("+-") in ("nan", "inf", "infinity"):
        return np.float32(float(cell))
    exact = Fraction(cell)
    best = np.float32(float(cell))
    best_error = abs(Fraction(float(best)) - exact)
    for candidate in (np.nextafter(best, np.float32(-np.inf)),
                      np.nextafter(best, np.float32(np.inf))):
        if not np.isfinite(candidate):
            continue
        error = abs(Fraction(float(candidate)) - exact)
        even = int(np.array(candidate).view(np.uint32)) % 2 == 0
        if error < best_error or (error == best_error and even):
            best, best_error = candidate, error
    if best == 0 and exact < 0:
        best = np.float32(-0.0)
    return best


def read_csv(path):
    """(header, rows) of a CSV file (RFC 4180, as the CLI's files are)."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def csv_columns(path):
    """Every column of a CSV file as a float32 array (exact parse); non-numeric
    columns are left out."""
    header, rows = read_csv(path)
    columns = {}
    for k, name in enumerate(header):
        try:
            columns[name] = np.array([parse_float32(row[k]) for row in rows], dtype=np.float32)
        except ValueError:
            columns[name + "#text"] = np.array([row[k] for row in rows])
    return columns


def inputs_from_columns(inputs, columns, starts):
    """The binding rules of `calcjit eval`: a vector input from its v[k] columns,
    a query input from the first row of each query, absent columns left out."""
    bound = {}
    for info in inputs:
        if info.is_vector:
            names = [f"{info.name}[{k}]" for k in range(info.dimension)]
            if names[0] not in columns:
                continue
            values = np.column_stack([columns[name] for name in names])
        elif info.name in columns:
            values = columns[info.name]
        else:
            continue
        if info.scope == "query":
            values = values[starts]
        bound[info.name] = np.ascontiguousarray(values, dtype=np.float32)
    return bound


def run_cli(*args):
    result = subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result


def bits(array):
    """The bit patterns of float32 values, for exact comparisons (NaN included)."""
    return np.ascontiguousarray(array, dtype=np.float32).view(np.uint32)


def assert_same_bits(actual, expected, name=""):
    a, e = bits(actual), bits(expected)
    assert a.shape == e.shape, name
    differ = np.flatnonzero(a != e)
    assert differ.size == 0, (
        f"{name}: {differ.size} values differ, first at {differ[0]}: "
        f"{actual[differ[0]]!r} (0x{a[differ[0]]:08X}) vs {expected[differ[0]]!r} "
        f"(0x{e[differ[0]]:08X})")


@pytest.fixture(scope="session")
def ranking():
    return calcjit.read_file(RANKING)


@pytest.fixture(scope="session")
def items():
    """items.csv: its columns, the query offsets of query_id, and the bound inputs."""
    columns = csv_columns(ITEMS)
    offsets = calcjit.query_offsets(columns["query_id"])
    return columns, offsets


def random_inputs(inputs, n, queries, seed):
    """Random data for every input: item values with some NaNs and zeros, one
    query row per query."""
    rng = np.random.default_rng(seed)
    bound = {}
    for info in inputs:
        rows = n if info.scope == "item" else queries
        shape = (rows, info.dimension) if info.is_vector else (rows,)
        values = rng.lognormal(1.0, 1.5, size=shape).astype(np.float32)
        values[rng.random(shape) < 0.08] = np.nan
        values[rng.random(shape) < 0.05] = 0
        values[rng.random(shape) < 0.05] *= -1
        bound[info.name] = values
    return bound


def model_cases(name):
    """The rows and the library's own outputs of tests/model/data/NAME.cases
    (float32 bits, written by the tests/model generators), as float32 arrays
    [rows, features] and [rows, outputs]."""
    rows, outputs = [], []
    for line in (MODEL_DATA / (name + ".cases")).read_text().splitlines():
        if line.startswith("#") or ":" not in line:
            continue
        left, right = line.split(":")
        rows.append([int(w, 16) for w in left.split()])
        outputs.append([int(w, 16) for w in right.split()])
    return (np.array(rows, dtype=np.uint32).view(np.float32),
            np.array(outputs, dtype=np.uint32).view(np.float32))
