#!/usr/bin/env bash
# The walkthrough without its step 2: `tidepool up --no-gpu-operator`. The GPU node boots and
# turns Ready but never exposes nvidia.com/gpu, the pod stays Pending, and the autoscaler does not
# keep adding nodes (the GPU node counts as upcoming capacity while its GPUs are not ready).
source "$(dirname "$0")/lib.sh"
start_up --speed 60 --config "$SRC/examples/up/gpu-cluster.yaml" --no-gpu-operator --seed 3
expect_in "$(k apply -f "$SRC/examples/seed/03-gpu-test-pod.yaml")" "pod/gpu-test-pod created"
wait_for 60 bash -c "kubectl --cache-dir '$WORK/kube-cache' get nodes | grep -q 'gpu-pool.* Ready '"
sleep 15   # 15 minutes of emulated time: well past CA's provisioning and startup timeouts
out=$(k get nodes)
[ "$(grep -c gpu-pool <<<"$out")" = 1 ] || fail "exactly one gpu-pool node" "$out"
expect_match "$(k get pods)" '^gpu-test-pod +0/1 +Pending '
gpu_node=$(k get nodes -o name | grep gpu-pool | cut -d/ -f2)
[ -z "$(k get node "$gpu_node" -o jsonpath='{.status.allocatable.nvidia\.com/gpu}')" ] ||
  fail "no nvidia.com/gpu without the operator"
expect_in "$(k get pods -n gpu-operator 2>&1)" "No resources found in gpu-operator namespace."
pass "--no-gpu-operator: one GPU node, never any nvidia.com/gpu, the pod Pending, no more scale-ups"
