#!/usr/bin/env bash
# Issue 16: the garbage collector and the API server's deletion semantics, with the real
# kubectl. A ReplicaSet of 2 replicas owns two running pods: the ReplicaSet controller's when it
# runs (it makes them within a second), else two made by hand as it would make them
# (ownerReferences with controller and blockOwnerDeletion true). Then:
#   - `kubectl delete rs` (background, kubectl's default) removes the pods;
#   - `--cascade=orphan` removes the ReplicaSet only and strips the pods' ownerReference;
#   - `--cascade=foreground` keeps the ReplicaSet (foregroundDeletion, deletionTimestamp) while
#     its pods terminate, and removes it last. One pod holds a finalizer of its own, so it stays
#     Terminating after its kubelet is done with it (the emulated kubelet stops a container in
#     moments) until the finalizer is removed; the ReplicaSet waits for it.
source "$(dirname "$0")/lib.sh"

start_up --speed 60 --no-autoscaler

# make_rs <name> [<finalizer>]: a ReplicaSet of 2 replicas and two running pods it owns; with a
# finalizer, the first pod (by name) gets it and its name is in HELD.
make_rs() {
  local name=$1 finalizer=${2:-}
  cat <<YAML | k apply -f - >/dev/null
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: $name}
spec:
  replicas: 2
  selector: {matchLabels: {app: $name}}
  template:
    metadata: {labels: {app: $name}}
    spec:
      containers:
      - name: c
        image: nginx
        resources: {requests: {cpu: 10m, memory: 16Mi}}
YAML
  sleep 2
  if [ "$(pods_of "$name")" = 0 ]; then
    local uid
    uid=$(k get rs "$name" -o jsonpath='{.metadata.uid}')
    for i in 1 2; do
      cat <<YAML | k apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata:
  name: $name-$i
  labels: {app: $name}
  ownerReferences:
  - {apiVersion: apps/v1, kind: ReplicaSet, name: $name, uid: $uid, controller: true, blockOwnerDeletion: true}
spec:
  containers:
  - name: c
    image: nginx
    resources: {requests: {cpu: 10m, memory: 16Mi}}
YAML
    done
  fi
  wait_for 60 bash -c "[ \$(kubectl --cache-dir $WORK/kube-cache get pods -l app=$name -o jsonpath='{range .items[*]}{.status.phase}{\"\\n\"}{end}' | grep -c Running) = 2 ]" ||
    fail "$name: two running pods" "$(k get pods -l app="$name" -o wide 2>&1)"
  if [ -n "$finalizer" ]; then
    HELD=$(k get pods -l "app=$name" -o name | sort | sed -n 1p | cut -d/ -f2)
    k patch pod "$HELD" --type=merge -p "{\"metadata\":{\"finalizers\":[\"$finalizer\"]}}" >/dev/null
  fi
}
pods_of() { k get pods -l "app=$1" -o name 2>/dev/null | wc -l; }
rs_exists() { k get rs "$1" -o name >/dev/null 2>&1; }

# ---- background (kubectl's default): the pods go with the ReplicaSet
make_rs bg
out=$(k delete rs bg 2>&1)
expect_in "$out" 'replicaset.apps "bg" deleted'
rs_exists bg && fail "background: the ReplicaSet is gone at once" "$(k get rs bg -o yaml)"
wait_for 30 bash -c "[ \$(kubectl --cache-dir $WORK/kube-cache get pods -l app=bg -o name | wc -l) = 0 ]" ||
  fail "background: the pods are collected" "$(k get pods -l app=bg -o wide 2>&1)"
pass "kubectl delete rs: the pods it owns are deleted"

# ---- orphan: the ReplicaSet goes alone, the pods stay without their ownerReference
make_rs orph
out=$(k delete rs orph --cascade=orphan 2>&1)
expect_in "$out" 'replicaset.apps "orph" deleted'
wait_for 30 bash -c "! kubectl --cache-dir $WORK/kube-cache get rs orph" ||
  fail "orphan: the ReplicaSet is removed once orphaned" "$(k get rs orph -o yaml 2>&1)"
sleep 2
out=$(k get pods -l app=orph -o jsonpath='{range .items[*]}{.status.phase} [{.metadata.ownerReferences}] {.metadata.deletionTimestamp}{"\n"}{end}')
[ "$out" = "$(printf 'Running [] \nRunning [] ')" ] ||
  fail "orphan: both pods kept, running, without ownerReferences" "$out"
pass "kubectl delete rs --cascade=orphan: the pods stay and lose their ownerReference"

# ---- foreground: the pods are deleted first; the owner waits with foregroundDeletion while
# the held pod (its own finalizer) is Terminating, and goes last.
make_rs fg example.com/hold
out=$(k delete rs fg --cascade=foreground --wait=false 2>&1)
expect_in "$out" 'replicaset.apps "fg" deleted'
wait_for 30 bash -c "[ \$(kubectl --cache-dir $WORK/kube-cache get pods -l app=fg -o name | wc -l) = 1 ]" ||
  fail "foreground: the pod without a finalizer is deleted" "$(k get pods -l app=fg -o yaml 2>&1)"
# 3 s: 3 emulated minutes, long after the held pod's kubelet stopped it.
sleep 3
out=$(k get pod "$HELD" -o jsonpath='{.metadata.deletionTimestamp} {.metadata.deletionGracePeriodSeconds} {.metadata.finalizers}')
expect_match "$out" '^[0-9]{4}-[0-9-]+T[0-9:]+Z 0 \["example.com/hold"\]$'
expect_in "$(k get pods -l app=fg)" "Terminating"
fin=$(k get rs fg -o jsonpath='{.metadata.finalizers} {.metadata.deletionTimestamp}')
expect_match "$fin" '^\["foregroundDeletion"\] [0-9]{4}-'
pass "kubectl delete rs --cascade=foreground: the ReplicaSet waits with foregroundDeletion while a pod is Terminating"
k patch pod "$HELD" --type=merge -p '{"metadata":{"finalizers":null}}' >/dev/null
wait_for 30 bash -c "! kubectl --cache-dir $WORK/kube-cache get rs fg" ||
  fail "foreground: the ReplicaSet goes once its pods are gone" "$(k get rs fg -o yaml 2>&1)"
n=$(pods_of fg)
[ "$n" = 0 ] || fail "foreground: no pod outlives its ReplicaSet" "$(k get pods -l app=fg -o wide)"
pass "kubectl delete rs --cascade=foreground: the pod's finalizer removed, the pod then the ReplicaSet go"

echo "PASS"
