#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/)
from the project's own data, so that fuzzing starts from inputs that reach
deep into each reader:

  text_reader   the set of every conformance case (tests/conformance/cases),
                the example set (examples/ranking/ranking.calc)
  json_reader   those sets that load, printed as JSON by `calcjit print`
  proto_reader  the same as binary protobuf
  csv_reader    the example data's first rows, the inputs of conformance
                cases as CSV tables, and a few hand-written tables (quotes,
                CRLF, a byte order mark)
  xgboost_reader, xgboost_ubjson, lightgbm_reader, onnx_reader, catboost_reader
                the model files of tests/model (up to 64 KiB each: small seeds
                keep the fuzzer fast), the hostile ONNX files included; for
                CatBoost its JSON exports and .cbm files (catboost_*), the
                refused ones included

Usage: python3 tests/fuzz/make_seeds.py build/cli/calcjit
(the differential target's seeds are fuzzer bytes, not files of the project:
they are a minimized corpus of an earlier run, see docs/FUZZING.md).
"""
import hashlib
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fuzz" / "corpus"
MAX_MODEL_BYTES = 65536


def put(target, data):
    if isinstance(data, str):
        data = data.encode()
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)


def conformance_cases():
    """(set text, {input: values}) of every case."""
    for path in sorted((ROOT / "tests" / "conformance" / "cases").glob("*.txt")):
        lines, inputs = [], {}
        for line in path.read_text().splitlines():
            if line.startswith("case "):
                lines, inputs = [], {}
            elif line.startswith("set "):
                lines.append(line[4:].strip())
            elif line.startswith("in "):
                name, _, values = line[3:].partition("=")
                inputs[name.strip()] = values.split()
            elif line.strip() == "end":
                yield "\n".join(lines) + "\n", inputs


def main():
    calcjit = sys.argv[1]
    sets = [text for text, _ in conformance_cases()]
    sets.append((ROOT / "examples" / "ranking" / "ranking.calc").read_text())
    for text in sets:
        put("text_reader", text)
        for fmt, target in (("json", "json_reader"), ("pb", "proto_reader")):
            done = subprocess.run([calcjit, "print", "--input-format", "calc", "--format", fmt,
                                   "/dev/stdin"], input=text.encode(), capture_output=True)
            if done.returncode == 0:
                put(target, done.stdout)

    items = (ROOT / "examples" / "ranking" / "items.csv").read_text().splitlines()
    put("csv_reader", "\n".join(items[:12]) + "\n")
    for _, inputs in conformance_cases():
        if inputs and all(len(v) == len(next(iter(inputs.values()))) for v in inputs.values()):
            rows = [",".join(inputs)] + [",".join(r) for r in zip(*inputs.values())]
            put("csv_reader", "\n".join(rows) + "\n")
    for table in ('a,b\r\n1,2\r\n', '\ufeffx,"y ""q"""\n" 1.5 ",nan\n-inf,\n',
                  'g,x\n"a\nb",1e-45\n"a\nb",3.4028235e38\n', 'h\n', 'a,b\n1,"2'):
        put("csv_reader", table)

    models = ROOT / "tests" / "model"
    for pattern, target in (("data/*.json", "xgboost_reader"), ("data/*.ubj", "xgboost_ubjson"),
                            ("data/*.txt", "lightgbm_reader"),
                            ("onnx/data/*.onnx", "onnx_reader"),
                            ("onnx/data/hostile/*.onnx", "onnx_reader"),
                            ("data/catboost_*.json", "catboost_reader"),
                            ("data/catboost_*.cbm", "catboost_reader")):
        for path in sorted(models.glob(pattern)):
            if target == "xgboost_reader" and path.name.startswith("catboost_"):
                continue
            if path.stat().st_size <= MAX_MODEL_BYTES:
                put(target, path.read_bytes())


if __name__ == "__main__":
    main()
