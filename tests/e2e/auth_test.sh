#!/usr/bin/env bash
# Issue 17: `kubectl auth can-i` and `kubectl auth whoami` against `tidepool up` (which allows
# every request, as kube-apiserver's AlwaysAllow): SelfSubjectAccessReview,
# SelfSubjectRulesReview and SelfSubjectReview answered, never stored. Then ServiceAccounts:
# kcm's default accounts and kube-root-ca.crt, the admission plugin's token volume, and
# `kubectl create token` tokens that authenticate as their account.
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

# ServiceAccounts as kube-controller-manager keeps them: every namespace's "default" account
# and kube-root-ca.crt (the CA of the HTTPS endpoint); the ServiceAccount admission plugin's
# token volume on a new pod, and its refusal of an unknown account.
k create namespace team >/dev/null
wait_for 20 bash -c "kubectl --cache-dir '$WORK/kube-cache' get sa default -n team >/dev/null 2>&1" ||
  fail "the team namespace's default ServiceAccount" "$(k get sa -A)"
wait_for 20 bash -c "kubectl --cache-dir '$WORK/kube-cache' get cm kube-root-ca.crt -n team >/dev/null 2>&1" ||
  fail "the team namespace's kube-root-ca.crt" "$(k get cm -A)"
expect_match "$(k get sa -n team)" '^default +0 +[0-9]+s$'
k get cm kube-root-ca.crt -n team -o jsonpath='{.data.ca\.crt}' >"$WORK/ca.crt"
expect_in "$(head -1 "$WORK/ca.crt")" "-----BEGIN CERTIFICATE-----"
k run web -n team --image=nginx >/dev/null
got=$(k get pod web -n team -o jsonpath='{.spec.volumes[0].name} {.spec.containers[0].volumeMounts[0].mountPath} {.spec.volumes[0].projected.sources[0].serviceAccountToken.expirationSeconds}')
expect_match "$got" '^kube-api-access-[a-z0-9]{5} /var/run/secrets/kubernetes\.io/serviceaccount 3607$'
out=$(k run ghost -n team --image=nginx --overrides='{"spec":{"serviceAccountName":"ghost"}}' 2>&1) &&
  fail "a pod of an unknown account is refused" "$out"
expect_in "$out" 'Error from server (Forbidden): pods "ghost" is forbidden: error looking up service account team/ghost: serviceaccount "ghost" not found'
pass "default ServiceAccounts and kube-root-ca.crt in every namespace; the token volume on pods"

# kubectl create token: a TokenRequest; the token authenticates as the account over HTTPS
# (verified with the published CA), and stops when the account goes.
TOKEN=$(k create token default -n team) || fail "kubectl create token" "$TOKEN"
expect_match "$TOKEN" '^eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$'
HTTPS=$(grep -o 'cluster endpoint https://[0-9.:]*' "$WORK/up.log" | sed 's/cluster endpoint //')
as_token() { kubectl --cache-dir "$WORK/kube-cache-token" --kubeconfig=/dev/null --server "$HTTPS" --certificate-authority "$WORK/ca.crt" --token "$1" "${@:2}"; }
out=$(as_token "$TOKEN" auth whoami 2>&1) || fail "whoami with the token" "$out"
expect_match "$out" '^Username +system:serviceaccount:team:default$'
expect_match "$out" '^Groups +\[system:serviceaccounts system:serviceaccounts:team system:authenticated\]$'
out=$(k create token default -n team --duration=1m 2>&1) && fail "a token under 10 minutes is refused" "$out"
expect_in "$out" 'error: failed to create token: TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes'
out=$(k create token nobody -n team 2>&1) && fail "a token of an unknown account is refused" "$out"
expect_in "$out" 'error: failed to create token: serviceaccounts "nobody" not found'
k create sa builder -n team >/dev/null
BUILDER=$(k create token builder -n team)
expect_match "$(as_token "$BUILDER" auth whoami)" '^Username +system:serviceaccount:team:builder$'
k delete sa builder -n team >/dev/null
out=$(as_token "$BUILDER" get pods 2>&1) && fail "a deleted account's token is refused" "$out"
expect_in "$out" "error: You must be logged in to the server (the server has asked for the client to provide credentials)"
pass "kubectl create token; the token is the account's until the account goes"
