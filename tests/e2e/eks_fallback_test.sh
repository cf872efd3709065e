#!/usr/bin/env bash
# A stockout on EKS (issue 20): g4dn.xlarge has no capacity, a g5.2xlarge node group is the
# fallback. With the real aws CLI and kubectl against `tidepool up --cloud aws`: the autoscaler
# first picks g4dn (least waste), the launch fails with EC2's InsufficientInstanceCapacity (a
# Failed scaling activity, the node group's AsgInstanceLaunchFailures health issue), the
# autoscaler reports it as CA's AWS provider does (OutOfResource.placeholder-cannot-be-fulfilled)
# and scales the g5 group in the same loop; the pod runs on g5.
# With the argument `external`, the autoscaler is `tidepool autoscale --cloud-provider aws` in its
# own process (`tidepool up --no-autoscaler`), reading the failure from the Auto Scaling group's
# scaling activities over SigV4-signed HTTP, as CA's AWS provider does.
MODE=${1:-embedded}
export PYENV_ROOT="${PYENV_ROOT:-$HOME/.pyenv}"
source "$(dirname "$0")/lib.sh"
command -v aws >/dev/null || fail "the aws CLI is not installed (issue 20 needs the real client)"
export AWS_CONFIG_FILE="$WORK/aws/config" AWS_SHARED_CREDENTIALS_FILE="$WORK/aws/credentials"
export AWS_EC2_METADATA_DISABLED=true
cat >"$WORK/cluster.yaml" <<'YAML'
cluster: {project: "123456789012", name: tidepool, zone: us-west-2a}
cloud:
  faults:
    stockout: [{machineType: g4dn.xlarge}]
nodePools:
- name: system
  machineType: m5.large
  initialNodeCount: 2
  minNodes: 2
  maxNodes: 2
YAML
if [ "$MODE" = external ]; then
  start_up --cloud aws --speed 60 --no-autoscaler --config "$WORK/cluster.yaml" --aws-config "$WORK/aws"
else
  start_up --cloud aws --speed 60 --config "$WORK/cluster.yaml" --aws-config "$WORK/aws"
fi
for spec in g4dn:g4dn.xlarge g5:g5.2xlarge; do
  aws eks create-nodegroup --cluster-name tidepool --nodegroup-name "${spec%%:*}" \
    --scaling-config minSize=0,maxSize=3,desiredSize=0 --subnets subnet-0abc \
    --node-role arn:aws:iam::123456789012:role/NodeRole --instance-types "${spec#*:}" \
    --ami-type AL2_x86_64_GPU --labels "k8s.amazonaws.com/accelerator=gpu" \
    --taints key=nvidia.com/gpu,value=present,effect=NO_SCHEDULE >/dev/null
done
asg() { aws eks describe-nodegroup --cluster-name tidepool --nodegroup-name "$1" \
  --query 'nodegroup.resources.autoScalingGroups[0].name' --output text; }
g4dn=$(asg g4dn)
g5=$(asg g5)
# Requests that waste less of g4dn.xlarge (4 vCPUs, 16 GiB) than of g5.2xlarge (8, 32): the
# least-waste expander's first choice is g4dn.
k apply -f - >/dev/null <<'POD'
apiVersion: v1
kind: Pod
metadata: {name: g1}
spec:
  restartPolicy: Never
  containers:
  - name: cuda
    image: nvidia/cuda:12.2.0-base-ubuntu22.04
    command: ["sleep", "3600"]
    resources:
      requests: {cpu: "2", memory: 8Gi}
      limits: {nvidia.com/gpu: 1}
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
POD
if [ "$MODE" = external ]; then
  AS_CLOUD_FLAGS=(--cloud-provider aws --node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled)
  start_autoscale as-aws
  log() { cat "$WORK/as-aws.log"; }
else
  ca_pod=$(k get pods -n kube-system -o name | grep cluster-autoscaler | head -1)
  log() { k logs -n kube-system "$ca_pod"; }
fi
first() { log | grep -qF "Scale-up: setting group $g4dn size to 1 instead of 0 (max: 3)"; }
wait_for 60 first || fail "scale-up of g4dn first" "$(log | tail -30)"
failed() { log | grep -qF "Failed adding 1 nodes (1 unseen previously) to group $g4dn due to OutOfResource.placeholder-cannot-be-fulfilled"; }
wait_for 90 failed || fail "the stockout seen as CA's AWS provider reports it" "$(log | tail -30)"
fallback() { log | grep -qF "Scale-up: setting group $g5 size to 1 instead of 0 (max: 3)"; }
wait_for 30 fallback || fail "fallback to g5" "$(log | tail -30)"
# The same loop: the failure and the fallback's scale-up are logged less than half a scan
# interval (1 s) apart (the embedded autoscaler stamps a loop's lines with the loop's time; a
# separate process with each line's).
secs() { awk '{split($2, t, ":"); printf "%.6f\n", t[1] * 3600 + t[2] * 60 + t[3]}'; }
t_fail=$(log | grep -F "Failed adding 1 nodes (1 unseen previously) to group $g4dn" | head -1 | secs)
t_up=$(log | grep -F "Scale-up: setting group $g5 size to 1" | head -1 | secs)
awk -v a="$t_fail" -v b="$t_up" 'BEGIN { d = b - a; exit !(d >= 0 && d < 0.5) }' ||
  fail "fallback in the same loop ($t_fail vs $t_up)" "$(log | tail -30)"
out=$(aws autoscaling describe-scaling-activities --auto-scaling-group-name "$g4dn" \
  --query 'Activities[0].[StatusCode,StatusMessage]' --output text)
expect_in "$out" "Failed	Could not launch On-Demand Instances. InsufficientInstanceCapacity - We currently do not have sufficient g4dn.xlarge capacity in the Availability Zone you requested (us-west-2a)."
expect_in "$(aws eks describe-nodegroup --cluster-name tidepool --nodegroup-name g4dn \
  --query 'nodegroup.health.issues[0].code' --output text)" "AsgInstanceLaunchFailures"
running() { [ "$(k get pod g1 -o jsonpath='{.status.phase}')" = Running ]; }
wait_for 120 running || fail "g1 Running" "$(k get pods,nodes -o wide)"
expect_in "$(k get node "$(k get pod g1 -o jsonpath='{.spec.nodeName}')" --show-labels)" \
  "node.kubernetes.io/instance-type=g5.2xlarge"
pass "EKS stockout ($MODE autoscaler): g4dn's launch fails with InsufficientInstanceCapacity, g5 scales in the same loop"
