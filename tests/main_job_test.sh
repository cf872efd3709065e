#!/usr/bin/env bash
# The main job's binary, end to end: the README's example steps print the seed walkthrough's
# scheduling story with the exact texts.
set -euo pipefail
bin="$1"
src="$(cd "$(dirname "$0")/.." && pwd)"
out=$("$bin" schedule -f "$src/examples/seed/01-cluster.yaml" -f "$src/examples/seed/02-typo-manifest.yaml" \
  -f "$src/examples/seed/03-gpu-test-pod.yaml" -f "$src/examples/seed/04-gpu-node-joins.yaml")
expect() {
  if ! grep -qF -- "$1" <<<"$out"; then
    echo "missing: $1"
    echo "--- output:"
    echo "$out"
    exit 1
  fi
}
expect 'The Pod "gpu-test-pod" is invalid: spec.tolerations[0].operator: Invalid value: "Equal"'
expect 'Warning  FailedScheduling  pod/gpu-test-pod   0/3 nodes are available: 3 Insufficient nvidia.com/gpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.'
expect 'Normal   Scheduled         pod/gpu-test-pod   Successfully assigned default/gpu-test-pod to gke-tidepool-gpu-pool-5b2e9a71-0'
# A missing file is refused by the flag parser, with a non-zero exit.
if "$bin" schedule -f /nonexistent.yaml >/dev/null 2>&1; then
  echo "a missing manifest was accepted"
  exit 1
fi
"$bin" --version | grep -q '^tidepool '
echo "ok: main job"
