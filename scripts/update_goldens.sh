#!/usr/bin/env bash
# Regenerates the golden dumps (tests/golden/cases/*.dag, *.program, *.ll,
# *.opt.ll) from the current build; review the diff before committing it.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh golden_test
CALCJIT_UPDATE_GOLDENS=1 ./build/tests/golden/golden_test >/dev/null
git --no-pager diff --stat -- tests/golden/cases || true
