// File: providers.h
//
// NewCloudProviderRegistry: the one explicit list of the clouds `tidepool autoscale` can drive
// (CA's cloudprovider/builder/builder_all.go). No provider registers itself; a new cloud is a
// folder under cloud/ with its registration (cloud/registry.h) and one line here.
//
// Today: "gke" (cloud/gke/live/gke_provider_factory.h). The emulated cloud of `tidepool up` and
// `tidepool simulate` is not here: those commands build it as part of the emulated cluster,
// never by name.
#pragma once

#include "cloud/registry.h"

namespace tidepool::cloud {

// A fresh registry holding every provider.
CloudProviderRegistry NewCloudProviderRegistry();

}  // namespace tidepool::cloud
