// File: cluster_bootstrap.h
//
// What a new GKE cluster holds before anybody uses it, written by `tidepool up` at start into
// the API's object store (as kube-apiserver's bootstrap controller creates the system
// namespaces and GKE's addon manager installs the kube-system workloads):
//   - the namespaces default, kube-node-lease, kube-public, kube-system;
//   - GKE's storage (gke_storage): the CSIDriver pd.csi.storage.gke.io and the StorageClasses
//   standard-rwo
//     (the default; pd-balanced, WaitForFirstConsumer), premium-rwo (pd-ssd,
//     WaitForFirstConsumer) and standard (kubernetes.io/gce-pd, pd-standard, Immediate), as the
//     PD CSI driver addon installs them;
//   - kube-apiserver's RBAC bootstrap ClusterRoles and ClusterRoleBindings (bootstrap_policy.h)
//     and its system PriorityClasses system-node-critical and system-cluster-critical;
//   - with the GPU operator: namespace gpu-operator and the DaemonSet
//     nvidia-device-plugin-daemonset selecting nvidia.com/gpu.deploy.device-plugin=true (the
//     label the emulated cloud puts on GPU nodes, cloud::emulated gpu_operator_labels), as
//     `helm install gpu-operator` leaves them; the DaemonSet controller makes its pods;
//   - the kube-system pods cluster-autoscaler-<suffix> (when the embedded autoscaler runs; its
//     log is the autoscaler's) and kube-dns-<suffix>, bound to the first default-pool node
//     (suffixes from the cluster's and project's names, so a restart finds the same ones).
// And it removes what a run before a restart (--data-dir) left that is gone: Nodes of the
// emulated cloud (providerID gce://<project>/...) that the restored cloud has no VM for. Their
// pods are the pod garbage collector's, their Leases the garbage collector's. Nodes created
// through the API (KWOK's) are left alone.
//
// Everything is created only when missing: calling it on a restored store changes nothing
// that is there. Objects are written with origin "system".
#pragma once

#include <set>
#include <string>

#include "api/ipv4_cidr.h"
#include "apiserver/object_store.h"
#include "common/status_or.h"

namespace tidepool::runtime {

struct ClusterBootstrapOptions {
  std::string project;
  std::string cluster;
  bool gpu_operator = true;
  bool autoscaler_pod = false;
  // GKE's storage (the PD CSI driver's CSIDriver and StorageClasses); false on another cloud
  // (whose own storage addon is not emulated yet).
  bool gke_storage = true;
  // The service range: the kubernetes Service gets its first address, kube-dns its tenth.
  api::Ipv4Cidr service_range = *api::Ipv4Cidr::Parse("34.118.224.0/20");
  // The emulated cloud's registered VMs (= node names), after its restore.
  std::set<std::string> cloud_nodes;
};

// Returns the cluster-autoscaler pod's name ("" when there is none).
StatusOr<std::string> BootstrapCluster(apiserver::ObjectStore& store,
                                       const ClusterBootstrapOptions& options);

}  // namespace tidepool::runtime
