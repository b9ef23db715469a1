#!/usr/bin/env bash
# The peers' benchmark from Java: one JMH run, in one JVM, of calcjit (direct
# buffers, VM and JIT) against XGBoost's JVM package on the peers' 500-tree
# model (bench/peers/jmh/PeersBench.java says what each benchmark times).
#
#   bench/peers/jmh.sh [BUILD] [JMH options...]     (default BUILD: build)
#
# Needs BUILD's calcjit.jar (cmake --build BUILD --target calcjit_jar), the
# Maven pins of requirements/maven/peers/pom.xml and the reference venv (both
# from scripts/setup.sh). The model and rows come from peers.py --export-java,
# run here the first time (it trains the peers' models if they are missing).
# Defaults: -f 0 (every benchmark in this one JVM), 5 warm-up and 10
# measured iterations of 1 s; later options override them.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
shift || true
# shellcheck source=../../scripts/reference_paths.sh
. "$root/scripts/reference_paths.sh"

if [ ! -f "$CALCJIT_MAVEN_PEERS_REPO/.complete" ]; then
  echo "jmh.sh: no Maven repository $CALCJIT_MAVEN_PEERS_REPO: run scripts/setup.sh" >&2
  exit 1
fi
jar="$build/java/calcjit.jar"
[ -f "$jar" ] || { echo "jmh.sh: no $jar: build the target calcjit_jar" >&2; exit 1; }

data="$build/bench-peers/java"
if [ ! -f "$data/shape.txt" ]; then
  "$CALCJIT_REFERENCE_VENV/bin/python" "$here/peers.py" --build "$build" --mode full \
    --export-java "$data"
fi

classpath="$(cat "$CALCJIT_MAVEN_PEERS_REPO/peers.classpath"):$jar"
classes="$build/bench-peers/jmh-classes"
rm -rf "$classes"
mkdir -p "$classes"
# JMH's annotation processor (on the class path) generates the harness.
javac -d "$classes" -cp "$classpath" "$here/jmh/PeersBench.java"

echo "# $(uptime)"
java -cp "$classes:$classpath" -Dcalcjit.peers.data="$data" org.openjdk.jmh.Main \
  -f 0 -wi 5 -w 1s -i 10 -r 1s -t 1 "$@" io.calcjit.peers.PeersBench
echo "# $(uptime)"
