#!/usr/bin/env bash
# Issue 15: a PodDisruptionBudget protects its pods from scale-down, for the embedded autoscaler
# of `tidepool up` and for `tidepool autoscale`, checked with the real kubectl and gcloud. Two
# ReplicaSet-owned pods (app=pdbx), one on each of two 4xT4 nodes (each 1/4 used, so CA would
# consolidate them), and a budget minAvailable: 2: both nodes and both pods stay, the log gives
# CA's reason, and no eviction is tried (no busy retry); with minAvailable: 1, CA drains one
# node through the eviction API (the budget's status is the disruption controller's).
source "$(dirname "$0")/lib.sh"

# The pool of two 4xT4 nodes and the two pods, one on each node, and the budget; then the
# pool's autoscaling is turned on (before, empty nodes would be scaled down at once).
setup_pdb_case() {
  gcloud container node-pools create gpu4 --project tidepool-local --cluster tidepool \
    --zone us-central1-a --machine-type n1-standard-16 \
    --accelerator type=nvidia-tesla-t4,count=4 --num-nodes 2 \
    --node-taints nvidia.com/gpu=present:NoSchedule \
    >"$WORK/gcloud-create.log" 2>&1 || fail "gcloud node-pools create gpu4" "$(cat "$WORK/gcloud-create.log")"
  wait_for 60 bash -c "[ \$(kubectl --cache-dir $WORK/kube-cache get nodes -l cloud.google.com/gke-nodepool=gpu4 -o jsonpath='{range .items[*]}{.status.allocatable.nvidia\.com/gpu}{\"\\n\"}{end}' | grep -c '^4$') = 2 ]"
  mapfile -t NODES < <(k get nodes -l cloud.google.com/gke-nodepool=gpu4 -o name | cut -d/ -f2 | sort)
  # The two pods first, each pinned to its node, then the ReplicaSet, which adopts them (its
  # template is the same GPU pod, so a replacement needs a GPU too).
  for i in 1 2; do
    cat <<YAML | k apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata:
  name: p$i
  labels: {app: pdbx}
spec:
  nodeName: ${NODES[$((i - 1))]}
  containers:
  - name: cuda
    image: nvidia/cuda:12.2.0-base-ubuntu22.04
    resources: {limits: {nvidia.com/gpu: 1}}
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
YAML
  done
  sleep 2
  cat <<YAML | k apply -f - >/dev/null
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: pdbx}
spec:
  replicas: 2
  selector: {matchLabels: {app: pdbx}}
  template:
    metadata: {labels: {app: pdbx}}
    spec:
      containers:
      - name: cuda
        image: nvidia/cuda:12.2.0-base-ubuntu22.04
        resources: {limits: {nvidia.com/gpu: 1}}
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
YAML
  wait_for 30 bash -c "[ \$(kubectl --cache-dir $WORK/kube-cache get pods -l app=pdbx -o jsonpath='{range .items[*]}{.metadata.ownerReferences[0].kind}{\"\\n\"}{end}' | grep -c ReplicaSet) = 2 ]"
  [ "$(k get pods -l app=pdbx -o name | sort | tr '\n' ' ')" = "pod/p1 pod/p2 " ] ||
    fail "the ReplicaSet adopts p1 and p2 and creates nothing" "$(k get pods -l app=pdbx)"
  cat <<YAML | k apply -f - >/dev/null
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: pdbx}
spec:
  minAvailable: 2
  selector: {matchLabels: {app: pdbx}}
YAML
  wait_for 60 bash -c "[ \$(kubectl --cache-dir $WORK/kube-cache get pods -l app=pdbx -o jsonpath='{range .items[*]}{.status.phase}{\"\\n\"}{end}' | grep -c Running) = 2 ]"
  gcloud container clusters update tidepool --project tidepool-local --zone us-central1-a \
    --node-pool gpu4 --enable-autoscaling --min-nodes 0 --max-nodes 4 \
    >"$WORK/gcloud-update.log" 2>&1 || fail "gcloud clusters update --enable-autoscaling" "$(cat "$WORK/gcloud-update.log")"
}

# check_kept <log file> <what>: once the planner has found the nodes unremovable, and 20 s real
# (20 min at --speed 60: twice the unneeded time) later, both nodes and pods are there.
# `refresh_log` brings <log file> up to date.
check_kept() {
  local log=$1 what=$2
  wait_for 60 bash -c "refresh_log; grep -q 'not enough pod disruption budget to move default/p' '$log'"
  sleep 20
  refresh_log
  local nodes pods
  nodes=$(k get nodes -l cloud.google.com/gke-nodepool=gpu4 -o name | cut -d/ -f2 | sort)
  [ "$nodes" = "$(printf '%s\n' "${NODES[@]}")" ] || fail "$what: both GPU nodes kept" "$nodes"
  pods=$(k get pods -l app=pdbx -o jsonpath='{range .items[*]}{.metadata.name} {.spec.nodeName} {.metadata.deletionTimestamp}{"\n"}{end}')
  [ "$pods" = "$(printf 'p1 %s \np2 %s ' "${NODES[0]}" "${NODES[1]}")" ] ||
    fail "$what: both pods kept on their nodes, not terminating" "$pods"
  expect_match "$(cat "$log")" "node gke-tidepool-gpu4-[a-z0-9-]+ cannot be removed: not enough pod disruption budget to move default/p[12]" \
    "$what: CA's reason"
  expect_not_in "$(cat "$log")" "Scale-down: removing node" "$what: no scale-down started"
  expect_not_in "$(cat "$log")" "Failed to evict pod" "$what: no eviction tried"
  [ -z "$(k get events --field-selector reason=ScaleDownFailed -o name)" ] ||
    fail "$what: no failed scale-down" "$(k get events --field-selector reason=ScaleDownFailed)"
  pass "$what: the budget keeps both nodes and both pods, CA's reason logged, no eviction tried"
}

# 1. The embedded autoscaler of `tidepool up`.
start_up --speed 60 --v 2 --gcloud-config "$CLOUDSDK_CONFIG"
setup_pdb_case
ca_pod=$(k get pods -n kube-system -o name | grep cluster-autoscaler- | cut -d/ -f2)
refresh_log() { kubectl --cache-dir "$WORK/kube-cache" logs -n kube-system "$ca_pod" >"$WORK/ca.log"; }
export -f refresh_log
export ca_pod WORK
check_kept "$WORK/ca.log" "tidepool up"
# The disruption controller keeps the budget's status (what CA and the eviction API read).
expect_match "$(k get pdb pdbx)" "pdbx +2 +N/A +0 "
# A budget that allows one disruption lets CA drain one node through the eviction API.
k patch pdb pdbx --type merge -p '{"spec":{"minAvailable":1}}' >/dev/null
wait_for 60 bash -c "[ \$(kubectl --cache-dir $WORK/kube-cache get nodes -l cloud.google.com/gke-nodepool=gpu4 -o name | grep -c .) = 1 ]"
refresh_log
expect_match "$(cat "$WORK/ca.log")" "Scale-down: removing node gke-tidepool-gpu4-[a-z0-9-]+, utilization: .*, pods to reschedule: p[12]"
[ "$(k get pods -l app=pdbx -o name | grep -c '^pod/p[12]$')" = 1 ] || fail "one pod evicted" "$(k get pods -l app=pdbx)"
# The ReplicaSet replaces the evicted pod; it fits on the node that stays.
wait_for 60 bash -c "[ \$(kubectl --cache-dir $WORK/kube-cache get pods -l app=pdbx --field-selector status.phase=Running -o name | grep -c .) = 2 ]"
expect_match "$(k get pods -l app=pdbx -o wide)" "pdbx-[a-z0-9]{5} +1/1 +Running"
pass "tidepool up: minAvailable 1 lets CA evict one pod and remove its node; the ReplicaSet replaces the pod"
kill "$UP_PID"
wait "$UP_PID" 2>/dev/null || true

# 2. `tidepool autoscale` against a fresh `tidepool up --no-autoscaler`.
start_up --speed 60 --no-autoscaler --gcloud-config "$CLOUDSDK_CONFIG"
k apply -f "$SRC/deploy/" >/dev/null
setup_pdb_case
start_autoscale as-pdb --v 2
refresh_log() { :; }
export -f refresh_log
check_kept "$WORK/as-pdb.log" "tidepool autoscale"
echo "ok: pdb e2e"
