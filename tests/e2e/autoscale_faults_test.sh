#!/usr/bin/env bash
# Issue 6: `tidepool autoscale` when the Kubernetes API misbehaves (tests/e2e/fault_proxy.py
# between them): watches cut while a pod turns pending, then 429 TooManyRequests and 500
# InternalError on every request for a while. The autoscaler backs off, does not crash,
# recovers, misses no pending pod and counts no node twice.
source "$(dirname "$0")/lib.sh"
start_up --speed 60 --no-autoscaler --gcloud-config "$CLOUDSDK_CONFIG"
create_gpu_pool 5

python3 "$SRC/tests/e2e/fault_proxy.py" "$PORT" "$WORK/fault" "$WORK/proxy.port" \
  >"$WORK/proxy.log" 2>&1 &
for _ in $(seq 1 50); do [ -s "$WORK/proxy.port" ] && break; sleep 0.1; done
PROXY=$(cat "$WORK/proxy.port")
sed "s#http://127.0.0.1:$PORT#http://127.0.0.1:$PROXY#" "$KUBECONFIG" >"$WORK/proxied.kubeconfig"
grep -q "127.0.0.1:$PROXY" "$WORK/proxied.kubeconfig" || fail "proxied kubeconfig" "$(cat "$WORK/proxied.kubeconfig")"

AS_KUBECONFIG="$WORK/proxied.kubeconfig"
start_autoscale as-1
wait_for 20 grep -q "successfully acquired lease" "$WORK/as-1.log"

# ---- Watches cut: the informers resume; a pod created meanwhile is not missed ------------------
echo cut >"$WORK/fault"
gpu_pod gpu-a | k apply -f - >/dev/null
wait_for 10 grep -q "^cut " "$WORK/proxy.log"
wait_for 60 grep -q "Scale-up: setting group gpu-pool size to 1 instead of 0" "$WORK/as-1.log"
wait_for 90 bash -c "kubectl --cache-dir $WORK/kube-cache get pod gpu-a -o jsonpath='{.status.phase}' | grep -q Running"
pass "watches cut: the pending pod seen, one node"

# ---- 429 on every request for 8 s, then 500 for 8 s, while a second pod waits --------------------
echo 429 >"$WORK/fault"
gpu_pod gpu-b | k apply -f - >/dev/null
sleep 8
echo 500 >"$WORK/fault"
sleep 8
kill -0 "$AS_PID" || fail "autoscale survived the errors" "$(tail -n 30 "$WORK/as-1.log")"
n429=$(grep -c "^fault 429" "$WORK/proxy.log" || true)
n500=$(grep -c "^fault 500" "$WORK/proxy.log" || true)
# Backoff, not a busy loop: a handful of informers and the elector retrying with backoff.
[ "$n429" -ge 1 ] && [ "$n429" -lt 200 ] || fail "429s answered with backoff (got $n429)" "$(tail -n 20 "$WORK/proxy.log")"
[ "$n500" -ge 1 ] && [ "$n500" -lt 200 ] || fail "500s answered with backoff (got $n500)" "$(tail -n 20 "$WORK/proxy.log")"
rm -f "$WORK/fault"
# The lease (renew deadline 3 s) was lost during the outage: the process stopped acting and
# stands for election again (CA would exit and wait for its Deployment); it wins the lease back
# and gpu-b gets exactly one more node.
wait_for 30 bash -c "[ \$(grep -c 'successfully acquired lease' $WORK/as-1.log) -ge 2 ] || ! grep -q 'Lost the leader lease' $WORK/as-1.log"
wait_for 90 bash -c "kubectl --cache-dir $WORK/kube-cache get pod gpu-b -o jsonpath='{.status.phase}' | grep -q Running"
sleep 3
[ "$(gpu_nodes)" = 2 ] || fail "exactly two GPU nodes" "$(k get nodes)"
pass "429/500 for 16 s: backoff ($n429 x 429, $n500 x 500 answered), recovery, no double count"
