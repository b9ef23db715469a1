#!/usr/bin/env bash
# Where scripts/setup.sh keeps what it downloads from PyPI and Maven Central,
# for the tests and benchmarks (never for the library): sourced by setup.sh,
# read by CMake (cmake/ReferencePaths.cmake computes the same names), printed
# when run on its own. A folder is named after the SHA-256 of its pin file, so
# a changed pin makes a new folder and nothing stale is reused.
#
#   CALCJIT_CACHE           the cache folder (default ~/.cache/calcjit)
#   CALCJIT_REFERENCE_VENV  Debian's python3 + requirements/reference.txt
#   CALCJIT_XGBOOST3_VENV   Python 3.12 + requirements/xgboost3.txt
#   CALCJIT_MAVEN_REPO      a local Maven repository: requirements/maven/pom.xml's
#                           artifacts (Spark) and plugins; spark.classpath in it
#   CALCJIT_MAVEN_PEERS_REPO  another: requirements/maven/peers/pom.xml's (JMH and the
#                           JVM predictors of bench/peers/jmh.sh); peers.classpath in it
CALCJIT_REQUIREMENTS="$(cd "$(dirname "${BASH_SOURCE[0]}")/../requirements" && pwd)"
CALCJIT_CACHE="${CALCJIT_CACHE:-$HOME/.cache/calcjit}"

calcjit_pin_key() {
  sha256sum "$1" | cut -c1-12
}

# A Python of at least 3.12: pyenv's newest 3.12, else its newest later one, else
# python3.12/python3.13 on PATH. 3.12 first: every pin of xgboost3.txt has a wheel
# for it (numpy 1.26.4 has none for 3.13 and would build from source for minutes).
calcjit_python312() {
  local root candidate
  root="${PYENV_ROOT:-$HOME/.pyenv}"
  for candidate in $(ls -d "$root"/versions/3.12* 2>/dev/null | sort -V -r) \
                   $(ls -d "$root"/versions/3.1[3-9]* 2>/dev/null | sort -V -r); do
    [ -x "$candidate/bin/python3" ] && { echo "$candidate/bin/python3"; return 0; }
  done
  for candidate in python3.13 python3.12; do
    command -v "$candidate" >/dev/null && { command -v "$candidate"; return 0; }
  done
  return 1
}

CALCJIT_REFERENCE_VENV="$CALCJIT_CACHE/venv-reference-$(calcjit_pin_key "$CALCJIT_REQUIREMENTS/reference.txt")"
CALCJIT_XGBOOST3_VENV="$CALCJIT_CACHE/venv-xgboost3-$(calcjit_pin_key "$CALCJIT_REQUIREMENTS/xgboost3.txt")"
CALCJIT_MAVEN_REPO="$CALCJIT_CACHE/maven-$(calcjit_pin_key "$CALCJIT_REQUIREMENTS/maven/pom.xml")"
CALCJIT_MAVEN_PEERS_REPO="$CALCJIT_CACHE/maven-peers-$(calcjit_pin_key "$CALCJIT_REQUIREMENTS/maven/peers/pom.xml")"
export CALCJIT_CACHE CALCJIT_REFERENCE_VENV CALCJIT_XGBOOST3_VENV CALCJIT_MAVEN_REPO \
  CALCJIT_MAVEN_PEERS_REPO

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  echo "CALCJIT_CACHE=$CALCJIT_CACHE"
  echo "CALCJIT_REFERENCE_VENV=$CALCJIT_REFERENCE_VENV"
  echo "CALCJIT_XGBOOST3_VENV=$CALCJIT_XGBOOST3_VENV"
  echo "CALCJIT_MAVEN_REPO=$CALCJIT_MAVEN_REPO"
  echo "CALCJIT_MAVEN_PEERS_REPO=$CALCJIT_MAVEN_PEERS_REPO"
fi
