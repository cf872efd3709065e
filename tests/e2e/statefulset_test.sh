#!/usr/bin/env bash
# Issue 16: a StatefulSet with the real kubectl against `tidepool up --speed 60` and the GPU pool
# of examples/up/gpu-cluster.yaml (gpu-pool: 1xT4 nodes, min 0, max 5): the StatefulSet
# controller makes web-0, web-1, web-2 in order, each Running and Ready before the next, as the
# pool grows 0 -> 3; `rollout status` succeeds; an image change with partition 1 updates web-2,
# then web-1, never web-0; `kubectl scale --replicas=1` removes web-2, then web-1.
source "$(dirname "$0")/lib.sh"

start_up --speed 60 --config "$SRC/examples/up/gpu-cluster.yaml" --gcloud-config "$CLOUDSDK_CONFIG"
export -f gpu_nodes k
export WORK

cat >"$WORK/sts.yaml" <<'EOF'
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  serviceName: web
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      tolerations:
      - key: nvidia.com/gpu
        operator: Exists
        effect: NoSchedule
      containers:
      - name: nginx
        image: nginx
        resources:
          limits:
            nvidia.com/gpu: "1"
EOF

# phase_ready <pod>: "Running/True", "Pending/", ... or "none".
phase_ready() {
  k get pod "$1" -o jsonpath='{.status.phase}/{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null || echo none
}

# 1. Ordered creation: web-N+1 appears only once web-N is Running and Ready.
k apply -f "$WORK/sts.yaml" >/dev/null
deadline=$((SECONDS + 150))
while :; do
  nodes=$(gpu_nodes)
  names=$(k get pods -l app=web -o jsonpath='{.items[*].metadata.name}')
  # The pool grows with the pods: one GPU node per pod made so far, never ahead of them.
  count=$(wc -w <<<"$names")
  [ "$nodes" -le "$count" ] || fail "$nodes GPU nodes for $count pods ($names)" "$(k get nodes)"
  for n in 1 2; do
    prev=$((n - 1))
    if grep -qw "web-$n" <<<"$names"; then
      created=$(k get pod "web-$n" -o jsonpath='{.metadata.creationTimestamp}' 2>/dev/null || true)
      ready_at=$(k get pod "web-$prev" -o jsonpath='{.status.conditions[?(@.type=="Ready")].lastTransitionTime}' 2>/dev/null || true)
      state=$(phase_ready "web-$prev")
      [ "$state" = "Running/True" ] || fail "web-$n exists while web-$prev is $state" "$(k get pods -o wide)"
      [[ -n "$ready_at" && ! "$created" < "$ready_at" ]] ||
        fail "web-$n created ($created) before web-$prev was Ready ($ready_at)" "$(k get pods -o wide)"
    fi
  done
  [ "$(k get sts web -o jsonpath='{.status.readyReplicas}')" = 3 ] && break
  [ $SECONDS -lt $deadline ] || fail "3 ready replicas" "$(k get sts,pods,nodes -o wide)"
  sleep 0.3
done
[ "$(gpu_nodes)" = 3 ] || fail "the GPU pool at 3" "$(k get nodes)"
for n in 0 1 2; do
  [ "$(k get pod "web-$n" -o jsonpath='{.spec.hostname}.{.spec.subdomain} {.metadata.labels.statefulset\.kubernetes\.io/pod-name} {.metadata.labels.apps\.kubernetes\.io/pod-index}')" = "web-$n.web web-$n $n" ] ||
    fail "web-$n's identity" "$(k get pod "web-$n" -o yaml)"
done
created=$(k get events --field-selector involvedObject.kind=StatefulSet,reason=SuccessfulCreate -o jsonpath='{range .items[*]}{.message}{"\n"}{end}')
[ "$created" = "$(printf 'create Pod web-%d in StatefulSet web successful\n' 0 1 2)" ] ||
  fail "kcm's SuccessfulCreate events, in order" "$created"
pass "web-0, web-1, web-2 made in order, each Ready before the next; the GPU pool at 3"

# 2. rollout status and kubectl get sts (kcm's columns).
k rollout status sts/web --timeout=60s >"$WORK/rollout1.log" 2>&1 || fail "rollout status" "$(cat "$WORK/rollout1.log")"
rev1=$(k get sts web -o jsonpath='{.status.currentRevision}')
expect_match "$rev1" "^web-[a-z0-9]+$"
# The API defaults rollingUpdate.partition to 0, so kubectl reports a partitioned roll out, as
# on GKE.
expect_in "$(cat "$WORK/rollout1.log")" "partitioned roll out complete: 3 new pods have been updated..."
expect_match "$(k get sts)" "^NAME +READY +AGE$"
expect_match "$(k get sts)" "^web +3/3 +[0-9a-z]+$"
expect_match "$(k get sts -o wide)" "^web +3/3 +[0-9a-z]+ +nginx +nginx$"
st=$(k get sts web -o jsonpath='{.status.replicas} {.status.readyReplicas} {.status.currentReplicas} {.status.updatedReplicas} {.status.availableReplicas} {.status.updateRevision} {.status.observedGeneration}')
[ "$st" = "3 3 3 3 3 $rev1 1" ] || fail "status" "$st"
pass "rollout status: complete at $rev1; kubectl get sts: web 3/3"

# 3. An image change with partition 1: web-2, then web-1; web-0 stays.
k patch sts web --type merge -p '{"spec":{"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":1}}}}' >/dev/null
k set image sts/web nginx=nginx:1.27 >/dev/null
k rollout status sts/web --timeout=120s >"$WORK/rollout2.log" 2>&1 || fail "rollout status (partition)" "$(cat "$WORK/rollout2.log")" "$(k get sts,pods)"
expect_in "$(cat "$WORK/rollout2.log")" "partitioned roll out complete: 2 new pods have been updated..."
images=$(k get pods -l app=web -o jsonpath='{range .items[*]}{.metadata.name}={.spec.containers[0].image} {end}')
[ "$images" = "web-0=nginx web-1=nginx:1.27 web-2=nginx:1.27 " ] || fail "only web-1 and up updated" "$images"
rev2=$(k get sts web -o jsonpath='{.status.updateRevision}')
[ "$rev2" != "$rev1" ] || fail "a new update revision" "$rev2"
[ "$(k get sts web -o jsonpath='{.status.currentRevision} {.status.updatedReplicas} {.status.currentReplicas}')" = "$rev1 2 1" ] ||
  fail "currentRevision stays $rev1 with 2 updated, 1 current" "$(k get sts web -o yaml)"
deleted=$(k get events --field-selector involvedObject.kind=StatefulSet,reason=SuccessfulDelete -o jsonpath='{range .items[*]}{.message}{"\n"}{end}')
[ "$deleted" = "$(printf 'delete Pod web-%d in StatefulSet web successful\n' 2 1)" ] ||
  fail "web-2 then web-1 deleted for the update" "$deleted"
pass "partition 1: web-2 then web-1 at $rev2, web-0 at $rev1"

# 4. Scale to 1: web-2 goes first, then web-1 (never web-1 while web-2 is there).
k scale sts web --replicas=1 >/dev/null
deadline=$((SECONDS + 90))
while :; do
  names=$(k get pods -l app=web -o jsonpath='{.items[*].metadata.name}')
  if grep -qw web-2 <<<"$names"; then
    grep -qw web-1 <<<"$names" || fail "web-1 gone before web-2" "$names"
  fi
  [ "$names" = "web-0" ] && break
  [ $SECONDS -lt $deadline ] || fail "scale to 1" "$(k get sts,pods)"
  sleep 0.3
done
# The same messages again: the events' counts go to 2 (client-go's aggregation).
deleted=$(k get events --field-selector involvedObject.kind=StatefulSet,reason=SuccessfulDelete -o jsonpath='{range .items[*]}{.count} {.message}{"\n"}{end}')
[ "$deleted" = "$(printf '2 delete Pod web-%d in StatefulSet web successful\n' 2 1)" ] ||
  fail "web-2 then web-1 deleted for the scale-down" "$deleted"
wait_for 30 bash -c '[ "$(k get sts web -o jsonpath="{.status.replicas}/{.status.readyReplicas}")" = 1/1 ]' ||
  fail "status 1/1" "$(k get sts web -o yaml)"
expect_match "$(k get sts web)" "^web +1/1 +[0-9a-z]+$"
pass "scale to 1: web-2, then web-1 deleted"

# 5. History: the two templates are ControllerRevisions named by the status; `rollout undo`
# puts nginx back as revision 3 (the first revision, renumbered), and web-0 follows.
expect_match "$(k get controllerrevisions "$rev1" "$rev2")" "^$rev1 +statefulset.apps/web +1 +"
expect_match "$(k get controllerrevisions "$rev1" "$rev2")" "^$rev2 +statefulset.apps/web +2 +"
expect_match "$(k rollout history sts/web)" "^REVISION +CHANGE-CAUSE"
k patch sts web --type merge -p '{"spec":{"updateStrategy":{"rollingUpdate":{"partition":0}}}}' >/dev/null
k rollout undo sts/web --to-revision=1 >"$WORK/undo.log" 2>&1 || fail "rollout undo sts/web" "$(cat "$WORK/undo.log")"
expect_in "$(cat "$WORK/undo.log")" "statefulset.apps/web rolled back"
wait_for 60 bash -c '[ "$(k get sts web -o jsonpath="{.status.updateRevision} {.status.currentRevision} {.status.readyReplicas}")" = "'"$rev1 $rev1"' 1" ]' ||
  fail "back at $rev1" "$(k get sts web -o yaml)"
[ "$(k get controllerrevision "$rev1" -o jsonpath='{.revision}')" = 3 ] || fail "$rev1 renumbered 3" "$(k get controllerrevisions)"
[ "$(k get pod web-0 -o jsonpath='{.spec.containers[0].image} {.metadata.labels.controller-revision-hash}')" = "nginx $rev1" ] ||
  fail "web-0 on nginx at $rev1" "$(k get pod web-0 -o yaml)"
pass "history: $rev1 and $rev2; rollout undo --to-revision=1 makes $rev1 revision 3"
echo "ok: statefulset e2e"
