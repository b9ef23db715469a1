"""The type stubs (calcjit/_calcjit.pyi) name exactly what the native module
has: the same classes and functions, each class with the same members
(including evaluate and evaluate_dataframe, attached by calcjit/__init__.py)."""

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
        elif not name.startswith("_") or name == "_evaluate":
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
