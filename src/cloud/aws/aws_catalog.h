// File: aws_catalog.h
//
// AwsCatalog(): the EC2 instance types the emulated EKS cloud offers, as an emulated::Catalog:
//   - shapes (vCPUs, memory in MiB, built-in NVIDIA GPUs) as cluster-autoscaler's static AWS
//     instance-type table has them; MachineType::family is the part of the name before the dot
//     ("g4dn" for "g4dn.xlarge"); no type is shared-core (t3 is burstable, but its CPU credits
//     are not modelled);
//   - on-demand prices in USD per hour (us-east-1, Linux) from Karpenter's generated price
//     table; spot prices are a model, 0.7 x on-demand, not AWS's spot market;
//   - MachineType::max_pods: the EKS AMI's max pods for the instance type with the VPC CNI's
//     defaults (no prefix delegation): ENIs x (IPv4 addresses per ENI - 1) + 2;
//   - accelerator types for the built-in GPUs, named as values of k8s.amazonaws.com/accelerator
//     ("nvidia-tesla-t4", ...), each with NVIDIA GPU Feature Discovery's nvidia.com/gpu.product
//     value. AWS counts GPU quota in vCPUs, so quota_metric is empty; AWS GPUs come built into
//     their instance types, so nothing is attachable and accelerator prices are 0 (the instance
//     price includes the GPUs).
//
// Resolve() gives a GPU instance type its built-in GPUs; a request naming another accelerator
// or count, or any accelerator on a CPU type, is rejected with emulated::Catalog's (GCE-worded)
// errors. Every type is offered in every zone (AWS offers some GPU types only in some zones;
// restrict them with Catalog::SetZones). Source files, commits and tags: aws_catalog.cc.
#pragma once

#include <string_view>

#include "cloud/emulated/catalog.h"
#include "cloud/emulated/emulated_cloud.h"

namespace tidepool::cloud::aws {

// The instance types the emulated EKS offers, GPUs built in (AWS GPU instances have no
// attachable GPUs).
emulated::Catalog AwsCatalog();

// The emulated cloud as EKS: AwsCatalog() and EksNodeStyle() (eks_node_style.h). A scenario's
// `cluster.cloud: aws` and `tidepool up --cloud aws`.
void UseEks(emulated::EmulatedCloudOptions& options);

// The label CA's AWS provider (cloudprovider/aws: GPULabel) and EKS users put GPU types under.
// EKS does not set it: users add it as a node group label. Its values are the accelerator names
// of AwsCatalog(), a GKE-style convention (CA's AWS README: "On P2 instances, for example, the
// value is `nvidia-tesla-k80`"). Same string as kLabelAwsGpu in eks_node_style.h.
inline constexpr std::string_view kLabelAwsAccelerator = "k8s.amazonaws.com/accelerator";

}  // namespace tidepool::cloud::aws
