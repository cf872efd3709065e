#!/usr/bin/env bash
# Issue 6: `tidepool autoscale` as a separate process against `tidepool up --no-autoscaler`, over
# the public APIs only (Kubernetes through its kubeconfig, GKE and Compute through their REST
# endpoints): deploy/ is accepted by the API; the seed walkthrough reaches the same result as
# with the embedded autoscaler (0 -> 1 GPU node, the pod Running, back to 0 once deleted); its
# events, status ConfigMap, Lease, /healthz and /metrics are CA's.
source "$(dirname "$0")/lib.sh"
start_up --speed 60 --no-autoscaler --gcloud-config "$CLOUDSDK_CONFIG"

# deploy/: every manifest accepted (RBAC, ServiceAccount, Deployment).
out=$(k apply -f "$SRC/deploy/" 2>&1) || fail "kubectl apply -f deploy/" "$out"
expect_in "$out" "serviceaccount/tidepool-autoscaler created"
expect_in "$out" "clusterrole.rbac.authorization.k8s.io/tidepool-autoscaler created"
expect_in "$out" "clusterrolebinding.rbac.authorization.k8s.io/tidepool-autoscaler created"
expect_in "$out" "role.rbac.authorization.k8s.io/tidepool-autoscaler created"
expect_in "$out" "rolebinding.rbac.authorization.k8s.io/tidepool-autoscaler created"
expect_in "$out" "deployment.apps/tidepool-autoscaler created"
pass "kubectl apply -f deploy/"

# No embedded autoscaler pod.
out=$(k get pods -n kube-system)
expect_not_in "$out" "cluster-autoscaler-"

create_gpu_pool 5
start_autoscale as-1
wait_for 20 grep -q "successfully acquired lease kube-system/cluster-autoscaler" "$WORK/as-1.log"
pass "leader elected"

gpu_pod gpu-test-pod | k apply -f - >/dev/null
wait_for 60 grep -q "Scale-up: setting group gpu-pool size to 1 instead of 0 (max: 5)" "$WORK/as-1.log"
wait_for 20 bash -c "kubectl --cache-dir $WORK/kube-cache get events --field-selector involvedObject.name=gpu-test-pod,reason=TriggeredScaleUp | grep -qF 'pod triggered scale-up: [{gpu-pool 0->1 (max: 5)}]'"
wait_for 90 bash -c "kubectl --cache-dir $WORK/kube-cache get pod gpu-test-pod -o jsonpath='{.status.phase}' | grep -q Running"
[ "$(gpu_nodes)" = 1 ] || fail "exactly one GPU node" "$(k get nodes)"
pass "scale-up 0 -> 1, pod Running"

# CA's status ConfigMap, the Lease, /healthz and /metrics.
out=$(k get configmap cluster-autoscaler-status -n kube-system -o yaml)
expect_in "$out" "cluster-autoscaler.kubernetes.io/last-updated"
expect_in "$out" "name: gpu-pool"
out=$(k get lease cluster-autoscaler -n kube-system -o jsonpath='{.spec.holderIdentity}')
[ "$out" = "as-1" ] || fail "the lease is held by as-1" "$out"
MPORT=$(cat "$WORK/as-1.port")
out=$(curl -sf "http://127.0.0.1:$MPORT/healthz") || fail "/healthz"
[ "$out" = ok ] || fail "/healthz says ok" "$out"
# The gauge of unschedulable pods is set by the first loop that sees the pod Running (one scan
# interval after it is, or more on a loaded machine).
wait_for 20 bash -c "curl -sf http://127.0.0.1:$MPORT/metrics | grep -qxF 'cluster_autoscaler_unschedulable_pods_count{type=\"unschedulable\"} 0'"
metrics=$(curl -sf "http://127.0.0.1:$MPORT/metrics") || fail "/metrics"
expect_match "$metrics" '^cluster_autoscaler_scaled_up_nodes_total\{gpu_name="nvidia-tesla-t4",gpu_resource_name="nvidia.com/gpu"\} 1$'
expect_match "$metrics" '^cluster_autoscaler_cluster_safe_to_autoscale 1$'
expect_match "$metrics" '^cluster_autoscaler_node_groups_count\{node_group_type="autoscaled"\} 1$'
expect_match "$metrics" '^cluster_autoscaler_last_activity\{activity="main"\} [0-9]'
expect_match "$metrics" '^cluster_autoscaler_unschedulable_pods_count\{type="unschedulable"\} 0$'
pass "status ConfigMap, lease, /healthz, /metrics"

# Step 5: the pod deleted, the node unneeded for 10 s, removed; the pool back to 0.
k delete pod gpu-test-pod --wait=false >/dev/null
wait_for 120 grep -q 'Scale-down: removing empty node "gke-tidepool-gpu-pool-' "$WORK/as-1.log"
wait_for 60 bash -c "[ \$(kubectl --cache-dir $WORK/kube-cache get nodes -l cloud.google.com/gke-nodepool=gpu-pool -o name | grep -c .) = 0 ]"
out=$(gcloud compute instances list 2>&1)
expect_not_in "$out" "gpu-pool"
metrics=$(curl -sf "http://127.0.0.1:$MPORT/metrics")
expect_match "$metrics" '^cluster_autoscaler_scaled_down_nodes_total\{reason="empty"\} 1$'
pass "scale-down 1 -> 0"

# SIGTERM: the lease is released (holder cleared), the process exits 0.
kill -TERM "$AS_PID"
rc=0
wait "$AS_PID" || rc=$?
[ $rc = 0 ] || fail "autoscale exits 0 on SIGTERM (got $rc)" "$(tail -n 20 "$WORK/as-1.log")"
out=$(k get lease cluster-autoscaler -n kube-system -o jsonpath='{.spec.holderIdentity}')
[ -z "$out" ] || fail "the lease is released" "$out"
pass "graceful shutdown"

# CA's --nodes=MIN:MAX:POOL: tidepool in place of GKE's autoscaler, on a pool whose GKE
# autoscaling is off; pools not named (gpu-pool, GKE autoscaling on) are not node groups.
rc=0
out=$("$TIDEPOOL_BIN" autoscale --nodes 0:x:manual-pool --project tidepool-local \
  --location us-central1-a --cluster-name tidepool 2>&1) || rc=$?
[ $rc = 2 ] || fail "a bad --nodes exits 2 (got $rc)" "$out"
expect_in "$out" "error: --nodes: failed to parse node group spec: failed to set max size: x, expected integer"
gcloud container node-pools create manual-pool --project tidepool-local --cluster tidepool \
  --zone us-central1-a --machine-type n1-standard-4 --num-nodes 0 \
  --accelerator type=nvidia-tesla-t4,count=1 --node-taints nvidia.com/gpu=present:NoSchedule \
  >"$WORK/gcloud-create-manual.log" 2>&1 || fail "gcloud node-pools create manual-pool" "$(cat "$WORK/gcloud-create-manual.log")"
start_autoscale as-2 --nodes 0:2:manual-pool
wait_for 20 grep -q "successfully acquired lease kube-system/cluster-autoscaler" "$WORK/as-2.log"
gpu_pod manual-pod manual-pool | k apply -f - >/dev/null
wait_for 60 grep -q "Scale-up: setting group manual-pool size to 1 instead of 0 (max: 2)" "$WORK/as-2.log"
wait_for 60 bash -c "kubectl --cache-dir $WORK/kube-cache get nodes -l cloud.google.com/gke-nodepool=manual-pool -o name | grep -q ."
expect_not_in "$(cat "$WORK/as-2.log")" "setting group gpu-pool"
out=$(k get configmap cluster-autoscaler-status -n kube-system -o yaml)
expect_in "$out" "name: manual-pool"
pass "--nodes: a pool without GKE autoscaling scaled up within the flag's limits"
