#!/usr/bin/env bash
# Issue 6: `tidepool autoscale` replicas and crashes, against `tidepool up --no-autoscaler`:
#   - kill -9 right after the scale-up was asked for, then a restart: no second node;
#   - two replicas: only the leader acts; kill -9 the leader: the other takes over within the
#     lease time and acts.
source "$(dirname "$0")/lib.sh"
start_up --speed 60 --no-autoscaler --gcloud-config "$CLOUDSDK_CONFIG"
create_gpu_pool 5

# ---- kill -9 right after the scale-up request ---------------------------------------------------
start_autoscale as-1
gpu_pod gpu-a | k apply -f - >/dev/null
wait_for 60 grep -q "Scale-up: setting group gpu-pool size to 1 instead of 0" "$WORK/as-1.log"
kill -KILL "$AS_PID"
wait "$AS_PID" 2>/dev/null || true
# The new process sees the pool's target (1) and its creating instance as upcoming capacity.
start_autoscale as-2
AS2_PID=$AS_PID
wait_for 90 bash -c "kubectl --cache-dir $WORK/kube-cache get pod gpu-a -o jsonpath='{.status.phase}' | grep -q Running"
sleep 3  # a few more loops of as-2
expect_not_in "$(cat "$WORK/as-2.log")" "Scale-up: setting group gpu-pool"
[ "$(gpu_nodes)" = 1 ] || fail "exactly one GPU node after the restart" "$(k get nodes)"
pass "kill -9 after the scale-up request, restart: no second node"

# ---- two replicas -------------------------------------------------------------------------------
start_autoscale as-3
sleep 3
# as-2 holds the lease; as-3 waits.
holder=$(k get lease cluster-autoscaler -n kube-system -o jsonpath='{.spec.holderIdentity}')
[ "$holder" = as-2 ] || fail "as-2 leads" "$holder"
expect_not_in "$(cat "$WORK/as-3.log")" "successfully acquired lease"
gpu_pod gpu-b | k apply -f - >/dev/null
wait_for 60 grep -q "Scale-up: setting group gpu-pool size to 2 instead of 1" "$WORK/as-2.log"
expect_not_in "$(cat "$WORK/as-3.log")" "Scale-up:"
wait_for 90 bash -c "kubectl --cache-dir $WORK/kube-cache get pod gpu-b -o jsonpath='{.status.phase}' | grep -q Running"
pass "two replicas: only the leader acts"

# Kill the leader: the other takes over within the lease time (4 s here) plus a retry period.
kill -KILL "$AS2_PID"
killed_at=$SECONDS
wait_for 15 grep -q "successfully acquired lease kube-system/cluster-autoscaler" "$WORK/as-3.log"
took=$((SECONDS - killed_at))
holder=$(k get lease cluster-autoscaler -n kube-system -o jsonpath='{.spec.holderIdentity}')
[ "$holder" = as-3 ] || fail "as-3 leads after the leader died" "$holder"
transitions=$(k get lease cluster-autoscaler -n kube-system -o jsonpath='{.spec.leaseTransitions}')
[ "${transitions:-0}" -ge 1 ] || fail "leaseTransitions counted" "$transitions"
# And it acts: a third pod gets a third node from as-3.
gpu_pod gpu-c | k apply -f - >/dev/null
wait_for 60 grep -q "Scale-up: setting group gpu-pool size to 3 instead of 2" "$WORK/as-3.log"
wait_for 90 bash -c "kubectl --cache-dir $WORK/kube-cache get pod gpu-c -o jsonpath='{.status.phase}' | grep -q Running"
[ "$(gpu_nodes)" = 3 ] || fail "three GPU nodes" "$(k get nodes)"
pass "the leader killed: the other took over after ${took} s and acts"
