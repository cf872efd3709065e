// File: registry.h
//
// NewInTreeRegistry: the one explicit list of tidepool's scheduling plugins (kube-scheduler's
// plugins/registry.go). No plugin registers itself.
#pragma once

#include "scheduler/framework/runtime/registry.h"

namespace tidepool::scheduler::plugins {

Registry NewInTreeRegistry();

}  // namespace tidepool::scheduler::plugins
