#!/usr/bin/env bash
# `tidepool simulate` end to end on the binary: the seed walkthrough's story on virtual time,
# byte-identical across runs, JSON output, and clear errors.
# Usage: tests/simulate_test.sh <path to the tidepool binary>
set -euo pipefail
bin="$1"
src="$(cd "$(dirname "$0")/.." && pwd)"
scenario="$src/examples/seed-walkthrough.yaml"
out=$("$bin" simulate "$scenario")
expect() {
  if ! grep -qF -- "$1" <<<"$out"; then
    echo "missing: $1"
    echo "--- output:"
    echo "$out"
    exit 1
  fi
}
expect '[00:00:00] $ kubectl apply -f gpu-test-pod.yaml'
expect 'FailedScheduling  pod/gpu-test-pod  default-scheduler  0/3 nodes are available: 3 Insufficient nvidia.com/gpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.'
expect 'TriggeredScaleUp  pod/gpu-test-pod  cluster-autoscaler  pod triggered scale-up: [{gpu-pool 0->1 (max: 5)}]'
expect 'pool    gpu-pool  0 -> 1'
expect 'NotReady  <none>  0s'
expect 'nvidia.com/gpu: 1'
expect 'Successfully assigned default/gpu-test-pod to gke-tidepool-gpu-pool-'
expect '1/1  Running'
expect '[00:10:00] $ kubectl delete pod gpu-test-pod'
expect 'taint added ToBeDeletedByClusterAutoscaler='
expect 'pool    gpu-pool  1 -> 0'
expect 'summary pool gpu-pool: 0 nodes;'
# Same scenario and seed: the same bytes.
if ! cmp -s <("$bin" simulate "$scenario") <(printf '%s\n' "$out"); then
  echo "two runs of the same scenario differ"
  exit 1
fi
# JSON: an array with the same story.
json=$("$bin" simulate "$scenario" --output json --until 5m)
case "$json" in
  "["*) ;;
  *) echo "--output json did not print a JSON array"; exit 1 ;;
esac
grep -qF '"reason": "FailedScheduling"' <<<"$json" || { echo "JSON lacks FailedScheduling"; exit 1; }
# Another seed changes the instance names only.
seed2=$("$bin" simulate "$scenario" --seed 2 --until 2m 2>/dev/null)
grep -q '^# tidepool simulate .*: seed 2, 2m0s' <<<"$seed2" || { echo "--seed 2 --until 2m: no header"; exit 1; }
# Workloads (examples/gpu-workloads.yaml): a Deployment and a Job applied, the Deployment
# scaled up and down, the Job completing, the pool following them up and back to 0.
out=$("$bin" simulate "$src/examples/gpu-workloads.yaml")
expect '[00:00:00]   deployment.apps/gpu-infer created'
expect '[00:00:00]   job.batch/train created'
expect '[00:05:00] $ kubectl scale deployment/gpu-infer --replicas=4'
expect '[00:05:00]   deployment.apps/gpu-infer scaled'
expect 'Completed         job/train  job-controller  Job completed'
expect 'pool    t4-pool  5 -> 6'
expect 'pool    t4-pool  1 -> 0'
expect 'summary pool t4-pool: 0 nodes; 6 created, 6 removed (2 scale-ups, 2 scale-downs);'
# Errors: a missing scenario (exit 1, as documented; not CLI11's 105), a bad output format and an
# unknown flag (exit 2).
rc=0
msg=$("$bin" simulate /nonexistent.yaml 2>&1 >/dev/null) || rc=$?
if [ "$rc" != 1 ] || [ "$msg" != "error: open /nonexistent.yaml: no such file or directory" ]; then
  echo "a missing scenario: exit $rc, stderr: $msg"
  exit 1
fi
rc=0
"$bin" simulate "$scenario" --output yaml >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || { echo "--output yaml: exit $rc, expected 2"; exit 1; }
rc=0
"$bin" simulate "$scenario" --no-such-flag >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || { echo "an unknown flag: exit $rc, expected 2"; exit 1; }
rc=0
"$bin" up --config /nonexistent.yaml >/dev/null 2>&1 || rc=$?
[ "$rc" = 1 ] || { echo "up --config of a missing file: exit $rc, expected 1"; exit 1; }
echo "ok: simulate"
