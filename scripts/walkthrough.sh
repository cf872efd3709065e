#!/usr/bin/env bash
# The seed walkthrough (../shared/seed/walkthrough-en.md) run for real: a fresh
# `tidepool up --speed 60` (every emulated duration / 60), then every command of steps 1, 3, 4 and
# 5 with the real gcloud and kubectl, each printed as "$ command" followed by its output, as a
# person following the tutorial would see it. Step 2 (helm install of the GPU operator) is
# tidepool's built-in emulated device plugin. Ends with the pool scaled back to 0 and deleted.
#
# Usage: bash scripts/walkthrough.sh            (TIDEPOOL_BIN=... to choose the binary)
# Everything lives in a temporary directory (CLOUDSDK_CONFIG, KUBECONFIG, HOME); only the
# tidepool process started here is stopped at the end.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TIDEPOOL_BIN="${TIDEPOOL_BIN:-$ROOT/build/app/tidepool}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/tidepool-walkthrough.XXXXXX")"
export CLOUDSDK_CONFIG="$WORK/gcloud" KUBECONFIG="$WORK/kubeconfig" HOME="$WORK/home"
# The tutorial's `node-pools delete` asks for confirmation; there is no terminal here.
export CLOUDSDK_CORE_DISABLE_PROMPTS=1
mkdir -p "$HOME"
UP_PID=""
WATCH_PIDS=()

cleanup() {
  local rc=$?
  for p in "${WATCH_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  if [ -n "$UP_PID" ] && kill -0 "$UP_PID" 2>/dev/null; then
    kill -TERM "$UP_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$UP_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$UP_PID" 2>/dev/null || true
  fi
  [ $rc -ne 0 ] && { echo "--- tidepool up's output:"; tail -n 40 "$WORK/up.log" 2>/dev/null || true; }
  rm -rf "$WORK"
  exit $rc
}
trap cleanup EXIT

T0=$SECONDS
stamp() { printf '[%3ds]' $((SECONDS - T0)); }
say() { printf '\n%s ### %s\n' "$(stamp)" "$*"; }
# run <command...>: prints "$ command" and its output; a failure is shown, not fatal.
run() {
  printf '%s $ %s\n' "$(stamp)" "$*"
  set +e
  "$@" 2>&1
  local rc=$?
  set -e
  [ $rc -eq 0 ] || printf '(exit status %d)\n' $rc
  return 0
}
# run_sh "<pipeline>": the same for a shell pipeline.
run_sh() {
  printf '%s $ %s\n' "$(stamp)" "$1"
  bash -c "$1" 2>&1 || true
}
# wait_until <seconds> <description> <command...>
wait_until() {
  local deadline=$((SECONDS + $1)) what=$2
  shift 2
  until "$@" >/dev/null 2>&1; do
    if [ $SECONDS -ge $deadline ]; then
      echo "timed out after $((SECONDS - T0))s waiting for: $what"
      return 1
    fi
    sleep 0.5
  done
}
# A watch started in the background; its output is printed by stop_watch.
start_watch() {  # start_watch <file> <command...>
  local f=$1
  shift
  "$@" >"$f" 2>&1 &
  WATCH_PIDS+=($!)
  LAST_WATCH=$!
}
stop_watch() {  # stop_watch <pid> <file> <shown command>
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
  printf '%s $ %s    (Ctrl-C after the last line)\n' "$(stamp)" "$3"
  cat "$2"
}

say "tidepool up: an emulated GKE cluster on loopback (speed 60: a minute of cloud time is a second)"
"$TIDEPOOL_BIN" up --speed 60 --port 0 --port-file "$WORK/port" --kubeconfig "$KUBECONFIG" \
  --gcloud-config "$CLOUDSDK_CONFIG" >"$WORK/up.log" 2>&1 &
UP_PID=$!
wait_until 30 "tidepool up" test -s "$WORK/port"
sed -n '1,5p' "$WORK/up.log"
run kubectl get nodes

say "Step 1: create a tainted, autoscaling node pool"
run gcloud container node-pools create gpu-pool \
  --project "tidepool-local" \
  --cluster "tidepool" \
  --zone "us-central1-a" \
  --machine-type "n1-standard-4" \
  --accelerator "type=nvidia-tesla-t4,count=1" \
  --enable-autoscaling \
  --min-nodes "0" \
  --max-nodes "5" \
  --node-taints "nvidia.com/gpu=present:NoSchedule" \
  --node-labels "app-type=gpu-workloads"
run gcloud container node-pools list --cluster "tidepool" --zone "us-central1-a"
run kubectl get nodes -l cloud.google.com/gke-nodepool=gpu-pool

say "Step 2: the GPU operator (helm is not needed: tidepool's emulated device plugin runs on every GPU node)"

say "Step 3: the pod manifest, exactly as the tutorial writes it"
cp "$ROOT/examples/seed/02-typo-manifest.yaml" "$WORK/gpu-test-pod.yaml"
cd "$WORK"
run cat gpu-test-pod.yaml

say "Step 4.1: deploy it. The tutorial's toleration says 'important:' instead of 'key:'"
run kubectl apply -f gpu-test-pod.yaml
say "Corrected toleration (- key: \"nvidia.com/gpu\"), applied again"
cp "$ROOT/examples/seed/03-gpu-test-pod.yaml" "$WORK/gpu-test-pod.yaml"
run grep -n -A4 'tolerations:' gpu-test-pod.yaml
start_watch "$WORK/pods.watch" kubectl get pods -w
PODS_WATCH=$LAST_WATCH
start_watch "$WORK/nodes.watch" kubectl get nodes -w
NODES_WATCH=$LAST_WATCH
run kubectl apply -f gpu-test-pod.yaml

say "Step 4.2 and 4.3: the pod is Pending; the scheduler says why"
wait_until 30 "FailedScheduling" bash -c "kubectl get events --field-selector involvedObject.name=gpu-test-pod,reason=FailedScheduling -o name | grep -q ."
run kubectl get pods
run kubectl describe pod gpu-test-pod

say "Step 4.4: the Cluster Autoscaler's log"
AUTOSCALER=$(kubectl get pods -n kube-system -o name | grep cluster-autoscaler | awk 'NR==1')
AUTOSCALER=${AUTOSCALER#pod/}
run_sh "kubectl get pods -n kube-system | grep cluster-autoscaler"
wait_until 60 "scale-up" bash -c "kubectl logs $AUTOSCALER -n kube-system | grep -q 'Scale-up'"
printf '%s $ kubectl logs -f %s -n kube-system    (lines about the scale-up)\n' "$(stamp)" "$AUTOSCALER"
kubectl logs "$AUTOSCALER" -n kube-system | grep -E 'Scale-up|triggered scale-up|gpu-test-pod|gpu-pool' | awk 'NR<=20'

say "Step 4.5 and 4.6: the new GPU node joins (NotReady, then Ready), and the pod runs on it"
wait_until 120 "gpu-test-pod Running" bash -c "kubectl get pod gpu-test-pod -o jsonpath='{.status.phase}' | grep -q Running"
sleep 1
stop_watch "$NODES_WATCH" "$WORK/nodes.watch" "kubectl get nodes -w"
stop_watch "$PODS_WATCH" "$WORK/pods.watch" "kubectl get pods -w"
run kubectl get pods -o wide
run gcloud compute instances list

say "Step 5: delete the pod; the idle GPU node is removed and gpu-pool goes back to 0"
start_watch "$WORK/nodes2.watch" kubectl get nodes -w
NODES_WATCH=$LAST_WATCH
run kubectl delete -f gpu-test-pod.yaml
wait_until 150 "gpu-pool back to 0" bash -c "[ -z \"\$(gcloud compute instances list --format='value(name)' 2>/dev/null | grep gpu-pool)\" ] && [ -z \"\$(kubectl get nodes -o name | grep gpu-pool)\" ]"
stop_watch "$NODES_WATCH" "$WORK/nodes2.watch" "kubectl get nodes -w"
printf '%s $ kubectl logs %s -n kube-system    (lines about the scale-down)\n' "$(stamp)" "$AUTOSCALER"
kubectl logs "$AUTOSCALER" -n kube-system | grep -E 'Scale-down|ScaleDown|removing' | awk 'NR<=10'
run gcloud compute instances list
run gcloud container node-pools describe gpu-pool --cluster "tidepool" --zone "us-central1-a" \
  --format "yaml(name,status,autoscaling,instanceGroupUrls)"

say "Step 5: delete the node pool"
run gcloud container node-pools delete gpu-pool \
  --cluster "tidepool" \
  --zone "us-central1-a"
run gcloud container node-pools list --cluster "tidepool" --zone "us-central1-a"

say "Done in $((SECONDS - T0)) s"
