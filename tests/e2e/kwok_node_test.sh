#!/usr/bin/env bash
# Issue 18 (KWOK-compatible nodes), with the real kubectl against `tidepool up --speed 60`:
#   - a Node created through the API as CA's kwok provider creates one from its template
#     (annotated kwok.x-k8s.io/node: fake, capacity in status, no conditions) is made Ready by
#     KWOK's node-initialize stage (five conditions, addresses, phase Running) and gets a Lease in
#     kube-node-lease that is renewed every 10 s (wall-clock, as KWOK's controller and a kubelet
#     do, whatever --speed says); a GPU pod lands on it and runs;
#   - the emulated cloud's nodes, registered through the API by their kubelets, have Leases
#     renewed the same way (issue 17: "node Lease and heartbeat times are minutes stale").
source "$(dirname "$0")/lib.sh"

start_up --speed 60 --config "$SRC/examples/up/gpu-cluster.yaml"

k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Node
metadata:
  name: kwok-gpu-abcde
  annotations: {kwok.x-k8s.io/node: fake, cluster-autoscaler.kwok.nodegroup/name: kwok-gpu}
  labels: {type: kwok, kubernetes.io/hostname: kwok-gpu-abcde}
status:
  allocatable: {cpu: "4", memory: 16Gi, pods: "110", nvidia.com/gpu: "1"}
  capacity: {cpu: "4", memory: 16Gi, pods: "110", nvidia.com/gpu: "1"}
  nodeInfo: {kubeletVersion: v1.31.5}
YAML
export -f k
export WORK
wait_for 30 bash -c "k get node kwok-gpu-abcde | grep -q ' Ready '"
node=$(k get node kwok-gpu-abcde -o jsonpath='{range .status.conditions[*]}{.type}={.status}/{.reason} {end}|{.status.phase}|{.status.addresses[0].type}|{.status.nodeInfo.kubeletVersion}|{.status.nodeInfo.containerRuntimeVersion}')
expect_in "$node" "Ready=True/KubeletReady MemoryPressure=False/KubeletHasSufficientMemory DiskPressure=False/KubeletHasNoDiskPressure PIDPressure=False/KubeletHasSufficientPID NetworkUnavailable=False/RouteCreated |Running|InternalIP|v1.31.5|kwok-v"
pass "a KWOK node created through the API turns Ready with KWOK's node-initialize stage"

lease() { k get lease -n kube-node-lease "$1" -o jsonpath='{.spec.holderIdentity} {.spec.leaseDurationSeconds} {.spec.renewTime} {.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}'; }
wait_for 20 bash -c "k get lease -n kube-node-lease kwok-gpu-abcde >/dev/null 2>&1"
first=$(lease kwok-gpu-abcde)
expect_match "$first" '^kwok-gpu-abcde 40 20[0-9-]+T[0-9:.]+Z Node/kwok-gpu-abcde$'

k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: on-kwok}
spec:
  nodeSelector: {type: kwok}
  containers:
  - name: cuda
    image: nvidia/cuda:12.4.1-base-ubuntu22.04
    resources: {limits: {nvidia.com/gpu: 1}}
YAML
wait_for 30 bash -c "k get pod on-kwok | grep -q Running"
expect_match "$(k get pod on-kwok -o wide)" 'on-kwok +1/1 +Running +0 +[0-9a-z]+ +10\.[0-9.]+ +kwok-gpu-abcde'
pass "a GPU pod is scheduled onto it and runs"

# Renewals are wall-clock: 10 s (+ up to 4 % jitter) apart under --speed 60 too.
sleep 12
second=$(lease kwok-gpu-abcde)
[ "${first#* * }" != "${second#* * }" ] || fail "the KWOK node's Lease was not renewed in 12 s" "$first" "$second"
now=$(date -u +%s)
for n in $(k get nodes -o name); do
  n=${n#node/}
  renew=$(k get lease -n kube-node-lease "$n" -o jsonpath='{.spec.renewTime}')
  [ -n "$renew" ] || fail "node $n has no Lease" "$(k get lease -n kube-node-lease)"
  age=$(( now - $(date -u -d "$renew" +%s) ))
  [ "$age" -le 15 ] || fail "node $n's Lease was renewed $age s ago" "$(k get lease -n kube-node-lease -o wide)"
done
pass "every node's Lease is renewed every 10 s"
echo "ok: kwok-node e2e"
