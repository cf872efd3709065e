#!/usr/bin/env bash
# Issue 20's fourth acceptance: `tidepool autoscale --cloud-provider aws` as a separate process
# against `tidepool up --cloud aws --no-autoscaler`, over SigV4-signed HTTP only (libcurl signs;
# the emulator verifies with the credentials it issued). The aws CLI creates a g4dn.xlarge node
# group at 0 with CA's discovery tags on its ASG; the autoscaler finds it by
# --node-group-auto-discovery, scales it 0 -> 1 for a GPU pod with CA's wording
# (SetDesiredCapacity), the node joins and the pod runs, and once the pod is gone the node is
# removed (TerminateInstanceInAutoScalingGroup, desired capacity decremented) back to 0. A
# second autoscaler with a wrong secret gets AWS's SignatureDoesNotMatch from the emulator; a
# third runs on IRSA credentials (--aws-config's web identity token exchanged at STS).
export PYENV_ROOT="${PYENV_ROOT:-$HOME/.pyenv}"  # before lib.sh moves HOME (aws may be a pyenv shim)
source "$(dirname "$0")/lib.sh"
command -v aws >/dev/null || fail "the aws CLI is not installed (issue 20 needs the real client)"
export AWS_CONFIG_FILE="$WORK/aws/config" AWS_SHARED_CREDENTIALS_FILE="$WORK/aws/credentials"
export AWS_EC2_METADATA_DISABLED=true
start_up --cloud aws --speed 60 --no-autoscaler --aws-config "$WORK/aws"

aws eks create-nodegroup --cluster-name tidepool --nodegroup-name gpu-ng \
  --scaling-config minSize=0,maxSize=5,desiredSize=0 --subnets subnet-0abc \
  --node-role arn:aws:iam::123456789012:role/NodeRole --instance-types g4dn.xlarge \
  --ami-type AL2_x86_64_GPU --labels k8s.amazonaws.com/accelerator=nvidia-tesla-t4 \
  --taints key=nvidia.com/gpu,value=present,effect=NO_SCHEDULE >/dev/null
aws eks wait nodegroup-active --cluster-name tidepool --nodegroup-name gpu-ng
asg=$(aws eks describe-nodegroup --cluster-name tidepool --nodegroup-name gpu-ng \
  --query 'nodegroup.resources.autoScalingGroups[0].name' --output text)
expect_match "$asg" '^eks-gpu-ng-[0-9a-f-]{36}$'

# deploy/'s EKS variant is accepted (RBAC, the IRSA ServiceAccount, the Deployment).
out=$(k apply -f "$SRC/deploy/01-rbac.yaml" -f "$SRC/deploy/eks/" 2>&1) || fail "kubectl apply deploy/eks" "$out"
expect_in "$out" "serviceaccount/tidepool-autoscaler created"
expect_in "$out" "deployment.apps/tidepool-autoscaler created"
expect_in "$(k get sa tidepool-autoscaler -n kube-system -o yaml)" "eks.amazonaws.com/role-arn"
k delete deployment tidepool-autoscaler -n kube-system >/dev/null

# The autoscaler finds its settings as an AWS SDK does: region and endpoint from the config
# file tidepool wrote, keys from its credentials file.
AS_CLOUD_FLAGS=(--cloud-provider aws
  --node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/tidepool)
start_autoscale as-aws
wait_for 20 grep -q "Registering ASG $asg" "$WORK/as-aws.log" ||
  fail "ASG discovered" "$(cat "$WORK/as-aws.log")"
pass "the ASG of gpu-ng discovered by its tags"

gpu_pod gpu-test | k apply -f - >/dev/null
wait_for 60 grep -qF "Scale-up: setting group $asg size to 1 instead of 0 (max: 5)" "$WORK/as-aws.log" ||
  fail "CA's scale-up line" "$(tail -40 "$WORK/as-aws.log")"
expect_in "$(cat "$WORK/as-aws.log")" "Setting asg $asg size to 1"
desired() { [ "$(aws autoscaling describe-auto-scaling-groups --auto-scaling-group-names "$asg" \
  --query 'AutoScalingGroups[0].DesiredCapacity' --output text)" = 1 ]; }
wait_for 30 desired || fail "ASG desired 1"
running() { [ "$(k get pod gpu-test -o jsonpath='{.status.phase}')" = Running ]; }
wait_for 120 running || fail "gpu-test Running" "$(k get pods,nodes -o wide; tail -30 "$WORK/as-aws.log")"
node=$(k get pod gpu-test -o jsonpath='{.spec.nodeName}')
expect_match "$node" '^ip-10-0-[0-9]+-[0-9]+\.us-west-2\.compute\.internal$'
expect_in "$(k get node "$node" -o jsonpath='{.spec.providerID}')" "aws:///us-west-2a/i-"
pass "scale-up 0 -> 1 by SetDesiredCapacity, node $node Ready, pod Running"

k delete pod gpu-test --wait=false >/dev/null
wait_for 120 grep -qF "Scale-down: removing empty node \"$node\"" "$WORK/as-aws.log" ||
  fail "CA's scale-down line" "$(tail -40 "$WORK/as-aws.log")"
gone() { ! k get nodes -o name | grep -q "$node" &&
  [ "$(aws autoscaling describe-auto-scaling-groups --auto-scaling-group-names "$asg" \
     --query 'AutoScalingGroups[0].DesiredCapacity' --output text)" = 0 ]; }
wait_for 120 gone || fail "back to 0" "$(k get nodes; tail -30 "$WORK/as-aws.log")"
out=$(aws autoscaling describe-scaling-activities --auto-scaling-group-name "$asg" \
  --query 'Activities[].Description' --output text)
expect_in "$out" "Terminating EC2 instance"
pass "scale-down by TerminateInstanceInAutoScalingGroup, back to 0"
stop_autoscalers

# IRSA: no keys, a web identity token file (as EKS's webhook mounts it) exchanged at the
# emulated STS for temporary credentials, which then sign every call with their session token.
# The environment's web identity comes before the credentials file's keys (the SDKs' order).
AWS_ROLE_ARN=arn:aws:iam::123456789012:role/tidepool-autoscaler \
  AWS_WEB_IDENTITY_TOKEN_FILE="$WORK/aws/web-identity-token" start_autoscale as-irsa
wait_for 20 grep -q "Registering ASG $asg" "$WORK/as-irsa.log" ||
  fail "ASG discovered with IRSA credentials" "$(cat "$WORK/as-irsa.log")"
expect_not_in "$(cat "$WORK/as-irsa.log")" "Failed to run autoscaler loop"
expect_in "$(cat "$WORK/as-irsa.log")" "AWS region us-west-2, credentials from web identity (ASIA"
stop_autoscalers
out=$(AWS_SHARED_CREDENTIALS_FILE="$WORK/no-credentials" aws sts assume-role-with-web-identity \
  --role-arn arn:aws:iam::123456789012:role/ca --role-session-name probe \
  --web-identity-token "$(cat "$WORK/aws/web-identity-token")" \
  --query '[AssumedRoleUser.Arn,SubjectFromWebIdentityToken]' --output text)
expect_in "$out" "arn:aws:sts::123456789012:assumed-role/ca/probe	system:serviceaccount:kube-system:tidepool-autoscaler"
out=$(AWS_SHARED_CREDENTIALS_FILE="$WORK/no-credentials" aws sts assume-role-with-web-identity \
  --role-arn arn:aws:iam::123456789012:role/x --role-session-name probe \
  --web-identity-token "$(cat "$WORK/aws/web-identity-token")x" 2>&1 || true)
expect_in "$out" "An error occurred (InvalidIdentityToken) when calling the AssumeRoleWithWebIdentity operation"
pass "IRSA: the web identity token exchanged at STS, temporary credentials accepted; a forged token refused"

# A wrong secret: the emulator refuses libcurl's signature with AWS's code and text.
AWS_SECRET_ACCESS_KEY=wrong AWS_ACCESS_KEY_ID=$(awk -F' = ' '/aws_access_key_id/ {print $2}' \
  "$AWS_SHARED_CREDENTIALS_FILE") start_autoscale as-bad
wait_for 20 grep -q "SignatureDoesNotMatch: The request signature we calculated does not match the signature you provided" "$WORK/as-bad.log" ||
  fail "SignatureDoesNotMatch" "$(cat "$WORK/as-bad.log")"
expect_in "$(cat "$WORK/as-bad.log")" "status code: 403"
pass "a bad signature gets SignatureDoesNotMatch from the emulator"
