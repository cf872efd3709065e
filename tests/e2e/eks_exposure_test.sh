#!/usr/bin/env bash
# `tidepool up --cloud aws --address <a non-loopback address>`: the emulated AWS is served over
# the API's HTTPS with tidepool's CA, which --aws-config names (ca_bundle); every AWS request is
# still SigV4-verified and the Kubernetes API takes EKS tokens. The real aws CLI, kubectl through
# `aws eks update-kubeconfig`, and `tidepool autoscale --cloud-provider aws` (the CA bundle from
# the profile) all work over HTTPS; an unsigned AWS request is refused.
export PYENV_ROOT="${PYENV_ROOT:-$HOME/.pyenv}"
source "$(dirname "$0")/lib.sh"
command -v aws >/dev/null || fail "the aws CLI is not installed (issue 20 needs the real client)"
ADDR=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -E '^[0-9]+(\.[0-9]+){3}$' | grep -v '^127\.' | head -1 || true)
ADDR=${ADDR:-0.0.0.0}
HOST=$ADDR
[ "$HOST" = 0.0.0.0 ] && HOST=127.0.0.1
# The CA bundle must be the one --aws-config names: variables that override it (set on some
# machines, e.g. CI images) are left out here.
unset AWS_CA_BUNDLE REQUESTS_CA_BUNDLE CURL_CA_BUNDLE
export AWS_CONFIG_FILE="$WORK/aws/config" AWS_SHARED_CREDENTIALS_FILE="$WORK/aws/credentials"
export AWS_EC2_METADATA_DISABLED=true
start_up --cloud aws --address "$ADDR" --no-autoscaler --speed 60 --aws-config "$WORK/aws"
expect_in "$(cat "$AWS_CONFIG_FILE")" "endpoint_url = https://$HOST:$PORT"
expect_in "$(cat "$AWS_CONFIG_FILE")" "ca_bundle = $WORK/aws/ca.crt"

expect_in "$(aws eks list-nodegroups --cluster-name tidepool --query nodegroups --output text)" "system"
out=$(curl -s --cacert "$WORK/aws/ca.crt" -w '\n%{http_code}' "https://$HOST:$PORT/clusters/tidepool/node-groups")
expect_in "$out" "Request is missing Authentication Token"
[ "$(tail -1 <<<"$out")" = 403 ] || fail "an unsigned AWS request is refused" "$out"
pass "the aws CLI over HTTPS with --aws-config's CA bundle; unsigned requests refused"

export KUBECONFIG="$WORK/eks-kubeconfig"
aws eks update-kubeconfig --name tidepool >/dev/null
expect_match "$(k get nodes)" "ip-10-0-[0-9]+-[0-9]+\.us-west-2\.compute\.internal +Ready"
pass "kubectl over HTTPS with EKS tokens"

AS_KUBECONFIG="$WORK/kubeconfig"
AS_CLOUD_FLAGS=(--cloud-provider aws --node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled)
start_autoscale as-aws
wait_for 20 grep -q "Registering ASG eks-system-" "$WORK/as-aws.log" ||
  fail "tidepool autoscale over HTTPS" "$(cat "$WORK/as-aws.log")"
expect_not_in "$(cat "$WORK/as-aws.log")" "Failed to run autoscaler loop"
pass "tidepool autoscale --cloud-provider aws over HTTPS (the profile's ca_bundle)"
