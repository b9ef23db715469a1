#!/bin/sh
# The README's Python install, as written (the sh block after the comment that
# names this file), in a fresh venv of each python3 there is: pyenv's (the
# python3 on PATH, when it is not Debian's) and Debian's /usr/bin/python3. Each
# builds in pip's isolated environment (PyPI: setuptools, wheel and pybind11 as
# pinned in pyproject.toml, numpy as resolved), links the module to the build
# tree's library, and is then imported and used from outside both trees.
#   tests/install/pip_install_test.sh BUILD_DIR SOURCE_DIR
set -eu
build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The block: the lines of the first ```sh fence after the marker comment.
awk '/pip_install_test.sh runs this block/ {found=1; next}
     found && /^```sh/ {inside=1; next}
     inside && /^```/ {exit}
     inside {print}' "$source/README.md" > "$work/block.sh"
grep -q "pip install" "$work/block.sh" || { echo "no install block in README.md"; exit 1; }

interpreters=/usr/bin/python3
on_path=$(command -v python3 || true)
if [ -n "$on_path" ] && [ "$("$on_path" -c 'import sys; print(sys.executable)')" != /usr/bin/python3 ]; then
  interpreters="$on_path $interpreters"
fi

run_block() {  # interpreter folder
  # The README's venv and build tree, made this test's: ~/calcjit-env -> a
  # fresh folder, python3 -> the interpreter, build -> the build tree.
  sed -e "s|~/calcjit-env|$2/env|g" -e "s|^python3 |$1 |" \
      -e "s|CALCJIT_CMAKE_BUILD_DIR=build|CALCJIT_CMAKE_BUILD_DIR=$build|" \
      "$work/block.sh" > "$2/block.sh"
  (cd "$source" && sh -e "$2/block.sh") > "$2/log" 2>&1 || { cat "$2/log"; return 1; }
  (cd "$work" && env -u PYTHONPATH "$2/env/bin/python" - "$2/env") <<'PY' >> "$2/log" 2>&1
import pathlib
import sys

import numpy as np

import calcjit

package = pathlib.Path(calcjit.__file__).resolve().parent
assert pathlib.Path(sys.argv[1]).resolve() in package.parents, package
assert (package / "libcalcjit.so.0").is_file()
engine = calcjit.parse("input x; f = x * 2 + 1; r = rank(x);").compile()
out = engine.evaluate({"x": np.array([1, 3, 2], dtype=np.float32)}, group=[7, 7, 8])
assert out["f"].tolist() == [3, 7, 5] and out["r"].tolist() == [2, 1, 1], out
print(f"python {sys.version.split()[0]}, numpy {np.__version__}: ok")
PY
}

# One interpreter after the other: both builds use setup.py's one folder
# (build/setuptools), which two builds at once would trip over.
status=0
k=0
for python in $interpreters; do
  k=$((k + 1))
  mkdir "$work/$k"
  run_block "$python" "$work/$k" || status=1
  tail -1 "$work/$k/log"
done
exit $status
