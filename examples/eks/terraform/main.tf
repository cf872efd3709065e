# The seed walkthrough's GPU node pool on EKS, as a Terraform module: a managed node group of
# g4dn.xlarge (1 x T4) at 0 nodes, min 0 max 5, tainted nvidia.com/gpu=present:NoSchedule and
# labelled for CA's AWS provider (k8s.amazonaws.com/accelerator), whose Auto Scaling group EKS
# tags for the Cluster Autoscaler's auto-discovery.
#
# Against `tidepool up --cloud aws --aws-config DIR` (see README.md here): set `endpoint` to the
# URL tidepool prints and the credentials to those in DIR/credentials. Against real AWS: drop
# the endpoint and skip_* settings and give real subnets and a node role.

terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.100"
    }
  }
}

variable "endpoint" {
  description = "tidepool's AWS endpoint (http://127.0.0.1:PORT); empty for real AWS"
  type        = string
  default     = ""
}
variable "region" {
  type    = string
  default = "us-west-2"
}
variable "cluster_name" {
  type    = string
  default = "tidepool"
}
variable "subnet_ids" {
  type    = list(string)
  default = ["subnet-0abc", "subnet-0def"]
}
variable "node_role_arn" {
  type    = string
  default = "arn:aws:iam::123456789012:role/NodeRole"
}

provider "aws" {
  region = var.region
  # An emulated AWS has no IMDS and no account lookup.
  skip_credentials_validation = var.endpoint != ""
  skip_requesting_account_id  = var.endpoint != ""
  skip_metadata_api_check     = var.endpoint != ""
  skip_region_validation      = var.endpoint != ""
  dynamic "endpoints" {
    for_each = var.endpoint == "" ? [] : [var.endpoint]
    content {
      eks         = endpoints.value
      autoscaling = endpoints.value
      ec2         = endpoints.value
      sts         = endpoints.value
    }
  }
}

resource "aws_eks_node_group" "gpu" {
  cluster_name    = var.cluster_name
  node_group_name = "gpu-ng"
  node_role_arn   = var.node_role_arn
  subnet_ids      = var.subnet_ids
  instance_types  = ["g4dn.xlarge"]
  ami_type        = "AL2_x86_64_GPU"

  scaling_config {
    min_size     = 0
    max_size     = 5
    desired_size = 0
  }

  labels = {
    "app-type"                      = "gpu-workloads"
    "k8s.amazonaws.com/accelerator" = "nvidia-tesla-t4"
  }

  taint {
    key    = "nvidia.com/gpu"
    value  = "present"
    effect = "NO_SCHEDULE"
  }

  # The Cluster Autoscaler owns the size once the group exists.
  lifecycle {
    ignore_changes = [scaling_config[0].desired_size]
  }
}

output "autoscaling_group" {
  value = aws_eks_node_group.gpu.resources[0].autoscaling_groups[0].name
}
