#!/usr/bin/env bash
# `tidepool up --data-dir`: every acknowledged write survives `kill -9`, and a restart resumes
# the same cluster (objects, uids, resourceVersions, what users set on nodes).
source "$(dirname "$0")/lib.sh"
DATA="$WORK/data"
start_up --data-dir "$DATA" --speed 60 --seed 5

k create namespace team-a >/dev/null
for i in $(seq 1 20); do
  k create configmap "cm-$i" -n team-a --from-literal=i="$i" >/dev/null
done
cat >"$WORK/pod.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  name: keeper
  labels: {app: keeper}
  annotations: {note: "fields tidepool does not model come back unchanged"}
spec:
  containers:
  - name: c
    image: busybox:1.36
    command: ["sleep", "3600"]
    env: [{name: MODE, value: fast}]
    ports: [{containerPort: 8080, name: http}]
YAML
k apply -f "$WORK/pod.yaml" >/dev/null
k wait --for=condition=Ready pod/keeper --timeout=60s >/dev/null
node=$(k get nodes -o name | awk 'NR==1' | cut -d/ -f2)
k label node "$node" tier=gold >/dev/null
uid=$(k get pod keeper -o jsonpath='{.metadata.uid}')
before=$(k get configmaps -n team-a -o name | sort)

kill -9 "$UP_PID"
wait "$UP_PID" 2>/dev/null || true
# Another seed: the nodes come back from the stored emulated cloud, not from the seed.
start_up --data-dir "$DATA" --speed 60 --seed 6

after=$(k get configmaps -n team-a -o name | sort)
[ "$before" = "$after" ] || fail "configmaps after kill -9" "$after"
[ "$(echo "$after" | grep -c configmap/cm-)" = 20 ] || fail "20 configmaps" "$after"
[ "$(k get configmap cm-17 -n team-a -o jsonpath='{.data.i}')" = 17 ] || fail "configmap data"
[ "$(k get pod keeper -o jsonpath='{.metadata.uid}')" = "$uid" ] || fail "the pod's uid survived"
out=$(k get pod keeper -o yaml)
expect_in "$out" "fields tidepool does not model come back unchanged"
expect_in "$out" "containerPort: 8080"
expect_in "$out" "value: fast"
k wait --for=condition=Ready pod/keeper --timeout=60s >/dev/null
expect_in "$(k get node "$node" --show-labels)" "tier=gold"
expect_match "$(k get ns team-a)" '^team-a +Active'
pass "kill -9 then restart with --data-dir: every acknowledged object is there"
echo "ok: data-dir e2e"
