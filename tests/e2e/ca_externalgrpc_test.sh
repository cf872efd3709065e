#!/usr/bin/env bash
# The seed walkthrough with the real Cluster Autoscaler 1.31.5 (upstream, unmodified, its
# externalgrpc cloud provider) in place of tidepool's autoscaler, with the real gcloud and
# kubectl:
#   - `tidepool up --speed 60 --external-autoscaler-grpc 127.0.0.1:0` serves the emulated GKE's
#     node pools as CA's externalgrpc CloudProvider and writes CA's --cloud-config; its own
#     autoscaler is off;
#   - gcloud creates the walkthrough's gpu-pool (n1-standard-4 + 1x T4, autoscaling 0..5,
#     tainted); CA lists it through NodeGroups and reports it in its status ConfigMap;
#   - a pending GPU pod: CA (after its fixed 30 s wait for GPU pods) plans gpu-pool 0->1 from
#     the template node (NodeGroupTemplateNodeInfo, a v1.Node in protobuf) and calls
#     IncreaseSize; the emulated VM boots, its kubelet registers the node NotReady, it turns
#     Ready, the GPU driver installs; the pod runs on it; TriggeredScaleUp event;
#   - the pod deleted: CA finds the node unneeded, taints it ToBeDeletedByClusterAutoscaler and
#     calls DeleteNodes; the VM is deleted and the node goes: the pool is back at 0
#     (gcloud compute instances list shows no gpu-pool VM);
#   - CA logged no error (every informer synced; no 404, 415, decode or gRPC error).
# CA runs in the background from CA_EXTERNALGRPC_BIN (default: the shared 1.31.5 build); without
# it the test exits 77 (skipped). Only the CA and the tidepool up this test started are stopped.
# About 2 minutes.
# Usage: TIDEPOOL_BIN=path/to/tidepool [CA_EXTERNALGRPC_BIN=...] bash tests/e2e/ca_externalgrpc_test.sh
CA_EXTERNALGRPC_BIN="${CA_EXTERNALGRPC_BIN:-$(cd "$(dirname "$0")/../.." && pwd)/../shared/tools/cluster-autoscaler-1.31.5/cluster-autoscaler-externalgrpc}"
if [ ! -x "$CA_EXTERNALGRPC_BIN" ]; then
  echo "SKIP: no Cluster Autoscaler externalgrpc binary at $CA_EXTERNALGRPC_BIN (set CA_EXTERNALGRPC_BIN)"
  exit 77
fi
source "$(dirname "$0")/lib.sh"

CA_LOG="$WORK/ca-externalgrpc.log"
CA_PID=""
ca_exit() {
  local rc=$?
  set +e
  if [ $rc -ne 0 ] && [ -f "$CA_LOG" ]; then
    echo "--- cluster-autoscaler (externalgrpc) log: decisions, warnings and errors (last 60):"
    grep -E '^[EWF][0-9]{4} |scale-up plan|Scale-up|Scale-down|ScaleUp|ScaleDown|unneeded|taint|nschedulable|Upcoming|Best option|gRPC' \
      "$CA_LOG" | grep -vE 'ignoring node|framework.go:|Performing gRPC call|Returning cached' | tail -n 60
  fi
  (exit $rc)
  cleanup
}
trap ca_exit EXIT

start_up --speed 60 --gcloud-config "$CLOUDSDK_CONFIG" --external-autoscaler-grpc 127.0.0.1:0 \
  --external-autoscaler-cloud-config "$WORK/cloud-config.yaml"
banner=$(cat "$WORK/up.log")
expect_in "$banner" "autoscaler off"
expect_match "$banner" "Cluster Autoscaler externalgrpc cloud provider at 127\.0\.0\.1:[0-9]+ \(embedded autoscaler off\)"
expect_match "$(cat "$WORK/cloud-config.yaml")" "^address: 127\.0\.0\.1:[0-9]+$"
create_gpu_pool 5
pass "tidepool up serves CA's externalgrpc provider; gcloud created gpu-pool (0..5)"

# CA's own flags: fast timers for a test; least-waste, the issue's expander.
# Metrics on a free port (CA's default :8085 may be taken, e.g. by another test's CA).
"$CA_EXTERNALGRPC_BIN" --cloud-provider=externalgrpc --cloud-config="$WORK/cloud-config.yaml" \
  --address=127.0.0.1:0 \
  --kubeconfig="$KUBECONFIG" --namespace=kube-system --leader-elect=false --scan-interval=2s \
  --scale-down-unneeded-time=15s --scale-down-delay-after-add=15s --expander=least-waste \
  --v=4 --logtostderr >"$CA_LOG" 2>&1 &
CA_PID=$!
AS_PIDS+=($CA_PID)  # lib.sh's cleanup stops it, and only it

export -f k
export WORK CA_LOG
ca_status() { k -n kube-system get configmap cluster-autoscaler-status -o jsonpath='{.data.status}'; }
export -f ca_status gpu_nodes
wait_for 60 bash -c "ca_status | grep -q 'name: gpu-pool'" ||
  fail "CA did not report gpu-pool (is it running? pid $CA_PID)" "$(tail -n 20 "$CA_LOG")"
status=$(ca_status)
expect_in "$status" "autoscalerStatus: Running"
expect_match "$status" "minSize: 0"
expect_match "$status" "maxSize: 5"
expect_not_in "$status" "name: default-pool"
pass "CA 1.31.5 (externalgrpc) runs against tidepool up and reports gpu-pool (0..5) only"

# Every version of every node: name and Ready status (kubectl's own watch).
kubectl --cache-dir "$WORK/kube-cache" get nodes -w --no-headers >"$WORK/nodes.watch" 2>&1 &

# ---- scale-up 0 -> 1 ---------------------------------------------------------------------------
gpu_pod gpu-test-pod | k apply -f - >/dev/null
wait_for 90 grep -qF 'Final scale-up plan: [{gpu-pool 0->1 (max: 5)}]' "$CA_LOG" ||
  fail "no scale-up plan gpu-pool 0->1 within 90 s" "$(k get pods -o wide)" "$(k get events)"
wait_for 120 bash -c "k get pod gpu-test-pod | grep -q Running" ||
  fail "gpu-test-pod is not Running" "$(k get pods -o wide)" "$(k get nodes)"
node=$(k get pod gpu-test-pod -o jsonpath='{.spec.nodeName}')
expect_match "$node" '^gke-tidepool-gpu-pool-[0-9a-z]+-[0-9a-z]+$'
expect_match "$(cat "$WORK/nodes.watch")" "^$node +NotReady "
expect_match "$(cat "$WORK/nodes.watch")" "^$node +Ready "
info=$(k get node "$node" -o jsonpath='{.spec.providerID} gpu={.status.allocatable.nvidia\.com/gpu} {.metadata.labels.cloud\.google\.com/gke-accelerator}')
expect_match "$info" "^gce://tidepool-local/us-central1-a/$node gpu=1 nvidia-tesla-t4$"
wait_for 20 bash -c "k get events --field-selector involvedObject.name=gpu-test-pod | grep -q TriggeredScaleUp"
expect_in "$(k get events --field-selector involvedObject.name=gpu-test-pod)" \
  "pod triggered scale-up: [{gpu-pool 0->1 (max: 5)}]"
wait_for 20 bash -c "ca_status | grep -q 'cloudProviderTarget: 1'" || fail "CA's target is not 1" "$(ca_status)"
expect_in "$(gcloud compute instances list 2>&1)" "$node"
pass "CA planned gpu-pool 0->1; the VM booted, $node went NotReady -> Ready, the pod runs"

# ---- scale-down to 0 ------------------------------------------------------------------------------
k delete pod gpu-test-pod --wait=false >/dev/null
wait_for 120 bash -c '[ "$(gpu_nodes)" = 0 ]' ||
  fail "CA did not remove $node within 120 s" "$(k get nodes)" "$(grep -E 'unneeded|Scale-down|taint|DeleteNodes' "$CA_LOG" | tail -n 20)"
ev=$(k get events -A)
expect_in "$ev" "Scale-down: removing empty node \"$node\""
expect_match "$ev" "ScaleDown +node/$node +marked the node as toBeDeleted/unschedulable"
wait_for 20 bash -c "ca_status | grep -q 'cloudProviderTarget: 0'" || fail "CA's target is not 0" "$(ca_status)"
wait_for 30 bash -c "! gcloud compute instances list 2>&1 | grep -q gpu-pool" ||
  fail "a gpu-pool VM is left" "$(gcloud compute instances list 2>&1)"
expect_in "$(k get nodes)" "gke-tidepool-default-pool-"
pass "pod deleted: CA removed $node through DeleteNodes; gpu-pool is back at 0"

# ---- CA's log ----------------------------------------------------------------------------------------
kill -0 "$CA_PID" 2>/dev/null || fail "CA exited" "$(tail -n 30 "$CA_LOG")"
errors=$(grep -E '^[EF][0-9]{4} ' "$CA_LOG" || true)
[ -z "$errors" ] || fail "CA logged errors" "$errors"
refused=$(grep -iE 'could not find the requested resource|Unsupported ?Media ?Type|unable to decode|Error on gRPC call' "$CA_LOG" || true)
[ -z "$refused" ] || fail "CA's requests were refused or undecodable" "$refused"
pass "CA logged no error: informers synced, no 404, 415, decoding or gRPC error"
echo "ok: ca-externalgrpc e2e (the seed walkthrough with the real Cluster Autoscaler)"
