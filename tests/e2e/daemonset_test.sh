#!/usr/bin/env bash
# Issue 16: DaemonSets with the real kubectl against `tidepool up --speed 60` and the GPU pool of
# examples/up/gpu-cluster.yaml (gpu-pool: 1xT4 nodes, tainted nvidia.com/gpu, min 0, max 5):
# the DaemonSet controller puts one pod on each matching node, including a node the autoscaler
# adds later, `kubectl get ds` shows kcm's counts, `kubectl rollout status ds/x` succeeds on
# create and after an image update, and the GPU operator's device-plugin DaemonSet gets its
# pod on the new GPU node from the controller.
source "$(dirname "$0")/lib.sh"

start_up --speed 60 --config "$SRC/examples/up/gpu-cluster.yaml" --gcloud-config "$CLOUDSDK_CONFIG"
gpu_nodes() { k get nodes -l cloud.google.com/gke-nodepool=gpu-pool -o name | grep -c . || true; }
export -f gpu_nodes k
export WORK

# 1. A DaemonSet on every node it tolerates: the three default-pool nodes.
k apply -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: node-agent
spec:
  selector:
    matchLabels: {app: node-agent}
  template:
    metadata:
      labels: {app: node-agent}
    spec:
      containers:
      - name: agent
        image: busybox:1.36
        command: ["sleep", "infinity"]
YAML
k rollout status ds/node-agent --timeout=60s >"$WORK/rollout1.log" 2>&1 ||
  fail "rollout status ds/node-agent" "$(cat "$WORK/rollout1.log")" "$(k get ds,pods -o wide)"
expect_in "$(cat "$WORK/rollout1.log")" 'daemon set "node-agent" successfully rolled out'
expect_match "$(k get ds node-agent)" "^node-agent +3 +3 +3 +3 +3 +<none> "
pods=$(k get pods -l app=node-agent -o wide --no-headers)
[ "$(grep -c . <<<"$pods")" = 3 ] || fail "three node-agent pods" "$pods"
expect_match "$pods" "^node-agent-[a-z0-9]{5} +1/1 +Running"
[ "$(awk '{print $7}' <<<"$pods" | sort -u | grep -c default-pool)" = 3 ] || fail "one pod per default-pool node" "$pods"
pod=$(awk 'NR==1{print $1}' <<<"$pods")
[ "$(k get pod "$pod" -o jsonpath='{.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].key}')" = metadata.name ] ||
  fail "pinned by node affinity matchFields metadata.name" "$(k get pod "$pod" -o yaml)"
expect_match "$(k get pod "$pod" -o jsonpath='{.metadata.labels}')" '"controller-revision-hash":"[bcdfghjklmnpqrstvwxz2456789]+"'
expect_in "$(k get pod "$pod" -o jsonpath='{.metadata.labels}')" '"pod-template-generation":"1"'
expect_in "$(k get pod "$pod" -o jsonpath='{.spec.tolerations[*].key}')" "node.kubernetes.io/unschedulable"
expect_in "$(k get events --field-selector involvedObject.kind=DaemonSet,involvedObject.name=node-agent -o custom-columns=R:.reason,M:.message --no-headers)" \
  "SuccessfulCreate   Created pod: node-agent-"
pass "node-agent: one pod per default-pool node, 3/3, rollout status succeeds"

# 2. A DaemonSet for GPU nodes (tolerates the GPU taint): nothing to run yet.
k apply -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: gpu-agent
spec:
  selector:
    matchLabels: {app: gpu-agent}
  template:
    metadata:
      labels: {app: gpu-agent}
    spec:
      nodeSelector: {cloud.google.com/gke-nodepool: gpu-pool}
      tolerations:
      - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
      containers:
      - name: agent
        image: busybox:1.36
        command: ["sleep", "infinity"]
YAML
wait_for 20 bash -c "k get ds gpu-agent -o jsonpath='{.status.observedGeneration}' | grep -qx 1" ||
  fail "gpu-agent observed" "$(k get ds gpu-agent -o yaml)"
expect_match "$(k get ds gpu-agent)" "^gpu-agent +0 +0 +0 +0 +0 +cloud.google.com/gke-nodepool=gpu-pool "

# 3. A GPU pod: the pool grows 0 -> 1 and the new node gets gpu-agent's and the device
#    plugin's pods, not node-agent's (it does not tolerate the GPU taint).
k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  name: gpu-test-pod
spec:
  tolerations:
  - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
  containers:
  - name: cuda
    image: nvidia/cuda:12.4.1-base-ubuntu22.04
    command: ["sleep", "infinity"]
    resources:
      limits: {nvidia.com/gpu: 1}
YAML
wait_for 120 bash -c '[ "$(gpu_nodes)" = 1 ]' || fail "the GPU pool at 1" "$(k get nodes)"
gpu_node=$(k get nodes -l cloud.google.com/gke-nodepool=gpu-pool -o jsonpath='{.items[0].metadata.name}')
# (rollout status alone would pass while the node is not yet counted: 0 of 0.)
wait_for 60 bash -c "k get ds gpu-agent -o jsonpath='{.status.numberAvailable}' | grep -qx 1" ||
  fail "gpu-agent available on the GPU node" "$(k get ds,pods -o wide)"
k rollout status ds/gpu-agent --timeout=120s >"$WORK/rollout2.log" 2>&1 ||
  fail "rollout status ds/gpu-agent" "$(cat "$WORK/rollout2.log")" "$(k get ds,pods -o wide)"
expect_match "$(k get ds gpu-agent)" "^gpu-agent +1 +1 +1 +1 +1 "
expect_match "$(k get pods -l app=gpu-agent -o wide)" "^gpu-agent-[a-z0-9]{5} +1/1 +Running .* $gpu_node "
wait_for 60 bash -c "k get pod gpu-test-pod -o jsonpath='{.status.phase}' | grep -qx Running" ||
  fail "the GPU pod runs" "$(k get pods -o wide)" "$(k describe node "$gpu_node")"
wait_for 30 bash -c "k -n gpu-operator get ds nvidia-device-plugin-daemonset -o jsonpath='{.status.numberReady}' | grep -qx 1" ||
  fail "the device plugin's pod on the GPU node" "$(k -n gpu-operator get ds,pods -o wide)"
expect_match "$(k -n gpu-operator get pods -o wide)" "^nvidia-device-plugin-daemonset-[a-z0-9]{5} +1/1 +Running .* $gpu_node "
expect_match "$(k get ds node-agent)" "^node-agent +3 +3 +3 +3 +3 "
pass "scale-up: $gpu_node gets gpu-agent's and the device plugin's pods, node-agent stays at 3"

# 4. A rolling update (maxUnavailable 1): every pod replaced, rollout status succeeds.
k set image ds/node-agent agent=busybox:1.37 >/dev/null
k rollout status ds/node-agent --timeout=120s >"$WORK/rollout3.log" 2>&1 ||
  fail "rollout status after set image" "$(cat "$WORK/rollout3.log")" "$(k get ds,pods -o wide)"
expect_in "$(cat "$WORK/rollout3.log")" 'daemon set "node-agent" successfully rolled out'
[ "$(k get pods -l app=node-agent -o jsonpath='{.items[*].spec.containers[0].image}' | tr ' ' '\n' | sort -u)" = busybox:1.37 ] ||
  fail "every node-agent pod on the new image" "$(k get pods -l app=node-agent -o wide)"
expect_match "$(k get ds node-agent)" "^node-agent +3 +3 +3 +3 +3 "
pass "set image: node-agent rolled out, 3 up to date"

# 5. History: one ControllerRevision per template (kubectl get's columns), `rollout history`
# lists them, `rollout undo` puts the first template back and renumbers its revision.
revs=$(k get controllerrevisions -l app=node-agent)
expect_match "$revs" "^NAME +CONTROLLER +REVISION +AGE"
expect_match "$revs" "^node-agent-[bcdfghjklmnpqrstvwxz2456789]+ +daemonset.apps/node-agent +1 +"
expect_match "$revs" "^node-agent-[bcdfghjklmnpqrstvwxz2456789]+ +daemonset.apps/node-agent +2 +"
expect_match "$(k rollout history ds/node-agent)" "^REVISION +CHANGE-CAUSE"
expect_in "$(k rollout history ds/node-agent --revision=1)" "busybox:1.36"
k rollout undo ds/node-agent >"$WORK/undo.log" 2>&1 || fail "rollout undo ds/node-agent" "$(cat "$WORK/undo.log")"
expect_in "$(cat "$WORK/undo.log")" "daemonset.apps/node-agent rolled back"
k rollout status ds/node-agent --timeout=120s >/dev/null 2>&1 ||
  fail "rollout status after undo" "$(k get ds,pods -o wide)"
[ "$(k get pods -l app=node-agent -o jsonpath='{.items[*].spec.containers[0].image}' | tr ' ' '\n' | sort -u)" = busybox:1.36 ] ||
  fail "every node-agent pod back on the first image" "$(k get pods -l app=node-agent -o wide)"
revs=$(k get controllerrevisions -l app=node-agent --sort-by=.revision -o custom-columns=N:.metadata.name,R:.revision --no-headers)
[ "$(awk '{print $2}' <<<"$revs" | tr '\n' ' ')" = "2 3 " ] || fail "revisions 2 and 3 after the undo" "$revs"
hash=$(k get pods -l app=node-agent -o jsonpath='{.items[0].metadata.labels.controller-revision-hash}')
expect_in "$(awk '$2 == 3 {print $1}' <<<"$revs")" "node-agent-$hash"
pass "history: two revisions, rollout undo back to busybox:1.36 as revision 3"
echo "ok: daemonset e2e"
