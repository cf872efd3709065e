#!/usr/bin/env bash
# The seed walkthrough on EKS with the real aws CLI and kubectl, against `tidepool up --cloud aws`
# (or, without the first block, against a real EKS cluster named $CLUSTER with the Cluster
# Autoscaler installed; give real subnets and a node role then).
#
#   bash examples/eks/walkthrough.sh
set -euo pipefail
CLUSTER=${CLUSTER:-tidepool}
WORK=$(mktemp -d)
trap 'kill $UP 2>/dev/null || true; rm -rf "$WORK"' EXIT

# 0. An emulated EKS cluster on loopback, 60x faster than real time.
tidepool up --cloud aws --speed 60 --aws-config "$WORK/aws" --port-file "$WORK/port" >"$WORK/up.log" 2>&1 &
UP=$!
until [ -s "$WORK/port" ]; do sleep 0.2; done
export AWS_CONFIG_FILE="$WORK/aws/config" AWS_SHARED_CREDENTIALS_FILE="$WORK/aws/credentials"
export AWS_EC2_METADATA_DISABLED=true KUBECONFIG="$WORK/kubeconfig"

# 1. A GPU node group at 0 nodes: g4dn.xlarge (1 x T4), tainted, labelled for CA's GPU handling.
aws eks create-nodegroup --cluster-name "$CLUSTER" --nodegroup-name gpu-ng \
  --scaling-config minSize=0,maxSize=5,desiredSize=0 --subnets subnet-0abc subnet-0def \
  --node-role arn:aws:iam::123456789012:role/NodeRole --instance-types g4dn.xlarge \
  --ami-type AL2_x86_64_GPU \
  --labels app-type=gpu-workloads,k8s.amazonaws.com/accelerator=nvidia-tesla-t4 \
  --taints key=nvidia.com/gpu,value=present,effect=NO_SCHEDULE --query nodegroup.status
aws eks wait nodegroup-active --cluster-name "$CLUSTER" --nodegroup-name gpu-ng
aws eks update-kubeconfig --name "$CLUSTER"
kubectl get nodes

# 2. A pod that needs a GPU: Pending, then the autoscaler raises the Auto Scaling group 0 -> 1.
kubectl apply -f - <<'POD'
apiVersion: v1
kind: Pod
metadata: {name: gpu-test}
spec:
  restartPolicy: Never
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
  containers:
  - name: cuda
    image: nvidia/cuda:12.2.0-base-ubuntu22.04
    command: ["sleep", "300"]
    resources: {limits: {nvidia.com/gpu: 1}}
POD
kubectl wait --for=condition=PodScheduled=false pod/gpu-test --timeout=30s || true
kubectl get events --field-selector involvedObject.name=gpu-test
kubectl wait --for=condition=Ready pod/gpu-test --timeout=180s
aws autoscaling describe-auto-scaling-groups \
  --query 'AutoScalingGroups[?contains(AutoScalingGroupName, `gpu-ng`)].[AutoScalingGroupName,DesiredCapacity,Instances[0].InstanceId]' \
  --output text
kubectl get pod gpu-test -o wide

# 3. Done: the group goes back to 0 after 10 idle minutes (10 s at --speed 60), then goes.
kubectl delete pod gpu-test
until [ -z "$(kubectl get nodes -l eks.amazonaws.com/nodegroup=gpu-ng -o name)" ]; do sleep 2; done
aws eks describe-nodegroup --cluster-name "$CLUSTER" --nodegroup-name gpu-ng \
  --query nodegroup.scalingConfig
aws eks delete-nodegroup --cluster-name "$CLUSTER" --nodegroup-name gpu-ng --query nodegroup.status
aws eks wait nodegroup-deleted --cluster-name "$CLUSTER" --nodegroup-name gpu-ng
