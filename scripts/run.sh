#!/usr/bin/env bash
# The main job: install what is missing, build, and replay the seed walkthrough end to end on a
# virtual clock (GPU pool 0 -> 1 -> 0) with `tidepool simulate`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
exec ./build/app/tidepool simulate examples/seed-walkthrough.yaml
