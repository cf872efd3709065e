// File: aws_api.h
//
// AwsApi: the AWS surface the real aws CLI (1.45, botocore 1.43) drives for EKS managed node
// groups, served by `tidepool up --cloud aws` over the emulated cloud's pools (the wire shapes:
// ../shared/reference/cloud-apis.md §3). Transport-free: it takes an AwsRequest and returns an
// AwsResponse; `tidepool up` routes the requests IsAwsRequest() recognises here. One endpoint
// serves every service; a request's service is its SigV4 credential scope's
// (`Credential=AKID/<date>/<region>/<service>/aws4_request`), else EKS for paths under
// /clusters and the Query protocol's Version for `POST /` (AwsServiceOf).
//
// Served:
//   eks (REST-JSON)   GET /clusters, GET /clusters/C (describe-cluster, update-kubeconfig),
//                     POST/GET /clusters/C/node-groups (create, list),
//                     GET/DELETE /clusters/C/node-groups/N (describe, delete),
//                     POST /clusters/C/node-groups/N/update-config (scaling config, labels,
//                     taints), GET /clusters/C/node-groups/N/updates (list-updates),
//                     GET /clusters/C/updates/ID?nodegroupName=N (describe-update)
//   autoscaling (Query, XML)  DescribeAutoScalingGroups (names; filters tag-key, tag-value,
//                     tag:<key>), SetDesiredCapacity, UpdateAutoScalingGroup,
//                     TerminateInstanceInAutoScalingGroup, CreateOrUpdateTags, DeleteTags,
//                     DescribeTags, DescribeScalingActivities
//   ec2 (EC2 Query, XML)  DescribeInstances (instance ids; filters instance-id,
//                     instance-state-name, instance-type, availability-zone, private-dns-name,
//                     tag:<key>, tag-key), DescribeInstanceTypes, DescribeLaunchTemplates,
//                     DescribeLaunchTemplateVersions (EKS's per node group template)
//   sts (Query, XML)  GetCallerIdentity, AssumeRoleWithWebIdentity (IRSA: a token of the
//                     verifier's web identity key for temporary credentials; unsigned)
//
// Model. One EKS cluster, the emulated one (EksClusterInfo). A node group is an emulated pool of
// the same name (autoscaling on, min/max from scalingConfig, size = desiredSize; the pool's
// labels and taints are the node group's), backed by one Auto Scaling group
// "eks-<nodegroup>-<uuid>" (uuid = the node group ARN's last part) that is the autoscaler's node
// group (NodePoolSpec::group_id). The ASG carries EKS's tags (eks:cluster-name,
// eks:nodegroup-name, k8s.io/cluster-autoscaler/enabled, k8s.io/cluster-autoscaler/<cluster>,
// kubernetes.io/cluster/<cluster>) and the ones users add; PropagateAtLaunch tags show on the
// instances. The ASG's DesiredCapacity is the pool's target size (so a scale-up by the
// autoscaler shows in describe-nodegroup's desiredSize, as on EKS), its instances the pool's
// VMs: Pending while the VM boots, InService when running, Terminating while it stops; failed
// launches are not instances and show as failed scaling activities. A node group is CREATING
// until its first instances are running (ACTIVE at once for desiredSize 0), DELETING while its
// VMs stop and gone (404) afterwards. Subnet i of a node group is in the cluster's zone
// i mod zones (the emulated VPC); instance types: the first of instanceTypes (EKS's default
// t3.medium), from the AWS catalog.
//
// Node groups created here keep their EKS metadata (ARN uuid, subnets, role, AMI type, tags,
// updates) in memory only; a pool without metadata (a `tidepool up --config` pool, or one
// restored from --data-dir) is shown with metadata derived from its name.
//
// Errors are AWS's shapes: EKS 4xx with x-amzn-ErrorType and {"message"}; Query services
// <ErrorResponse><Error><Type/><Code/><Message/></Error><RequestId/></ErrorResponse>; EC2
// <Response><Errors><Error><Code/><Message/></Error></Errors><RequestID/></Response>. Messages
// are AWS's where known (each marked in aws_api.cc). Never 500 (botocore retries those).
//
// Threading: Handle() is thread-safe (one mutex); it calls GkeControl (the emulated cloud's
// control, on the cloud's thread) with the mutex held.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cloud/aws/sigv4.h"
#include "cloud/emulated/catalog.h"
#include "cloud/gke/gke_api.h"
#include "common/clock.h"
#include "common/random.h"

namespace tidepool::cloud::aws {

// What EKS reports about the one cluster.
struct EksClusterInfo {
  std::string account = "123456789012";
  std::string name = "tidepool";
  std::string region = "us-west-2";
  // The zones of the cluster's subnets, in order; empty: region + "a", "b", "c".
  std::vector<std::string> zones;
  // The Kubernetes API as update-kubeconfig writes it: "https://host:port".
  std::string endpoint;
  std::string ca_pem;  // PEM of the CA that signed the endpoint's certificate
  std::string version = "1.32";
  std::string platform_version = "eks.9";
  TimePoint created{};
  std::string service_ipv4_cidr = "10.100.0.0/16";
};

struct AwsRequest {
  std::string method;
  std::string path;  // percent-decoded, no query
  std::multimap<std::string, std::string> query;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
};

struct AwsResponse {
  int status = 200;
  std::string content_type;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

// "eks", "autoscaling", "ec2", "sts" or "" (see the file comment).
std::string AwsServiceOf(const AwsRequest& request);
// Whether `tidepool up` should route the request here: a SigV4 Authorization header, a path
// under /clusters, or a form POST to "/".
bool IsAwsRequest(std::string_view method, std::string_view path,
                  const std::map<std::string, std::string>& headers);

// Also a CloudObserver of the emulated cloud it fronts (register it with AddObserver): failed
// launches are kept as the Auto Scaling group's Failed scaling activities (the last 50 per node
// group), as an ASG keeps them after the autoscaler gave the instance up.
class AwsApi final : public emulated::CloudObserver {
 public:
  // `control`, `catalog`, `clock` and `verifier` must outlive the api. `seed` seeds the ids it
  // makes (node group ARNs, request ids, update ids). With a verifier, every request must be
  // signed (SigV4) with credentials it knows, else 403 with AWS's code (EKS:
  // InvalidSignatureException, UnrecognizedClientException, MissingAuthenticationTokenException;
  // the Query services: SignatureDoesNotMatch, InvalidClientTokenId, MissingAuthenticationToken).
  AwsApi(gke::GkeControl& control, const emulated::Catalog& catalog, EksClusterInfo cluster,
         const Clock& clock, uint64_t seed, SigV4Verifier* verifier = nullptr);
  ~AwsApi();
  AwsApi(const AwsApi&) = delete;
  AwsApi& operator=(const AwsApi&) = delete;

  AwsResponse Handle(const AwsRequest& request);
  void OnCloudEvent(const emulated::CloudEvent& event) override;

  // The api's state (aws_api.cc); public only so that its helpers there can name it.
  struct State;
  // A failed launch, kept per pool (newest last; their own lock: the cloud's thread records
  // them while Handle, holding its lock, may wait for that thread).
  struct FailedLaunch {
    TimePoint at;
    std::string message;
  };

 private:
  AwsResponse HandleLocked(const AwsRequest& request);

  std::unique_ptr<State> state_;
  SigV4Verifier* const verifier_;
  std::mutex mu_;
  std::mutex failures_mu_;
  std::map<std::string, std::vector<FailedLaunch>, std::less<>> failures_;
};

}  // namespace tidepool::cloud::aws
