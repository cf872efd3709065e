// File: resource_printers.h
//
// The per-resource printers behind printers.h (internal to the library). Each one is the port of
// one print<Kind> function of kube-apiserver 1.32's pkg/printers/internalversion/printers.go,
// reading the stored v1 JSON instead of the internal Go type, with Wide output.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "apiserver/printers/printers.h"
#include "common/clock.h"

namespace tidepool::apiserver::printers::internal {

struct Printer {
  std::vector<Column> columns;
  // One row's cells, one per column. Must not throw for any JSON input.
  std::function<nlohmann::json(const nlohmann::json& object, TimePoint now)> cells;
  // The row's "conditions" (metav1.TableRowCondition list), or null for none. Optional.
  nlohmann::json (*conditions)(const nlohmann::json& object) = nullptr;
};

// nullptr when (group, resource) has no printer of its own.
const Printer* FindPrinter(std::string_view group, std::string_view resource);

// The default table convertor (apiserver rest.NewDefaultTableConvertor).
const Printer& DefaultPrinter();

// Defined in pods.cc, core_printers.cc, group_printers.cc and storage_printers.cc.
Printer MakePodPrinter();
Printer MakeNodePrinter();
Printer MakeEventPrinter();  // core/v1 events, and events.k8s.io/v1's (stored as core's)
Printer MakeNamespacePrinter();
Printer MakeComponentStatusPrinter();
Printer MakeConfigMapPrinter();
Printer MakeResourceQuotaPrinter();
Printer MakeSecretPrinter();
Printer MakeServiceAccountPrinter();
Printer MakeServicePrinter();
Printer MakeEndpointsPrinter();
Printer MakePersistentVolumeClaimPrinter();
Printer MakePersistentVolumePrinter();
Printer MakeReplicationControllerPrinter();
Printer MakePodTemplatePrinter();
Printer MakeDeploymentPrinter();
Printer MakeControllerRevisionPrinter();
Printer MakeDaemonSetPrinter();
Printer MakeReplicaSetPrinter();
Printer MakeStatefulSetPrinter();
Printer MakeHpaPrinter();
Printer MakeCronJobPrinter();
Printer MakeJobPrinter();
Printer MakeIngressPrinter();
Printer MakeIngressClassPrinter();
Printer MakeCertificateSigningRequestPrinter();
Printer MakeLeasePrinter();
Printer MakeEndpointSlicePrinter();
Printer MakePodDisruptionBudgetPrinter();
Printer MakeRoleBindingPrinter();
Printer MakeClusterRoleBindingPrinter();
Printer MakePriorityClassPrinter();
Printer MakeStorageClassPrinter();
Printer MakeCsiDriverPrinter();
Printer MakeCsiNodePrinter();
Printer MakeCsiStorageCapacityPrinter();

}  // namespace tidepool::apiserver::printers::internal
