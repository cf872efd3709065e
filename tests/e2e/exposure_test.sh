#!/usr/bin/env bash
# `tidepool up --address <a non-loopback address of this machine>` (issue 14, "Exposure"):
#   - HTTPS with tidepool's CA and a bearer token, written only into the kubeconfig and the
#     gcloud configuration (mode 0600); a loud warning;
#   - a request without the token (or with a wrong one) gets kube-apiserver's 401 Status, the
#     GKE / Compute APIs Google's 401; kubectl with the written kubeconfig works, the real gcloud
#     too, and so does the kubeconfig of `gcloud container clusters get-credentials`;
#   - `tidepool autoscale` refuses to send credentials over plain http to such an address.
# Usage: TIDEPOOL_BIN=path/to/tidepool bash tests/e2e/exposure_test.sh
source "$(dirname "$0")/lib.sh"

# An IPv4 address of this machine that is not loopback (else every interface: 0.0.0.0).
ADDR=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -E '^[0-9]+(\.[0-9]+){3}$' | grep -v '^127\.' | head -1 || true)
ADDR=${ADDR:-0.0.0.0}
start_up --address "$ADDR" --gcloud-config "$CLOUDSDK_CONFIG" --speed 60
HOST=$ADDR
[ "$HOST" = 0.0.0.0 ] && HOST=127.0.0.1
log=$(cat "$WORK/up.log")
expect_in "$log" "Kubernetes v1.32 API at https://$HOST:$PORT"
expect_in "$log" "WARNING: listening on $ADDR, beyond this machine: HTTPS with tidepool's own CA, and every request needs the bearer token"
expect_in "$(cat "$CLOUDSDK_CONFIG/configurations/config_default")" "container = https://$HOST:$PORT/"
[ "$(stat -c %a "$KUBECONFIG")" = 600 ] || fail "kubeconfig mode" "$(stat -c %a "$KUBECONFIG")"
[ "$(stat -c %a "$CLOUDSDK_CONFIG/access-token")" = 600 ] ||
  fail "access-token mode" "$(stat -c %a "$CLOUDSDK_CONFIG/access-token")"
TOKEN=$(cat "$CLOUDSDK_CONFIG/access-token")
[ "${#TOKEN}" = 43 ] || fail "a 43-character token" "$TOKEN"
expect_not_in "$log" "$TOKEN" "the token is never printed"
expect_in "$(cat "$KUBECONFIG")" "token: $TOKEN"
kubectl config view --raw -o jsonpath='{.clusters[0].cluster.certificate-authority-data}' |
  base64 -d >"$WORK/ca.crt"
pass "https on $ADDR, token only in the 0600 files, a warning"

# Without the token: kube-apiserver's 401. With a wrong one: the same. Not even plain http.
UNAUTHORIZED='{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}'
for auth in "" "Authorization: Bearer not-the-token"; do
  out=$(curl -s --cacert "$WORK/ca.crt" ${auth:+-H "$auth"} -w '\n%{http_code}' \
    "https://$HOST:$PORT/api/v1/namespaces/kube-system/pods")
  [ "$out" = "$UNAUTHORIZED"$'\n'401 ] || fail "401 without the token (${auth:-none})" "$out"
done
out=$(curl -s --cacert "$WORK/ca.crt" -w '\n%{http_code}' "https://$HOST:$PORT/version")
[ "$out" = "$UNAUTHORIZED"$'\n'401 ] || fail "401 on /version too" "$out"
if curl -s -o /dev/null "http://$HOST:$PORT/api/v1/pods"; then
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://$HOST:$PORT/api/v1/pods" || true)
  [ "$code" != 200 ] || fail "plain http served the cluster"
fi
out=$(curl -s --cacert "$WORK/ca.crt" -H "Authorization: Bearer $TOKEN" \
  "https://$HOST:$PORT/api/v1/namespaces/default")
expect_in "$out" '"name":"default"'
pass "no token or a wrong one: kube-apiserver's 401 Status; the token: 200"

nodes=$(k get nodes)
expect_match "$nodes" "gke-tidepool-default-pool-.* +Ready"
k run web --image=nginx --restart=Never >/dev/null
k wait --for=condition=Ready pod/web --timeout=60s >/dev/null
pass "kubectl with the kubeconfig tidepool up wrote"

# The GKE API: Google's 401 without the token, or with a wrong one.
POOLS="https://$HOST:$PORT/v1/projects/tidepool-local/locations/us-central1-a/clusters/tidepool/nodePools"
out=$(curl -s --cacert "$WORK/ca.crt" -w '\n%{http_code}' "$POOLS")
expect_in "$out" '"code":401,"message":"Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.","status":"UNAUTHENTICATED"'
[ "$(tail -1 <<<"$out")" = 401 ] || fail "GKE 401" "$out"
out=$(curl -s --cacert "$WORK/ca.crt" -H "Authorization: Bearer nope" "$POOLS")
expect_in "$out" '"message":"Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.'
out=$(curl -s --cacert "$WORK/ca.crt" "https://$HOST:$PORT/compute/v1/projects/tidepool-local/zones/us-central1-a/instances")
expect_in "$out" '"reason":"required"'
pass "GKE and Compute APIs: Google's 401 without the token"

# gcloud must trust tidepool's CA, which the configuration names (core/custom_ca_certs_file);
# variables that override it (set on some machines, e.g. CI images) are left out here.
unset CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE REQUESTS_CA_BUNDLE CURL_CA_BUNDLE
out=$(timeout 60 gcloud container node-pools list --cluster tidepool --zone us-central1-a 2>&1) ||
  fail "gcloud node-pools list over https" "$out"
expect_match "$out" "default-pool +e2-standard-4"
out=$(timeout 60 gcloud container clusters get-credentials tidepool --zone us-central1-a 2>&1) ||
  fail "get-credentials" "$out"
expect_in "$(kubectl config view)" "server: https://$HOST:$PORT"
expect_match "$(k get nodes)" "gke-tidepool-default-pool-.* +Ready"
k config use-context tidepool >/dev/null
pass "the real gcloud over https (tidepool's CA), and kubectl through get-credentials' kubeconfig"

# tidepool autoscale: a token over plain http to a non-loopback host is refused.
cat >"$WORK/plain.kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "http://$HOST:$PORT"}}]
users: [{name: u, user: {token: secret}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
KC
rc=0
out=$("$TIDEPOOL_BIN" autoscale --kubeconfig "$WORK/plain.kubeconfig" --project p --location us-central1-a \
  --cluster-name c --gcp-no-auth --address 127.0.0.1:0 2>&1) || rc=$?
[ "$rc" = 2 ] || fail "autoscale: exit 2 for a token over plain http" "$out"
if [ "$HOST" != 127.0.0.1 ]; then
  expect_in "$out" "error: Kubernetes API http://$HOST:$PORT: refusing to send credentials over plain http to $HOST"
  rc=0
  out=$("$TIDEPOOL_BIN" autoscale --kubeconfig "$KUBECONFIG" --project p --location us-central1-a \
    --cluster-name c --gke-api-endpoint "http://$HOST:$PORT/" --gcp-token-file "$CLOUDSDK_CONFIG/access-token" \
    --address 127.0.0.1:0 2>&1) || rc=$?
  [ "$rc" = 2 ] || fail "autoscale: exit 2 for an OAuth token over plain http" "$out"
  expect_in "$out" "error: --gke-api-endpoint http://$HOST:$PORT/: refusing to send credentials over plain http"
fi
pass "tidepool autoscale refuses credentials over plain http to $HOST"

# On loopback (the default) the Kubernetes API stays open to this machine, but the GKE API still
# needs the token, and the files are the owner's alone.
kill -TERM "$UP_PID"
wait "$UP_PID" 2>/dev/null || true
start_up --gcloud-config "$CLOUDSDK_CONFIG" --speed 60
[ "$(stat -c %a "$KUBECONFIG")" = 600 ] || fail "loopback kubeconfig mode" "$(stat -c %a "$KUBECONFIG")"
[ "$(stat -c %a "$CLOUDSDK_CONFIG/access-token")" = 600 ] || fail "loopback access-token mode"
[ "$(cat "$CLOUDSDK_CONFIG/access-token")" != "$TOKEN" ] || fail "a new token for a new run"
expect_not_in "$(cat "$KUBECONFIG")" "token:"
curl -sf "http://127.0.0.1:$PORT/api/v1/namespaces/default" >/dev/null || fail "loopback without a credential"
out=$(curl -s -w '\n%{http_code}' "http://127.0.0.1:$PORT/v1/projects/tidepool-local/locations/us-central1-a/clusters/tidepool/nodePools")
expect_in "$out" '"status":"UNAUTHENTICATED"'
[ "$(tail -1 <<<"$out")" = 401 ] || fail "GKE 401 on loopback" "$out"
out=$(timeout 60 gcloud container node-pools list --cluster tidepool --zone us-central1-a 2>&1) ||
  fail "gcloud on loopback" "$out"
expect_match "$out" "default-pool +e2-standard-4"
pass "loopback: Kubernetes API without a credential, GKE API with the run's token only"
echo "ok: exposure e2e"
