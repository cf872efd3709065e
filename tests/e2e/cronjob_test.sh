#!/usr/bin/env bash
# Issues 16 and 17: kube-controller-manager's CronJob controller in `tidepool up`, with the real
# kubectl. Schedules are calendar times (the real clock under `up`; --speed shortens emulated
# delays, not the calendar), so the test waits for one minute boundary (up to ~75 s):
#   1. `kubectl create cronjob` with a bad schedule is refused with kube-apiserver's text
#      (robfig/cron's parse error), an unknown timeZone too; a good one is listed with
#      kubectl's columns and kube's defaults.
#   2. A "*/1 * * * *" CronJob (Forbid, successfulJobsHistoryLimit 0) of pods that run 5 s: at
#      the minute a Job named <cronjob>-<minutes since the epoch>, owned by the CronJob, with
#      the scheduled-timestamp annotation; once it succeeded, lastSuccessfulTime, out of
#      status.active, deleted by the history limit; kcm's events (SuccessfulCreate,
#      SuccessfulDelete).
#   3. `kubectl create job --from=cronjob/...` makes a Job from the template.
#   4. Suspended, SUSPEND True; deleted, its running Job goes with it (garbage collector).
source "$(dirname "$0")/lib.sh"
start_up --speed 60 --no-autoscaler --seed 21

# --- 1. validation and printing
out=$(k create cronjob bad --image=busybox --schedule="61 * * * *" 2>&1) && fail "a bad schedule is refused" "$out"
expect_in "$out" 'error: failed to create cronjob: CronJob.batch "bad" is invalid: spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61'
out=$(k create cronjob bad --image=busybox --schedule="* * * * *" -- true 2>&1 >/dev/null; k patch cronjob bad --type=merge -p '{"spec":{"timeZone":"Mars/Base"}}' 2>&1) &&
  fail "an unknown timeZone is refused" "$out"
expect_in "$out" 'spec.timeZone: Invalid value: "Mars/Base": unknown time zone Mars/Base'
k delete cronjob bad >/dev/null
pass "bad schedules and time zones refused with kube-apiserver's texts"

# --- 2. a Job every minute. Schedules are calendar times: under `up` the real clock (--speed
# shortens emulated durations, not the calendar), so the first Job comes at the next whole
# minute. Its pods run 5 s (tidepool.dev/duration); successfulJobsHistoryLimit 0 deletes it once
# it succeeded.
cat <<'YAML' | k apply -f - >/dev/null
apiVersion: batch/v1
kind: CronJob
metadata: {name: ticker}
spec:
  schedule: "*/1 * * * *"
  concurrencyPolicy: Forbid
  successfulJobsHistoryLimit: 0
  jobTemplate:
    metadata:
      labels: {team: ml}
    spec:
      template:
        metadata:
          annotations: {tidepool.dev/duration: 5s}
        spec:
          restartPolicy: OnFailure
          containers:
          - {name: tick, image: busybox, command: [sh, -c, date]}
YAML
out=$(k get cronjob ticker)
expect_match "$out" '^NAME +SCHEDULE +TIMEZONE +SUSPEND +ACTIVE +LAST SCHEDULE +AGE'
expect_match "$out" '^ticker +\*/1 \* \* \* \* +<none> +False +0 +<none> +'
defaults=$(k get cronjob ticker -o jsonpath='{.spec.suspend} {.spec.failedJobsHistoryLimit} {.spec.concurrencyPolicy}')
[ "$defaults" = "false 1 Forbid" ] || fail "kube's defaults (suspend false, failedJobsHistoryLimit 1)" "$defaults"
pass "kubectl get cronjob: kube's columns and defaults"

jobs_of() { kubectl --cache-dir "$WORK/kube-cache" get jobs -l team=ml -o jsonpath='{range .items[*]}{.metadata.name} {.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name} {.metadata.annotations.batch\.kubernetes\.io/cronjob-scheduled-timestamp}{"\n"}{end}'; }
export -f jobs_of
export WORK
wait_for 75 bash -c '[ -n "$(jobs_of)" ]' || fail "a Job within a minute" "$(k get cronjob ticker -o yaml)"
jobs=$(jobs_of)
expect_match "$jobs" '^ticker-[0-9]{8} CronJob/ticker 20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:00Z$'
read -r name _ stamp <<<"$jobs"
[ "$name" = "ticker-$(( $(date -u -d "$stamp" +%s) / 60 ))" ] ||
  fail "the Job's name is <cronjob>-<scheduled minutes since the epoch>" "$jobs"
out=$(k get cronjob ticker)
expect_match "$out" '^ticker +\*/1 \* \* \* \* +<none> +False +1 +[0-9]+s +'
pass "a Job at the minute, named by it, owned by the CronJob, with the scheduled-timestamp annotation"

wait_for 30 bash -c "[ -n \"\$(kubectl --cache-dir $WORK/kube-cache get cronjob ticker -o jsonpath='{.status.lastSuccessfulTime}')\" ]" ||
  fail "the Job succeeded" "$(k get cronjob ticker -o yaml)" "$(k get jobs -o yaml)"
wait_for 10 bash -c "[ -z \"\$(kubectl --cache-dir $WORK/kube-cache get job $name -o name 2>/dev/null)\" ]" ||
  fail "the succeeded Job deleted (successfulJobsHistoryLimit 0)" "$(k get jobs)"
status=$(k get cronjob ticker -o jsonpath='{.status.lastScheduleTime} {.status.lastSuccessfulTime} {.status.active}')
expect_match "$status" '^20[0-9-]+T[0-9:]+Z 20[0-9-]+T[0-9:]+Z $'
events=$(k get events --field-selector involvedObject.kind=CronJob,involvedObject.name=ticker)
expect_match "$events" "Normal +SuccessfulCreate +cronjob/ticker +Created job $name"
expect_match "$events" "Normal +SuccessfulDelete +cronjob/ticker +Deleted job $name"
# (No SawCompletedJob here: kcm's cleanup runs first and takes the deleted Job out of
# status.active, so the sync never "sees" it complete; the unit tests cover that event.)
pass "the Job succeeded: lastSuccessfulTime, out of status.active, deleted by the history limit; kcm's events"

# --- 3. a Job from the CronJob's template (the answer of the create itself: the CronJob
# controller deletes it once it succeeds)
got=$(k create job manual --from=cronjob/ticker -o jsonpath='{.metadata.annotations.cronjob\.kubernetes\.io/instantiate} {.metadata.ownerReferences[0].name} {.spec.template.spec.containers[0].image} {.metadata.labels.team}' 2>&1) ||
  fail "kubectl create job --from=cronjob/ticker" "$got"
[ "$got" = "manual ticker busybox ml" ] || fail "the Job from the template, owned by the CronJob" "$got"
pass "kubectl create job --from=cronjob/ticker"

# --- 4. suspend, then delete: the running Job goes with it
k patch cronjob ticker --type=merge -p '{"spec":{"suspend":true}}' >/dev/null
expect_match "$(k get cronjob ticker)" '^ticker +\*/1 \* \* \* \* +<none> +True +'
k delete cronjob ticker >/dev/null
wait_for 30 bash -c "[ -z \"\$(kubectl --cache-dir $WORK/kube-cache get jobs -o name)\" ]" ||
  fail "the CronJob's Jobs are deleted with it" "$(k get jobs)"
pass "suspended (SUSPEND True); deleted: its Jobs garbage-collected"
