// File: batch.h
//
// batch/v1 Job: kube-apiserver 1.32's defaults (pkg/apis/batch/v1/defaults.go), its
// create-time selector generation (pkg/registry/batch/job/strategy.go, generateSelector) and
// validation (pkg/apis/batch/validation/validation.go), with its texts.
//
// DefaultJob (every write): completions and parallelism 1 when both unset, parallelism 1,
// backoffLimit 6 (2147483647 with backoffLimitPerIndex), completionMode NonIndexed, suspend
// false, podReplacementPolicy TerminatingOrFailed (Failed with a podFailurePolicy),
// manualSelector false; metadata.labels from the template's labels when the Job has none.
// PrepareJobForCreate: unless manualSelector, the template gets the labels
// batch.kubernetes.io/controller-uid, controller-uid (the Job's uid),
// batch.kubernetes.io/job-name and job-name (its name), where not set, and the selector
// matchLabels batch.kubernetes.io/controller-uid; status is cleared.
// ValidateJob: ObjectMeta; a generated selector's labels present on the template ("Required
// value: must be '<uid>'") and the selector selecting them ("`selector` not auto-generated");
// parallelism, completions, activeDeadlineSeconds, backoffLimit, ttlSecondsAfterFinished,
// backoffLimitPerIndex, maxFailedIndexes not negative; completionMode NonIndexed or Indexed
// and its rules; podReplacementPolicy; the template validated as a pod's with restartPolicy
// OnFailure or Never (`spec.template.spec.restartPolicy: Required value: valid values:
// "OnFailure", "Never"` for Always); the selector required, valid and matching the template.
// On update: selector, template (except scheduling directives of a suspended Job that never
// started), completionMode, podFailurePolicy, backoffLimitPerIndex, managedBy and
// successPolicy immutable ("field is immutable"); completions too, except in tandem with
// parallelism for Indexed Jobs. Not checked: podFailurePolicy and successPolicy rules,
// managedBy syntax, status.
//
// batch/v1 CronJob (SetDefaults_CronJob, ValidateCronJobCreate / ValidateCronJobUpdate):
// DefaultCronJob sets concurrencyPolicy Allow, suspend false, successfulJobsHistoryLimit 3,
// failedJobsHistoryLimit 1. ValidateCronJob: ObjectMeta (a DNS-1123 subdomain, and on create at
// most 52 characters); spec.schedule required and parsed as the controller parses it
// (api/cron_schedule.h; robfig's error as the detail), TZ= / CRON_TZ= refused unless the old
// schedule had one; spec.timeZone (when new or changed) by IANA's naming rules, not "Local",
// and known to the tz database; concurrencyPolicy Allow, Forbid or Replace; the job template's
// JobSpec as a Job's (without the selector rules) with no selector ("`selector` will be
// auto-generated") and no manualSelector; startingDeadlineSeconds and the history limits not
// negative.
#pragma once

#include "apiserver/validation/fields.h"
#include "common/status.h"

namespace tidepool::apiserver::validation {

void DefaultJob(json& object);
// REQUIRES: metadata.uid is the uid the Job will be stored with.
void PrepareJobForCreate(json& object);
Status ValidateJob(const json& object, const json* old, api::FieldErrors* errors);
void DefaultCronJob(json& object);
Status ValidateCronJob(const json& object, const json* old, api::FieldErrors* errors);

}  // namespace tidepool::apiserver::validation
