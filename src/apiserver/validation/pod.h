// File: pod.h
//
// Pods and pod templates (pkg/apis/core/validation: ValidatePodCreate / ValidatePodUpdate,
// ValidatePodTemplateSpec), with kube-apiserver 1.32's texts. One pod-spec check serves both:
// a template's spec is validated as a pod's, and its field paths are put under the template's
// path ("spec.containers[0].image" becomes "spec.template.spec.containers[0].image").
//
// The pod-spec checks (ValidatePodSpecOf): containers required, each container's name and
// image required, restartPolicy one of Always / OnFailure / Never, then api/validation.h's
// ValidatePodForScheduling (resources, node affinity, tolerations). No count limit on
// containers: kube-apiserver has none; the object size limit (api_server.cc) is what stops a
// pod of 10,000 containers, as etcd's request limit does in a real cluster.
//
// All functions take decoded JSON whose types may still be wrong (they are checked before
// use); a pod spec that does not decode as a Pod is InvalidArgument (a 400, as kube's decoder
// refuses it before validation).
#pragma once

#include <string_view>

#include "apiserver/validation/fields.h"
#include "common/status.h"

namespace tidepool::apiserver::validation {

// The spec of `pod` (a Pod, or {"metadata": ..., "spec": ...}) at paths "spec....".
Status ValidatePodSpecOf(const json& pod, api::FieldErrors* errors);

// A Pod: ObjectMeta, spec; on update (`old` not null) ObjectMeta update rules and spec
// immutability (only images, activeDeadlineSeconds, tolerations additions and
// terminationGracePeriodSeconds may change).
Status ValidatePod(const json& object, const json* old, api::FieldErrors* errors);

// ValidatePodTemplateSpec of `tmpl` (a PodTemplateSpec, may be null) at `path` (e.g.
// "spec.template"): labels at <path>.labels, annotations at <path>.annotations, the spec at
// <path>.spec; ephemeral containers are forbidden. `kind` names the object in decoding
// errors ("Deployment").
Status ValidatePodTemplate(const json* tmpl, std::string_view path, std::string_view kind,
                           api::FieldErrors* errors);

}  // namespace tidepool::apiserver::validation
