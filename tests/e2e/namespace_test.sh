#!/usr/bin/env bash
# Issue 17: namespace lifecycle as kube-apiserver and kube-controller-manager's namespace
# controller have it, with the real kubectl: a deleted namespace is Terminating (and takes no
# new content: NamespaceLifecycle's 403) while its contents are deleted - a running pod
# terminates on its node first - and goes once they are gone (the "kubernetes" finalizer
# removed through namespaces/<name>/finalize); `kubectl delete namespace` waits for that.
source "$(dirname "$0")/lib.sh"
start_up --no-autoscaler --seed 31

k create namespace team >/dev/null
expect_match "$(k get ns team)" '^team +Active +'
k create configmap settings -n team --from-literal=a=b >/dev/null
k run sleeper -n team --image=busybox --restart=Never -- sleep 3600 >/dev/null
wait_for 60 bash -c "kubectl --cache-dir '$WORK/kube-cache' get pod sleeper -n team -o jsonpath='{.status.phase}' | grep -q Running" ||
  fail "the pod runs" "$(k get pods -n team -o wide)"
got=$(k get ns team -o jsonpath='{.spec.finalizers}')
[ "$got" = '["kubernetes"]' ] || fail "a namespace has the kubernetes finalizer" "$got"

out=$(k delete namespace team --wait=false 2>&1) || fail "delete the namespace" "$out"
expect_in "$out" 'namespace "team" deleted'
expect_match "$(k get ns team)" '^team +Terminating +'
out=$(k run late -n team --image=busybox --restart=Never -- true 2>&1) && fail "no new content" "$out"
expect_in "$out" 'Error from server (Forbidden): pods "late" is forbidden: unable to create new content in namespace team because it is being terminated'
pass "a deleted namespace is Terminating and takes no new content"

out=$(k wait --for=delete namespace/team --timeout=90s 2>&1) || fail "the namespace goes" "$out $(k get ns team -o yaml)"
out=$(k get ns team 2>&1) && fail "gone" "$out"
expect_in "$out" 'namespaces "team" not found'
out=$(k get pods,configmaps -n team 2>&1)
expect_in "$out" "No resources found in team namespace."
pass "its contents are deleted, then it goes"

k create namespace batch >/dev/null
k create configmap c -n batch --from-literal=x=y >/dev/null
out=$(k delete namespace batch 2>&1) || fail "kubectl delete namespace waits until gone" "$out"
k get ns batch >/dev/null 2>&1 && fail "gone when kubectl returns" "$(k get ns batch -o yaml)"
got=$(k get --raw /api/v1 | python3 -c 'import json,sys; print([r["verbs"] for r in json.load(sys.stdin)["resources"] if r["name"]=="namespaces/finalize"])')
[ "$got" = "[['update']]" ] || fail "namespaces/finalize in discovery" "$got"
pass "kubectl delete namespace returns once it is gone; namespaces/finalize is served"

# NamespaceLifecycle's immortal namespaces (kubectl's test-cmd: `! kubectl delete namespace --all`).
for ns in default kube-system kube-public; do
  out=$(k delete namespace "$ns" 2>&1) && fail "$ns may not be deleted" "$out"
  expect_in "$out" "Error from server (Forbidden): namespaces \"$ns\" is forbidden: this namespace may not be deleted"
  expect_match "$(k get ns "$ns")" "^$ns +Active"
done
pass "default, kube-system and kube-public may not be deleted"
