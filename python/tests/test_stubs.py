"""The type stubs (calcjit/_calcjit.pyi) name exactly what the native module
has: the same classes and functions, each class with the same members
(including evaluate, evaluate_dataframe and predict, attached by calcjit/__init__.py)."""

import ast
import pathlib

import calcjit
import calcjit._calcjit as native

STUBS = pathlib.Path(calcjit.__file__).with_name("_calcjit.pyi")
KEPT_DUNDERS = {"__init__", "__getstate__", "__setstate__"}


def stub_names():
    tree = ast.parse(STUBS.read_text(), str(STUBS))
    top, classes = set(), {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            members = set()
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    members.add(item.name)
                elif isinstance(item, ast.AnnAssign):
                    members.add(item.target.id)
            classes[node.name] = members
            top.add(node.name)
        elif isinstance(node, ast.FunctionDef):
            top.add(node.name)
        elif isinstance(node, ast.AnnAssign) and not node.target.id.startswith("_"):
            top.add(node.target.id)
        elif isinstance(node, ast.AnnAssign) and node.target.id == "__version__":
            top.add("__version__")
    return top, classes


def module_members(cls):
    members = set()
    for name, value in vars(cls).items():
        if name.startswith("__"):
            # A pybind11 __init__ is an instancemethod; the default is a slot wrapper.
            if name in KEPT_DUNDERS and type(value).__name__ != "wrapper_descriptor":
                members.add(name)
        elif not name.startswith("_") or name in ("_evaluate", "_evaluate_rows"):
            members.add(name)
    return members


def test_the_stubs_ship_with_the_package():
    assert STUBS.is_file()
    assert STUBS.with_name("py.typed").is_file()


def test_the_stubs_list_the_modules_names():
    top, classes = stub_names()
    public = {n for n in dir(native) if not n.startswith("_")} | {"__version__"}
    assert top == public
    for name, members in classes.items():
        assert members == module_members(getattr(native, name)), name


def test_mypy_checks_code_against_the_stubs(tmp_path):
    """mypy (Debian's python3-mypy) accepts correct use and names each misuse: the
    package-level functions are annotated, the native classes typed by the stubs."""
    import subprocess
    import sys

    (tmp_path / "good.py").write_text(
        "import numpy as np\n"
        "import calcjit\n"
        "fs: calcjit.FeatureSet = calcjit.parse('input x; y = x * 2;')\n"
        "engine = fs.compile(backend='vm', outputs=['y'])\n"
        "y: np.ndarray = engine.evaluate({'x': np.ones(2, dtype=np.float32)})['y']\n"
        "name: str = engine.inputs[0].name\n"
        "version: int = calcjit.ServingEngine(fs).reload(fs)\n")
    (tmp_path / "bad.py").write_text(
        "import calcjit\n"
        "fs = calcjit.parse('input x; y = x * 2;')\n"
        "count: int = fs.outputs\n"
        "fs.compile(backend=3)\n")
    package_dir = pathlib.Path(calcjit.__file__).resolve().parents[1]
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", str(tmp_path / "c"),
         "--ignore-missing-imports", "--no-error-summary", "good.py", "bad.py"],
        cwd=tmp_path, capture_output=True, text=True,
        env={"MYPYPATH": str(package_dir), "PATH": "/usr/bin:/bin"})
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    assert [e.split(":")[:2] for e in errors] == [["bad.py", "3"], ["bad.py", "4"]], result.stdout
