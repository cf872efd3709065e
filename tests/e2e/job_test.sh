#!/usr/bin/env bash
# Issue 16: kube-controller-manager's Job controller in `tidepool up`, with the real kubectl.
#   1. A Job of 8 completions, parallelism 4, 1-GPU pods that each run 2 emulated minutes (2 s
#      at --speed 60): the autoscaler grows the GPU pool 0 -> 4 and, once the Job is done,
#      shrinks it back to 0; `kubectl wait --for=condition=complete` returns; the Job's status
#      counts and conditions are kcm's.
#   2. An Indexed Job: each pod carries its completion index (annotation, label, hostname) and
#      status.completedIndexes is "0-2".
#   3. A Job whose pods exit 1 (the emulated container's exit code) with backoffLimit 1 ends
#      Failed with BackoffLimitExceeded after two pods.
source "$(dirname "$0")/lib.sh"
start_up --speed 60 --config "$SRC/examples/up/gpu-cluster.yaml" --seed 16

gpu_nodes() {
  k get nodes -l cloud.google.com/gke-nodepool=gpu-pool -o name 2>/dev/null | grep -c . || true
}
[ "$(gpu_nodes)" = 0 ] || fail "the GPU pool starts empty" "$(k get nodes)"

# Counts GPU nodes every half second into $WORK/gpu-nodes (one line per change).
(
  last=""
  while true; do
    n=$(gpu_nodes)
    if [ "$n" != "$last" ]; then echo "$n" >>"$WORK/gpu-nodes"; last=$n; fi
    sleep 0.5
  done
) &
WATCHER=$!

# --- 1. completions 8, parallelism 4, one GPU each
cat <<'YAML' | k apply -f - >/dev/null
apiVersion: batch/v1
kind: Job
metadata: {name: train}
spec:
  completions: 8
  parallelism: 4
  template:
    metadata:
      annotations: {tidepool.dev/duration: 2s}
    spec:
      restartPolicy: Never
      containers:
      - name: cuda
        image: nvidia/cuda:12.2.0-base-ubuntu22.04
        command: ["nvidia-smi"]
        resources: {limits: {nvidia.com/gpu: 1}}
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
YAML
out=$(k wait --for=condition=complete job/train --timeout=240s 2>&1) ||
  fail "kubectl wait --for=condition=complete job/train" "$out" "$(k get job train -o yaml)" "$(k get pods -o wide)"
expect_in "$out" "job.batch/train condition met"
status=$(k get job train -o jsonpath='{.status.succeeded} {.status.failed} {.status.active} {.status.ready} {.status.terminating} {.status.uncountedTerminatedPods}')
[ "$status" = "8   0 0 {}" ] || fail "status succeeded 8, no failed/active, ready 0, terminating 0" "$status"
conds=$(k get job train -o jsonpath='{range .status.conditions[*]}{.type}={.status}/{.reason}/{.message}{"\n"}{end}')
[ "$conds" = "$(printf 'SuccessCriteriaMet=True/CompletionsReached/Reached expected number of succeeded pods\nComplete=True/CompletionsReached/Reached expected number of succeeded pods')" ] ||
  fail "conditions SuccessCriteriaMet then Complete" "$conds"
[ -n "$(k get job train -o jsonpath='{.status.completionTime}')" ] || fail "completionTime set" "$(k get job train -o yaml)"
out=$(k get job train)
expect_match "$out" '^NAME +STATUS +COMPLETIONS +DURATION +AGE'
pods=$(k get pods -l job-name=train -o jsonpath='{range .items[*]}{.metadata.name} {.status.phase} {.metadata.finalizers}{"\n"}{end}')
# (kube-apiserver drops the emptied list; tidepool's API server still shows "[]")
[ "$(grep -cE ' Succeeded (\[\])?$' <<<"$pods")" = 8 ] || fail "8 Succeeded pods, their tracking finalizers removed" "$pods"
expect_match "$pods" '^train-[a-z0-9]{5} Succeeded'
events=$(k get events --field-selector involvedObject.kind=Job,involvedObject.name=train)
[ "$(grep -c 'SuccessfulCreate .*Created pod: train-' <<<"$events")" -ge 1 ] || fail "SuccessfulCreate events" "$events"
expect_match "$events" 'Normal +Completed +job/train +Job completed'
pass "Job train: completions 8 / parallelism 4 complete; kcm's status, conditions, events"

# The pool grew to 4 nodes (one per running pod) and returns to 0 once they are idle.
wait_for 180 bash -c "[ \$(kubectl --cache-dir $WORK/kube-cache get nodes -l cloud.google.com/gke-nodepool=gpu-pool -o name | grep -c .) = 0 ]" ||
  fail "the GPU pool back to 0 nodes" "$(k get nodes)"
sleep 1
kill "$WATCHER" 2>/dev/null || true
counts=$(cat "$WORK/gpu-nodes")
max=$(sort -n <<<"$counts" | tail -1)
[ "$max" = 4 ] || fail "the GPU pool peaked at 4 nodes" "$counts"
[ "$(head -1 <<<"$counts")" = 0 ] && [ "$(tail -1 <<<"$counts")" = 0 ] || fail "GPU nodes 0 -> 4 -> 0" "$counts"
pass "GPU pool 0 -> 4 -> 0 ($(tr '\n' ' ' <<<"$counts"))"

# --- 2. an Indexed Job
cat <<'YAML' | k apply -f - >/dev/null
apiVersion: batch/v1
kind: Job
metadata: {name: shards}
spec:
  completions: 3
  parallelism: 3
  completionMode: Indexed
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox, command: ["sh", "-c", "sleep 1"], resources: {requests: {cpu: 100m}}}
YAML
out=$(k wait --for=condition=complete job/shards --timeout=120s 2>&1) || fail "Indexed Job complete" "$out" "$(k get job shards -o yaml)"
[ "$(k get job shards -o jsonpath='{.status.completedIndexes} {.status.succeeded}')" = "0-2 3" ] ||
  fail "completedIndexes 0-2, succeeded 3" "$(k get job shards -o yaml)"
pods=$(k get pods -l job-name=shards -o jsonpath='{range .items[*]}{.metadata.annotations.batch\.kubernetes\.io/job-completion-index} {.metadata.labels.batch\.kubernetes\.io/job-completion-index} {.spec.hostname} {.metadata.name}{"\n"}{end}' | sort)
for i in 0 1 2; do
  expect_match "$pods" "^$i $i shards-$i shards-$i-[a-z0-9]{5}$"
done
pass "Indexed Job: each pod carries its index; completedIndexes 0-2"

# --- 3. pods that exit 1, backoffLimit 1
cat <<'YAML' | k apply -f - >/dev/null
apiVersion: batch/v1
kind: Job
metadata: {name: crash}
spec:
  backoffLimit: 1
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox, command: ["sh", "-c", "sleep 1; exit 1"], resources: {requests: {cpu: 100m}}}
YAML
out=$(k wait --for=condition=failed job/crash --timeout=120s 2>&1) || fail "Job crash failed" "$out" "$(k get job crash -o yaml)" "$(k get pods -o wide)"
conds=$(k get job crash -o jsonpath='{range .status.conditions[*]}{.type}={.status}/{.reason}/{.message}{"\n"}{end}')
[ "$conds" = "$(printf 'FailureTarget=True/BackoffLimitExceeded/Job has reached the specified backoff limit\nFailed=True/BackoffLimitExceeded/Job has reached the specified backoff limit')" ] ||
  fail "conditions FailureTarget then Failed, BackoffLimitExceeded" "$conds"
[ "$(k get job crash -o jsonpath='{.status.failed} {.status.succeeded}')" = "2 " ] || fail "failed 2" "$(k get job crash -o yaml)"
pods=$(k get pods -l job-name=crash -o jsonpath='{range .items[*]}{.status.phase} {.status.containerStatuses[0].state.terminated.reason} {.status.containerStatuses[0].state.terminated.exitCode}{"\n"}{end}')
[ "$pods" = "$(printf 'Failed Error 1\nFailed Error 1')" ] || fail "two Failed pods, terminated Error exit 1" "$pods"
events=$(k get events --field-selector involvedObject.kind=Job,involvedObject.name=crash)
expect_match "$events" 'Warning +BackoffLimitExceeded +job/crash +Job has reached the specified backoff limit'
pass "pods exiting 1 with backoffLimit 1: Failed, BackoffLimitExceeded"

# --- 4. restartPolicy OnFailure: the kubelet restarts the container (restartCount, lastState,
# CrashLoopBackOff) and the restarts count towards backoffLimit
cat <<'YAML' | k apply -f - >/dev/null
apiVersion: batch/v1
kind: Job
metadata: {name: retry}
spec:
  backoffLimit: 3
  template:
    spec:
      restartPolicy: OnFailure
      containers:
      - {name: c, image: busybox, command: ["sh", "-c", "sleep 2; exit 3"], resources: {requests: {cpu: 100m}}}
YAML
restarted() {
  [ "$(kubectl --cache-dir "$WORK/kube-cache" get pods -l job-name=retry -o jsonpath='{.items[0].status.containerStatuses[0].restartCount}')" -ge 1 ]
}
wait_for 60 restarted || fail "the OnFailure pod restarted" "$(k get pods -l job-name=retry -o yaml)"
last=$(k get pods -l job-name=retry -o jsonpath='{.items[0].status.containerStatuses[0].lastState.terminated.reason} {.items[0].status.containerStatuses[0].lastState.terminated.exitCode} {.items[0].status.phase}')
[ "$last" = "Error 3 Running" ] || fail "lastState terminated Error exit 3, pod still Running" "$last"
out=$(k wait --for=condition=failed job/retry --timeout=120s 2>&1) || fail "Job retry failed" "$out" "$(k get job retry -o yaml)"
[ "$(k get job retry -o jsonpath='{.status.conditions[1].type}/{.status.conditions[1].reason}')" = "Failed/BackoffLimitExceeded" ] ||
  fail "retry: Failed with BackoffLimitExceeded" "$(k get job retry -o yaml)"
events=$(k get events --field-selector involvedObject.kind=Pod)
expect_match "$events" 'Warning +BackOff +pod/retry-[a-z0-9]{5} +Back-off restarting failed container c in pod retry-[a-z0-9]{5}_default\('
pass "restartPolicy OnFailure: restarts with CrashLoopBackOff count towards backoffLimit"

# --- 5. kubectl's own generators with a command that ends at once (the emulated container
# ends when its commands do: echo, exit N, false...), as in Kubernetes' documentation.
out=$(k create job hello --image=busybox -- echo "Hello from the Kubernetes cluster" 2>&1) ||
  fail "kubectl create job hello -- echo" "$out"
out=$(k wait --for=condition=complete job/hello --timeout=120s 2>&1) ||
  fail "job hello (echo) completes" "$out" "$(k get job hello -o yaml)" "$(k get pods -o wide)"
k run boom --image=busybox -- sh -c 'echo boom >&2; exit 1' >/dev/null
wait_for 120 bash -c "kubectl --cache-dir $WORK/kube-cache get pod boom -o jsonpath='{.status.containerStatuses[0].lastState.terminated.exitCode} {.status.containerStatuses[0].restartCount}' | grep -qE '^1 [1-9]'" ||
  fail "kubectl run -- sh -c 'echo boom >&2; exit 1' restarts after exit 1" "$(k get pod boom -o yaml)"
reason=$(k get pod boom -o jsonpath='{.status.containerStatuses[0].lastState.terminated.reason}')
[ "$reason" = Error ] || fail "boom's last state: terminated Error" "$(k get pod boom -o yaml)"
pass "kubectl create job -- echo completes; kubectl run -- sh -c 'exit 1' fails and restarts"
