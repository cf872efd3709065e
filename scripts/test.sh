#!/usr/bin/env bash
# The whole test suite: install what is missing, build, run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
# The fuzz build (build-fuzz/): the test suite runs each fuzz target for a few seconds.
bash scripts/fuzz.sh --build-only
ctest --test-dir build --output-on-failure -j"${JOBS:-$(nproc)}" --timeout 600
