#!/usr/bin/env bash
# The main job: install what is missing, build, and run tidepool on the seed example.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
exec ./build/app/tidepool schedule \
  -f examples/seed/01-cluster.yaml \
  -f examples/seed/02-typo-manifest.yaml \
  -f examples/seed/03-gpu-test-pod.yaml \
  -f examples/seed/04-gpu-node-joins.yaml
