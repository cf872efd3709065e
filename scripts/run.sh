#!/usr/bin/env bash
# The main job: install what is missing, build, and run the seed walkthrough
# (../shared/seed/walkthrough-en.md) for real: a fresh `tidepool up --speed 60`, then every
# command of its steps 1, 3, 4 and 5 with the real gcloud and kubectl (scripts/walkthrough.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh tidepool  # the binary only: the walkthrough runs nothing else
exec bash scripts/walkthrough.sh
