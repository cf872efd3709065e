#!/usr/bin/env bash
# Issue 16's benchmark: a Deployment of N 1-GPU replicas on an empty 1xT4 pool (min 0, max N)
# of `tidepool up --speed 600`, end to end: the deployment and ReplicaSet controllers create
# the pods, the scheduler finds them unschedulable, the embedded autoscaler grows the pool, the
# emulated cloud boots the VMs, the kubelets run the pods. Prints the wall time until
# status.replicas = N (every pod created) and until readyReplicas = N, and tidepool's CPU time
# and RSS then. No timed assertion: a figure for bench/README.md.
#
#   bench/deployment_up.sh [N] [timeout-seconds]      (TIDEPOOL_BIN, default build/app/tidepool;
#                                                     KEEP_LOG=file keeps tidepool's log there)
set -euo pipefail
N=${1:-10000}
LIMIT=${2:-600}
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN=${TIDEPOOL_BIN:-$ROOT/build/app/tidepool}
D=$(mktemp -d /tmp/tidepool-bench.XXXXXX)
trap 'kill "$UP" 2>/dev/null || true; wait "$UP" 2>/dev/null || true
      [ -n "${KEEP_LOG:-}" ] && cp "$D/up.log" "$KEEP_LOG"; rm -rf "$D"' EXIT
sed "s/maxNodes: 5/maxNodes: $N/" "$ROOT/examples/up/gpu-cluster.yaml" >"$D/cluster.yaml"
"$BIN" up --port 0 --port-file "$D/port" --kubeconfig "$D/kubeconfig" --speed 600 \
  --config "$D/cluster.yaml" >"$D/up.log" 2>&1 &
UP=$!
for _ in $(seq 1 300); do [ -s "$D/port" ] && break; sleep 0.1; done
export KUBECONFIG=$D/kubeconfig
k() { kubectl --cache-dir "$D/cache" "$@"; }
cat >"$D/dep.yaml" <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: bench}
spec:
  replicas: $N
  selector: {matchLabels: {app: bench}}
  template:
    metadata: {labels: {app: bench}}
    spec:
      containers:
      - name: cuda
        image: nvidia/cuda:12.2.0-base-ubuntu22.04
        resources: {limits: {nvidia.com/gpu: 1}}
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
YAML
t0=$(date +%s.%N)
k apply -f "$D/dep.yaml" >/dev/null
created=""
while true; do
  s=$(k get deploy bench -o jsonpath='{.status.replicas} {.status.readyReplicas}' 2>/dev/null || true)
  el=$(echo "$(date +%s.%N) - $t0" | bc)
  read -r rep ready <<<"$s $(printf ' ')" || true
  if [ -z "$created" ] && [ "${rep:-0}" = "$N" ]; then created=$el; fi
  [ "${ready:-0}" = "$N" ] && break
  if (( $(echo "$el > $LIMIT" | bc) )); then echo "timed out after ${LIMIT}s: replicas=${rep:-0} ready=${ready:-0}"; break; fi
  sleep 0.5
done
read -r rss cpu <<<"$(ps -o rss=,time= -p "$UP")"
nodes=$(k get nodes -l cloud.google.com/gke-nodepool=gpu-pool --no-headers | grep -c ' Ready ' || true)
printf 'replicas %s: all created after %ss, all Ready after %ss (wall); gpu-pool nodes Ready %s; tidepool CPU %s, RSS %d MB\n' \
  "$N" "${created:-never}" "$el" "$nodes" "$cpu" "$((rss / 1024))"
# How long a SIGTERM takes to end it (what a user's Ctrl-C waits for).
t1=$(date +%s.%N)
kill -TERM "$UP"
wait "$UP" 2>/dev/null || true
printf 'shutdown after SIGTERM: %.1fs\n' "$(echo "$(date +%s.%N) - $t1" | bc)"
