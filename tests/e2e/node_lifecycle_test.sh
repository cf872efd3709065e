#!/usr/bin/env bash
# kube-controller-manager's node lifecycle controller in `tidepool up`, seen with the real
# kubectl: the API server's not-ready taint on a new node, a cordon's unschedulable taint, the
# node-controller's events, and a node no kubelet ever reports on turning Unknown after the
# 60 s node-startup-grace-period (real time: --speed leaves the health check alone, as the
# kubelets' Leases are renewed in real time).
source "$(dirname "$0")/lib.sh"
start_up --speed 60 --seed 3

# A node created through the API, with no kubelet behind it (test-cmd's create_node).
out=$(k create -f - <<'JSON'
{"kind": "Node", "apiVersion": "v1", "metadata": {"name": "no-kubelet"},
 "status": {"capacity": {"memory": "1Gi"}}}
JSON
)
expect_in "$out" "node/no-kubelet created"
created=$SECONDS
# TaintNodesByCondition put not-ready on it; with no condition saying not ready, the controller
# takes it off.
wait_for 20 bash -c "[ -z \"\$(kubectl --cache-dir '$WORK/kube-cache' get node no-kubelet -o jsonpath='{.spec.taints}')\" ]"
pass "a new node's not-ready taint, removed while no condition says not ready"

# The three default-pool nodes and the new one were registered by the node-controller.
wait_for 20 bash -c "kubectl --cache-dir '$WORK/kube-cache' get events --field-selector reason=RegisteredNode -o name | grep -c . | grep -qx 4"
out=$(k get events --field-selector involvedObject.name=no-kubelet)
expect_match "$out" 'Normal +RegisteredNode +node/no-kubelet +Node no-kubelet event: Registered Node no-kubelet in Controller'
pass "RegisteredNode events"

# A cordon gets node.kubernetes.io/unschedulable:NoSchedule; an uncordon loses it.
node=$(k get nodes -o name | grep default-pool | awk 'NR==1' | cut -d/ -f2)
expect_in "$(k cordon "$node")" "node/$node cordoned"
wait_for 20 bash -c "kubectl --cache-dir '$WORK/kube-cache' describe node $node | grep -q 'Taints: *node.kubernetes.io/unschedulable:NoSchedule'"
expect_in "$(k uncordon "$node")" "node/$node uncordoned"
wait_for 20 bash -c "kubectl --cache-dir '$WORK/kube-cache' describe node $node | grep -q 'Taints: *<none>'"
pass "cordon and uncordon: the unschedulable taint"

# The node no kubelet reports on: Unknown once 60 s have passed since its creation (and a tick
# of the 5 s monitor), then the unreachable taints. The kubelets' nodes stay Ready.
wait_for 100 bash -c "kubectl --cache-dir '$WORK/kube-cache' get node no-kubelet -o jsonpath='{.status.conditions[?(@.type==\"Ready\")].status}' | grep -qx Unknown"
[ $((SECONDS - created)) -ge 55 ] || fail "Unknown only after the startup grace" "$((SECONDS - created)) s"
out=$(k describe node no-kubelet)
expect_match "$out" 'Ready +Unknown +.* NodeStatusNeverUpdated +Kubelet never posted node status.'
expect_match "$out" 'MemoryPressure +Unknown +.* NodeStatusNeverUpdated'
# Both unreachable taints: NoSchedule for the condition, NoExecute as its zone ("", no zone
# labels) is disrupted while another zone has Ready nodes (kcm's normal eviction rate).
wait_for 20 bash -c "kubectl --cache-dir '$WORK/kube-cache' describe node no-kubelet | grep -q 'node.kubernetes.io/unreachable:NoSchedule'"
wait_for 20 bash -c "kubectl --cache-dir '$WORK/kube-cache' describe node no-kubelet | grep -q 'node.kubernetes.io/unreachable:NoExecute'"
out=$(k get nodes)
expect_match "$out" '^no-kubelet +NotReady +<none> '
[ "$(grep -c 'gke-tidepool-default-pool-.* Ready ' <<<"$out")" = 3 ] || fail "the kubelets' nodes stay Ready" "$out"
pass "a node no kubelet posted: Unknown after the startup grace, unreachable taints"

expect_in "$(k delete node no-kubelet)" 'node "no-kubelet" deleted'
wait_for 20 bash -c "kubectl --cache-dir '$WORK/kube-cache' get events --field-selector involvedObject.name=no-kubelet | grep -q 'Removing Node no-kubelet from Controller'"
pass "RemovingNode"
