// File: eks_node_style.h
//
// EksNodeStyle(): the emulated cloud's NodeStyle for Amazon EKS managed node groups, as an
// Amazon Linux 2023 (or AL2) EKS-optimised AMI's kubelet registers them:
//   - node name = the instance's private DNS name, "ip-10-0-<a>-<b>.<region>.compute.internal"
//     ("ip-...ec2.internal" in us-east-1); providerID "aws:///<zone>/i-<17 hex>" (the instance
//     ID is the part after the last '/');
//   - labels: kubernetes.io/hostname (the node name), arch and os (and their beta forms),
//     node.kubernetes.io/instance-type, topology.kubernetes.io/zone and region (and the
//     failure-domain beta forms), topology.k8s.aws/zone-id, eks.amazonaws.com/nodegroup,
//     eks.amazonaws.com/capacityType (ON_DEMAND / SPOT) and eks.amazonaws.com/nodegroup-image.
//     EKS sets no GPU label: k8s.amazonaws.com/accelerator, CA's GPU label on AWS, is the user's
//     (a node group label), as CA's AWS documentation asks;
//   - capacity: cpu, memory, ephemeral-storage (the root volume, GiB), pods = the instance
//     type's max pods (MachineType::max_pods, the VPC CNI's ENI limit; 110 when unknown);
//     allocatable = capacity minus the EKS AMI's kube-reserved (cpu: 6% of the first core, 1%
//     of the second, 0.5% of the next two, 0.25% above four; memory: 11 MiB per max pod + 255
//     MiB; ephemeral-storage: 1 GiB) and its hard eviction thresholds (memory.available 100 MiB,
//     nodefs.available 10%);
//   - no automatic GPU taint (EKS taints only what the node group's `taints` say).
// Deviation: zone IDs are per account on AWS; here "<region abbreviation>-az<n>" with n the
// zone letter's place (us-west-2a -> usw2-az1).
#pragma once

#include "cloud/emulated/node_style.h"

namespace tidepool::cloud::aws {

inline constexpr std::string_view kLabelEksNodegroup = "eks.amazonaws.com/nodegroup";
inline constexpr std::string_view kLabelEksCapacityType = "eks.amazonaws.com/capacityType";
inline constexpr std::string_view kLabelEksNodegroupImage = "eks.amazonaws.com/nodegroup-image";
inline constexpr std::string_view kLabelAwsZoneId = "topology.k8s.aws/zone-id";
// CA's GPU label on AWS (cloudprovider/aws: GPULabel).
inline constexpr std::string_view kLabelAwsGpu = "k8s.amazonaws.com/accelerator";

const emulated::NodeStyle& EksNodeStyle();

// A UUID derived from `seed`, the same in every run: the uuid of a node group that was not
// created through the EKS API (a config's or a scenario's pool; its ASG is "eks-<name>-<uuid>",
// as EKS names them), and the ids of the scaling activities the emulated ASGs report.
std::string DerivedUuid(std::string_view seed);
// "us-west-2" for "us-west-2a".
std::string AwsRegionOf(std::string_view zone);
// "i-0123456789abcdef0" from "aws:///us-west-2a/i-0123456789abcdef0" (everything after the
// zone: CA's placeholder ids hold their ASG's name, which may hold '/'); "" for another form.
std::string InstanceIdOf(std::string_view provider_id);
// The private DNS suffix of a region: "ec2.internal" for us-east-1, else
// "<region>.compute.internal".
std::string PrivateDnsSuffix(std::string_view region);
// The emulated EKS-optimised AMI IDs (for GPU instances and others): the nodes'
// eks.amazonaws.com/nodegroup-image label, the launch templates' and instances' imageId.
std::string EksAmiId(bool gpu);
// EKS's taint effects (NO_SCHEDULE, NO_EXECUTE, PREFER_NO_SCHEDULE) and Kubernetes' (nullopt for
// another text).
std::string_view EksEffect(api::TaintEffect effect);
std::optional<api::TaintEffect> ParseEksEffect(std::string_view effect);

}  // namespace tidepool::cloud::aws
