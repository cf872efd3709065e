#include "cloud/aws/aws_catalog.h"

#include <cstdint>
#include <string>

#include "cloud/aws/eks_node_style.h"

namespace tidepool::cloud::aws {
namespace {

namespace emu = cloud::emulated;

// ---- The EKS table ----------------------------------------------------------------------------
//
// Shapes (vCPUs, memory in MiB, GPU count): cluster-autoscaler's static table,
// kubernetes/autoscaler cluster-autoscaler/cloudprovider/aws/ec2_instance_types.go at tag
// cluster-autoscaler-1.31.5 (commit f0fb6c4b57, StaticListLastUpdateTime "2025-05-27").
// p5.4xlarge is not in that list: its row is from the same file at cluster-autoscaler-1.35.0
// (commit 25fc5c74f6, "2026-01-22"); every other row is unchanged there and in 1.36.1.
//
// GPU model of each family: the karpenter.k8s.aws/instance-gpu-name and instance-gpu-memory
// labels in aws/karpenter-provider-aws website/content/en/docs/reference/instance-types.md (same
// commit as the prices; generated from EC2's instance-type data): t4, a10g, l4, l40s, v100 with
// 32768 MiB on p3dn, a100 with 40960 MiB (p4d) and 81920 MiB (p4de), h100, h200. That page
// agrees with the rows below on vCPUs, memory, GPU count and pods. It does not list p3, whose
// V100 16 GB is AWS's published P3 specification.
//
// Prices (USD/hour, on-demand, us-east-1, Linux): aws/karpenter-provider-aws
// pkg/providers/pricing/zz_generated.pricing_aws.go at commit 1d927085dd81 ("generated at
// 2026-07-20T13:44:30Z for us-east-1"; anchors-and-data.md section 4.2). Not live list prices.
// Spot: there is no static source. Spot = kSpotFactor x on-demand, the model of Karpenter's fake
// (KWOK) cloud provider (kubernetes-sigs/karpenter designs/kwok-provider.md, cited in
// anchors-and-data.md section 4.2); AWS's real spot prices vary by zone and over time ("up to
// 90%" off).
//
// Max pods: awslabs/amazon-eks-ami templates/shared/runtime/eni-max-pods.txt at commit
// 2377b69aae (2026-02-27, the file's last update; commit 72b60466fb deleted it on 2026-03-19 as
// "no longer installed into AMIs"). Its formula: ENIs x (IPv4 addresses per ENI - 1) + 2, counting
// only network card 0 on multi-card types, hence p5.48xlarge's 100 (2 ENIs x 49 + 2), below
// p5.4xlarge's 118. nodeadm/internal/kubelet/instance-info.jsonl (commit 4d63a3bc2d, 2026-07-01),
// which nodeadm now computes max pods from, gives the same value for every row here; it no
// longer lists p3.
//
// Not included: p5e.48xlarge (absent from CA's table and from the us-east-1 price table).

// A row of the table; the family is the name's part before the dot.
struct InstanceRow {
  const char* name;
  int vcpus;
  int64_t memory_mib;
  const char* builtin;  // accelerator name, "" for CPU-only types
  int builtin_count;
  double price;  // on-demand
  int max_pods;
};

constexpr double kSpotFactor = 0.7;

constexpr InstanceRow kInstances[] = {
    // t3 (burstable; full vCPUs here: CPU credits are not modelled).
    {"t3.medium", 2, 4096, "", 0, 0.0416, 17},
    {"t3.large", 2, 8192, "", 0, 0.0832, 35},
    // m5, m6i: general purpose, 4 GiB per vCPU.
    {"m5.large", 2, 8192, "", 0, 0.096, 29},
    {"m5.xlarge", 4, 16384, "", 0, 0.192, 58},
    {"m5.2xlarge", 8, 32768, "", 0, 0.384, 58},
    {"m5.4xlarge", 16, 65536, "", 0, 0.768, 234},
    {"m6i.large", 2, 8192, "", 0, 0.096, 29},
    {"m6i.xlarge", 4, 16384, "", 0, 0.192, 58},
    {"m6i.2xlarge", 8, 32768, "", 0, 0.384, 58},
    // c5: compute optimised, 2 GiB per vCPU.
    {"c5.xlarge", 4, 8192, "", 0, 0.17, 58},
    {"c5.2xlarge", 8, 16384, "", 0, 0.34, 58},
    // g4dn: NVIDIA T4 16 GB.
    {"g4dn.xlarge", 4, 16384, "nvidia-tesla-t4", 1, 0.526, 29},
    {"g4dn.2xlarge", 8, 32768, "nvidia-tesla-t4", 1, 0.752, 29},
    {"g4dn.4xlarge", 16, 65536, "nvidia-tesla-t4", 1, 1.204, 29},
    {"g4dn.8xlarge", 32, 131072, "nvidia-tesla-t4", 1, 2.176, 58},
    {"g4dn.12xlarge", 48, 196608, "nvidia-tesla-t4", 4, 3.912, 234},
    {"g4dn.16xlarge", 64, 262144, "nvidia-tesla-t4", 1, 4.352, 58},
    {"g4dn.metal", 96, 393216, "nvidia-tesla-t4", 8, 7.824, 737},
    // g5: NVIDIA A10G 24 GB.
    {"g5.xlarge", 4, 16384, "nvidia-a10g", 1, 1.006, 58},
    {"g5.2xlarge", 8, 32768, "nvidia-a10g", 1, 1.212, 58},
    {"g5.4xlarge", 16, 65536, "nvidia-a10g", 1, 1.624, 234},
    {"g5.8xlarge", 32, 131072, "nvidia-a10g", 1, 2.448, 234},
    {"g5.12xlarge", 48, 196608, "nvidia-a10g", 4, 5.672, 737},
    {"g5.16xlarge", 64, 262144, "nvidia-a10g", 1, 4.096, 234},
    {"g5.24xlarge", 96, 393216, "nvidia-a10g", 4, 8.144, 737},
    {"g5.48xlarge", 192, 786432, "nvidia-a10g", 8, 16.288, 345},
    // g6: NVIDIA L4 24 GB.
    {"g6.xlarge", 4, 16384, "nvidia-l4", 1, 0.8048, 58},
    {"g6.2xlarge", 8, 32768, "nvidia-l4", 1, 0.9776, 58},
    {"g6.4xlarge", 16, 65536, "nvidia-l4", 1, 1.3232, 234},
    {"g6.8xlarge", 32, 131072, "nvidia-l4", 1, 2.0144, 234},
    {"g6.12xlarge", 48, 196608, "nvidia-l4", 4, 4.6016, 234},
    {"g6.16xlarge", 64, 262144, "nvidia-l4", 1, 3.3968, 737},
    {"g6.24xlarge", 96, 393216, "nvidia-l4", 4, 6.6752, 737},
    {"g6.48xlarge", 192, 786432, "nvidia-l4", 8, 13.3504, 737},
    // g6e: NVIDIA L40S 48 GB.
    {"g6e.xlarge", 4, 32768, "nvidia-l40s", 1, 1.861, 58},
    {"g6e.2xlarge", 8, 65536, "nvidia-l40s", 1, 2.24208, 58},
    {"g6e.4xlarge", 16, 131072, "nvidia-l40s", 1, 3.00424, 234},
    {"g6e.8xlarge", 32, 262144, "nvidia-l40s", 1, 4.52856, 234},
    {"g6e.12xlarge", 48, 393216, "nvidia-l40s", 4, 10.49264, 292},
    {"g6e.16xlarge", 64, 524288, "nvidia-l40s", 1, 7.57719, 737},
    {"g6e.24xlarge", 96, 786432, "nvidia-l40s", 4, 15.06559, 492},
    {"g6e.48xlarge", 192, 1572864, "nvidia-l40s", 8, 30.13118, 492},
    // p3: NVIDIA V100 SXM2 16 GB.
    {"p3.2xlarge", 8, 62464, "nvidia-tesla-v100", 1, 3.06, 58},
    {"p3.8xlarge", 32, 249856, "nvidia-tesla-v100", 4, 12.24, 234},
    {"p3.16xlarge", 64, 499712, "nvidia-tesla-v100", 8, 24.48, 234},
    // p3dn: NVIDIA V100 SXM2 32 GB.
    {"p3dn.24xlarge", 96, 786432, "nvidia-tesla-v100-32gb", 8, 31.212, 737},
    // p4d: NVIDIA A100 SXM4 40 GB.
    {"p4d.24xlarge", 96, 1179648, "nvidia-tesla-a100", 8, 21.957642, 737},
    // p4de: NVIDIA A100 SXM4 80 GB.
    {"p4de.24xlarge", 96, 1179648, "nvidia-a100-80gb", 8, 27.44705, 737},
    // p5: NVIDIA H100 SXM 80 GB HBM3. p5.4xlarge: shape from CA 1.35.0 (see above).
    {"p5.4xlarge", 16, 262144, "nvidia-h100", 1, 6.88, 118},
    {"p5.48xlarge", 192, 2097152, "nvidia-h100", 8, 55.04, 100},
    // p5en: NVIDIA H200 141 GB.
    {"p5en.48xlarge", 192, 2097152, "nvidia-h200", 8, 63.296, 198},
};

// AWS GPUs are built into their instance types: no attach limits, no price of their own, no GPU
// quota metric (AWS's EC2 quotas count vCPUs per instance family).
emu::AcceleratorType BuiltIn(const char* name, const char* product) {
  return emu::AcceleratorType{name, product, "", {}, 0, 0};
}

}  // namespace

emu::Catalog AwsCatalog() {
  emu::Catalog c;
  for (const InstanceRow& r : kInstances) {
    const std::string name = r.name;
    c.AddMachineType(emu::MachineType{
        .name = name,
        .family = name.substr(0, name.find('.')),
        .vcpus = r.vcpus,
        .memory_mib = r.memory_mib,
        .shared_core = false,
        .builtin_accelerator = r.builtin,
        .builtin_accelerator_count = r.builtin_count,
        .price_per_hour = r.price,
        .spot_price_per_hour = r.price * kSpotFactor,
        .max_pods = r.max_pods,
    });
  }
  // Product names: what NVIDIA GPU Feature Discovery puts in nvidia.com/gpu.product (the NVML
  // device name with spaces replaced by '-'), as in emulated::Catalog::Gke(). p3dn's V100s are
  // the 32 GB part, which GFD labels differently from p3's 16 GB one, hence a type of its own.
  c.AddAcceleratorType(BuiltIn("nvidia-tesla-t4", "Tesla-T4"));
  c.AddAcceleratorType(BuiltIn("nvidia-a10g", "NVIDIA-A10G"));
  c.AddAcceleratorType(BuiltIn("nvidia-l4", "NVIDIA-L4"));
  c.AddAcceleratorType(BuiltIn("nvidia-l40s", "NVIDIA-L40S"));
  c.AddAcceleratorType(BuiltIn("nvidia-tesla-v100", "Tesla-V100-SXM2-16GB"));
  c.AddAcceleratorType(BuiltIn("nvidia-tesla-v100-32gb", "Tesla-V100-SXM2-32GB"));
  c.AddAcceleratorType(BuiltIn("nvidia-tesla-a100", "NVIDIA-A100-SXM4-40GB"));
  c.AddAcceleratorType(BuiltIn("nvidia-a100-80gb", "NVIDIA-A100-SXM4-80GB"));
  c.AddAcceleratorType(BuiltIn("nvidia-h100", "NVIDIA-H100-80GB-HBM3"));
  c.AddAcceleratorType(BuiltIn("nvidia-h200", "NVIDIA-H200"));
  return c;
}

void UseEks(emulated::EmulatedCloudOptions& options) {
  options.catalog = AwsCatalog();
  options.style = &EksNodeStyle();
}

}  // namespace tidepool::cloud::aws
