#!/usr/bin/env bash
# The main job (scripts/walkthrough.sh: the seed walkthrough with the real gcloud and kubectl
# against a fresh `tidepool up --speed 60`), with each step's expected state asserted on what it
# printed.
set -euo pipefail
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
out=$(TIDEPOOL_BIN="${TIDEPOOL_BIN:?}" bash "$SRC/scripts/walkthrough.sh" 2>&1) || {
  echo "walkthrough failed"; echo "$out"; exit 1; }
fail() { echo "FAIL: $1"; echo "--- walkthrough output:"; echo "$out"; exit 1; }
has() { grep -qF -- "$1" <<<"$out" || fail "missing: $1"; }
has_re() { grep -qE -- "$1" <<<"$out" || fail "no line matching: $1"; }
# Step 1: the pool is created, autoscaling 0..5, with no nodes yet.
has 'Created [http://127.0.0.1:'
has_re '^gpu-pool +n1-standard-4 +100 +1\.32\.4-gke'
# Step 4: the typo'd manifest refused once, the corrected one created and Pending.
[ "$(grep -c 'strict decoding error: unknown field "spec.tolerations\[0\].important"' <<<"$out")" = 1 ] ||
  fail "the typo'd manifest is refused exactly once"
has 'pod/gpu-test-pod created'
has_re '^gpu-test-pod +0/1 +Pending +0 '
has_re 'Warning +FailedScheduling .*0/3 nodes are available: 3 Insufficient nvidia.com/gpu\. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod\.'
# The autoscaler's log: the scale-up of gpu-pool from 0 to 1, naming the pod.
has 'Pod default/gpu-test-pod is unschedulable'
has 'Scale-up: setting group gpu-pool size to 1 instead of 0 (max: 5)'
# The node NotReady then Ready; the pod Running on it.
has_re '^gke-tidepool-gpu-pool-[0-9a-z]+-[0-9a-z]+ +NotReady '
has_re '^gke-tidepool-gpu-pool-[0-9a-z]+-[0-9a-z]+ +Ready '
has_re '^gpu-test-pod +1/1 +Running '
# Step 5: deleted; the node removed; the pool at 0 and then deleted.
has 'pod "gpu-test-pod" deleted'
has_re 'Scale-down: removing empty node "gke-tidepool-gpu-pool-'
# The last `gcloud compute instances list` (after the scale-down) shows no gpu-pool VM.
last_list=$(awk '/^\[/{on=0} /\$ gcloud compute instances list/{buf=""; on=1; next} on{buf=buf $0 "\n"} END{printf "%s", buf}' <<<"$out")
grep -q 'default-pool' <<<"$last_list" || fail "the last instance list shows the default-pool VMs"
grep -q 'gpu-pool' <<<"$last_list" && fail "a gpu-pool VM is left"
has 'Deleted [http://127.0.0.1:'
tail -n 5 <<<"$out" | grep -q '^gpu-pool ' && fail "gpu-pool still listed after the delete"
has_re '### Done in [0-9]+ s'
echo "ok: walkthrough"
