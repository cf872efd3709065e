# Shared helpers for end-to-end tests that drive the real kubectl against `tidepool up`.
# Each test sources this file, calls `start_up <args>`, and gets:
#   - its own scratch directory $WORK (KUBECONFIG, kubectl's --cache-dir, logs);
#   - an isolated KUBECONFIG written by tidepool up (context "tidepool");
#   - `k ...` = kubectl with a fresh discovery cache;
#   - `expect_in <text> <needle>` / `expect_match <text> <regex>` assertions that print what
#     was seen;
#   - cleanup on exit that kills only the tidepool process this test started.
set -euo pipefail

TIDEPOOL_BIN="${TIDEPOOL_BIN:?set TIDEPOOL_BIN to the tidepool binary}"
SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/tidepool-e2e.XXXXXX")"
UP_PID=""
export KUBECONFIG="$WORK/kubeconfig"
export CLOUDSDK_CONFIG="$WORK/gcloud"
export HOME="$WORK/home"
mkdir -p "$HOME"

cleanup() {
  local rc=$?
  stop_autoscalers
  if [ -n "$UP_PID" ] && kill -0 "$UP_PID" 2>/dev/null; then
    kill -TERM "$UP_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$UP_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$UP_PID" 2>/dev/null || true
  fi
  # Background jobs of this test (watchers) only.
  local jobs_pids
  jobs_pids=$(jobs -p || true)
  [ -n "$jobs_pids" ] && kill $jobs_pids 2>/dev/null || true
  if [ $rc -ne 0 ]; then
    echo "--- tidepool up output (last 60 lines):"
    tail -n 60 "$WORK/up.log" 2>/dev/null || true
    for f in "$WORK"/as-*.log "$WORK"/proxy.log; do
      [ -f "$f" ] || continue
      echo "--- $(basename "$f") (last 40 lines):"
      tail -n 40 "$f"
    done
  fi
  # E2E_KEEP=DIR keeps this run's files (logs, kubeconfig) for a look afterwards.
  [ -n "${E2E_KEEP:-}" ] && rm -rf "$E2E_KEEP" && cp -r "$WORK" "$E2E_KEEP"
  rm -rf "$WORK"
  exit $rc
}
trap cleanup EXIT

# start_up [tidepool up flags...]: starts tidepool up on a free loopback port and waits until
# it is ready.
start_up() {
  rm -f "$WORK/port"
  "$TIDEPOOL_BIN" up --port 0 --port-file "$WORK/port" --kubeconfig "$KUBECONFIG" "$@" \
    >"$WORK/up.log" 2>&1 &
  UP_PID=$!
  for _ in $(seq 1 300); do
    [ -s "$WORK/port" ] && break
    kill -0 "$UP_PID" 2>/dev/null || { echo "tidepool up exited"; cat "$WORK/up.log"; return 1; }
    sleep 0.1
  done
  [ -s "$WORK/port" ] || { echo "tidepool up did not become ready"; return 1; }
  PORT=$(cat "$WORK/port")
}

k() { kubectl --cache-dir "$WORK/kube-cache" --request-timeout=30s "$@"; }

fail() {
  echo "FAIL: $1"
  shift
  [ $# -gt 0 ] && printf '%s\n' "--- seen:" "$@"
  exit 1
}
expect_in() {  # expect_in "<text>" "<needle>" [what]
  grep -qF -- "$2" <<<"$1" || fail "${3:-expected to see}: $2" "$1"
}
expect_not_in() {
  if grep -qF -- "$2" <<<"$1"; then fail "${3:-expected not to see}: $2" "$1"; fi
}
expect_match() {  # expect_match "<text>" "<extended regex>"
  grep -qE -- "$2" <<<"$1" || fail "expected a line matching: $2" "$1"
}
# wait_for <seconds> <command...>: retries the command (quietly) until it succeeds.
wait_for() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || { echo "timed out waiting for: $*"; "$@" || true; return 1; }
    sleep 0.5
  done
}
pass() { echo "ok: $1"; }

# ---- tidepool autoscale against this tidepool up (issue 6) --------------------------------------
AS_PIDS=()
# Fast timers for tests: a loop every second, scale-down after 10 s unneeded, no GPU wait.
AUTOSCALE_FAST_FLAGS=(--scan-interval=1s --scale-down-unneeded-time=10s
  --scale-down-delay-after-add=10s --unschedulable-pod-with-gpu-time-buffer=2s
  --leader-elect-lease-duration=4s --leader-elect-renew-deadline=3s --leader-elect-retry-period=1s)
# start_autoscale <name> [extra flags...]: starts `tidepool autoscale` pointed at this
# tidepool up's Kubernetes API ($AS_KUBECONFIG, default $KUBECONFIG) and cloud: the GKE API, or
# the flags in the array AS_CLOUD_FLAGS when set (e.g. --cloud-provider aws ...); its log is
# $WORK/<name>.log; sets AS_PID.
start_autoscale() {
  local name=$1
  shift
  rm -f "$WORK/$name.port"
  local cloud=("${AS_CLOUD_FLAGS[@]}")
  if [ ${#cloud[@]} -eq 0 ]; then
    cloud=(--cloud-provider gke --project tidepool-local --location us-central1-a
      --cluster-name tidepool --gke-api-endpoint "http://127.0.0.1:$PORT/"
      --compute-api-endpoint "http://127.0.0.1:$PORT/compute/v1/"
      --gcp-token-file "$CLOUDSDK_CONFIG/access-token")
  fi
  "$TIDEPOOL_BIN" autoscale --kubeconfig "${AS_KUBECONFIG:-$KUBECONFIG}" "${cloud[@]}" \
    --address 127.0.0.1:0 --port-file "$WORK/$name.port" --leader-elect-identity "$name" \
    "${AUTOSCALE_FAST_FLAGS[@]}" "$@" >>"$WORK/$name.log" 2>&1 &
  AS_PID=$!
  AS_PIDS+=($AS_PID)
  for _ in $(seq 1 100); do
    [ -s "$WORK/$name.port" ] && return 0
    kill -0 "$AS_PID" 2>/dev/null || { echo "tidepool autoscale exited"; cat "$WORK/$name.log"; return 1; }
    sleep 0.1
  done
  echo "tidepool autoscale did not start"; cat "$WORK/$name.log"; return 1
}
stop_autoscalers() {
  for p in "${AS_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${AS_PIDS[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null || true
  done
}
# The GPU pool of the seed walkthrough's step 1, created with the real gcloud.
create_gpu_pool() {
  gcloud container node-pools create gpu-pool --project tidepool-local --cluster tidepool \
    --zone us-central1-a --machine-type n1-standard-4 \
    --accelerator type=nvidia-tesla-t4,count=1 --enable-autoscaling --min-nodes 0 \
    --max-nodes "${1:-5}" --node-taints nvidia.com/gpu=present:NoSchedule \
    --node-labels app-type=gpu-workloads >"$WORK/gcloud-create.log" 2>&1 ||
    { cat "$WORK/gcloud-create.log"; return 1; }
}
# gpu_pod <name> [<pool>]: a pod of the walkthrough's shape (1 GPU, the toleration); with a
# pool, a nodeSelector on its cloud.google.com/gke-nodepool label.
gpu_pod() {
  local selector=""
  [ -n "${2:-}" ] && selector="  nodeSelector:
    cloud.google.com/gke-nodepool: $2
"
  cat <<POD
apiVersion: v1
kind: Pod
metadata:
  name: $1
spec:
  restartPolicy: Never
${selector}  containers:
  - name: cuda
    image: nvidia/cuda:12.2.0-base-ubuntu22.04
    command: ["sleep", "3600"]
    resources:
      limits:
        nvidia.com/gpu: 1
  tolerations:
  - key: "nvidia.com/gpu"
    operator: "Exists"
    effect: "NoSchedule"
POD
}
gpu_nodes() { k get nodes -l cloud.google.com/gke-nodepool=gpu-pool -o name | grep -c . || true; }
