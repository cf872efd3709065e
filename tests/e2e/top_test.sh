#!/usr/bin/env bash
# Issue 17: `kubectl top node|pod` against `tidepool up`: metrics.k8s.io/v1beta1 as
# metrics-server serves it, from emulated usage (a running container uses its requests, or what
# its pod declares in tidepool.dev/cpu-usage / tidepool.dev/memory-usage).
source "$(dirname "$0")/lib.sh"
start_up --no-autoscaler --seed 19

cat <<'YAML' | k apply -f - >/dev/null
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: nginx
        image: nginx
        resources: {requests: {cpu: 300m, memory: 128Mi}}
---
apiVersion: v1
kind: Pod
metadata:
  name: busy
  annotations: {tidepool.dev/cpu-usage: 1200m, tidepool.dev/memory-usage: 1Gi}
spec:
  containers:
  - {name: c, image: busybox, resources: {requests: {cpu: 100m}}}
YAML
k wait --for=condition=Ready pod -l app=web --timeout=60s >/dev/null || fail "web pods Ready" "$(k get pods)"
k wait --for=condition=Ready pod/busy --timeout=60s >/dev/null || fail "busy Ready" "$(k get pods)"
out=$(k top pod 2>&1) || fail "kubectl top pod" "$out"
expect_match "$out" '^NAME +CPU\(cores\) +MEMORY\(bytes\)'
expect_match "$out" '^web-[a-z0-9]+-[a-z0-9]+ +300m +128Mi'
expect_match "$out" '^busy +1200m +1024Mi'
out=$(k top pod -l app=web --containers 2>&1) || fail "kubectl top pod -l --containers" "$out"
expect_match "$out" '^web-[a-z0-9]+-[a-z0-9]+ +nginx +300m +128Mi'
expect_not_in "$out" "busy"
out=$(k top node 2>&1) || fail "kubectl top node" "$out"
expect_match "$out" '^NAME +CPU\(cores\) +CPU\(%\) +MEMORY\(bytes\) +MEMORY\(%\)'
expect_match "$out" '^gke-tidepool-default-pool-[a-z0-9]+-[a-z0-9]+ +[0-9]+m +[0-9]+% +[0-9]+Mi +[0-9]+%'
# The nodes together use what the running pods use (kube-dns included).
total=$(k get --raw /apis/metrics.k8s.io/v1beta1/nodes | python3 -c 'import json,sys; print(sum(int(i["usage"]["cpu"].rstrip("n") or 0)//1000000 for i in json.load(sys.stdin)["items"]))')
pods=$(k get --raw /apis/metrics.k8s.io/v1beta1/pods | python3 -c 'import json,sys; print(sum(int(c["usage"]["cpu"].rstrip("n") or 0)//1000000 for i in json.load(sys.stdin)["items"] for c in i["containers"]))')
[ "$total" = "$pods" ] || fail "node usage is the sum of its pods' usage" "nodes $total m, pods $pods m"
pass "kubectl top pod / top pod -l --containers / top node (${total}m in use)"
