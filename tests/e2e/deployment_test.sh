#!/usr/bin/env bash
# Issue 16: a Deployment with the real kubectl against `tidepool up --speed 60` and the GPU pool
# of examples/up/gpu-cluster.yaml (gpu-pool: 1xT4 nodes, min 0, max 5): the deployment and
# ReplicaSet controllers create its pods, a rollout adds a GPU and the pool follows (0 -> 3 -> 5,
# the sixth pod Pending with CA's reason, back to 0), `rollout status`, `history`, `undo`,
# `restart`, `pause` and `resume` behave as on a real cluster.
source "$(dirname "$0")/lib.sh"

start_up --speed 60 --config "$SRC/examples/up/gpu-cluster.yaml" --gcloud-config "$CLOUDSDK_CONFIG"
gpu_nodes() { k get nodes -l cloud.google.com/gke-nodepool=gpu-pool -o name | grep -c . || true; }
export -f gpu_nodes k
export WORK

# 1. `kubectl create deployment` (a protobuf body) and a rollout on CPU nodes.
expect_in "$(k create deployment gpu-infer --image=nginx --replicas=3)" "deployment.apps/gpu-infer created"
k rollout status deployment/gpu-infer --timeout=60s >"$WORK/rollout1.log" 2>&1 ||
  fail "rollout status (CPU)" "$(cat "$WORK/rollout1.log")" "$(k get deploy,rs,pods)"
expect_in "$(cat "$WORK/rollout1.log")" 'deployment "gpu-infer" successfully rolled out'
expect_match "$(k get deployment gpu-infer)" "gpu-infer +3/3 +3 +3 "
rs1=$(k get rs -l app=gpu-infer -o jsonpath='{.items[0].metadata.name}')
expect_match "$rs1" "^gpu-infer-[bcdfghjklmnpqrstvwxz2456789]+$"
expect_match "$(k get pods -l app=gpu-infer)" "$rs1-[a-z0-9]{5} +1/1 +Running"
[ "$(gpu_nodes)" = 0 ] || fail "no GPU node for CPU pods" "$(k get nodes)"
pass "create deployment: ReplicaSet $rs1, 3/3 ready, rollout status succeeds"

# 2. A GPU and the toleration: a rollout; the pool goes 0 -> 3.
k patch deployment gpu-infer --type strategic -p '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","resources":{"limits":{"nvidia.com/gpu":"1"}}}],"tolerations":[{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}]}}}}' >/dev/null
k rollout status deployment/gpu-infer --timeout=120s >"$WORK/rollout2.log" 2>&1 ||
  fail "rollout status (GPU)" "$(cat "$WORK/rollout2.log")" "$(k get deploy,rs,pods,nodes)"
expect_in "$(cat "$WORK/rollout2.log")" "Waiting for deployment \"gpu-infer\" rollout to finish:"
[ "$(gpu_nodes)" = 3 ] || fail "the GPU pool at 3" "$(k get nodes)"
expect_match "$(k get rs -l app=gpu-infer)" "$rs1 +0 +0 +0 "
expect_in "$(k get events --field-selector involvedObject.kind=Deployment -o custom-columns=R:.reason,M:.message,S:.source.component --no-headers)" \
  "ScalingReplicaSet   Scaled down replica set $rs1 to 0 from 1   deployment-controller"
expect_in "$(k get events --field-selector involvedObject.kind=ReplicaSet,reason=SuccessfulCreate -o custom-columns=S:.source.component --no-headers | sort -u)" \
  "replicaset-controller"
pass "GPU rollout: the pool goes 0 -> 3, the old ReplicaSet at 0"

# 3. rollout history / undo / restart / pause / resume.
hist=$(k rollout history deployment/gpu-infer)
expect_match "$hist" "^1 +<none>"
expect_match "$hist" "^2 +<none>"
k rollout undo deployment/gpu-infer >/dev/null
k rollout status deployment/gpu-infer --timeout=60s >/dev/null || fail "rollout status after undo" "$(k get deploy,rs,pods)"
[ "$(k get deployment gpu-infer -o jsonpath='{.metadata.annotations.deployment\.kubernetes\.io/revision}')" = 3 ] ||
  fail "undo makes revision 3" "$(k get deployment gpu-infer -o yaml)"
[ "$(k get rs "$rs1" -o jsonpath='{.spec.replicas}')" = 3 ] || fail "undo brings back $rs1" "$(k get rs)"
k rollout undo deployment/gpu-infer >/dev/null  # back to the GPU template (revision 4)
k rollout status deployment/gpu-infer --timeout=120s >/dev/null || fail "rollout status after second undo" "$(k get deploy,rs,pods)"
k rollout pause deployment/gpu-infer >/dev/null
wait_for 20 bash -c "k get deployment gpu-infer -o jsonpath='{.status.conditions[?(@.type==\"Progressing\")].reason}' | grep -qx DeploymentPaused"
out=$(k rollout restart deployment/gpu-infer 2>&1 || true)
expect_in "$out" "can't restart paused deployment (run rollout resume first)"
k set image deployment/gpu-infer nginx=nginx:1.27 >/dev/null
sleep 2
[ "$(k get rs -l app=gpu-infer -o name | grep -c .)" = 2 ] || fail "no rollout while paused" "$(k get rs)"
k rollout resume deployment/gpu-infer >/dev/null
k rollout status deployment/gpu-infer --timeout=120s >/dev/null || fail "rollout status after resume" "$(k get deploy,rs,pods)"
[ "$(k get rs -l app=gpu-infer -o name | grep -c .)" = 3 ] || fail "the new image makes a third ReplicaSet" "$(k get rs)"
k rollout restart deployment/gpu-infer >/dev/null
k rollout status deployment/gpu-infer --timeout=120s >/dev/null || fail "rollout status after restart" "$(k get deploy,rs,pods)"
[ "$(k get rs -l app=gpu-infer -o name | grep -c .)" = 4 ] || fail "restart makes a fourth ReplicaSet" "$(k get rs)"
expect_match "$(k rollout history deployment/gpu-infer)" "^6 +<none>"
# The Deployment documentation's change-cause: annotated after the rollout, shown for revision 6.
k annotate deployment/gpu-infer kubernetes.io/change-cause="restarted for the docs" >/dev/null
wait_for 20 bash -c "kubectl --cache-dir '$WORK/kube-cache' rollout history deployment/gpu-infer | grep -qE '^6 +restarted for the docs'" ||
  fail "change-cause on the current revision" "$(k rollout history deployment/gpu-infer)"
pass "rollout history, undo (revision 3, then 4), pause (no rollout), resume, restart, change-cause"

# 4. Scale 5 -> 5 nodes; 6 -> the sixth pod Pending with CA's reason; 0 -> the pool back to 0.
expect_in "$(k scale deployment gpu-infer --replicas=5)" "deployment.apps/gpu-infer scaled"
wait_for 120 bash -c '[ "$(gpu_nodes)" = 5 ]' || fail "the pool at 5" "$(k get nodes)"
k rollout status deployment/gpu-infer --timeout=60s >/dev/null || fail "5 replicas ready" "$(k get deploy,pods)"
k scale deployment gpu-infer --replicas=6 >/dev/null
wait_for 60 bash -c "k get events --field-selector reason=NotTriggerScaleUp -o jsonpath='{.items[*].message}' | grep -q 'max node group size reached'" ||
  fail "CA's NotTriggerScaleUp: max node group size reached" "$(k get events --field-selector reason=NotTriggerScaleUp)"
expect_match "$(k get pods -l app=gpu-infer --field-selector status.phase=Pending)" "gpu-infer-[a-z0-9]+-[a-z0-9]{5} +0/1 +Pending"
[ "$(gpu_nodes)" = 5 ] || fail "the pool stays at 5 (its max)" "$(k get nodes)"
k scale deployment gpu-infer --replicas=0 >/dev/null
wait_for 120 bash -c '[ "$(gpu_nodes)" = 0 ]' || fail "the pool back to 0" "$(k get nodes)"
expect_match "$(k get deployment gpu-infer)" "gpu-infer +0/0 +0 +0 "
pass "scale 5 -> 5 nodes, 6 -> Pending (max node group size reached), 0 -> pool at 0"
# 5. Deletion: background (the default) removes the ReplicaSets and pods, orphan keeps them,
#    foreground removes the Deployment last (the garbage collector).
k delete deployment gpu-infer >/dev/null
wait_for 30 bash -c '[ -z "$(k get rs,pods -l app=gpu-infer -o name)" ]' || fail "delete deployment: its ReplicaSets and pods go" "$(k get rs,pods)"
k create deployment web --image=nginx --replicas=2 >/dev/null
k rollout status deployment/web --timeout=60s >/dev/null || fail "web rolled out" "$(k get deploy,rs,pods)"
k delete deployment web --cascade=orphan >/dev/null
sleep 2
[ "$(k get pods -l app=web -o name | grep -c .)" = 2 ] || fail "--cascade=orphan keeps the pods" "$(k get rs,pods)"
[ -z "$(k get rs -l app=web -o jsonpath='{.items[*].metadata.ownerReferences}')" ] || fail "--cascade=orphan strips the ownerReference" "$(k get rs -l app=web -o yaml)"
k delete rs -l app=web >/dev/null
wait_for 30 bash -c '[ -z "$(k get pods -l app=web -o name)" ]' || fail "the orphaned ReplicaSet's pods go with it" "$(k get pods)"
k create deployment fg --image=nginx --replicas=2 >/dev/null
k rollout status deployment/fg --timeout=60s >/dev/null || fail "fg rolled out" "$(k get deploy,rs,pods)"
k delete deployment fg --cascade=foreground --wait=false >/dev/null
wait_for 30 bash -c '! k get deployment fg >/dev/null 2>&1' || fail "--cascade=foreground: the Deployment goes last" "$(k get deploy,rs,pods)"
[ -z "$(k get rs,pods -l app=fg -o name)" ] || fail "--cascade=foreground: nothing left" "$(k get rs,pods)"
pass "delete deployment: background, --cascade=orphan, --cascade=foreground"
echo "ok: deployment e2e"
