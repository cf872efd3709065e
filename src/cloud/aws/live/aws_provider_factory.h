// File: aws_provider_factory.h
//
// The AWS provider (aws_cloud_provider.h) as the cloud registry knows it (cloud/registry.h): the
// name "aws", and how it is built from CA's options.
//
//   --nodes=MIN:MAX:ASG                    explicit Auto Scaling groups
//   --node-group-auto-discovery=asg:tag=K1,K2=V
//                                          groups found by tags (CA's syntax and texts)
//   --cloud-config FILE                    CA's AWS cloud config; its [ServiceOverride "N"]
//                                          sections (Service, Region, URL, SigningRegion;
//                                          SigningName and SigningMethod accepted) point a
//                                          service ("autoscaling", "ec2", "eks", "sts") of a
//                                          region at another endpoint; [Global] is read and
//                                          unused, as in CA
//
// Everything else as an AWS SDK finds it (aws_settings.h): the region (AWS_REGION, ...,
// else IMDSv2), endpoints (AWS_ENDPOINT_URL[_<SERVICE>], the profile's endpoint_url; a cloud
// config's override wins), credentials (aws_credentials.h: keys, IRSA web identity, IMDSv2),
// AWS_MAX_ATTEMPTS (attempts, CA's reading: retries = the value), the CA bundle to trust
// (AWS_CA_BUNDLE, the profile's ca_bundle). Each service's endpoint is
// passed to the environment's credential check (it carries signatures and session tokens),
// autoscaling, ec2, eks, sts in that order.
//
// Built: a libcurl client, the credential source (its first credentials fetched: a chain that
// gives none fails the build, and the log names the source), an AwsClient and the provider.
#pragma once

#include "cloud/registry.h"

namespace tidepool::cloud::aws::live {

CloudProviderRegistration AwsProviderRegistration();

}  // namespace tidepool::cloud::aws::live
