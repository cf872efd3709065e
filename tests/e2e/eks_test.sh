#!/usr/bin/env bash
# The seed walkthrough on EKS (issue 20's first acceptance): `tidepool up --cloud aws` and the real
# aws CLI and kubectl. create-nodegroup (g4dn.xlarge, min 0 max 5, taint, label) ->
# update-kubeconfig (kubectl authenticates with `aws eks get-token`) -> a GPU pod Pending with
# kube-scheduler's text -> scale-up 0->1 in the autoscaler's log with CA's wording, on the Auto
# Scaling group -> describe-auto-scaling-groups shows desired 1 and the instance -> the node
# (EKS's name, labels, providerID) Ready with nvidia.com/gpu -> Running -> delete -> back to 0
# -> delete-nodegroup and the nodegroup-deleted waiter.
export PYENV_ROOT="${PYENV_ROOT:-$HOME/.pyenv}"  # before lib.sh moves HOME (aws may be a pyenv shim)
source "$(dirname "$0")/lib.sh"
command -v aws >/dev/null || fail "the aws CLI is not installed (issue 20 needs the real client)"
export AWS_CONFIG_FILE="$WORK/aws/config" AWS_SHARED_CREDENTIALS_FILE="$WORK/aws/credentials"
export AWS_EC2_METADATA_DISABLED=true
start_up --cloud aws --speed 60 --aws-config "$WORK/aws"

out=$(aws sts get-caller-identity --query Account --output text)
expect_in "$out" "123456789012"
out=$(aws eks create-nodegroup --cluster-name tidepool --nodegroup-name gpu-ng \
  --scaling-config minSize=0,maxSize=5,desiredSize=0 --subnets subnet-0abc subnet-0def \
  --node-role arn:aws:iam::123456789012:role/NodeRole --instance-types g4dn.xlarge \
  --ami-type AL2_x86_64_GPU --labels app-type=gpu-workloads,k8s.amazonaws.com/accelerator=nvidia-tesla-t4 \
  --taints key=nvidia.com/gpu,value=present,effect=NO_SCHEDULE)
expect_in "$out" '"status": "CREATING"'
asg=$(aws eks describe-nodegroup --cluster-name tidepool --nodegroup-name gpu-ng \
  --query 'nodegroup.resources.autoScalingGroups[0].name' --output text)
expect_match "$asg" '^eks-gpu-ng-[0-9a-f-]{36}$'
aws eks wait nodegroup-active --cluster-name tidepool --nodegroup-name gpu-ng
out=$(aws eks create-nodegroup --cluster-name tidepool --nodegroup-name gpu-ng \
  --subnets s --node-role r 2>&1 || true)
expect_in "$out" "An error occurred (ResourceInUseException) when calling the CreateNodegroup operation: NodeGroup already exists with name gpu-ng and cluster name tidepool"

# Signatures are checked with the credentials tidepool issued (--aws-config's credentials file).
id=$(awk -F' = ' '/aws_access_key_id/ {print $2}' "$AWS_SHARED_CREDENTIALS_FILE")
out=$(AWS_ACCESS_KEY_ID="$id" AWS_SECRET_ACCESS_KEY=wrong aws autoscaling describe-auto-scaling-groups 2>&1 || true)
expect_in "$out" "An error occurred (SignatureDoesNotMatch) when calling the DescribeAutoScalingGroups operation: The request signature we calculated does not match the signature you provided."
out=$(AWS_ACCESS_KEY_ID="$id" AWS_SECRET_ACCESS_KEY=wrong aws eks list-nodegroups --cluster-name tidepool 2>&1 || true)
expect_in "$out" "An error occurred (InvalidSignatureException) when calling the ListNodegroups operation"
out=$(AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE AWS_SECRET_ACCESS_KEY=x aws sts get-caller-identity 2>&1 || true)
expect_in "$out" "An error occurred (InvalidClientTokenId) when calling the GetCallerIdentity operation: The security token included in the request is invalid."

# kubectl through EKS's kubeconfig: the exec plugin `aws eks get-token`.
export KUBECONFIG="$WORK/eks-kubeconfig"
out=$(aws eks update-kubeconfig --name tidepool)
expect_in "$out" "Added new context arn:aws:eks:us-west-2:123456789012:cluster/tidepool to $KUBECONFIG"
expect_in "$(cat "$KUBECONFIG")" "get-token"
k get nodes >/dev/null || fail "kubectl with the EKS kubeconfig"
# A token that does not check out is refused as kube-apiserver refuses it.
out=$(k --token "k8s-aws-v1.aHR0cHM6Ly9leGFtcGxlLmNvbS8_QWN0aW9uPUdldENhbGxlcklkZW50aXR5" get nodes 2>&1 || true)
expect_in "$out" "error: You must be logged in to the server (Unauthorized)"

cat >"$WORK/pod.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  name: gpu-test
spec:
  restartPolicy: Never
  tolerations:
  - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
  containers:
  - name: cuda
    image: nvidia/cuda:12.2.0-base-ubuntu22.04
    command: ["sleep", "3600"]
    resources:
      limits: {nvidia.com/gpu: 1}
YAML
k apply -f "$WORK/pod.yaml" >/dev/null
failed() { k get events --field-selector involvedObject.name=gpu-test,reason=FailedScheduling -o name | grep -q .; }
wait_for 30 failed || fail "FailedScheduling" "$(k get events)"
expect_match "$(k get events --field-selector involvedObject.name=gpu-test)" \
  "0/2 nodes are available: 2 Insufficient nvidia.com/gpu"
ca_pod=$(k get pods -n kube-system -o name | grep cluster-autoscaler | head -1)
scaled() { k logs -n kube-system "$ca_pod" | grep -qF "Scale-up: setting group $asg size to 1 instead of 0 (max: 5)"; }
wait_for 60 scaled || fail "CA's scale-up line" "$(k logs -n kube-system "$ca_pod" | tail -40)"
desired() { [ "$(aws autoscaling describe-auto-scaling-groups --auto-scaling-group-names "$asg" \
  --query 'AutoScalingGroups[0].DesiredCapacity' --output text)" = 1 ]; }
wait_for 30 desired || fail "ASG desired 1"
out=$(aws autoscaling describe-auto-scaling-groups --auto-scaling-group-names "$asg")
expect_match "$out" '"InstanceId": "i-0[0-9a-f]{16}"'
expect_in "$out" '"Key": "k8s.io/cluster-autoscaler/enabled"'
running() { [ "$(k get pod gpu-test -o jsonpath='{.status.phase}')" = Running ]; }
wait_for 120 running || fail "gpu-test Running" "$(k get pods,nodes -o wide)"
node=$(k get pod gpu-test -o jsonpath='{.spec.nodeName}')
expect_match "$node" '^ip-10-0-[0-9]+-[0-9]+\.us-west-2\.compute\.internal$'
labels=$(k get node "$node" --show-labels)
expect_in "$labels" "eks.amazonaws.com/nodegroup=gpu-ng"
expect_in "$labels" "eks.amazonaws.com/capacityType=ON_DEMAND"
expect_in "$labels" "node.kubernetes.io/instance-type=g4dn.xlarge"
expect_in "$(k get node "$node" -o jsonpath='{.spec.providerID} {.status.allocatable.nvidia\.com/gpu}')" "aws:///us-west-2"
expect_in "$(k get node "$node" -o jsonpath='{.status.allocatable.nvidia\.com/gpu}')" "1"
expect_in "$(k get node "$node" -o wide)" "v1.32.3-eks-473151a"
expect_in "$(k get node "$node" -o wide)" "Amazon Linux 2023"
id=$(k get node "$node" -o jsonpath='{.spec.providerID}'); id=${id##*/}
out=$(aws ec2 describe-instances --filters Name=tag:eks:nodegroup-name,Values=gpu-ng \
  --query 'Reservations[].Instances[].[InstanceId,State.Name,PrivateDnsName]' --output text)
expect_in "$out" "$id	running	$node"
expect_in "$(aws eks describe-nodegroup --cluster-name tidepool --nodegroup-name gpu-ng \
  --query nodegroup.scalingConfig.desiredSize)" "1"

k delete pod gpu-test --wait=false >/dev/null
gone() { ! k get nodes -o name | grep -q "$node" &&
  [ "$(aws autoscaling describe-auto-scaling-groups --auto-scaling-group-names "$asg" \
     --query 'AutoScalingGroups[0].DesiredCapacity' --output text)" = 0 ]; }
wait_for 150 gone || fail "back to 0" "$(k get nodes; tail -20 "$WORK/up.log")"

expect_in "$(aws eks delete-nodegroup --cluster-name tidepool --nodegroup-name gpu-ng \
  --query nodegroup.status --output text)" "DELETING"
aws eks wait nodegroup-deleted --cluster-name tidepool --nodegroup-name gpu-ng
expect_in "$(aws eks list-nodegroups --cluster-name tidepool --query nodegroups --output text)" "system"
pass "EKS walkthrough with the real aws CLI: 0 -> 1 -> 0 on g4dn.xlarge, node group deleted"
