// File: gke_provider_factory.h
//
// The live GKE provider (gke_cloud_provider.h) as the cloud registry knows it (cloud/registry.h):
// the name "gke", its flags, and how it is built.
//
//   --project, --location, --cluster-name   the cluster (all three required)
//   --gke-api-endpoint, --compute-api-endpoint
//                                           other GKE / Compute Engine API endpoints (e.g.
//                                           `tidepool up`'s), each ending in '/'
//   --gcp-token-file                        the OAuth access token, re-read when it changes
//   --gcp-credentials-file                  a service-account key (default
//                                           $GOOGLE_APPLICATION_CREDENTIALS; without either,
//                                           the GCE metadata server)
//   --gcp-no-auth                           no OAuth token at all (tidepool up)
//
// CA's --nodes=MIN:MAX:POOL name the node groups (else the pools with GKE autoscaling on);
// a bad one is refused with CA's GCE text, "--nodes: failed to parse node group spec: ...".
// --cloud-config is refused: the provider reads no configuration file (CA's GCE gce.conf
// settings are the flags above).
//
// Built: a libcurl client with HttpClientTransport, the token source (token_source.h), and the
// provider. The endpoints are passed to the environment's credential check first (with
// "sends credentials" unless --gcp-no-auth), in the order --gke-api-endpoint,
// --compute-api-endpoint.
#pragma once

#include "cloud/registry.h"

namespace tidepool::cloud::gke::live {

CloudProviderRegistration GkeProviderRegistration();

}  // namespace tidepool::cloud::gke::live
