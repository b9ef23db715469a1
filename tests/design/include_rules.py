#!/usr/bin/env python3
"""The dependency rules of docs/DESIGN.md, checked over every #include "..."
line of the library, the public headers and the frontends.

Each rule names a folder and the include paths its files may use (besides
their own folder and the standard library, which angle brackets name). A file
is judged by the most specific rule whose folder contains it. Run from CTest;
exit status 1 lists every include that breaks a rule, with its file and line.
"""
import pathlib
import re
import sys

# (folder, allowed include prefixes). Own-folder includes are always allowed.
RULES = [
    # Public headers: calcjit's own, never LLVM, protobuf or the internals.
    ("include/calcjit", ["calcjit/"]),
    # The leaf every stage may share: Status, CPU tiers and the one tier
    # selection, UTF-8, number text, the JSON position adapter.
    ("src/common", ["calcjit/", "common/"]),
    ("src/math", ["math/"]),
    # The IR knows no reader, optimizer, backend or runtime.
    ("src/ir", ["calcjit/", "ir/", "math/bits.h", "common/utf8.h"]),
    ("src/dsl", ["calcjit/", "ir/", "dsl/", "math/bits.h", "common/"]),
    # Models: the format table, their own readers and kernels, over the
    # common leaf (number text, JSON positions, tier selection).
    ("src/model", ["calcjit/", "model/", "math/", "common/"]),
    # The optimizer folds constants with the reference interpreter's kernels
    # (the semantics exist once) and prints with the text printer.
    ("src/opt", ["calcjit/", "ir/", "opt/", "math/", "dsl/float_text.h", "dsl/text_printer.h",
                 "backend/reference/column_kernels.h"]),
    # Backends include neither each other nor the optimizer's pipeline nor
    # the runtime. The shared program and the column kernels serve them all.
    ("src/backend/reference", ["calcjit/", "ir/", "math/", "model/", "backend/executable.h",
                               "backend/reference/"]),
    ("src/backend/kernels", ["calcjit/", "ir/op", "math/", "model/", "common/tiers.h",
                             "backend/kernels/"]),
    ("src/backend/program", ["calcjit/", "ir/", "math/", "model/", "opt/dag.h",
                             "backend/executable.h", "backend/kernels/", "backend/program/"]),
    ("src/backend/vm", ["calcjit/", "ir/", "math/", "model/", "backend/kernels/",
                        "backend/program/", "backend/vm/"]),
    ("src/backend/jit", ["calcjit/", "ir/", "math/", "model/", "backend/program/",
                         "backend/kernels/", "backend/jit/", "llvm/"]),
    ("src/backend", ["calcjit/", "backend/executable.h"]),
    # The runtime assembles the stages: it may include any of them.
    ("src/runtime", ["calcjit/", "ir/", "dsl/", "math/", "model/", "opt/", "backend/",
                     "runtime/"]),
    ("src", ["calcjit/"]),
    # Frontends go through the public API.
    ("src/capi", ["calcjit/"]),
    ("cli", ["calcjit/", "cli/", "examples/ranking/example_data.h"]),
    ("python/src", ["calcjit/"]),
    ("java/src/main/native", ["calcjit/"]),
]

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCES = (".h", ".hpp", ".cc", ".c", ".inc", ".def")


def rule_for(path: str):
    best = None
    for folder, allowed in RULES:
        if path == folder or path.startswith(folder + "/"):
            if best is None or len(folder) > len(best[0]):
                best = (folder, allowed)
    return best


def check(root: pathlib.Path, quiet: bool = False) -> int:
    problems = []
    checked = 0
    for top in ("include", "src", "cli", "python/src", "java/src/main/native"):
        for file in sorted((root / top).rglob("*")):
            if file.suffix not in SOURCES or not file.is_file():
                continue
            relative = file.relative_to(root).as_posix()
            rule = rule_for(relative)
            if rule is None:
                continue
            folder, allowed = rule
            # src/x/... is included as "x/...": the folder below src/ (or the file's own folder).
            own_prefix = file.parent.relative_to(root / "src").as_posix() + "/" \
                if relative.startswith("src/") else None
            for number, line in enumerate(file.read_text(errors="replace").splitlines(), 1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                checked += 1
                target = match.group(1)
                if "/" not in target:  # a file of the same folder
                    continue
                if own_prefix and target.startswith(own_prefix):
                    continue
                if target.startswith(relative.rsplit("/", 1)[0] + "/"):
                    continue
                if any(target.startswith(prefix) for prefix in allowed):
                    continue
                problems.append(f"{relative}:{number}: includes \"{target}\", which {folder}/ may "
                                f"not (allowed: {', '.join(allowed)})")
    if quiet:
        return 1 if problems else 0
    for problem in problems:
        print(problem)
    print(f"include rules: {checked} includes checked, {len(problems)} break a rule")
    return 1 if problems else 0


def self_test() -> int:
    """The checker must catch what it is for: a backend including another,
    and a reader of sets reaching into the model layer (what the two share
    lives in src/common, which both may include)."""
    import tempfile
    planted = [
        ("src/backend/jit/bad.cc", '#include "backend/vm/vm.h"\n', True),
        ("src/backend/vm/good.cc", '#include "backend/program/program.h"\n', False),
        ("src/dsl/bad.cc", '#include "model/tree/ensemble.h"\n', True),
        ("src/dsl/good.cc", '#include "common/number_text.h"\n', False),
        ("src/model/tree/good.cc", '#include "common/json_text.h"\n', False),
        ("src/model/tree/bad.cc", '#include "dsl/float_text.h"\n', True),
    ]
    for path, text, bad in planted:
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            (root / path).parent.mkdir(parents=True)
            (root / path).write_text(text)
            if check(root, quiet=True) != (1 if bad else 0):
                print(f"self test: {path} with {text.strip()} was judged wrongly")
                return 1
    return 0


if __name__ == "__main__":
    if self_test() != 0:
        sys.exit(1)
    sys.exit(check(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()))
