#!/usr/bin/env bash
# Issue 17: `kubectl auth can-i` and `kubectl auth whoami` against `tidepool up` (which allows
# every request, as kube-apiserver's AlwaysAllow): SelfSubjectAccessReview,
# SelfSubjectRulesReview and SelfSubjectReview answered, never stored.
source "$(dirname "$0")/lib.sh"
start_up --no-autoscaler --seed 18

out=$(k auth can-i create pods 2>&1) || fail "kubectl auth can-i create pods" "$out"
[ "$out" = "yes" ] || fail "can-i answers yes" "$out"
out=$(k auth can-i delete nodes --all-namespaces 2>&1) || fail "kubectl auth can-i delete nodes" "$out"
[ "$out" = "yes" ] || fail "can-i answers yes" "$out"
out=$(k auth can-i get /healthz 2>&1) || fail "kubectl auth can-i get /healthz" "$out"
[ "$out" = "yes" ] || fail "a non-resource URL: yes" "$out"
out=$(k auth can-i --list 2>&1) || fail "kubectl auth can-i --list" "$out"
expect_match "$out" '^Resources +Non-Resource URLs +Resource Names +Verbs'
expect_match "$out" '^\*\.\* +\[\] +\[\] +\[\*\]'
pass "kubectl auth can-i (resources, non-resource URLs, --list)"

out=$(k auth whoami 2>&1) || fail "kubectl auth whoami" "$out"
expect_match "$out" '^Username +system:anonymous'
expect_match "$out" '^Groups +\[system:unauthenticated\]'
# (client-go sends no bearer token over plain http: the administrator answer needs the exposed,
# HTTPS API; the unit tests cover it.)
pass "kubectl auth whoami"
