#!/usr/bin/env bash
# Issue 19: deploy/sweep/sweep-job.yaml - a sweep of `tidepool compare` as an Indexed Job -
# applied with the real kubectl to `tidepool up`: admitted as written (IMAGE replaced), four
# pods carrying completion indexes 0-3, the Job Complete. Emulated containers do not run the
# binary, so the shards are checked on the binary itself: each of `compare --shard i/N` over
# four scenarios, merged with `compare --merge`, gives the table one `compare` of all four
# prints (columns in the shards' order).
source "$(dirname "$0")/lib.sh"
start_up --no-autoscaler --seed 19

k create -f - >/dev/null <<'PVC'
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: tidepool-sweep-data}
spec: {accessModes: [ReadWriteMany], resources: {requests: {storage: 10Gi}}}
PVC
# The image replaced; each emulated container told to run 5 s (tidepool.dev/duration: without
# it an emulated `sh -c` runs until deleted).
sed -e 's|image: IMAGE|image: registry.example/tidepool:dev|' \
  -e 's|^      labels: {app.kubernetes.io/name: tidepool-sweep}$|&\n      annotations: {tidepool.dev/duration: 5s}|' \
  "$SRC/deploy/sweep/sweep-job.yaml" >"$WORK/job.yaml"
grep -q 'tidepool.dev/duration: 5s' "$WORK/job.yaml" || fail "the test's run time is in the pod template" "$(cat "$WORK/job.yaml")"
out=$(k apply -f "$WORK/job.yaml" 2>&1) || fail "the sweep Job is admitted" "$out"
expect_in "$out" "job.batch/tidepool-sweep created"
wait_for 120 bash -c "kubectl --cache-dir '$WORK/kube-cache' get job tidepool-sweep -o jsonpath='{.status.conditions[?(@.type==\"Complete\")].status}' | grep -q True" ||
  fail "the sweep Job completes" "$(k get job tidepool-sweep -o yaml; k get pods -o wide)"
indexes=$(k get pods -l app.kubernetes.io/name=tidepool-sweep -o jsonpath='{range .items[*]}{.metadata.annotations.batch\.kubernetes\.io/job-completion-index}{"\n"}{end}' | sort | tr '\n' ' ')
expect_match "$indexes" '^0 1 2 3 $'
expect_match "$(k get job tidepool-sweep -o jsonpath='{.status.completedIndexes} {.status.succeeded}')" '^0-3 4$'
pass "the Indexed Job of deploy/sweep: 4 pods, indexes 0-3, Complete"

# The shards on the binary: 4 scenarios, 3 shards, merged.
mkdir -p "$WORK/sweep/scenarios"
printf 'name,arrival,duration,cpu,memory,gpus,class\na,0,10m,1,1Gi,1,training\nb,60,5m,1,1Gi,1,training\n' >"$WORK/sweep/t.csv"
for max in 1 2 3 4; do
  cat >"$WORK/sweep/scenarios/max$max.yaml" <<YAML
nodePools:
- {name: default-pool, machineType: e2-standard-4, initialNodeCount: 1}
- {name: t4, machineType: n1-standard-4, accelerator: {type: nvidia-tesla-t4, count: 1}, minNodes: 0, maxNodes: $max}
trace: {file: ../t.csv}
runFor: 30m
YAML
done
all=$("$TIDEPOOL_BIN" compare --output csv "$WORK"/sweep/scenarios/*.yaml) || fail "compare of all four" "$all"
for i in 0 1 2; do
  "$TIDEPOOL_BIN" compare --shard "$i/3" --output csv "$WORK"/sweep/scenarios/*.yaml >"$WORK/sweep/shard-$i.csv" ||
    fail "compare --shard $i/3" "$(cat "$WORK/sweep/shard-$i.csv")"
done
merged=$("$TIDEPOOL_BIN" compare --merge --output csv "$WORK"/sweep/shard-*.csv) || fail "compare --merge" "$merged"
expect_match "$(head -1 <<<"$merged")" '^metric,max1,max4,max2,max3$'
# Reorder the merged columns to the order of `all` and compare every cell.
reordered=$(awk -F, 'BEGIN{OFS=","} {print $1,$2,$4,$5,$3}' <<<"$merged" | sed '1s/.*/metric,max1,max2,max3,max4/')
[ "$reordered" = "$all" ] || fail "the merged shards equal one compare of all four" "$(diff <(echo "$all") <(echo "$reordered"))"
pass "compare --shard i/3 of four scenarios, merged, equals one compare of all four"
