#!/usr/bin/env bash
# Configures and builds tidepool into build/ (Ninja, ccache when present). Idempotent.
# Arguments are Ninja targets (`bash scripts/build.sh tidepool`: the binary only); none: all
# of it (tests, benchmarks).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${BUILD_DIR:-build}"
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-RelWithDebInfo}"
fi
ninja -C "$BUILD_DIR" -j"${JOBS:-$(nproc)}" "$@"
