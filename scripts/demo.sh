#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine: installs what is missing, builds
# the command line, and ranks a generated query with the bundled example set and
# its bundled ranker (examples/ranking/ranker/ranker.ubj), timed per backend
# against a 10 ms budget per query (docs/CLI.md, "demo").
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh calcjit_cli
./build/cli/calcjit demo "$@"
