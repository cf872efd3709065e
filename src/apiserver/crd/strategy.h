// File: crd/strategy.h
//
// The strategies of apiextensions-apiserver 1.32, as admission.h calls them:
//   - CustomResourceDefinition (apiextensions.k8s.io/v1): defaults (names.singular the kind in
//     lower case, names.listKind kind + "List", conversion strategy None, status.storedVersions);
//     on create the cleanup finalizer and the status the naming and establishing controllers
//     write (acceptedNames, NamesAccepted and Established True); on update the status kept and
//     acceptedNames following spec.names; validation of names, scope, versions (exactly one
//     storage version), schemas (required and structural: structural.h) and printer columns,
//     with kube's texts.
//   - custom resources (a Resource with `custom` set): pruning (Prune), schema defaults and
//     validation; with a status subresource, an update of the main resource keeps the stored
//     status (PrepareForUpdate).
// Pure; nothing throws.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/field_error.h"
#include "apiserver/resources.h"

namespace tidepool::apiserver::crd {

bool IsDefinition(const Resource& r);

void DefaultDefinition(nlohmann::json& crd);
void PrepareDefinitionForCreate(nlohmann::json& crd);
void PrepareDefinitionForUpdate(nlohmann::json& crd, const nlohmann::json& old);
api::FieldErrors ValidateDefinition(const nlohmann::json& crd, const nlohmann::json* old);

// Removes what `r`'s schema does not specify; returns the removed paths.
std::vector<std::string> Prune(const Resource& r, nlohmann::json& object);
// The unknown fields Prune would remove, without removing them.
std::vector<std::string> UnknownFields(const Resource& r, const nlohmann::json& object);
void DefaultCustom(const Resource& r, nlohmann::json& object);
api::FieldErrors ValidateCustom(const Resource& r, const nlohmann::json& object);
// A custom resource with a status subresource is created without status.
void PrepareCustomForCreate(const Resource& r, nlohmann::json& object);
void PrepareCustomForUpdate(const Resource& r, nlohmann::json& object, const nlohmann::json& old);

}  // namespace tidepool::apiserver::crd
