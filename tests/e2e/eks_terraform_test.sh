#!/usr/bin/env bash
# Terraform on EKS (issue 20): the real Terraform 1.11 with the hashicorp/aws provider 5.100
# (from the filesystem mirror at /opt/tf-plugins) applies examples/eks/terraform against
# `tidepool up --cloud aws`: the node group exists as the aws CLI sees it (EKS and its Auto
# Scaling group), `terraform plan` afterwards shows no changes, `terraform destroy` removes it.
export PYENV_ROOT="${PYENV_ROOT:-$HOME/.pyenv}"
source "$(dirname "$0")/lib.sh"
command -v terraform >/dev/null || fail "terraform is not installed (issue 20 needs the real client)"
command -v aws >/dev/null || fail "the aws CLI is not installed (issue 20 needs the real client)"
[ -d /opt/tf-plugins/registry.terraform.io/hashicorp/aws ] || fail "no hashicorp/aws provider in /opt/tf-plugins"
export AWS_CONFIG_FILE="$WORK/aws/config" AWS_SHARED_CREDENTIALS_FILE="$WORK/aws/credentials"
export AWS_EC2_METADATA_DISABLED=true TF_IN_AUTOMATION=1 CHECKPOINT_DISABLE=1
export TF_CLI_CONFIG_FILE="$WORK/terraformrc" TF_DATA_DIR="$WORK/tf-data"
cat >"$TF_CLI_CONFIG_FILE" <<'HCL'
provider_installation {
  filesystem_mirror {
    path    = "/opt/tf-plugins"
    include = ["registry.terraform.io/hashicorp/aws"]
  }
  direct {
    exclude = ["registry.terraform.io/hashicorp/aws"]
  }
}
HCL
start_up --cloud aws --speed 60 --aws-config "$WORK/aws"
mkdir -p "$WORK/tf"
cp "$SRC/examples/eks/terraform/main.tf" "$WORK/tf/"
cd "$WORK/tf"
tf() {  # the credentials tidepool issued, as Terraform's provider reads them
  AWS_ACCESS_KEY_ID=$(awk -F' = ' '/aws_access_key_id/ {print $2}' "$AWS_SHARED_CREDENTIALS_FILE") \
  AWS_SECRET_ACCESS_KEY=$(awk -F' = ' '/aws_secret_access_key/ {print $2}' "$AWS_SHARED_CREDENTIALS_FILE") \
    terraform "$@" -no-color -input=false -var "endpoint=http://127.0.0.1:$PORT"
}
terraform init -no-color -input=false >"$WORK/init.log" 2>&1 || fail "terraform init" "$(cat "$WORK/init.log")"
out=$(tf apply -auto-approve 2>&1) || fail "terraform apply" "$out"
expect_in "$out" "Apply complete! Resources: 1 added, 0 changed, 0 destroyed."
asg=$(terraform output -raw autoscaling_group)
expect_match "$asg" '^eks-gpu-ng-[0-9a-f-]{36}$'

out=$(aws eks describe-nodegroup --cluster-name tidepool --nodegroup-name gpu-ng \
  --query 'nodegroup.[status,instanceTypes[0],scalingConfig.maxSize,taints[0].effect,labels."app-type"]' --output text)
expect_in "$out" "ACTIVE	g4dn.xlarge	5	NO_SCHEDULE	gpu-workloads"
out=$(aws autoscaling describe-auto-scaling-groups --auto-scaling-group-names "$asg" \
  --query 'AutoScalingGroups[0].[MinSize,MaxSize,DesiredCapacity]' --output text)
expect_in "$out" "0	5	0"

set +e
out=$(tf plan -detailed-exitcode 2>&1)
rc=$?
set -e
[ $rc -eq 0 ] || fail "terraform plan after apply: exit $rc (2 = changes)" "$out"
expect_in "$out" "No changes. Your infrastructure matches the configuration."

out=$(tf destroy -auto-approve 2>&1) || fail "terraform destroy" "$out"
expect_in "$out" "Destroy complete! Resources: 1 destroyed."
expect_not_in "$(aws eks list-nodegroups --cluster-name tidepool --query nodegroups --output text)" "gpu-ng"
expect_in "$(aws autoscaling describe-auto-scaling-groups --query 'AutoScalingGroups[].AutoScalingGroupName' --output text)" "eks-system-"
expect_not_in "$(aws autoscaling describe-auto-scaling-groups --query 'AutoScalingGroups[].AutoScalingGroupName' --output text)" "$asg"
pass "Terraform: apply creates the EKS node group and its ASG, plan shows no changes, destroy removes it"
