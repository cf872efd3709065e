// File: shared_informers.h
//
// SharedInformerFactory: client-go's informers.SharedInformerFactory (v0.32) for the actors of
// one process. kube-controller-manager builds one factory and hands it to all its
// controllers, so that the ReplicaSet, Job, StatefulSet, DaemonSet, garbage-collector and
// pod-GC controllers read pods through one list+watch, one decode per event and one cache;
// `tidepool up` runs kube-scheduler, the kubelets, the embedded autoscaler and the controllers
// in one process on one API, and shares the same way across all of them.
//
// Sharing rule: two InformerOptions get the same informer when their path, label selector,
// field selector, cache mode (cache_metadata_only), drop_managed_fields and transform_name are
// equal and either both have no transform or transform_name is set (a transform is a function:
// only its name says two are the same). Anything else gets an informer of its own, made by the
// factory all the same. The first caller's name, seed, backoff and page size are the shared
// informer's.
//
// Lifecycle, as client-go's: every consumer gets its informer and adds its handlers first
// (Informer::AddEventHandlers requires that the informer has not started), then Start()
// starts them all; a consumer's own Start()/Stop() of a shared informer is harmless (Start
// is idempotent; Stop stops it for every consumer, which is what a process that shuts down
// wants: handlers are never called once any owner's Stop returned). The factory's
// destructor stops what it made.
//
// Driven (`tidepool simulate`): with SetDriver, every informer the factory makes is driven by
// that driver (informer.h's driven mode), and Start() hands each to it.
//
// MakeInformer is what a component calls: from the factory when it was given one, a private
// informer otherwise (a component used alone, in `tidepool autoscale` or a test).
//
// Thread-safe.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "client/informer.h"

namespace tidepool::client {

class SharedInformerFactory {
 public:
  // `client` and `clock` must outlive the factory; `logger` may be null.
  SharedInformerFactory(const RestClient& client, const Clock& clock,
                        log::Logger* logger = nullptr);
  ~SharedInformerFactory();
  SharedInformerFactory(const SharedInformerFactory&) = delete;
  SharedInformerFactory& operator=(const SharedInformerFactory&) = delete;

  // The informer for `options` (see the sharing rule).
  std::shared_ptr<Informer> InformerFor(InformerOptions options);

  // Every informer made from now on is driven by `driver` (see the file comment). REQUIRES:
  // before the first InformerFor; `driver` outlives the factory's informers' feeds.
  void SetDriver(InformerDriver* driver);

  // Starts every informer made so far that has not started.
  void Start();
  // Stops them all (together, see StopAll).
  void Stop();

  // How many informers the factory made, and how many InformerFor calls it answered.
  size_t informers() const;
  size_t requests() const;
  // Every informer made so far, in the order made (a driver that feeds them by hand instead
  // of starting them: `tidepool simulate`, the controllers' executor tests).
  std::vector<std::shared_ptr<Informer>> All() const;

 private:
  const RestClient& client_;
  const Clock& clock_;
  log::Logger* const logger_;
  InformerDriver* driver_ = nullptr;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<Informer>> shared_;
  std::vector<std::shared_ptr<Informer>> all_;
  size_t requests_ = 0;
};

// From `factory` when it is not null, otherwise a new informer on `client`.
std::shared_ptr<Informer> MakeInformer(SharedInformerFactory* factory, const RestClient& client,
                                       const Clock& clock, InformerOptions options,
                                       log::Logger* logger);
// MakeInformer with DecodingInformerOptions(name, path, seed) (informer.h): the informer of a
// component whose handlers decode what they keep.
std::shared_ptr<Informer> MakeDecodingInformer(SharedInformerFactory* factory,
                                               const RestClient& client, const Clock& clock,
                                               std::string name, std::string path, uint64_t seed,
                                               log::Logger* logger);

}  // namespace tidepool::client
