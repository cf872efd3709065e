#!/usr/bin/env bash
# Issue 15 (one store): a node created through the API is a node like the emulated cloud's,
# with the real kubectl against `tidepool up --speed 60`. A KWOK-style node (annotated
# kwok.x-k8s.io/node: fake, tainted, its capacity in status, as the Cluster Autoscaler's kwok
# provider creates them) gets pods from the scheduler, the kubelets run them (Running, pod IP,
# kubelet events), and once the node is deleted kcm's pod garbage collector removes them after
# its quarantine (40 s, 0.67 s at --speed 60) - nothing of it goes through the emulated world.
source "$(dirname "$0")/lib.sh"

start_up --speed 60 --config "$SRC/examples/up/gpu-cluster.yaml"

k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Node
metadata:
  name: kwok-gpu-1
  annotations: {kwok.x-k8s.io/node: fake}
  labels: {type: kwok, kubernetes.io/hostname: kwok-gpu-1}
spec:
  taints: [{key: kwok.x-k8s.io/node, value: fake, effect: NoSchedule}]
status:
  allocatable: {cpu: "8", memory: 32Gi, pods: "110", nvidia.com/gpu: "2"}
  capacity: {cpu: "8", memory: 32Gi, pods: "110", nvidia.com/gpu: "2"}
  conditions: [{type: Ready, status: "True", reason: KubeletReady, message: kwok}]
YAML
for i in 1 2 3; do
  k apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: on-kwok-$i}
spec:
  nodeSelector: {type: kwok}
  tolerations: [{key: kwok.x-k8s.io/node, operator: Exists, effect: NoSchedule}]
  containers:
  - name: cuda
    image: nvidia/cuda:12.4.1-base-ubuntu22.04
    resources: {limits: {nvidia.com/gpu: 1}}
YAML
done
export -f k
export WORK
wait_for 60 bash -c "[ \"\$(k get pods -o jsonpath='{range .items[*]}{.status.phase}{\"\\n\"}{end}' | grep -c Running)\" = 2 ]"
out=$(k get pods -o wide)
expect_match "$out" 'on-kwok-[123] +1/1 +Running +0 +[0-9a-z]+ +10\.[0-9.]+ +kwok-gpu-1'
pending=$(k get pods --field-selector=status.phase=Pending -o name)
[ "$(echo "$pending" | grep -c .)" = 1 ] || fail "two GPUs: the third pod stays Pending" "$out"
p=${pending#pod/}
expect_in "$(k get events --field-selector involvedObject.name="$p")" \
  "0/4 nodes are available: 1 Insufficient nvidia.com/gpu, 3 node(s) didn't match Pod's node affinity/selector."
running=$(k get pods --field-selector=status.phase=Running -o name | sed -n 1p)
ev=$(k get events --field-selector involvedObject.name="${running#pod/}")
expect_in "$ev" "Successfully assigned default/${running#pod/} to kwok-gpu-1"
expect_in "$ev" "Started container cuda"
pass "a node created through the API is scheduled onto and its pods run"

k delete node kwok-gpu-1 >/dev/null
wait_for 60 bash -c "! k get pods --field-selector=spec.nodeName=kwok-gpu-1 -o name | grep -q ."
expect_in "$(k get pods)" "Pending"
pass "its pods are garbage-collected once the node is gone; the unscheduled one waits"
echo "ok: api-node e2e"
