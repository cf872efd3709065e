#!/usr/bin/env bash
# The real Cluster Autoscaler 1.31.5 with its kwok cloud provider (upstream, unmodified) against
# `tidepool up --speed 60 --no-autoscaler`, with the real kubectl:
#   - CA reads the kwok provider config and a GPU node template (4 CPU, 16Gi, nvidia.com/gpu: 1,
#     cloud.google.com/gke-accelerator=nvidia-tesla-t4, node group kwok-gpu by the label
#     kwok-nodegroup, min 0, max 3) from two ConfigMaps in kube-system, and reports the group in
#     its status ConfigMap;
#   - a pending GPU pod: after CA's fixed 30 s wait for GPU pods, plan kwok-gpu 0->1; CA creates a
#     Node annotated kwok.x-k8s.io/node=fake, tidepool's kubelets make it Ready (KWOK's
#     node-initialize stage), the scheduler binds the pod and it runs; TriggeredScaleUp event;
#   - three more GPU pods: plan 1->3 (the group's max); the pod left over gets NotTriggerScaleUp
#     "max node group size reached";
#   - every pod deleted: CA soft-taints the empty nodes (DeletionCandidateOfClusterAutoscaler),
#     then taints them ToBeDeletedByClusterAutoscaler (PUT /api/v1/nodes/{name}, a protobuf body
#     unless CA_KWOK_CONTENT_TYPE says otherwise), emits ScaleDown / ScaleDownEmpty events and
#     deletes the Nodes: the group is back to 0;
#   - CA logged no error at all: every informer it starts lists and watches (persistentvolumes,
#     replicationcontrollers, storage.k8s.io/v1 storageclasses, csinodes, csidrivers and
#     csistoragecapacities included), and no 404, 415 or decoding error (issue 18's acceptance).
# CA runs in the background from CA_KWOK_BIN (default: the shared 1.31.5 build);
# CA_KWOK_CONTENT_TYPE (e.g. application/json) is passed as --kube-api-content-type (default:
# CA's own, application/vnd.kubernetes.protobuf). Without the CA binary the test exits 77
# (skipped). Only the CA and the tidepool up this test started are stopped. About 2 minutes.
# Usage: TIDEPOOL_BIN=path/to/tidepool [CA_KWOK_BIN=...] bash tests/e2e/ca_kwok_test.sh
# ../shared/tools beside the checkout (the workplace's third-party test binaries).
CA_KWOK_BIN="${CA_KWOK_BIN:-$(cd "$(dirname "$0")/../.." && pwd)/../shared/tools/cluster-autoscaler-1.31.5/cluster-autoscaler-kwok}"
if [ ! -x "$CA_KWOK_BIN" ]; then
  echo "SKIP: no Cluster Autoscaler kwok binary at $CA_KWOK_BIN (set CA_KWOK_BIN)"
  exit 77
fi
source "$(dirname "$0")/lib.sh"

CA_LOG="$WORK/ca-kwok.log"
CA_PID=""
# On failure, CA's decisions and complaints (its -v=4 log is mostly "ignoring node ..."), then
# lib.sh's cleanup (which stops CA with the autoscalers it knows, and tidepool up).
ca_exit() {
  local rc=$?
  set +e
  if [ $rc -ne 0 ] && [ -f "$CA_LOG" ]; then
    echo "--- cluster-autoscaler (kwok) log: decisions, warnings and errors (last 60; besides" \
      "$(grep -c 'could not find the requested resource' "$CA_LOG") lines of 404s):"
    grep -E '^[EWF][0-9]{4} |scale-up plan|Scale-up|Scale-down|ScaleUp|ScaleDown|unneeded|taint|nschedulable|Upcoming|Best option' \
      "$CA_LOG" | grep -vE 'ignoring node|framework.go:|could not find the requested resource' | tail -n 60
    echo "--- nodes watch (name, taint keys):"
    tail -n 30 "$WORK/nodes.watch" 2>/dev/null
  fi
  (exit $rc)
  cleanup
}
trap ca_exit EXIT

# The pools of examples/up/gpu-cluster.yaml (GKE's default-pool of three CPU nodes and the
# walkthrough's gpu-pool at 0); tidepool's own autoscaler is off (--no-autoscaler): CA owns the
# scaling here, of its kwok node group only (it ignores nodes whose providerID is not kwok:...).
cat >"$WORK/cluster.yaml" <<'EOF'
cluster: {project: tidepool-local, name: tidepool, zone: us-central1-a}
nodePools:
- name: default-pool
  machineType: e2-standard-4
  initialNodeCount: 3
- name: gpu-pool
  machineType: n1-standard-4
  accelerator: {type: nvidia-tesla-t4, count: 1}
  enableAutoscaling: true
  minNodes: 0
  maxNodes: 5
  taints: ["nvidia.com/gpu=present:NoSchedule"]
  labels: {app-type: gpu-workloads}
EOF
start_up --speed 60 --no-autoscaler --config "$WORK/cluster.yaml"

# kwok provider config (cloudprovider/kwok/kwok_config.go): templates from a ConfigMap, node
# groups by the label kwok-nodegroup, GPU nodes by cloud.google.com/gke-accelerator.
cat >"$WORK/kwok-config.yaml" <<'EOF'
apiVersion: v1alpha1
readNodesFrom: configmap
nodegroups:
  fromNodeLabelKey: kwok-nodegroup
nodes:
  gpuConfig:
    gpuLabelKey: cloud.google.com/gke-accelerator
    availableGPUTypes:
      nvidia-tesla-t4: {}
configmap:
  name: kwok-provider-templates
EOF
# One template Node (kwok_helpers.go: a kind: List of Nodes under the key "templates"); min and
# max from its annotations. No kubernetes.io/hostname label: every node made from the template
# would carry it. The provider adds the taint kwok-provider=true:NoSchedule (nodes.skipTaint is
# false), the annotations kwok.x-k8s.io/node=fake and cluster-autoscaler.kwok.nodegroup/name,
# and providerID kwok:<node>.
cat >"$WORK/kwok-templates.yaml" <<'EOF'
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: gpu-t4
    annotations:
      cluster-autoscaler.kwok.nodegroup/min-count: "0"
      cluster-autoscaler.kwok.nodegroup/max-count: "3"
    labels:
      kwok-nodegroup: kwok-gpu
      cloud.google.com/gke-accelerator: nvidia-tesla-t4
      kubernetes.io/arch: amd64
      kubernetes.io/os: linux
      node.kubernetes.io/instance-type: n1-standard-4
      topology.kubernetes.io/region: us-central1
      topology.kubernetes.io/zone: us-central1-a
  status:
    allocatable: {cpu: "4", memory: 16Gi, pods: "110", ephemeral-storage: 100Gi, nvidia.com/gpu: "1"}
    capacity: {cpu: "4", memory: 16Gi, pods: "110", ephemeral-storage: 100Gi, nvidia.com/gpu: "1"}
EOF
k -n kube-system create configmap kwok-provider-config --from-file=config="$WORK/kwok-config.yaml" >/dev/null
k -n kube-system create configmap kwok-provider-templates \
  --from-file=templates="$WORK/kwok-templates.yaml" >/dev/null

# CA's kwok provider builds its own client from KUBECONFIG (KWOK_PROVIDER_MODE=local) and reads
# its ConfigMaps in POD_NAMESPACE; CA itself uses --kubeconfig. Fast timers; CA's 30 s wait for
# unschedulable GPU pods is not a flag in 1.31.
ca_flags=(--cloud-provider=kwok --kubeconfig="$KUBECONFIG" --namespace=kube-system
  --leader-elect=false --scan-interval=2s --scale-down-unneeded-time=15s
  --scale-down-delay-after-add=15s --v=4 --logtostderr
  --address=127.0.0.1:0)  # metrics on a free port: CA's default :8085 may be taken
[ -n "${CA_KWOK_CONTENT_TYPE:-}" ] && ca_flags+=(--kube-api-content-type="$CA_KWOK_CONTENT_TYPE")
KWOK_PROVIDER_MODE=local POD_NAMESPACE=kube-system "$CA_KWOK_BIN" "${ca_flags[@]}" >"$CA_LOG" 2>&1 &
CA_PID=$!
AS_PIDS+=($CA_PID)  # lib.sh's cleanup stops it (TERM: CA deletes the nodes it made), and only it

export -f k
export WORK CA_LOG
ca_status() { k -n kube-system get configmap cluster-autoscaler-status -o jsonpath='{.data.status}'; }
export -f ca_status
wait_for 60 bash -c "ca_status | grep -q 'name: kwok-gpu'" ||
  fail "CA did not report its node group (is it running? pid $CA_PID)" "$(tail -n 20 "$CA_LOG")"
status=$(ca_status)
expect_in "$status" "autoscalerStatus: Running"
expect_match "$status" "minSize: 0"
expect_match "$status" "maxSize: 3"
expect_in "$(grep 'kwok_config.go' "$CA_LOG")" "got current pod namespace 'kube-system'"
pass "CA 1.31.5 (kwok provider) runs against tidepool up and reports node group kwok-gpu (0..3)"

# Every version of every node, with its taint keys (kubectl's own watch, no request timeout).
kubectl --cache-dir "$WORK/kube-cache" get nodes -w \
  -o jsonpath='{.metadata.name}{" "}{.spec.taints[*].key}{"\n"}' >"$WORK/nodes.watch" 2>&1 &

# A GPU pod for the kwok node group: its label, the kwok provider's taint tolerated.
kwok_gpu_pod() {
  cat <<POD
apiVersion: v1
kind: Pod
metadata:
  name: $1
spec:
  nodeSelector: {kwok-nodegroup: kwok-gpu}
  tolerations: [{key: kwok-provider, operator: Exists, effect: NoSchedule}]
  containers:
  - name: cuda
    image: nvidia/cuda:12.4.1-base-ubuntu22.04
    command: ["sleep", "3600"]
    resources: {limits: {nvidia.com/gpu: 1}}
POD
}
kwok_nodes() { k get nodes -l kwok-nodegroup=kwok-gpu --no-headers 2>/dev/null | grep -c ' Ready ' || true; }
running() { k get pods --field-selector=status.phase=Running -o name | grep -c . || true; }
export -f kwok_nodes running

# ---- scale-up 0 -> 1 ---------------------------------------------------------------------------
kwok_gpu_pod gpu-1 | k apply -f - >/dev/null
wait_for 90 grep -qF 'Final scale-up plan: [{kwok-gpu 0->1 (max: 3)}]' "$CA_LOG" ||
  fail "no scale-up plan kwok-gpu 0->1 within 90 s" "$(k get pods -o wide)" "$(k get events)"
wait_for 30 bash -c '[ "$(kwok_nodes)" = 1 ]' || fail "the kwok node did not turn Ready" "$(k get nodes)"
node=$(k get nodes -l kwok-nodegroup=kwok-gpu -o name)
node=${node#node/}
expect_match "$node" '^kwok-gpu-[a-z0-9]{5}$'
info=$(k get node "$node" -o jsonpath='{.metadata.annotations.kwok\.x-k8s\.io/node} {.metadata.annotations.cluster-autoscaler\.kwok\.nodegroup/name} {.spec.providerID} {.spec.taints[0].key}={.spec.taints[0].value}:{.spec.taints[0].effect} gpu={.status.allocatable.nvidia\.com/gpu} {.metadata.labels.cloud\.google\.com/gke-accelerator}')
expect_in "$info" "fake kwok-gpu kwok:$node kwok-provider=true:NoSchedule gpu=1 nvidia-tesla-t4"
conds=$(k get node "$node" -o jsonpath='{range .status.conditions[*]}{.type}={.status} {end}')
expect_in "$conds" "Ready=True"
pass "CA planned kwok-gpu 0->1 and created $node; tidepool made it Ready"

wait_for 30 bash -c "k get pod gpu-1 | grep -q Running" || fail "gpu-1 is not Running" "$(k get pods -o wide)"
expect_match "$(k get pod gpu-1 -o wide)" "gpu-1 +1/1 +Running +0 +[0-9a-z]+ +10\.[0-9.]+ +$node"
wait_for 20 bash -c "k get events --field-selector involvedObject.name=gpu-1 | grep -q TriggeredScaleUp"
ev=$(k get events --field-selector involvedObject.name=gpu-1)
expect_in "$ev" "pod triggered scale-up: [{kwok-gpu 0->1 (max: 3)}]"
expect_in "$ev" "Successfully assigned default/gpu-1 to $node"
expect_in "$ev" "Started container cuda"
wait_for 20 bash -c "k get events -n kube-system | grep -q 'Scale-up: group kwok-gpu size set to 1 instead of 0 (max: 3)'"
pass "the GPU pod runs on the new node; TriggeredScaleUp and ScaledUpGroup events"

# ---- scale-up 1 -> 3, the group's max ------------------------------------------------------------
{ kwok_gpu_pod gpu-2; echo ---; kwok_gpu_pod gpu-3; echo ---; kwok_gpu_pod gpu-4; } | k apply -f - >/dev/null
wait_for 90 grep -qF 'Final scale-up plan: [{kwok-gpu 1->3 (max: 3)}]' "$CA_LOG" ||
  fail "no scale-up plan kwok-gpu 1->3 within 90 s" "$(grep -F 'scale-up plan' "$CA_LOG")" "$(k get pods -o wide)"
wait_for 30 bash -c '[ "$(kwok_nodes)" = 3 ]' || fail "three kwok nodes did not turn Ready" "$(k get nodes)"
wait_for 30 bash -c '[ "$(running)" = 3 ]' || fail "three GPU pods should run" "$(k get pods -o wide)"
pending=$(k get pods --field-selector=status.phase=Pending -o name)
[ "$(grep -c . <<<"$pending")" = 1 ] || fail "one GPU pod should stay Pending" "$(k get pods -o wide)"
p=${pending#pod/}
wait_for 30 bash -c "k get events --field-selector involvedObject.name=$p | grep -q NotTriggerScaleUp" ||
  fail "no NotTriggerScaleUp for $p" "$(k get events --field-selector involvedObject.name="$p")"
expect_in "$(k get events --field-selector involvedObject.name="$p")" \
  "pod didn't trigger scale-up: 1 max node group size reached"
expect_in "$(ca_status)" "cloudProviderTarget: 3"
pass "three more GPU pods: plan kwok-gpu 1->3 (max), three run, $p gets NotTriggerScaleUp (max reached)"

# ---- scale-down to 0 ------------------------------------------------------------------------------
nodes=$(k get nodes -l kwok-nodegroup=kwok-gpu -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}')
k delete pods --all --wait=false >/dev/null
wait_for 60 bash -c "! k get pods -o name | grep -q ." || fail "the GPU pods were not deleted" "$(k get pods -o wide)"
wait_for 90 bash -c "! k get nodes -l kwok-nodegroup=kwok-gpu -o name | grep -q ." ||
  fail "CA did not remove the empty kwok nodes within 90 s" "$(k get nodes)" "$(grep -E 'unneeded|Scale-down|taint' "$CA_LOG" | tail -n 20)"
expect_in "$(k get nodes)" "gke-tidepool-default-pool-"
wait_for 20 bash -c "[ \"\$(k get events -n kube-system | grep -c 'Scale-down: empty node kwok-gpu-[a-z0-9]* removed')\" = 3 ]" ||
  fail "three ScaleDownEmpty '... removed' events expected" "$(k get events -n kube-system)"
ev=$(k get events -A)
watch=$(cat "$WORK/nodes.watch")
for n in $nodes; do
  expect_in "$ev" "Scale-down: removing empty node \"$n\""
  expect_match "$ev" "ScaleDown +node/$n +marked the node as toBeDeleted/unschedulable"
  expect_match "$watch" "^$n .*DeletionCandidateOfClusterAutoscaler"
  expect_match "$watch" "^$n .*ToBeDeletedByClusterAutoscaler"
done
wait_for 20 bash -c "ca_status | grep -q 'cloudProviderTarget: 0'" || fail "CA's target is not 0" "$(ca_status)"
pass "pods deleted: CA tainted the empty nodes ToBeDeletedByClusterAutoscaler and deleted them (3 -> 0)"

# ---- CA's log ----------------------------------------------------------------------------------------
kill -0 "$CA_PID" 2>/dev/null || fail "CA exited" "$(tail -n 30 "$CA_LOG")"
errors=$(grep -E '^[EF][0-9]{4} ' "$CA_LOG" || true)
[ -z "$errors" ] || fail "CA logged errors" "$errors"
refused=$(grep -iE 'could not find the requested resource|Unsupported ?Media ?Type|unable to decode|rejected our request|couldn.t create new node' "$CA_LOG" || true)
[ -z "$refused" ] || fail "CA's requests were refused or undecodable" "$refused"
pass "CA logged no error: every informer synced, no 404, 415 or decoding error"
echo "ok: ca-kwok e2e (kube-api-content-type: ${CA_KWOK_CONTENT_TYPE:-CA default, protobuf})"
