#!/usr/bin/env bash
# Installs, from Debian 12's own archive, exactly the packages calcjit needs to
# build, test and run its demo. Idempotent: packages already present are left
# alone (--no-upgrade), so running it twice changes nothing.
set -euo pipefail

packages=(
  # toolchain
  g++ cmake ninja-build clang-format
  # wire format and readers
  libprotobuf-dev protobuf-compiler nlohmann-json3-dev
  # command line
  libcli11-dev
  # `calcjit graph --format svg`
  graphviz
  # tests, property tests, benchmarks
  libgtest-dev libgmock-dev librapidcheck-dev libbenchmark-dev
  # the ulp checker's high-precision reference
  libmpfr-dev libgmp-dev
  # the JIT: LLVM 16 (ORC), and clang 16 to compile src/math to LLVM bitcode
  llvm-16-dev clang-16 libzstd-dev
  # the Python module (python/, docs/PYTHON.md): Debian's python3 with its
  # headers, pybind11, numpy, pandas, and pytest for its tests
  python3-dev pybind11-dev python3-numpy python3-pandas python3-pytest
  # the Java frontend (java/): JDK 17 for javac and JNI, JUnit 5 for its tests
  openjdk-17-jdk-headless junit5
  # Maven: the Spark tests' artifacts (requirements/maven/pom.xml) and the
  # install test's Maven project
  maven
  # the Java benchmark's yardstick only (formulas compiled to JVM bytecode,
  # java/src/bench/.../AsmCompiler.java); the calcjit jar does not use it
  libasm-java
  # vectorized sorting for rank (Highway's vqsort)
  libhwy-dev
  # models inside feature sets: ONNX messages; XGBoost trains the parity
  # tests' models and is the benchmarks' reference predictor; PyTorch exports
  # the neural-net tests' models and is their reference runtime
  libonnx-dev python3-onnx libxgboost-dev python3-xgboost python3-torch
  # content hashes of model bytes, for the model cache
  libxxhash-dev
  # fuzzing: libFuzzer for clang 16
  libclang-rt-16-dev
  # a CPU without AVX-512 on any host (tests/jit/smaller_cpu_test.py), and
  # instruction counts (bench/callgrind.sh)
  valgrind
  # offline feature generation at scale (calcjit.dask)
  python3-dask python3-distributed
  # `pip install .` offline (--no-build-isolation: Debian's setuptools and
  # wheel), into a venv in the install test; pkg-config for the .pc file
  python3-pip python3-setuptools python3-wheel python3-venv pkg-config
  # the type stubs are checked with mypy
  python3-mypy
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
else
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-upgrade --no-install-recommends "${missing[@]}"
fi

# What only the tests and benchmarks use, from PyPI and Maven Central: the
# libraries calcjit is compared with (parity references, peers) and the engines
# users run (Spark, Arrow). The library never imports or links any of it, and
# its build downloads nothing. Each set is pinned in a file of requirements/
# and installed once into a cache outside the clone, in a folder named after
# the hash of its pins (scripts/reference_paths.sh prints them), so a second
# run downloads nothing and a changed pin makes a new folder.
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=reference_paths.sh
. "$here/reference_paths.sh"
mkdir -p "$CALCJIT_CACHE"

# A venv of `python` with the pins of `requirements`, made in its final
# folder and marked complete last: an interrupted run leaves no venv that
# looks whole.
make_venv() {
  local dir=$1 python=$2 requirements=$3
  [ -f "$dir/.complete" ] && return 0
  echo "setup: $dir from $requirements"
  rm -rf "$dir"
  "$python" -m venv "$dir"
  # wheel first, so that a package published as source only (pyspark) is
  # built into a wheel rather than installed by the deprecated setup.py path.
  if grep -q '^wheel==' "$requirements"; then
    "$dir/bin/pip" install -q --disable-pip-version-check "$(grep '^wheel==' "$requirements")"
  fi
  "$dir/bin/pip" install -q --disable-pip-version-check --no-deps -r "$requirements"
  "$dir/bin/pip" check >/dev/null
  touch "$dir/.complete"
}
make_venv "$CALCJIT_REFERENCE_VENV" /usr/bin/python3 "$CALCJIT_REQUIREMENTS/reference.txt"
python312=$(calcjit_python312) || {
  echo "setup: no Python 3.12 or newer (pyenv's, or python3.12 on PATH) for XGBoost 3.4.1" >&2
  exit 1
}
make_venv "$CALCJIT_XGBOOST3_VENV" "$python312" "$CALCJIT_REQUIREMENTS/xgboost3.txt"

# A local Maven repository of a pin file's artifacts, made again unless
# complete (marked last, as the venvs are): the class path of its dependencies
# in REPO/CLASSPATH_FILE (one line) and, with `plugins`, the plugins the pom
# names and `install:` by its prefix, so that Maven runs offline with it.
#   make_maven_repo REPO POM CLASSPATH_FILE [plugins]
make_maven_repo() {
  local repo=$1 pom=$2 classpath=$3 plugins=${4:-}
  [ -f "$repo/.complete" ] && return 0
  echo "setup: $repo from $pom"
  rm -rf "$repo"
  mkdir -p "$repo"
  local mvn=(mvn -B -q -Dmaven.repo.local="$repo" -f "$pom")
  "${mvn[@]}" dependency:build-classpath -Dmdep.outputFile="$repo/$classpath"
  if [ "$plugins" = plugins ]; then
    "${mvn[@]}" dependency:resolve-plugins
    "${mvn[@]}" install:help >/dev/null
  fi
  touch "$repo/.complete"
}
# Spark for calcjit-spark.jar and its tests, and the plugins of the install
# test's Maven project and of the README's `mvn install:install-file`.
make_maven_repo "$CALCJIT_MAVEN_REPO" "$CALCJIT_REQUIREMENTS/maven/pom.xml" spark.classpath plugins
# The peers' JMH benchmark (bench/peers/jmh.sh): JMH and the JVM predictors, in
# a repository of their own (a change of either pin file leaves the other's
# download alone).
make_maven_repo "$CALCJIT_MAVEN_PEERS_REPO" "$CALCJIT_REQUIREMENTS/maven/peers/pom.xml" \
  peers.classpath
echo "setup: reference venvs and Maven repository ready in $CALCJIT_CACHE"
