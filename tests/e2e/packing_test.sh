#!/usr/bin/env bash
# `tidepool up` with a packing policy (scheduler.packing, src/scheduler/plugins/packing): the real
# kubectl's GPU pods scale the pool from zero, and the scheduler's binding writes the GPU each
# got (alibabacloud.com/gpu-index), which the API server copies onto the pod.
source "$(dirname "$0")/lib.sh"
{ cat "$SRC/examples/up/gpu-cluster.yaml"; echo "scheduler: {packing: BestFit}"; } >"$WORK/cluster.yaml"
start_up --speed 60 --config "$WORK/cluster.yaml"
gpu_pod g1 | k apply -f - >/dev/null
bound() { [ -n "$(k get pod "$1" -o jsonpath='{.spec.nodeName}')" ]; }
wait_for 120 bound g1 || fail "g1 bound" "$(k get pods,nodes -o wide)"
expect_in "$(k get pod g1 -o jsonpath='{.metadata.annotations.alibabacloud\.com/gpu-index}')" "0"
running() { [ "$(k get pod "$1" -o jsonpath='{.status.phase}')" = Running ]; }
wait_for 60 running g1 || fail "g1 Running" "$(k get pods -o wide)"
pass "scheduler.packing BestFit: a GPU pod scales the pool from zero, bound with its gpu-index"
