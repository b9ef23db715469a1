#!/usr/bin/env bash
# Configures and builds calcjit (Release, Ninja) in ./build. Extra arguments
# are build targets (default: everything).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" ${1:+--target "$@"}
