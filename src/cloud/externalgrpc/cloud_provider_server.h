// File: cloud_provider_server.h
//
// CloudProviderServer: any cloud::CloudProvider served as the Cluster Autoscaler's externalgrpc
// CloudProvider (externalgrpc.proto beside this file), so that the real CA, started with
// `--cloud-provider=externalgrpc --cloud-config=FILE`, scales that cloud's node groups. In
// `tidepool up` the cloud is the emulated GKE: CA's IncreaseSize starts VMs that boot, register
// their kubelet and install the GPU driver, as GKE's own CA would see them.
//
// What each call answers (CA 1.31.5's client, cloudprovider/externalgrpc):
//   NodeGroups            every autoscaled group: id, min, max, debug line
//   NodeGroupForNode      the node's group by the provider's own rule (labels, providerID), or
//                         a NodeGroup with id "" for a node CA must leave alone
//   GPULabel              the provider's GPU label; GetAvailableGPUTypes its GPU types
//   Refresh / Cleanup     the provider's Refresh; Cleanup has nothing to release
//   NodeGroupTargetSize / IncreaseSize / DeleteNodes (by node name) / DecreaseTargetSize
//                         the NodeGroup's, errors with the provider's text
//   NodeGroupNodes        instances by providerID, state creating / running / deleting, a
//                         failed one with its error code, message and CA's error class
//                         (1 OutOfResources for a stockout or quota, 99 Other)
//   NodeGroupTemplateNodeInfo  the group's template node as v1.Node in Kubernetes' protobuf
//                         encoding (scale from zero)
//   NodeGroupGetOptions   CA's defaults as sent (the provider has no per-group options, like
//                         GKE's), every field filled: CA 1.31 reads the durations unchecked
//   PricingNodePrice      the provider's PricingModel, by the node's labels; UNIMPLEMENTED
//                         (code 12, which CA reads as "not implemented") without one
//   PricingPodPrice       the PricingModel's PodPrice of the v1.Pod CA sends (protobuf);
//                         UNIMPLEMENTED without a model or without pod prices
// A group id no group has is NOT_FOUND; a provider error keeps its code (the codes of
// common/status.h are gRPC's) and its message.
//
// Threading: the provider is called only through `run`, which must run the closure it is given
// on the provider's thread and return once it has (tidepool up: its QueueExecutor), so
// gRPC's threads never touch the provider. Stop() (or the destructor) waits for calls in flight;
// it must not be called from the provider's thread while a call waits for that thread.
// Insecure transport only (loopback); CA's mTLS options (key, cert, cacert) are not served.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "cloud/cloud_provider.h"
#include "common/log.h"
#include "common/status_or.h"

namespace tidepool::cloud::externalgrpc {

class CloudProviderServer {
 public:
  using Runner = std::function<void(const std::function<void()>&)>;

  // Listens on `address` ("127.0.0.1:0" picks a free port) and serves `provider` (which must
  // outlive the server) through `run`. Calls that fail are logged to `logger` (may be null).
  // Unavailable when the address cannot be bound.
  static StatusOr<std::unique_ptr<CloudProviderServer>> Start(const std::string& address,
                                                              CloudProvider& provider, Runner run,
                                                              log::Logger* logger = nullptr);
  ~CloudProviderServer();
  CloudProviderServer(const CloudProviderServer&) = delete;
  CloudProviderServer& operator=(const CloudProviderServer&) = delete;

  // "host:port" with the port bound, for CA's cloud-config `address`.
  const std::string& address() const;
  int port() const;
  // Stops accepting calls and waits (at most a few seconds) for those in flight. Idempotent.
  void Stop();

 private:
  struct Impl;
  explicit CloudProviderServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// CA's cloud-config file for this server (cloudprovider/externalgrpc's cloudConfig):
// "address: <address>\n".
std::string CloudConfigYaml(const std::string& address);

}  // namespace tidepool::cloud::externalgrpc
